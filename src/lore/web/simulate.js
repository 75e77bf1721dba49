// The GM's simulation page: asks the server to run `lore sim` on the session's rules and
// shows the report it sends (the page of `lore sim --report`, its style sheet allowed by
// the server's content policy). The GM's token comes in the fragment, as on the table.

import { initialLanguage, setLanguage, currentLanguage, t, tf } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const token = decodeURIComponent(location.hash.slice(1));
const session = new URLSearchParams(location.search).get("session") || "";
const REFUSED = { 403: "simulateGmOnly", 503: "simulateBusy", 504: "simulateTooLong" };

function tell(text) {
  $("simulateStatus").textContent = text;
}

async function problemOf(response) {
  try {
    const body = await response.json();
    return (body.problems && body.problems[0] && body.problems[0].message) || String(response.status);
  } catch {
    return String(response.status);
  }
}

function show(page) {
  const found = new DOMParser().parseFromString(page, "text/html");
  const style = found.querySelector("style");
  if (style && !document.getElementById("reportStyle")) {
    const own = document.createElement("style");
    own.id = "reportStyle";
    own.textContent = style.textContent;
    document.head.append(own);
  }
  const main = found.querySelector("main");
  $("report").replaceChildren(...(main ? [document.importNode(main, true)] : []));
}

async function simulate(event) {
  event.preventDefault();
  const runs = $("runs").value;
  $("run").disabled = true;
  tell(t("simulateRunning"));
  try {
    const query = new URLSearchParams({ session, runs, lang: currentLanguage() });
    const response = await fetch(`/api/simulate?${query}`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) {
      const key = REFUSED[response.status];
      tell(key ? t(key) : tf("simulateFailed", { why: await problemOf(response) }));
      return;
    }
    show(await response.text());
    tell(tf("simulateDone", { runs }));
  } catch (error) {
    tell(tf("simulateFailed", { why: String(error) }));
  } finally {
    $("run").disabled = false;
  }
}

setLanguage(initialLanguage());
$("lang").addEventListener("click", () => setLanguage(currentLanguage() === "ja" ? "en" : "ja"));
$("simulateForm").addEventListener("submit", simulate);
if (!token) tell(t("simulateGmOnly"));
