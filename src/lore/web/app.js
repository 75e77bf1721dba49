// The Lore web client: the start page (start a session, upload a bundle) and the table
// (map, questions, chat, presence, GM tools), kept up to date over one WebSocket.

import { buildDialog, choiceId, node } from "./dialogs.js";
import { clockText, initialLanguage, setLanguage, t, currentLanguage } from "./i18n.js";
import { drawMap, splitLocation } from "./map.js";
import { lengthText } from "./units.js";
import { answerText, arrivalText, downloadName } from "./shown.js";

const $ = (id) => document.getElementById(id);
const token = decodeURIComponent(location.hash.slice(1));
// The session, named to the server so that a server of several workers hands the
// connection to the one serving it: the link's, else the one the server names.
let session = new URLSearchParams(location.search).get("session");
const named = () => (session ? `?session=${encodeURIComponent(session)}` : "");

// ------------------------------------------------------------ the start page

async function startPage() {
  $("start").hidden = false;
  const list = $("sources");
  const response = await fetch("/api/sources");
  for (const source of await response.json()) {
    const item = node("li", {}, list);
    node("span", { class: "source-title" }, item, source.title);
    node("span", { class: "source-name" }, item, ` (${source.name})`);
    const button = node("button", { type: "button" }, item, t("start"));
    button.dataset.source = source.name;
    button.addEventListener("click", () =>
      create(JSON.stringify({ source: source.name }), "application/json"),
    );
  }
  $("upload").addEventListener("change", (event) => {
    const file = event.target.files[0];
    if (file) create(file, "application/zip");
  });
}

async function create(body, type) {
  $("problems").hidden = true;
  $("created").hidden = true;
  const response = await fetch("/api/sessions", { method: "POST", body, headers: { "content-type": type } });
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
    node("span", {}, item, seat.seat === "GM" ? t("gmLink") : `${t("inviteFor")} ${seat.label}`);
    const link = node("a", { href: url, class: seat.seat === "GM" ? "gm-link" : "invite-link" }, item, url);
    link.dataset.seat = seat.seat;
    copyButton(item, url);
  }
  const gm = found.seats.find((s) => s.seat === "GM");
  node("a", { href: gm.link, class: "button open-gm" }, node("li", {}, links), t("openAsGm"));
  $("created").hidden = false;
}

function copyButton(parent, text) {
  const button = node("button", { type: "button", class: "copy" }, parent, t("copy"));
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
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
  view: { tick: 0, actors: new Map(), areas: new Map(), objects: new Map() },
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
  messages: [],
  nextRef: 1,
  socket: null,
  away: false, // our socket dropped, and the server has not told our presence since
  retry: 500,
  revoked: false,
};

function collections(view) {
  return {
    tick: view.tick,
    actors: new Map(view.actors.map((a) => [a.id, a])),
    areas: new Map(view.areas.map((a) => [a.path, a])),
    objects: new Map(view.objects.map((o) => [o.id, o])),
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
  renderAll();
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
    renderPresence();
    renderGm();
    if (state.revoked) return;
    if (state.retry > 0) renderBanner(true); // (0: told to connect elsewhere at once)
    setTimeout(connect, state.retry);
    state.retry = Math.min(Math.max(state.retry * 2, 500), 5000);
  });
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
      session = frame.session.id;
      $("title").textContent = frame.session.title;
      document.title = `${frame.session.title} — Lore`;
      document.body.classList.toggle("is-gm", frame.role === "gm");
      $("gm").hidden = frame.role !== "gm";
      $("secretLabel").hidden = frame.role !== "gm";
      renderBanner(false);
      break;
    case "snapshot":
      applySnapshot(frame);
      break;
    case "update":
      applyUpdate(frame);
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
    case "log":
      $("sessionLog").hidden = false;
      $("sessionLog").textContent = frame.records.map(logLine).join("\n");
      break;
    case "error":
      showError(frame);
      break;
    default:
      break;
  }
}

function showError(frame) {
  if (frame.code === "elsewhere") {
    // Served by another worker: connect again at once, naming the session.
    session = frame.session;
    state.retry = 0;
    return;
  }
  if (frame.code === "bad_token") {
    state.revoked = true;
    $("banner").hidden = false;
    $("banner").textContent = t("revokedLink");
    return;
  }
  const text = t(`error_${frame.code}`) !== `error_${frame.code}` ? t(`error_${frame.code}`) : frame.message;
  const id = state.refs.get(frame.ref);
  const dialog = id && state.dialogs.get(id);
  if (dialog) dialog.showProblem(text);
  else showMessage({ kind: "notice", text });
}

// ------------------------------------------------------------ rendering

