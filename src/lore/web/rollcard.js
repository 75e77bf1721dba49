// Roll cards in the log: a roll a rule showed, or one typed in the chat, drawn from the
// facts its `roll` message carries (see docs/protocol.md, "Roll cards"): who rolled, for
// what, every die with its sides (dropped, rolled again, exploded dice marked), the
// modifiers, the total, the target and the outcome, then BCDice's text.

import { node } from "./dialogs.js";
import { t, tf } from "./i18n.js";

// Whether a roll message carries a card (an older server's, or a secret roll of another
// seat, has its text alone).
export function isCard(message) {
  return message.kind === "roll" && Array.isArray(message.dice);
}

function signed(n) {
  return n < 0 ? `${n}` : `+${n}`;
}

// How each mark of a die is said.
const MARKS = {
  dropped: () => t("die_dropped"),
  rerolled: () => t("die_rerolled"),
  exploded: () => t("die_exploded"),
  subtracted: () => t("die_subtracted"),
};

function dieItem(die, parent) {
  const marks = Object.keys(MARKS).filter((mark) => die[mark]);
  const item = node("span", { class: ["die", ...marks].join(" ") }, parent);
  node("span", { class: "face" }, item, String(die.face));
  node("span", { class: "sides" }, item, tf("dieSides", { sides: die.sides }));
  const said = [tf("dieSaid", { face: die.face, sides: die.sides }), ...marks.map((mark) => MARKS[mark]())];
  item.setAttribute("aria-label", said.join(", "));
  item.title = said.join(", ");
  return item;
}

// The card of a roll message, drawn into the log's item (whose time is drawn already);
// `seatLabel` names a seat as the client shows it.
export function drawRollCard(item, message, seatLabel) {
  item.classList.add("roll-card");
  const head = node("div", { class: "roll-head" }, item);
  // The actor that rolled, and the seat that plays it when its name is not the seat's.
  const seat = seatLabel(message.from);
  const who = message.by && message.by !== seat && message.by !== message.from ? `${message.by} (${seat})` : seat;
  node("span", { class: "from" }, head, who);
  if (message.title) node("span", { class: "roll-title" }, head, message.title);
  if (message.secret) {
    const whom = message.audience === "GM" ? t("rollForGM") : t("rollForRoller");
    node("span", { class: "roll-secret" }, head, whom);
    item.classList.add("secret");
  }
  const line = node("div", { class: "roll-line" }, item);
  const dice = node("span", { class: "dice" }, line);
  for (const die of message.dice) dieItem(die, dice);
  for (const modifier of message.modifiers || []) node("span", { class: "modifier" }, line, signed(modifier));
  if (message.total !== undefined) node("span", { class: "roll-total" }, line, `= ${message.total}`);
  if (message.target !== undefined) node("span", { class: "roll-target" }, line, tf("rollTarget", { target: message.target }));
  if (message.outcome) {
    node("span", { class: `roll-outcome ${message.outcome}` }, line, message.outcome === "success" ? t("rollSuccess") : t("rollFailure"));
  }
  if (message.critical) node("span", { class: "roll-critical" }, line, t("rollCritical"));
  if (message.fumble) node("span", { class: "roll-fumble" }, line, t("rollFumble"));
  if (message.ruling) node("span", { class: "roll-ruling" }, line, t(`rollRuled_${message.ruling}`));
  const comment = message.comment ? ` ${message.comment}` : "";
  if (message.text) node("div", { class: "roll-text" }, item, `🎲 ${message.text}${comment}`);
  return item;
}
