// The Lore web client: the start page (start a session, upload a bundle) and the table
// (map, questions, chat, presence, GM tools), kept up to date over one WebSocket.

import { buildDialog, choiceId, node } from "./dialogs.js";
import { clockText, initialLanguage, setLanguage, t, tf, currentLanguage } from "./i18n.js";
import { drawMap, splitLocation } from "./map.js";
import { download, fileName, logHtml, logMarkdown } from "./export.js";
import { rememberSession, showSessions } from "./sessions.js";
import { lengthText } from "./units.js";
import { answerText, arrivalText, downloadName } from "./shown.js";
import { renderCards } from "./cards.js";
import { drawTokenBar, renderSheets, tokenBars } from "./sheets.js";
import { renderTracker, waitingText } from "./tracker.js";
import { drawRollCard, isCard } from "./rollcard.js";

const $ = (id) => document.getElementById(id);
// A seat's link is /play?session=ID#TOKEN; the start page's may carry #host=TOKEN.
const token = location.hash.startsWith("#host=") ? "" : decodeURIComponent(location.hash.slice(1));
// The session, named to the server so that a server of several workers hands the
// connection to the one serving it: the link's, else the one the server names.
let session = new URLSearchParams(location.search).get("session");
const named = () => (session ? `?session=${encodeURIComponent(session)}` : "");

// ------------------------------------------------------------ the start page

const listSessions = () => showSessions($("mySessions"), $("mySessionList"), copyButton);

// A server others can reach starts sessions only for who has its host token: the start
// link it printed carries it (#host=TOKEN), kept for this tab, taken out of the address.
function hostToken() {
  const given = new URLSearchParams(location.hash.slice(1)).get("host");
  if (given) {
    sessionStorage.setItem("loreHost", given);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem("loreHost");
}

// The BCDice game systems a session's chat may roll, as the start page offers them.
let diceSystems = [];

function diceName(system) {
  return `${currentLanguage() === "ja" ? system.name : system.english} (${system.id})`;
}

function fillDice() {
  const select = $("diceSystem");
  const chosen = select.value;
  select.textContent = "";
  node("option", { value: "", "data-i18n": "diceCommon" }, select, t("diceCommon"));
  for (const system of diceSystems) node("option", { value: system.id }, select, diceName(system));
  keepChoice(select, chosen);
  const system = diceSystems.find((s) => s.id === select.value);
  $("diceHelp").textContent = system ? tf("diceExamples", { commands: system.commands.join(" ") }) : t("diceCommonHelp");
}

async function startPage() {
  $("start").hidden = false;
  hostToken();
  listSessions();
  const dice = await fetch("/api/dice");
  diceSystems = dice.ok ? await dice.json() : [];
  fillDice();
  $("diceSystem").addEventListener("change", fillDice);
  const list = $("sources");
  const response = await fetch("/api/sources");
  for (const source of await response.json()) {
    const item = node("li", {}, list);
    node("span", { class: "source-title" }, item, source.title);
    node("span", { class: "source-name" }, item, ` (${source.name})`);
    const button = node("button", { type: "button", "data-i18n": "start" }, item, t("start"));
    button.dataset.source = source.name;
    button.addEventListener("click", () =>
      create(JSON.stringify({ source: source.name, dice: $("diceSystem").value }), "application/json"),
    );
  }
  $("upload").addEventListener("change", (event) => {
    const file = event.target.files[0];
    if (file) create(file, "application/zip", $("diceSystem").value);
  });
}

// The chat's hint: the game system its rolls read (the welcome names it).
function showDice() {
  const system = state.dice;
  $("chatText").placeholder = system
    ? tf("chatDiceHint", {
        system: currentLanguage() === "ja" ? system.name : system.english,
        commands: system.commands.slice(0, 3).join(" "),
      })
    : t("chatHint");
}

async function create(body, type, dice = "") {
  $("problems").hidden = true;
  $("created").hidden = true;
  const headers = { "content-type": type };
  const host = hostToken();
  if (host) headers.authorization = `Bearer ${host}`;
  const query = dice ? `?dice=${encodeURIComponent(dice)}` : "";
  const response = await fetch(`/api/sessions${query}`, { method: "POST", body, headers });
  const found = await response.json();
  if (!response.ok) {
    $("problems").hidden = false;
    $("problemText").textContent = (found.problems || []).map((p) => p.text).join("\n\n");
    return;
  }
  const links = $("links");
  links.textContent = "";
  for (const seat of found.seats) {
    const url = new URL(seat.link, location.href).href;
    const item = node("li", {}, links);
    if (seat.seat === "GM") node("span", { "data-i18n": "gmLink" }, item, t("gmLink"));
    else node("span", { "data-i18n": "inviteFor" }, item, t("inviteFor"));
    if (seat.seat !== "GM") node("span", {}, item, ` ${seat.label}`);
    const link = node("a", { href: url, class: seat.seat === "GM" ? "gm-link" : "invite-link" }, item, url);
    link.dataset.seat = seat.seat;
    copyButton(item, url);
  }
  const gm = found.seats.find((s) => s.seat === "GM");
  node("a", { href: gm.link, class: "button open-gm", "data-i18n": "openAsGm" }, node("li", {}, links), t("openAsGm"));
  $("created").hidden = false;
  rememberSession(found.session, found.title, gm.link);
  listSessions();
}

function copyButton(parent, text) {
  const button = node("button", { type: "button", class: "copy", "data-i18n": "copy" }, parent, t("copy"));
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.dataset.i18n = "copied";
      button.textContent = t("copied");
    } catch {
      window.prompt(t("copy"), text);
    }
  });
}

// ------------------------------------------------------------ the table's state

