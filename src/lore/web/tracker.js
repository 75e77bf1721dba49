// The tracker bar: each order of play the rules declare (the round, the phase, the
// actors in order, the one whose chance it is), kept up to date by the rules alone, and
// whom the table waits for. Drawn from `view.table` alone.

import { node } from "./dialogs.js";
import { currentLanguage, t, tf } from "./i18n.js";

function bar() {
  let found = document.getElementById("tracker");
  if (found) return found;
  const table = document.getElementById("table");
  found = node("section", { id: "tracker", class: "tracker-bar", hidden: "", "aria-live": "polite" });
  table.parentNode.insertBefore(found, table);
  found.setAttribute("aria-label", t("tracker"));
  return found;
}

function drawTracker(tracker, parent) {
  const item = node("div", { class: "tracker" }, parent);
  item.dataset.id = tracker.id;
  const name = currentLanguage() === "ja" ? tracker.labelJa || tracker.label : tracker.label;
  if (name) node("strong", { class: "tracker-name" }, item, name);
  if (tracker.round > 0) node("span", { class: "tracker-round" }, item, tf("round", { n: tracker.round }));
  if (tracker.phase) node("span", { class: "tracker-phase" }, item, tracker.phase);
  const order = node("ol", { class: "tracker-order" }, item);
  order.setAttribute("aria-label", t("order"));
  const current = new Set(tracker.current);
  for (const actor of tracker.order) {
    const entry = node("li", { class: current.has(actor.id) ? "current" : "" }, order, actor.name);
    entry.dataset.id = actor.id;
    if (current.has(actor.id)) entry.setAttribute("aria-current", "true");
  }
  for (const id of tracker.current) {
    if (!tracker.order.some((a) => a.id === id)) node("li", { class: "current", "aria-current": "true" }, order, id);
  }
}

// Draw the trackers (`table`: the view's table; null: the rules declare none).
export function renderTracker(table) {
  const box = bar();
  const trackers = (table && table.trackers) || [];
  box.hidden = trackers.length === 0;
  box.setAttribute("aria-label", t("tracker"));
  box.textContent = "";
  for (const tracker of trackers) drawTracker(tracker, box);
}

// Whom the table waits for, as the dialogs panel says it when this seat has nothing to
// answer (null: the rules declare no table, or no one is asked).
export function waitingText(table, seatLabel) {
  const waiting = (table && table.waiting) || [];
  if (waiting.length === 0) return null;
  const names = waiting.map((w) => w.name || (w.seat === "GM" ? t("gm") : seatLabel(w.seat)));
  return tf("waitingFor", { names: [...new Set(names)].join(t("listSeparator")) });
}
