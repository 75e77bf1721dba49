// Texts made of what the server tells, as people read them: an answer by its captions,
// an arrival, the name of a downloaded save.

import { t } from "./i18n.js";

function valueText(value) {
  if (Array.isArray(value)) return value.map(valueText).join(t("listSeparator"));
  if (value === true) return t("yes");
  if (value === false) return t("no");
  return String(value);
}

// An answer as the server shows it (`shown`: an input's caption and the value chosen,
// by its caption); an older server's bare values otherwise.
export function answerText(message) {
  if (!message.shown) return Object.values(message.values || {}).map(valueText).join(", ");
  return message.shown
    .map((part) => {
      const caption = part.caption || (part.purpose ? t("destination") : "");
      return caption ? `${caption}: ${valueText(part.value)}` : valueText(part.value);
    })
    .join(t("listSeparator"));
}

export function arrivalText(actor, place) {
  return t("arrived").replace("{who}", actor.name || actor.id).replace("{place}", place);
}

// A download's file name as the server gives it (the session's title and the time it
// was saved: `filename*` of its Content-Disposition); a plain name otherwise.
export function downloadName(disposition) {
  const found = /filename\*=UTF-8''([^;]+)/i.exec(disposition || "");
  if (!found) return "lore-session.zip";
  try {
    return decodeURIComponent(found[1]);
  } catch {
    return "lore-session.zip";
  }
}