const state = {
  seq: null,
  seat: null,
  role: null,
  label: "",
  view: { tick: 0, actors: new Map(), areas: new Map(), objects: new Map(), zones: new Map() },
  maps: {},
  questions: new Map(),
  dialogs: new Map(),
  seats: [],
  status: {},
  online: new Set(),
  links: [],
  area: null,
  picks: new Map(), // question id -> { goal, route }
  moves: new Map(), // actor id -> [from, to] (places of one area)
  arrivals: [], // this seat's actors that moved in the update being applied
  refs: new Map(), // ref -> question id
  pending: new Map(), // ref of an answer sent -> { id, others: the questions open then }
  waitingOn: new Set(), // questions whose step holds answers already acknowledged
  problems: new Map(), // question id -> the error its answer got: { code, message }
  messages: [],
  first: 0, // the number of the first message kept (the earlier ones are asked for)
  historyAsked: false,
  nextRef: 1,
  socket: null,
  away: false, // our socket dropped, and the server has not told our presence since
  retry: 500,
  // One node of several (a cluster): the nodes the server named, and how many times in a
  // row this client failed to reach the one it is on (after 2 it tries the next).
  nodes: [],
  failed: 0,
  revoked: false,
  broken: null, // why the session could not be restored (the server's words)
  logRecords: null, // the session log the GM asked for last (shown again in a new language)
};

function collections(view) {
  return {
    tick: view.tick,
    actors: new Map(view.actors.map((a) => [a.id, a])),
    areas: new Map(view.areas.map((a) => [a.path, a])),
    objects: new Map(view.objects.map((o) => [o.id, o])),
    zones: new Map((view.zones || []).map((z) => [z.id, z])),
    table: view.table || null, // sheets and trackers (sheets.js, tracker.js)
  };
}

function applySnapshot(frame) {
  state.seq = frame.seq;
  state.view = collections(frame.view);
  state.maps = frame.maps;
  state.questions = new Map(frame.questions.map((q) => [q.id, q]));
  state.seats = frame.seats;
  state.status = frame.status;
  state.messages = [];
  state.first = frame.first || 0;
  state.historyAsked = false;
  $("log").textContent = "";
  for (const message of frame.messages) showMessage(message);
  renderAll();
}

function noteMove(before, after) {
  if (!before || before.location === after.location) return;
  if (ownActor(after.id)) state.arrivals.push(after); // told once the maps are in
  const a = splitLocation(before.location);
  const b = splitLocation(after.location);
  if (a.area === b.area) state.moves.set(after.id, [a.place, b.place]);
  else state.moves.delete(after.id);
}

function applyUpdate(frame) {
  if (state.seq !== null && frame.seq !== state.seq + 1) {
    state.socket.close(); // a gap: reconnect, and get what was missed
    return;
  }
  state.seq = frame.seq;
  const delta = frame.view;
  if (delta) {
    if (delta.tick !== undefined) state.view.tick = delta.tick;
    for (const [name, items] of Object.entries(delta.put || {})) {
      for (const item of items) {
        const key = name === "areas" ? item.path : item.id;
        if (name === "actors") noteMove(state.view.actors.get(key), item);
        state.view[name].set(key, item);
      }
    }
    for (const [name, keys] of Object.entries(delta.drop || {})) {
      for (const key of keys) state.view[name].delete(key);
    }
    if (delta.table) state.view.table = { ...(state.view.table || {}), ...delta.table }; // (its parts that changed)
  }
  Object.assign(state.maps, frame.maps || {});
  for (const id of frame.closed || []) {
    state.questions.delete(id);
    state.picks.delete(id);
  }
  for (const spec of frame.opened || []) state.questions.set(spec.id, spec);
  if (frame.seats) state.seats = frame.seats;
  if (frame.status) state.status = frame.status;
  for (const message of frame.messages || []) showMessage(message);
  for (const actor of state.arrivals.splice(0)) {
    showMessage({ kind: "notice", tick: state.view.tick, text: arrivalText(actor, placeLabel(actor.location)) });
  }
  renderSoon();
}

// Updates that come together (a burst of chat lines, a catch-up) are drawn once: the map,
// the sheets, the tracker and the dialogs drawn again for each took seconds for 300 lines.
let renderDue = false;
function renderSoon() {
  if (renderDue) return;
  renderDue = true;
  setTimeout(() => {
    renderDue = false;
    renderAll();
  }, 10);
}

