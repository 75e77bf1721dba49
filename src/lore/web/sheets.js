// The sheets panel: the seat's own sheets, always open (on a phone-width screen behind a
// tab), the other sheets the seat may read below them (the GM reads every sheet), each
// as the rules declare it: sections, labels in the page's language, bars for pairs such
// as HP of max HP. Drawn from `view.table` alone; nothing here is a rule.

import { node } from "./dialogs.js";
import { currentLanguage, t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";

function label(item) {
  return currentLanguage() === "ja" ? item.labelJa || item.label : item.label;
}

// The panel, made once in the table's grid; its tab shows or hides it on a phone.
function panel() {
  let found = document.getElementById("sheets");
  if (found) return found;
  const table = document.getElementById("table");
  found = node("section", { id: "sheets", class: "panel sheets-panel", hidden: "" }, table);
  const head = node("div", { class: "panel-head" }, found);
  const tab = node("button", { type: "button", class: "sheet-tab", "aria-expanded": "false", "aria-controls": "sheetList" }, head);
  node("h2", {}, head);
  tab.addEventListener("click", () => {
    const open = !found.classList.contains("open");
    found.classList.toggle("open", open);
    tab.setAttribute("aria-expanded", String(open));
  });
  // (it scrolls: reachable by keyboard, and named for screen readers)
  node("div", { id: "sheetList", class: "sheet-list", tabindex: "0", role: "region", "aria-label": t("sheetsAll") }, found);
  return found;
}

function valueText(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "✓" : "—";
  if (Array.isArray(value)) return value.map(valueText).join(", ");
  if (typeof value === "object") return value.name || value.text || JSON.stringify(value);
  return String(value);
}

// A bar: the value of the maximum, filled in proportion (empty at 0 or less).
function bar(entry, parent) {
  const max = Number(entry.max);
  const value = Number(entry.value);
  const share = max > 0 ? Math.max(0, Math.min(1, value / max)) : 0;
  const meter = node("div", { class: "bar", role: "meter", "aria-valuemin": "0", "aria-valuemax": String(max), "aria-valuenow": String(value) }, parent);
  meter.setAttribute("aria-label", label(entry));
  const fill = node("div", { class: "bar-fill" }, meter);
  fill.style.width = `${Math.round(share * 100)}%`;
  if (share <= 0.25) fill.classList.add("low");
  node("span", { class: "bar-text" }, meter, `${valueText(entry.value)} / ${valueText(entry.max)}`);
}

// The GM's ruling on a line: a small form in the line, the value as it is now, and
// whether the ruling is secret; `onRule(id, member, value, secret)` sends it. A number
// stays a number here; the server checks the rest (the kind, a bar's maximum).
function ruleForm(sheet, entry, row, onRule) {
  if (row.querySelector("form")) return;
  // (in a <dd> of its own: a <dl>'s groups hold only <dt> and <dd>)
  const place = node("dd", { class: "rule-place" }, row);
  const form = node("form", { class: "rule-form" }, place);
  const input = node("input", { name: "value", "aria-label": t("ruleValue") }, form);
  const numeric = typeof entry.value === "number";
  const truth = typeof entry.value === "boolean";
  if (numeric) input.type = "number";
  if (truth) input.type = "checkbox";
  if (truth) input.checked = entry.value;
  else input.value = entry.value === null || entry.value === undefined ? "" : String(entry.value);
  const secret = node("label", { class: "rule-secret" }, form);
  const box = node("input", { type: "checkbox", name: "secret" }, secret);
  secret.append(` ${t("ruleSecret")}`);
  node("button", { type: "submit" }, form, t("ruleSet"));
  const cancel = node("button", { type: "button", class: "rule-cancel" }, form, t("ruleCancel"));
  cancel.addEventListener("click", () => place.remove());
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = truth ? input.checked : numeric && input.value.trim() !== "" && !Number.isNaN(Number(input.value)) ? Number(input.value) : input.value;
    onRule(sheet.id, entry.member, value, box.checked);
    place.remove();
  });
  input.focus();
}