// One transcript record of the session log as a line the GM reads: its game time, then
// who was asked, answered or told what (kinds this client does not know stay as JSON).
function logLine(record) {
  const time = record.tick !== undefined ? clockText(record.tick) : "";
  const values = (found) => Object.entries(found || {}).map(([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`).join(", ");
  const lines = {
    query: () => `? ${seatLabel(record.to)}: ${record.title ?? ""}`,
    answer: () => `> ${seatLabel(record.from)}: ${values(record.values)}`,
    message: () => `${record.to ? seatLabel(record.to) : t("everyone")}: ${record.text ?? ""}`,
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
  if (state.messages.length > 500) state.messages.shift();
  drawMessage(message);
}

function drawMessage(message) {
  const log = $("log");
  const item = node("li", { class: `msg msg-${message.kind}` });
  const time = node("span", { class: "tick" }, item, message.tick !== undefined ? clockText(message.tick) : "");
  time.title = String(message.tick ?? "");
  if (message.kind === "message") {
    if (state.role === "gm" && message.to !== "GM") node("span", { class: "to" }, item, `→ ${seatLabel(message.to)}`);
    const body = node("div", { class: "body" }, item);
    if (message.format === "html") {
      body.innerHTML = message.text; // cleaned by the server (nh3)
      for (const image of body.querySelectorAll("img")) {
        // An image the bundle lacks shows its text, not a broken picture.
        image.addEventListener("error", () => image.replaceWith(document.createTextNode(image.alt || "")), { once: true });
        image.addEventListener("load", () => { log.scrollTop = log.scrollHeight; }, { once: true }); // now taller
      }
    } else body.textContent = message.text;
  } else if (message.kind === "chat" || message.kind === "roll") {
    node("span", { class: "from" }, item, seatLabel(message.from));
    if (message.to) node("span", { class: "to" }, item, `→ ${seatLabel(message.to)}`);
    const text = message.kind === "roll" && message.secret && !message.text ? t("rolledSecretly") : message.text;
    node("span", { class: "body" }, item, (message.kind === "roll" ? "🎲 " : "") + text);
    if (message.secret) item.classList.add("secret");
  } else if (message.kind === "answer") {
    node("span", { class: "body" }, item, `${seatLabel(message.from)} ${t("answered")}: ${answerText(message)}`);
  } else if (message.kind === "error") {
    node("span", { class: "body" }, item, `${t("ruleError")}: ${message.text} (${message.where})`);
  } else {
    node("span", { class: "body" }, item, message.text);
  }
  log.appendChild(item);
  log.scrollTop = log.scrollHeight;
}

function renderAll() {
  $("clock").textContent = clockText(state.view.tick);
  $("who").textContent = state.role === "gm" ? "GM" : state.label;
  renderBanner(false);
  renderDialogs();
  renderMap();
  renderPresence();
  renderChatTargets();
  renderGm();
}

function renderBanner(reconnecting) {
  const banner = $("banner");
  let text = "";
  if (reconnecting) text = t("reconnecting");
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
    }
  }
  for (const [id, spec] of state.questions) {
    if (state.dialogs.has(id)) continue;
    const forLabel = state.role === "gm" && spec.to !== "GM" ? seatLabel(spec.to) : null;
    const dialog = buildDialog(spec, {
      forLabel,
      placeLabel,
      submit: (values) => {
        const ref = send({ type: "answer", id, values, seq: state.seq });
        if (ref !== null) state.refs.set(ref, id);
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
    box.appendChild(dialog.element);
    if (spec.area && (state.role !== "gm" || spec.to === "GM")) state.area = spec.area;
  }
  let empty = box.querySelector(".empty");
  if (state.questions.size === 0 && !empty) empty = node("p", { class: "empty" }, box, t("waiting"));
  if (state.questions.size > 0 && empty) empty.remove();
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
      for (const choice of input.choices) choices.add(splitLocation(choiceId(choice)).place);
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
  drawMap($("map"), map, {
    actors,
    objects: [...state.view.objects.values()],
    choices,
    selected,
    route,
    moves,
    hiddenText: t("hidden"),
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
    const label = seat.seat === state.seat ? `${seat.label} (${t(away ? "youReconnecting" : "you")})` : seat.label;
    const item = node("li", { class: away ? "offline reconnecting" : online ? "online" : "offline" }, list, label);
    item.title = away ? t("reconnecting") : online ? t("online") : t("offline");
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
}

function keepChoice(select, value) {
  if ([...select.options].some((o) => o.value === value)) select.value = value;
}

// ------------------------------------------------------------ controls

function wire() {
  $("lang").addEventListener("click", () => {
    setLanguage(currentLanguage() === "ja" ? "en" : "ja");
    if (state.seq !== null) {
      for (const dialog of state.dialogs.values()) dialog.element.remove();
      state.dialogs.clear(); // made again in the new language
      renderAll();
      $("log").textContent = "";
      for (const message of state.messages) drawMessage(message);
    }
  });
  $("areaSelect").addEventListener("change", (event) => {
    state.area = event.target.value;
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
  $("seatLabel").placeholder = t("newSeatLabel");
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