// ------------------------------------------------------------ the connection

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws${named()}`);
  state.socket = socket;
  socket.addEventListener("open", () => {
    socket.send(JSON.stringify({ type: "hello", token, seq: state.seq, lang: currentLanguage() }));
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    if (state.socket !== socket) return;
    state.away = true;
    // Down, this client cannot know who is online: its own seat is not, for now, and
    // the others' presence is the last the server told, shown as such.
    if (state.seat !== null) state.online.delete(state.seat);
    state.pending.clear(); // the catch-up tells whether they were taken
    if (state.seq !== null) renderDialogs();
    renderPresence();
    renderGm();
    if (state.revoked) return;
    if (state.retry > 0) renderBanner(true); // (0: told to connect elsewhere at once)
    if (state.retry > 0 && ++state.failed >= 2 && state.nodes.length > 1) {
      // This node is down: go on at the next one, which takes the session over.
      const here = state.nodes.indexOf(location.origin);
      goToNode(state.nodes[(here + 1) % state.nodes.length], session);
      return;
    }
    setTimeout(connect, state.retry);
    state.retry = Math.min(Math.max(state.retry * 2, 500), 5000);
  });
}

// The same seat's page at another node of the cluster (the token stays in the fragment).
function goToNode(url, id) {
  state.revoked = true; // (this page's socket is not opened again)
  location.replace(`${url}/play?session=${encodeURIComponent(id)}${location.hash}`);
}

function send(message) {
  if (!state.socket || state.socket.readyState !== WebSocket.OPEN) return null;
  const ref = state.nextRef++;
  state.socket.send(JSON.stringify({ ...message, ref }));
  return ref;
}

function receive(frame) {
  switch (frame.type) {
    case "welcome":
      state.seat = frame.seat;
      state.role = frame.role;
      state.label = frame.label;
      state.retry = 500;
      state.failed = 0;
      // A node just started names only itself: the nodes known before stay, after it.
      state.nodes = [...new Set([...(frame.nodes || []), ...state.nodes])];
      session = frame.session.id;
      state.dice = frame.session.dice || null;
      state.checks = frame.checks || []; // the rules' improvised checks (the GM's)
      state.scenes = frame.scenes || []; // the scenes the GM may end by ruling
      state.bringIns = frame.arrivals || []; // what the GM may bring in by ruling
      showDice();
      $("title").textContent = frame.session.title;
      document.title = `${frame.session.title} — Lore`;
      document.body.classList.toggle("is-gm", frame.role === "gm");
      $("gm").hidden = frame.role !== "gm";
      if (frame.role === "gm") $("simulateLink").href = `/simulate${named()}#${encodeURIComponent(token)}`;
      $("secretLabel").hidden = frame.role !== "gm";
      if (frame.role === "gm") {
        rememberSession(session, frame.session.title, location.pathname + location.search + location.hash);
      }
      renderBanner(false);
      break;
    case "snapshot":
      applySnapshot(frame);
      break;
    case "update":
      applyUpdate(frame);
      settle(frame);
      break;
    case "ack":
      settle(frame);
      break;
    case "clock": // the time moved, with nothing else for this seat
      state.view.tick = frame.tick;
      $("clock").textContent = clockText(state.view.tick);
      break;
    case "presence":
      state.away = false;
      state.online = new Set(frame.online);
      renderPresence();
      renderGm();
      break;
    case "links":
      state.links = frame.links;
      renderGm();
      break;
    case "route":
      showRoute(frame);
      break;
    case "history":
      showHistory(frame);
      break;
    case "log":
      state.logRecords = frame.records;
      $("sessionLog").hidden = false;
      $("sessionLog").textContent = frame.records.map(logLine).join("\n");
      break;
    case "error":
      showError(frame);
      settle(frame);
      break;
    default:
      break;
  }
}

function showError(frame) {
  state.historyAsked = false; // (a history request refused, say: it may be asked again)
  if (frame.code === "elsewhere") {
    // Served by another worker: connect again at once, naming the session; by another
    // node: go on there.
    session = frame.session;
    if (frame.url && frame.url !== location.origin) {
      goToNode(frame.url, session);
      return;
    }
    state.retry = frame.url === undefined && state.nodes.length ? 300 : 0;
    return;
  }
  if (frame.code === "bad_token" || frame.code === "unrestorable") {
    state.revoked = true;
    // (a session the server could not restore: the GM's message says why)
    if (frame.code === "unrestorable") state.broken = frame.message;
    renderBanner(false);
    for (const control of $("chatForm").elements) control.disabled = true;
    if (state.seq !== null) renderDialogs();
    renderPresence();
    return;
  }
  const problem = { code: frame.code, message: frame.message };
  const id = state.refs.get(frame.ref);
  if (id && state.dialogs.has(id)) {
    state.problems.set(id, problem);
    renderDialogs();
  } else showMessage({ kind: "notice", ...problem });
}

// A server's error in the page's language, from its code (the server's own words, in
// English, added in English to the codes whose details a user needs).
function errorText(problem) {
  const key = `error_${problem.code}`;
  if (t(key) === key) return problem.message;
  // (a GM command's refusal says which seat or actor, and why: in every language, as
  // the server gives it)
  const detailed =
    ["bad_command", "bad_ruling"].includes(problem.code) || (["bad_answer", "bad_roll", "no_back"].includes(problem.code) && currentLanguage() === "en");
  return detailed && problem.message ? `${t(key)} (${problem.message})` : t(key);
}

// The server's answer to a message this page sent (its ref): an answer sent is no longer
// pending; acknowledged while questions open when it was sent still are, its step waits
// for them (the note says so).
function settle(frame) {
  const sent = state.pending.get(frame.ref);
  if (frame.ref === undefined || !sent) return;
  state.pending.delete(frame.ref);
  if (frame.type !== "error") {
    for (const id of sent.others) if (state.questions.has(id)) state.waitingOn.add(id);
  }
  renderDialogs();
}

// ------------------------------------------------------------ rendering