function drawSheet(sheet, parent, onRule) {
  const card = node("article", { class: `sheet${sheet.mine ? " mine" : ""}` }, parent);
  card.dataset.id = sheet.id;
  node("h3", {}, card, sheet.name);
  for (const section of sheet.sections) {
    node("h4", {}, card, label(section));
    const list = node("dl", onRule ? { class: "rulable" } : {}, card);
    for (const entry of section.entries) {
      const row = node("div", { class: "entry" }, list);
      row.dataset.member = entry.member;
      node("dt", {}, row, label(entry));
      const cell = node("dd", {}, row);
      if (entry.max !== undefined) bar(entry, cell);
      else cell.textContent = valueText(entry.value);
      // (a derived line has an empty cell in the ✎ column: the grid's rows stay aligned)
      const editCell = onRule ? node("dd", { class: "rule-cell" }, row) : null;
      if (editCell && !entry.derived) {
        const edit = node("button", { type: "button", class: "rule-edit", title: t("ruleOn").replace("{label}", label(entry)) }, editCell, "✎");
        edit.setAttribute("aria-label", edit.title);
        edit.addEventListener("click", () => ruleForm(sheet, entry, row, onRule));
      }
    }
  }
}

// Draw the seat's sheets (`table`: the view's table; null: the rules declare none);
// `onRule`: the GM's, to rule on a line (see ruleForm).
export function renderSheets(table, isGm, onRule = null) {
  const box = panel();
  const sheets = (table && table.sheets) || [];
  box.hidden = sheets.length === 0;
  box.querySelector("h2").textContent = isGm ? t("sheetsAll") : t("sheets");
  box.querySelector(".sheet-tab").textContent = t("sheetTab");
  const list = box.querySelector(".sheet-list");
  const own = sheets.filter((s) => s.mine);
  const others = sheets.filter((s) => !s.mine);
  const rule = isGm ? onRule : null;
  // (a ruling form being filled in is not drawn away by an update)
  if (list.querySelector(".rule-form")) return;
  list.textContent = "";
  for (const sheet of own) drawSheet(sheet, list, rule);
  if (others.length > 0) {
    const more = node("div", { class: "other-sheets" }, list);
    if (own.length > 0) node("h3", { class: "others-title" }, more, t("otherSheets"));
    for (const sheet of others) drawSheet(sheet, more, rule);
  }
}

// The bars of the map's tokens: by actor id, the first bar of its sheet the seat reads.
export function tokenBars(table) {
  const bars = new Map();
  for (const sheet of (table && table.sheets) || []) {
    for (const section of sheet.sections) {
      const entry = section.entries.find((e) => e.max !== undefined);
      if (entry && !bars.has(sheet.id)) bars.set(sheet.id, entry);
    }
  }
  return bars;
}

// Put an actor's bar over its token (map.js calls it for every token drawn), as wide as
// the token of radius `r`: tokens side by side in one place keep their bars apart.
export function drawTokenBar(bars, group, item, cx, cy, r = 12) {
  const entry = bars.get(item.id);
  if (!entry) return;
  const max = Number(entry.max);
  const share = max > 0 ? Math.max(0, Math.min(1, Number(entry.value) / max)) : 0;
  const width = 2 * r;
  const height = Math.max(2, r / 3);
  const top = cy - r - height - 1;
  const back = document.createElementNS(NS, "rect");
  for (const [k, v] of Object.entries({ x: cx - width / 2, y: top, width, height, class: "token-bar" })) back.setAttribute(k, String(v));
  group.appendChild(back);
  const fill = document.createElementNS(NS, "rect");
  const cls = `token-bar-fill${share <= 0.25 ? " low" : ""}`;
  for (const [k, v] of Object.entries({ x: cx - width / 2, y: top, width: width * share, height, class: cls })) fill.setAttribute(k, String(v));
  fill.dataset.value = String(entry.value);
  group.appendChild(fill);
}
