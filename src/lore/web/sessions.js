// The start page's list of the GM's sessions: those started in this browser, or whose
// GM link was opened in it. Their GM links are kept in this browser only (localStorage);
// each session's state and invites are asked of the server with its GM token (the server
// lists no session to whoever asks: a GM token is a secret).

import { node } from "./dialogs.js";
import { t } from "./i18n.js";

const KEY = "lore.sessions";
const KEPT = 50; // sessions remembered at most, the latest first

function valid(entry) {
  return entry && typeof entry.session === "string" && typeof entry.link === "string";
}

export function rememberedSessions() {
  try {
    const found = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(found) ? found.filter(valid) : [];
  } catch {
    return [];
  }
}

function keep(entries) {
  localStorage.setItem(KEY, JSON.stringify(entries.slice(0, KEPT)));
}

// Remember a session of which this browser has the GM link (the path, token in its fragment).
export function rememberSession(session, title, link) {
  const others = rememberedSessions().filter((entry) => entry.session !== session);
  keep([{ session, title, link }, ...others]);
}

function forgetSession(session) {
  keep(rememberedSessions().filter((entry) => entry.session !== session));
}

// The session's state as its GM may know it: the server's answer, or why there is none.
async function askStatus(entry) {
  const token = decodeURIComponent(entry.link.split("#")[1] || "");
  try {
    const response = await fetch(`/api/status?session=${encodeURIComponent(entry.session)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return response.ok ? await response.json() : { state: "gone" };
  } catch {
    return { state: "unreachable" };
  }
}

function stateText(status) {
  if (status.state === "open") return t(status.paused ? "sessionPaused" : "sessionOpen");
  if (status.state === "ended") return t("sessionEnded");
  return t(status.state === "gone" ? "sessionGone" : "sessionUnreachable");
}

function showStatus(item, status, copyButton) {
  const state = item.querySelector(".session-state");
  state.textContent = stateText(status);
  state.dataset.state = status.state;
  if (status.title) item.querySelector(".session-title").textContent = status.title;
  const invites = item.querySelector(".session-invites");
  for (const seat of status.seats || []) {
    if (seat.seat === "GM" || !seat.link) continue;
    const url = new URL(seat.link, location.href).href;
    const line = node("li", {}, invites);
    node("span", {}, line, `${t("inviteFor")} ${seat.label}`);
    node("a", { href: url, class: "session-invite" }, line, url);
    copyButton(line, url);
  }
}

let relisting = null; // lists them again in the new language, once the language switched

// List the remembered sessions in `list` (its `section` shown when there is one), each
// with its state, its GM link and its invites (copyButton(parent, text) makes a Copy button).
export function showSessions(section, list, copyButton) {
  if (relisting === null) {
    relisting = () => showSessions(section, list, copyButton);
    document.getElementById("lang").addEventListener("click", () => relisting());
  }
  const entries = rememberedSessions();
  section.hidden = entries.length === 0;
  list.textContent = "";
  for (const entry of entries) {
    const item = node("li", { class: "my-session" }, list);
    item.dataset.session = entry.session;
    const head = node("div", { class: "session-head" }, item);
    node("span", { class: "session-title" }, head, entry.title || entry.session);
    node("span", { class: "session-state" }, head, "…");
    const gm = new URL(entry.link, location.href).href;
    node("a", { href: gm, class: "button open-session" }, head, t("openAsGm"));
    copyButton(head, gm);
    const forget = node("button", { type: "button", class: "forget" }, head, t("forgetSession"));
    forget.addEventListener("click", () => {
      forgetSession(entry.session);
      showSessions(section, list, copyButton);
    });
    node("ul", { class: "links session-invites" }, item);
    askStatus(entry).then((status) => showStatus(item, status, copyButton));
  }
}