// One transcript record of the session log as a line the GM reads: its game time, then
// who was asked, answered or told what (kinds this client does not know stay as JSON).
function logLine(record) {
  const time = record.tick !== undefined ? clockText(record.tick) : "";
  const values = (found) => Object.entries(found || {}).map(([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`).join(", ");
  const lines = {
    query: () => `? ${seatLabel(record.to)}: ${record.purpose ? t(`title_${record.purpose}`) : record.title ?? ""}`,
    answer: () => `> ${seatLabel(record.from)}: ${record.shown ? answerLogText(record) : values(record.values)}`,
    back: () => `< ${wentBackText(record)}`,
    message: () => `${record.to ? seatLabel(record.to) : t("everyone")}: ${record.text ?? ""}`,
    roll: () => `🎲 ${record.title ? `${record.title}: ` : ""}${record.text ?? ""}`,
    dice: () => `${record.by || seatLabel(record.seat)}: ${record.dice} [${(record.faces || []).join(",")}] = ${record.total}`,
    error: () => `! ${record.message ?? ""}${record.where ? ` (${record.where})` : ""}`,
    end: () => `# ${record.reason ?? ""}`,
  };
  const text = lines[record.kind] ? lines[record.kind]() : JSON.stringify(record);
  return `${time}  ${text}`;
}

function seatLabel(seat) {
  if (seat === state.seat) return t("you");
  const found = state.seats.find((s) => s.seat === seat);
  return found ? found.label : seat;
}

function showMessage(message) {
  state.messages.push(message);
  drawMessage(message);
}

// The whole log of the seat (the earlier messages asked for first), downloaded as an
// HTML page styled like the client or as Markdown.
async function exportLog(format) {
  while (state.first > 0) {
    const before = state.first;
    const answered = new Promise((resolve) => {
      state.historyWaits = [...(state.historyWaits || []), resolve];
      setTimeout(resolve, 10000); // (a history that does not come: the log as it is)
    });
    if (send({ type: "history", before }) === null) break;
    await answered;
    if (state.first >= before) break;
  }
  const items = state.messages.map(messageItem);
  const title = $("title").textContent;
  if (format === "md") {
    download(fileName(title, "md"), logMarkdown(title, items), "text/markdown;charset=utf-8");
    return;
  }
  const css = await (await fetch("/static/style.css")).text();
  download(fileName(title, "html"), logHtml(title, currentLanguage(), items, css), "text/html;charset=utf-8");
}

// Earlier messages of the seat (asked for when the log is scrolled to its top), put
// before those shown, the lines in view kept in place.
function askHistory() {
  const log = $("log");
  if (state.first > 0 && !state.historyAsked && log.scrollTop < 40) {
    state.historyAsked = send({ type: "history", before: state.first }) !== null;
  }
}

function showHistory(frame) {
  state.historyAsked = false;
  const waiting = state.historyWaits || [];
  state.historyWaits = [];
  for (const resolve of waiting) queueMicrotask(resolve); // (once the earlier ones are in)
  if (frame.first >= state.first) return;
  const earlier = frame.messages.slice(0, state.first - frame.first);
  state.first = frame.first;
  state.messages = [...earlier, ...state.messages];
  const log = $("log");
  const height = log.scrollHeight;
  const top = log.firstChild;
  for (const message of earlier) log.insertBefore(messageItem(message), top);
  log.scrollTop += log.scrollHeight - height;
}

// Who a rule's message went to, as the GM reads it: one seat, several, or everyone.
function recipients(message) {
  const seats = [message.to, ...(message.also || [])].filter((seat) => seat !== "GM");
  const players = state.seats.filter((s) => s.seat !== "GM");
  if (seats.length > 1 && players.every((s) => seats.includes(s.seat))) return t("everyone");
  return seats.map(seatLabel).join(", ");
}

// An answer in the log: who gave it (the GM for a seat, when so), then what was chosen.
function answeredLine(message) {
  const values = answerText(message);
  if (!message.by || message.by === message.from) return `${seatLabel(message.from)} ${t("answered")}: ${values}`;
  return `${t("answeredFor").replace("{by}", seatLabel(message.by)).replace("{seat}", seatLabel(message.from))}: ${values}`;
}

// An answer in the session log as the seat saw its question: its title (a map question's
// in this language), then the captions of what was chosen.
function answerLogText(record) {
  const purpose = (record.shown.find((part) => part.purpose) || {}).purpose;
  return `${purpose ? t(`title_${purpose}`) : record.title} → ${answerText(record)}`;
}

// A seat took its answer back (the question asked again).
function wentBackText(message) {
  return tf("wentBack", { seat: seatLabel(message.from), title: message.title || "" });
}

function movedText(message) {
  const text = t("movedActor").replace("{actor}", message.name || message.actor);
  return text.replace("{from}", seatLabel(message.from)).replace("{to}", seatLabel(message.to));
}

// A GM's ruling on a value, as the log reads it (lore.engine.rulings).
function ruledText(message) {
  const ja = currentLanguage() === "ja";
  const taken = message.ruling === "back" ? `${t("ruledBack")} ` : "";
  if (message.ruling === "arrival") {
    const label = ja ? message.labelJa || message.label : message.label;
    const text = tf("ruledArrival", { label, kind: message.arrival });
    return message.secret ? `${text} ${t("ruledSecretly")}` : text;
  }
  if (message.ruling === "end" || message.taken === "end") {
    const scene = ja ? message.labelJa || message.label : message.label;
    return taken + t("ruledEnd").replace("{scene}", scene).replace("{outcome}", message.outcome);
  }
  const shown = (v) => (v === null || v === undefined ? "—" : Array.isArray(v) ? v.join(", ") : String(v));
  const text = t("ruledValue")
    .replace("{name}", message.name || message.object)
    .replace("{label}", ja ? message.labelJa || message.label : message.label)
    .replace("{before}", shown(message.before))
    .replace("{after}", shown(message.after));
  return taken + (message.secret ? `${text} ${t("ruledSecretly")}` : text);
}

// The GM's improvised checks: the rules' own check (a GMCheck value) on an actor, with
// an ability, a modifier and a target; the server rolls it by the rules and logs its card.
function renderGmChecks() {
  const checks = state.checks || [];
  $("gmCheckBox").hidden = checks.length === 0;
  if (checks.length === 0) return;
  const kinds = $("checkKind");
  const actors = $("checkActor");
  const kept = [kinds.value, actors.value, $("checkAbility").value];
  kinds.textContent = "";
  for (const check of checks) node("option", { value: check.id }, kinds, currentLanguage() === "ja" ? check.labelJa : check.label);
  kinds.hidden = checks.length === 1;
  keepChoice(kinds, kept[0]);
  actors.textContent = "";
  for (const seat of state.seats) {
    for (const actor of seat.actors || []) node("option", { value: actor.label }, actors, actor.name);
  }
  keepChoice(actors, kept[1]);
  const chosen = checks.find((c) => c.id === kinds.value) || checks[0];
  const abilities = $("checkAbility");
  abilities.textContent = "";
  for (const ability of chosen.abilities) node("option", { value: ability }, abilities, ability);
  keepChoice(abilities, kept[2]);
}

// A GM's form of two choices: one of the rules' values (a scene, an arrival) and one of
// its options (its outcomes, its kinds); `hideSingle`: the first hidden when there is one.
function renderTwoChoices(values, ids, member, hideSingle) {
  $(ids.box).hidden = values.length === 0;
  if (values.length === 0) return;
  const first = $(ids.first);
  const second = $(ids.second);
  const kept = [first.value, second.value];
  first.textContent = "";
  for (const value of values) node("option", { value: value.id }, first, currentLanguage() === "ja" ? value.labelJa : value.label);
  first.hidden = hideSingle && values.length === 1;
  keepChoice(first, kept[0]);
  const chosen = values.find((v) => v.id === first.value) || values[0];
  second.textContent = "";
  for (const option of chosen[member]) node("option", { value: option }, second, option);
  keepChoice(second, kept[1]);
}

// The scenes the GM may end by ruling (SceneEnd values), each with its outcomes.
function renderScenes() {
  renderTwoChoices(state.scenes || [], { box: "sceneEndBox", first: "sceneKind", second: "sceneOutcome" }, "outcomes", false);
}

// What the GM may bring in by ruling (Arrival values: an enemy joining a fight).
function renderArrivals() {
  renderTwoChoices(state.bringIns || [], { box: "arrivalBox", first: "arrivalKind", second: "arrivalWhat" }, "kinds", true);
}

function sendGmCheck(event) {
  event.preventDefault();
  const whole = (id) => Math.trunc(Number($(id).value) || 0);
  send({
    type: "check",
    check: $("checkKind").value,
    actor: $("checkActor").value,
    ability: $("checkAbility").value,
    modifier: whole("checkModifier"),
    target: whole("checkTarget"),
    secret: $("checkSecret").checked,
  });
}

// The GM rules on a sheet's line (sheets.js): the server checks and logs it.
function ruleOnValue(object, member, value, secret) {
  send({ type: "rule", object, member, value, secret });
}

function drawMessage(message) {
  const log = $("log");
  log.appendChild(messageItem(message));
  log.scrollTop = log.scrollHeight;
}

function messageItem(message) {
  const log = $("log");
  const item = node("li", { class: `msg msg-${message.kind}` });
  const time = node("span", { class: "tick" }, item, message.tick !== undefined ? clockText(message.tick) : "");
  time.title = String(message.tick ?? "");
  if (message.kind === "message") {
    const to = state.role === "gm" ? recipients(message) : "";
    if (to) node("span", { class: "to" }, item, `→ ${to}`);
    const body = node("div", { class: "body" }, item);
    if (message.format === "html") {
      body.innerHTML = message.text; // cleaned by the server (nh3)
      for (const image of body.querySelectorAll("img")) {
        // An image the bundle lacks shows its text, not a broken picture.
        image.addEventListener("error", () => image.replaceWith(document.createTextNode(image.alt || "")), { once: true });
        image.addEventListener("load", () => { log.scrollTop = log.scrollHeight; }, { once: true }); // now taller
      }
    } else body.textContent = message.text;
  } else if (isCard(message)) {
    drawRollCard(item, message, seatLabel);
  } else if (message.kind === "chat" || message.kind === "roll") {
    node("span", { class: "from" }, item, seatLabel(message.from));
    if (message.to) node("span", { class: "to" }, item, `→ ${seatLabel(message.to)}`);
    const text = message.kind === "roll" && message.secret && !message.text ? t("rolledSecretly") : message.text;
    const comment = message.comment ? ` ${message.comment}` : "";
    node("span", { class: "body" }, item, (message.kind === "roll" ? "🎲 " : "") + text + comment);
    if (message.secret) item.classList.add("secret");
  } else if (message.kind === "answer") {
    node("span", { class: "body" }, item, answeredLine(message));
    const question = message.purpose ? t(`title_${message.purpose}`) : message.question;
    if (question) node("span", { class: "question" }, item, `(${question})`);
  } else if (message.kind === "back") {
    node("span", { class: "body" }, item, wentBackText(message));
  } else if (message.kind === "assign") {
    node("span", { class: "body" }, item, movedText(message));
  } else if (message.kind === "ruling") {
    node("span", { class: "body" }, item, ruledText(message));
    if (message.secret) item.classList.add("secret");
  } else if (message.kind === "error") {
    node("span", { class: "body" }, item, `${t("ruleError")}: ${message.text} (${message.where})`);
  } else {
    node("span", { class: "body" }, item, message.code ? errorText(message) : message.text);
  }
  return item;
}

function renderAll() {
  $("clock").textContent = clockText(state.view.tick);
  $("who").textContent = state.role === "gm" ? t("gm") : state.label;
  renderBanner(false);
  renderDialogs();
  renderCards(state);
  renderMap();
  renderSheets(state.view.table, state.role === "gm", ruleOnValue);
  renderTracker(state.view.table);
  renderPresence();
  renderChatTargets();
  renderGm();
}

function renderBanner(reconnecting) {
  const banner = $("banner");
  let text = "";
  if (state.broken !== null) text = `${t("error_unrestorable")} (${state.broken})`;
  else if (state.revoked) text = t("revokedLink");
  else if (reconnecting) text = t("reconnecting");
  else if (state.status.ended) text = t("ended");
  else if (state.status.paused) text = t("paused");
  banner.hidden = !text;
  banner.textContent = text;
  banner.classList.toggle("warn", reconnecting);
}

function renderDialogs() {
  const box = $("dialogs");
  for (const [id, dialog] of state.dialogs) {
    // Gone, or sent again (asked of another seat now): made again from its spec.
    if (state.questions.get(id) !== dialog.spec) {
      dialog.element.remove();
      state.dialogs.delete(id);
      state.problems.delete(id);
    }
  }
  for (const id of [...state.waitingOn]) if (!state.questions.has(id)) state.waitingOn.delete(id);
  for (const [id, spec] of state.questions) {
    if (state.dialogs.has(id)) continue;
    const forLabel = state.role === "gm" && spec.to !== "GM" ? seatLabel(spec.to) : null;
    const dialog = buildDialog(spec, {
      forLabel,
      placeLabel,
      submit: (values) => {
        if (forLabel && !window.confirm(tf("confirmAnswerFor", { seat: forLabel }))) return;
        state.problems.delete(id);
        const others = [...state.questions.keys()].filter((other) => other !== id);
        const ref = send({ type: "answer", id, values, seq: state.seq });
        if (ref === null) return;
        state.refs.set(ref, id);
        state.pending.set(ref, { id, others });
        renderDialogs();
      },
      back: () => {
        if (forLabel && !window.confirm(tf("confirmBackFor", { seat: forLabel }))) return;
        state.problems.delete(id);
        const ref = send({ type: "back", id });
        if (ref === null) return;
        state.refs.set(ref, id);
        state.pending.set(ref, { id, others: [] });
        renderDialogs();
      },
      pick: (name, goal) => {
        state.picks.set(id, { goal, route: null });
        if (spec.area) state.area = spec.area;
        const ref = send({ type: "preview", id, goal });
        if (ref !== null) state.refs.set(ref, id);
        renderMap();
      },
    });
    dialog.spec = spec;
    state.dialogs.set(id, dialog);
    if (spec.area && (state.role !== "gm" || spec.to === "GM")) state.area = spec.area;
  }
  placeDialogs(box);
  markDialogs();
  let waits = box.querySelector(".answer-waits");
  if (state.waitingOn.size > 0 && !waits) waits = node("p", { class: "answer-waits", role: "status" });
  if (waits) {
    if (state.waitingOn.size > 0) box.prepend(waits);
    else waits.remove();
    waits.textContent = t("answerWaits");
  }
  let empty = box.querySelector(".empty");
  if (state.questions.size === 0 && !empty) empty = node("p", { class: "empty" }, box);
  if (state.questions.size > 0 && empty) empty.remove();
  else if (empty) empty.textContent = waitingText(state.view.table, seatLabel) || t("waiting"); // (in the language shown now)
}

// The dialogs in the panel: a player's as they come; the GM's own first, then each
// player seat's under its name, so that the GM sees whom a question is for.
function placeDialogs(box) {
  if (state.role !== "gm") {
    for (const dialog of state.dialogs.values()) if (dialog.element.parentNode !== box) box.appendChild(dialog.element);
    return;
  }
  const order = ["GM", ...state.seats.map((s) => s.seat).filter((seat) => seat !== "GM")];
  const groups = new Map();
  for (const old of box.querySelectorAll("section.dialog-group")) groups.set(old.dataset.seat, old);
  for (const dialog of state.dialogs.values()) {
    const seat = dialog.spec.to;
    if (!order.includes(seat)) order.push(seat);
    let group = groups.get(seat);
    if (!group) {
      group = node("section", { class: seat === "GM" ? "dialog-group own" : "dialog-group seat" });
      group.dataset.seat = seat;
      node("h3", { class: "group-title" }, group);
      groups.set(seat, group);
    }
    if (dialog.element.parentNode !== group) group.appendChild(dialog.element);
  }
  for (const seat of order) {
    const group = groups.get(seat);
    if (!group) continue;
    if (!group.querySelector("article.dialog")) {
      group.remove();
      continue;
    }
    group.querySelector(".group-title").textContent =
      seat === "GM" ? t("gmOwnQuestions") : tf("seatQuestions", { seat: seatLabel(seat) });
    box.appendChild(group); // (in the order of the seats)
  }
}

// Each dialog's state: sent and waiting for the server, or closed to answers (revoked,
// ended, paused for a player), its problem, and whether the same question is asked of
// the same actor more than once at once (numbered, so the two do not look like one shown
// twice).
function markDialogs() {
  let locked = null;
  if (state.revoked) locked = "revokedDialogs";
  else if (state.status.ended) locked = "endedDialogs";
  else if (state.status.paused && state.role !== "gm") locked = "pausedDialogs";
  const sent = new Set([...state.pending.values()].map((p) => p.id));
  const alike = new Map();
  for (const [id, spec] of state.questions) {
    const key = JSON.stringify([spec.to, spec.actor ? spec.actor.label : null, spec.title, spec.inputs]);
    if (!alike.has(key)) alike.set(key, []);
    alike.get(key).push(id);
  }
  for (const ids of alike.values()) {
    ids.forEach((id, i) => {
      const dialog = state.dialogs.get(id);
      if (!dialog) return;
      dialog.setTogether(ids.length > 1 ? { index: i + 1, count: ids.length } : null);
      dialog.setLocked(locked);
      dialog.setPending(sent.has(id));
      const problem = state.problems.get(id);
      if (problem && problem.code === "paused" && !state.status.paused) state.problems.delete(id);
      dialog.showProblem(state.problems.has(id) ? errorText(state.problems.get(id)) : "");
    });
  }
}

// A place as its button shows it: its coordinate in the area's map, and what the map
// says of it (a square's description), or the whole path when it is in another area.
function placeLabel(location) {
  const where = splitLocation(location);
  const map = state.maps[where.area];
  if (!map || where.place === null) return location;
  if (map.style === "Linked") {
    const found = map.nodes.find((n) => n.label === where.place);
    return (found && found.description) || where.place;
  }
  if (map.style === "Sectioned2D") {
    const [x, y] = where.place.split(",").map(Number);
    const cell = map.rows[y] && map.rows[y][x];
    return cell && cell[2] ? `[${where.place}] ${cell[2]}` : `[${where.place}]`;
  }
  return where.place;
}

function showRoute(frame) {
  const pick = state.picks.get(frame.id);
  if (!pick || pick.goal !== frame.goal) return;
  pick.route = frame.path || null;
  const dialog = state.dialogs.get(frame.id);
  if (dialog) {
    const map = state.maps[frame.area];
    const length = frame.distance !== undefined ? lengthText(frame.distance, map) : "";
    const names = (frame.path || []).map((p) => (map && map.style === "Linked" ? placeLabel(`${frame.area}[${p}]`) : p));
    dialog.showRoute(frame.path ? `${t("route")}: ${names.join(" → ")} (${t("distance")} ${length})` : t("noRoute"));
  }
  renderMap();
}

function defaultArea() {
  const actors = [...state.view.actors.values()];
  const mine = state.role === "gm" ? actors.find((a) => a.area && state.seats.some((s) => s.seat !== "GM" && (s.actors || []).some((x) => x.label === a.id))) : actors[0];
  if (mine && mine.area) return mine.area;
  const first = [...state.view.areas.keys()];
  return first.find((p) => state.maps[p] && state.maps[p].style) || first[0] || null;
}

function renderMap() {
  const select = $("areaSelect");
  const paths = [...state.view.areas.keys()];
  if (!state.area || !state.view.areas.has(state.area) || (state.role !== "gm" && !ownArea(state.area))) {
    state.area = defaultArea();
  }
  const followed = followActor(); // (the GM's map goes where the followed actor goes)
  if (followed && followed.area && state.view.areas.has(followed.area)) state.area = followed.area;
  select.textContent = "";
  for (const path of paths) node("option", { value: path }, select, areaName(state.view.areas.get(path)));
  select.value = state.area || "";
  select.hidden = paths.length < 2;
  const map = state.area ? state.maps[state.area] : null;
  $("mapNote").textContent = map && map.style ? "" : t("noMap");
  const choices = new Set();
  let selected = null;
  let route = null;
  let pickFor = null;
  for (const [id, spec] of state.questions) {
    if (spec.area !== state.area) continue;
    if (state.role === "gm" && spec.to !== "GM" && pickFor !== null) continue;
    for (const input of spec.inputs) {
      if (input.type !== "loc" || !input.choices) continue;
      for (const choice of input.choices) {
        const place = splitLocation(choiceId(choice)).place;
        if (place !== spec.from) choices.add(place); // (staying: the dialog's own button)
      }
      pickFor = { id, name: input.name };
    }
    const pick = state.picks.get(id);
    if (pick) {
      selected = splitLocation(pick.goal).place;
      route = pick.route;
    }
  }
  const mineIds = new Set(state.role === "gm" ? [] : state.view.actors.keys());
  const actors = [...state.view.actors.values()].map((a) => ({ ...a, mine: mineIds.has(a.id) }));
  const moves = [...state.moves.entries()]
    .filter(([id]) => { const a = state.view.actors.get(id); return a && splitLocation(a.location).area === state.area; })
    .map(([, move]) => move);
  const bars = tokenBars(state.view.table);
  drawMap($("map"), map, {
    actors,
    objects: [...state.view.objects.values()],
    choices,
    selected,
    route,
    moves,
    hiddenText: t("hidden"),
    stateText: (name) => t(`token_${name}`),
    areaName,
    onToken: (group, item, cx, cy, r) => drawTokenBar(bars, group, item, cx, cy, r),
    onPick: (place) => {
      if (!pickFor) return;
      const goal = place === null ? state.area : `${state.area}[${place}]`;
      const dialog = state.dialogs.get(pickFor.id);
      if (dialog) dialog.choose(pickFor.name, goal);
    },
    onArea: (path) => {
      if (state.view.areas.has(path)) {
        state.area = path;
        renderMap();
      }
    },
  });
}

// The GM's choice of an actor whose map to follow (its select kept up to date), or null.
function followActor() {
  const select = $("followSelect");
  $("followLabel").hidden = state.role !== "gm";
  if (state.role !== "gm") return null;
  const placed = [...state.view.actors.values()].filter((a) => a.location);
  const options = [["", t("followNobody")], ...placed.map((a) => [a.id, a.name || a.id])];
  if (select.options.length !== options.length || options.some(([id, name], i) => select.options[i].value !== id || select.options[i].textContent !== name)) {
    select.textContent = "";
    for (const [id, name] of options) node("option", { value: id }, select, name);
  }
  select.value = state.follow || "";
  return state.follow ? state.view.actors.get(state.follow) || null : null;
}

// An actor of this seat's: a player's view holds its own actors alone (the GM, who
// has them all, is not told each one's arrival).
function ownActor(id) {
  return state.role !== "gm" && state.view.actors.has(id);
}

// An area as its select shows it: the first line of its description (a text for the
// players), cut short, else its label.
function areaName(area) {
  const first = String(area.description || "").trim().split("\n")[0];
  const short = first.length > 24 ? `${first.slice(0, 23)}…` : first;
  return short || area.label || area.path;
}

function ownArea(path) {
  return state.view.areas.has(path);
}

function renderPresence() {
  const list = $("presence");
  list.textContent = "";
  list.classList.toggle("stale", state.away);
  for (const seat of state.seats) {
    const online = state.online.has(seat.seat);
    const away = seat.seat === state.seat && state.away;
    const revoked = seat.seat === state.seat && state.revoked; // (not coming back)
    const own = t(revoked ? "youRevoked" : away ? "youReconnecting" : "you");
    const label = seat.seat === state.seat ? `${seat.label} (${own})` : seat.label;
    const kind = revoked ? "offline revoked" : away ? "offline reconnecting" : online ? "online" : "offline";
    const item = node("li", { class: kind }, list, label);
    item.title = revoked ? t("revokedLink") : away ? t("reconnecting") : online ? t("online") : t("offline");
    item.dataset.seat = seat.seat;
  }
}

function renderChatTargets() {
  const select = $("chatTo");
  const kept = select.value;
  select.textContent = "";
  node("option", { value: "" }, select, t("everyone"));
  for (const seat of state.seats) {
    if (seat.seat !== state.seat) node("option", { value: seat.seat }, select, `${t("to")}: ${seat.label}`);
  }
  select.value = "";
  keepChoice(select, kept);
}

function renderGm() {
  if (state.role !== "gm") return;
  $("pause").textContent = state.status.paused ? t("resume") : t("pause");
  $("ruleRolls").checked = Boolean(state.status.ruleRolls);
  const list = $("seatList");
  list.textContent = "";
  for (const seat of state.links) {
    const item = node("li", {}, list);
    node("span", { class: state.online.has(seat.seat) ? "dot online" : "dot offline" }, item, "●");
    node("strong", {}, item, ` ${seat.label} `);
    node("code", {}, item, seat.seat);
    if (seat.link) {
      const url = new URL(seat.link, location.href).href;
      if (seat.seat !== "GM") copyButton(item, url);
      if (seat.seat !== "GM") {
        const revoke = node("button", { type: "button" }, item, t("revoke"));
        revoke.addEventListener("click", () => send({ type: "revoke", seat: seat.seat }));
      }
    } else {
      node("span", { class: "revoked" }, item, ` ${t("revoked")} `);
    }
    const fresh = node("button", { type: "button" }, item, t("newLink"));
    fresh.addEventListener("click", () => send({ type: "new_link", seat: seat.seat }));
    if (seat.seat !== "GM") {
      const remove = node("button", { type: "button", class: "remove-seat" }, item, t("removeSeat"));
      remove.addEventListener("click", () => {
        if (window.confirm(t("confirmRemoveSeat"))) send({ type: "remove_seat", seat: seat.seat });
      });
    }
  }
  const actorSelect = $("assignActor");
  const seatSelect = $("assignSeat");
  // Made again at every update: what the GM has chosen stays chosen.
  const kept = [actorSelect.value, seatSelect.value];
  actorSelect.textContent = "";
  seatSelect.textContent = "";
  for (const seat of state.seats) {
    node("option", { value: seat.seat }, seatSelect, seat.label);
    for (const actor of seat.actors || []) node("option", { value: actor.label }, actorSelect, `${actor.name} (${seat.label})`);
  }
  keepChoice(actorSelect, kept[0]);
  keepChoice(seatSelect, kept[1]);
  renderGmChecks();
  renderScenes();
  renderArrivals();
}

function keepChoice(select, value) {
  if ([...select.options].some((o) => o.value === value)) select.value = value;
}

// ------------------------------------------------------------ controls

function wire() {
  $("lang").addEventListener("click", () => {
    setLanguage(currentLanguage() === "ja" ? "en" : "ja");
    if (!$("start").hidden) fillDice();
    if (state.seq !== null) {
      showDice();
      for (const dialog of state.dialogs.values()) dialog.element.remove();
      state.dialogs.clear(); // made again in the new language
      renderAll();
      renderBanner(state.away);
      if (state.logRecords) $("sessionLog").textContent = state.logRecords.map(logLine).join("\n");
      $("log").textContent = "";
      for (const message of state.messages) drawMessage(message);
    }
  });
  $("log").addEventListener("scroll", askHistory);
  $("areaSelect").addEventListener("change", (event) => {
    state.area = event.target.value;
    state.follow = ""; // (a map chosen by hand is followed no more)
    renderMap();
  });
  $("followSelect").addEventListener("change", (event) => {
    state.follow = event.target.value;
    renderMap();
  });
  $("chatForm").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chatText").value.trim();
    if (!text) return;
    send({ type: "chat", text, to: $("chatTo").value || null, secret: $("secret").checked });
    $("chatText").value = "";
  });
  $("pause").addEventListener("click", () => send({ type: state.status.paused ? "resume" : "pause" }));
  $("gmCheck").addEventListener("submit", sendGmCheck);
  $("takeBack").addEventListener("click", () => send({ type: "take_back" }));
  $("sceneKind").addEventListener("change", renderScenes);
  $("arrivalKind").addEventListener("change", renderArrivals);
  $("arrivalForm").addEventListener("submit", (event) => {
    event.preventDefault();
    send({ type: "arrive", arrival: $("arrivalKind").value, kind: $("arrivalWhat").value, secret: $("arrivalSecret").checked });
  });
  $("sceneEnd").addEventListener("submit", (event) => {
    event.preventDefault();
    send({ type: "end_scene", scene: $("sceneKind").value, outcome: $("sceneOutcome").value });
  });
  $("checkKind").addEventListener("change", renderGmChecks);
  $("ruleRolls").addEventListener("change", (event) => send({ type: "rule_rolls", every: event.target.checked }));
  $("end").addEventListener("click", () => {
    if (window.confirm(t("confirmEnd"))) send({ type: "end" });
  });
  $("showLog").addEventListener("click", () => send({ type: "log" }));
  $("addSeat").addEventListener("submit", (event) => {
    event.preventDefault();
    if (!$("seatLabel").value.trim()) {
      showMessage({ kind: "notice", text: t("seatNameNeeded") }); // (the server refuses it too)
      return;
    }
    send({ type: "add_seat", label: $("seatLabel").value });
    $("seatLabel").value = "";
  });
  $("assignForm").addEventListener("submit", (event) => {
    event.preventDefault();
    send({ type: "assign", actor: $("assignActor").value, seat: $("assignSeat").value });
  });
  $("exportHtml").addEventListener("click", () => exportLog("html"));
  $("exportMarkdown").addEventListener("click", () => exportLog("md"));
  $("save").addEventListener("click", async () => {
    const response = await fetch(`/api/save${named()}`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) return;
    const url = URL.createObjectURL(await response.blob());
    const name = downloadName(response.headers.get("content-disposition"));
    const link = node("a", { href: url, download: name }, document.body);
    link.click();
    link.remove();
    URL.revokeObjectURL(url);
  });
}

setLanguage(initialLanguage());
wire();
window.addEventListener("hashchange", () => location.reload());
if (token) {
  $("table").hidden = false;
  connect();
} else {
  startPage();
}
