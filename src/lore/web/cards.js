// The card table: each zone of cards as this seat may see it (the view's `zones`, which
// holds no face the seat may not see): the seat's own hands first, the stage as a stack,
// the other zones with their counts. A card or zone that an open question offers is
// marked and answers it when clicked (the question's menu stays, for keyboards and
// screen readers); a question whose options are cards is answered by its cards.

import { node } from "./dialogs.js";
import { t, tf } from "./i18n.js";

// The panel, made once and put before the dialogs.
function panel() {
  let found = document.getElementById("cardPanel");
  if (found) return found;
  found = node("section", { id: "cardPanel", class: "panel card-panel", "aria-label": t("cardTable") });
  node("h2", { class: "card-title" }, found, t("cardTable"));
  node("div", { class: "card-zones" }, found);
  const dialogs = document.getElementById("dialogs");
  dialogs.parentNode.insertBefore(found, dialogs);
  return found;
}

// What each card or zone id stands for in the seat's open questions: id -> [{question
// element, input name, many}].
function offers(state) {
  const found = new Map();
  for (const [qid, spec] of state.questions) {
    if (state.role === "gm" && spec.to !== "GM") continue;
    for (const input of spec.inputs) {
      if (!input.choices) continue;
      const many = input.kind === "choices";
      for (const choice of input.choices) {
        const id = typeof choice === "object" && choice !== null ? choice.id : choice;
        if (!found.has(String(id))) found.set(String(id), []);
        found.get(String(id)).push({ qid, name: input.name, many, most: input.most, least: input.least });
      }
    }
  }
  return found;
}

// Answers with the option: a button of its question's menu pressed, or its box ticked
// (several to pick: the answer is sent once as many as asked are ticked).
function take(offer) {
  const dialog = document.querySelector(`#dialogs .dialog[data-id="${CSS.escape(offer.qid)}"]`);
  if (!dialog) return;
  if (!offer.many) {
    for (const button of dialog.querySelectorAll("button.choice")) {
      if (button.dataset.value === offer.id && !button.disabled) {
        button.click();
        return;
      }
    }
    return;
  }
  const boxes = [...dialog.querySelectorAll('.choices.many input[type="checkbox"]')];
  const box = boxes[offer.index];
  if (!box || box.disabled) return;
  box.checked = !box.checked;
  const ticked = boxes.filter((b) => b.checked).length;
  if (offer.most !== undefined && offer.most !== null && ticked === offer.most && offer.least === offer.most) {
    const submit = dialog.querySelector("button.submit");
    if (submit) submit.click();
  }
}

function indexed(state, found) {
  // (a choice's place among its input's choices: the box to tick)
  for (const [id, list] of found) {
    for (const offer of list) {
      const spec = state.questions.get(offer.qid);
      const input = spec.inputs.find((i) => i.name === offer.name);
      offer.index = input.choices.findIndex((c) => String(typeof c === "object" && c !== null ? c.id : c) === id);
      offer.id = id;
    }
  }
  return found;
}

function cardElement(card, offered, parent) {
  const label = card.back ? t("cardBack") : card.face;
  const element = node(offered ? "button" : "span", { class: "card" }, parent);
  if (offered) element.type = "button";
  element.dataset.card = card.id;
  if (card.back) element.classList.add("back");
  else {
    element.classList.add(card.red ? "red" : "black");
    node("span", { class: "rank" }, element, card.face);
  }
  if (card.turned) element.classList.add("turned");
  if (card.counters) node("span", { class: "counters" }, element, `+${card.counters}`);
  element.setAttribute("aria-label", card.turned ? tf("cardTurned", { card: label }) : label);
  if (!offered) element.setAttribute("role", "img");
  return element;
}

function zoneTitle(zone) {
  return `${zone.name} (${tf("cardCount", { count: zone.count })})`;
}

// The menu's options that are cards drawn as cards too (red or black, or a back), their
// text kept for keyboards and screen readers.
function markMenus(cards) {
  for (const button of document.querySelectorAll("#dialogs button.choice")) {
    const card = cards.get(button.dataset.value);
    if (!card) continue;
    button.classList.add("card-choice", card.back ? "back" : card.red ? "red" : "black");
  }
}

export function renderCards(state) {
  const zones = [...(state.view.zones || new Map()).values()];
  const existing = document.getElementById("cardPanel");
  const table = document.getElementById("table");
  if (zones.length === 0) {
    if (existing) existing.hidden = true;
    if (table) table.classList.remove("with-cards");
    return;
  }
  const box = panel();
  box.hidden = false;
  if (table) table.classList.add("with-cards");
  box.querySelector(".card-title").textContent = t("cardTable");
  box.setAttribute("aria-label", t("cardTable"));
  const list = box.querySelector(".card-zones");
  list.textContent = "";
  const found = indexed(state, offers(state));
  const cards = new Map();
  for (const zone of zones) for (const card of zone.cards || []) cards.set(card.id, card);
  markMenus(cards);
  const mine = (zone) => state.role !== "gm" && zone.owners.some((id) => state.view.actors.has(id));
  // The seat's own zones first, then the shared ones, then the other seats'.
  const order = (zone) => (mine(zone) ? 0 : zone.owners.length === 0 ? 1 : 2);
  zones.sort((a, b) => order(a) - order(b));
  for (const zone of zones) {
    const section = node("div", { class: `zone zone-${zone.kind}` }, list);
    if (mine(zone)) section.classList.add("mine");
    section.dataset.zone = zone.id;
    // (a question offering zones names each by its name)
    const zoneOffers = found.get(zone.id) || found.get(zone.name) || [];
    const head = node(zoneOffers.length ? "button" : "h3", { class: "zone-name" }, section, zoneTitle(zone));
    if (zoneOffers.length) {
      head.type = "button";
      head.classList.add("offered");
      head.addEventListener("click", () => take(zoneOffers[0]));
    }
    const row = node("div", { class: "zone-cards" }, section);
    if (!zone.cards) {
      node("span", { class: "zone-count" }, row, tf("cardCount", { count: zone.count }));
      continue;
    }
    if (zone.cards.length === 0) node("span", { class: "zone-empty" }, row, t("noCards"));
    // A deck or a pile shows its top card over the count; the others every card.
    const heap = zone.kind === "deck" || zone.kind === "pile";
    const cards = heap ? zone.cards.slice(-1) : zone.cards;
    for (const card of cards) {
      const cardOffers = found.get(card.id) || (heap ? zoneOffers : []);
      const element = cardElement(card, cardOffers.length > 0, row);
      if (cardOffers.length > 0) {
        element.classList.add("offered");
        element.addEventListener("click", () => take(cardOffers[0]));
      } else if (zoneOffers.length > 0) {
        element.addEventListener("click", () => take(zoneOffers[0]));
      }
    }
  }
}
