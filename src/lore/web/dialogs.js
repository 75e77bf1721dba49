// Dialogs built from a question's spec: its title, the texts shown as they are, and one
// control per input, chosen from the input's description (so new kinds of input fit):
// choices as buttons with their captions (or checkboxes when several may be picked),
// numbers with their unit and range, yes/no, text, and places picked on the map.

import { t, tf } from "./i18n.js";

// An element with its attributes and text, put into `parent` (the page's one way to make one).
export function node(tag, attrs, parent, content) {
  const found = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") found.className = value;
    else found.setAttribute(key, value);
  }
  if (content !== undefined) found.textContent = content;
  if (parent) parent.appendChild(found);
  return found;
}

// A choice is {id, caption} (an older server sent the bare id).
export function choiceId(choice) {
  return choice !== null && typeof choice === "object" ? choice.id : choice;
}

function captionOf(input, index, state) {
  const choice = input.choices[index];
  const id = String(choiceId(choice));
  if (input.type === "loc" && state.placeLabel) return state.placeLabel(id);
  const caption = choice !== null && typeof choice === "object" ? choice.caption : null;
  return caption || (input.captions && input.captions[index]) || id;
}

function isMany(input) {
  return input.kind === "choices" || (input.most !== undefined && input.most !== null);
}

function isNumber(input) {
  return String(input.type).startsWith("unit[") || ["integer", "real", "number"].includes(input.type);
}

// The choice of a place that is where the actor stands (its index, or -1): staying, a
// move of no length, offered apart from the places to go, as what it is.
function stayChoice(input, spec) {
  if (input.type !== "loc" || !spec.area || spec.from === undefined || spec.from === null) return -1;
  const here = `${spec.area}[${spec.from}]`;
  return input.choices.findIndex((choice) => String(choiceId(choice)) === here);
}

function stayButton(input, choice, box, state) {
  const place = state.placeLabel ? state.placeLabel(String(choiceId(choice))) : String(choiceId(choice));
  const button = node("button", { type: "button", class: "choice stay" }, box, tf("stayHere", { place }));
  button.dataset.value = String(choiceId(choice));
  button.addEventListener("click", () => state.stay(input.name, choiceId(choice)));
  return button;
}

// What an input is called for people: the caption the rules give it (the spec's
// `captions`), a destination for a place, else nothing (its choices, the question's
// title and texts say it); never its identifier.
export function inputCaption(spec, input) {
  const given = spec.captions && spec.captions[input.name];
  if (given) return given;
  return input.type === "loc" ? t("destination") : "";
}

// The control of one input; returns a function giving its value (undefined: not given).
function control(input, box, state) {
  const caption = inputCaption(state.spec, input);
  if (caption && input.type !== "boolean") node("div", { class: "input-name" }, box, caption);
  if (input.choices && input.type === "loc" && state.spec.area) {
    node("p", { class: "hint" }, box, t("pickOnMap"));
  }
  if (input.choices && isMany(input)) {
    const list = node("div", { class: "choices many" }, box);
    if (input.least !== undefined) {
      node("span", { class: "hint" }, box, `${input.least}–${input.most ?? input.choices.length}`);
    }
    const boxes = input.choices.map((choice, i) => {
      const item = node("label", { class: "check" }, list);
      const check = node("input", { type: "checkbox", value: String(i) }, item);
      node("span", {}, item, captionOf(input, i, state));
      return check;
    });
    return () => input.choices.filter((_, i) => boxes[i].checked).map(choiceId);
  }
  if (input.choices) {
    const list = node("div", { class: "choices" }, box);
    const stay = stayChoice(input, state.spec);
    const buttons = input.choices.map((choice, i) => {
      if (i === stay) return stayButton(input, choice, box, state);
      const button = node("button", { type: "button", class: "choice" }, list, captionOf(input, i, state));
      button.dataset.value = String(choiceId(choice));
      button.addEventListener("click", () => state.choose(input.name, choiceId(choice)));
      return button;
    });
    state.marks[input.name] = () => {
      for (const button of buttons) {
        button.classList.toggle("picked", button.dataset.value === String(state.values[input.name]));
      }
    };
    return () => state.values[input.name];
  }
  if (input.type === "boolean") {
    const item = node("label", { class: "check" }, box);
    const check = node("input", { type: "checkbox" }, item);
    node("span", {}, item, caption || t("yes"));
    if (input.default === true) check.checked = true;
    return () => check.checked;
  }
  const field = node("input", { type: isNumber(input) ? "number" : "text", name: input.name }, box);
  if (isNumber(input)) {
    field.step = input.type === "integer" ? "1" : "any";
    if (input.bounds) {
      field.min = String(input.bounds.low);
      field.max = String(input.bounds.high);
    }
  }
  if (input.default !== undefined) field.value = String(input.default);
  if (input.unit) node("span", { class: "unit" }, box, input.unit);
  if (input.range) node("span", { class: "hint" }, box, input.range);
  return () => {
    if (field.value === "") return undefined;
    if (!isNumber(input)) return field.value;
    const number = Number(field.value);
    return input.type === "integer" || Number.isInteger(number) ? Math.trunc(number) : number;
  };
}

// A dialog for `spec`; `actions.submit(values)` sends the answer; `actions.pick(name, value)`
// tells the map a place was chosen (for the route preview); `actions.placeLabel(location)`
// names a place for its button; `actions.back()` goes back (a spec with `back`: the answer
// before this question may be taken back).
export function buildDialog(spec, actions) {
  const box = node("article", { class: "dialog" });
  box.dataset.id = spec.id;
  if (spec.actor) node("div", { class: "asked" }, box, `${t("askedActor")}: ${spec.actor.name}`);
  const title = node("h3", {}, box, spec.purpose ? t(`title_${spec.purpose}`) : spec.title);
  if (actions.forLabel) node("span", { class: "for" }, title, ` (${t("forSeat")} ${actions.forLabel})`);
  const together = node("p", { class: "together" }, box);
  for (const item of spec.texts) {
    if (item.name === "map" && spec.area) continue; // drawn on the map instead
    const para = node(item.name === "map" ? "pre" : "p", { class: `text text-${item.name}` }, box, item.text);
    const caption = spec.captions && spec.captions[item.name];
    if (caption && item.name !== "map") para.textContent = `${caption}: ${item.text}`;
  }
  const state = { spec, values: {}, marks: {}, choose: null, placeLabel: actions.placeLabel };
  const readers = {};
  const single = spec.inputs.length === 1 && spec.inputs[0].choices && !isMany(spec.inputs[0]);
  const routeLine = node("p", { class: "route-line" }, box);
  const problem = node("p", { class: "problem", role: "alert" }, box);
  const note = node("p", { class: "dialog-note", role: "status" }, box);
  let pending = false;
  let locked = null;
  const lock = () => {
    for (const control of box.querySelectorAll("button, input")) control.disabled = pending || locked !== null;
    box.classList.toggle("pending", pending);
    box.classList.toggle("locked", locked !== null);
    note.textContent = pending ? t("sending") : locked !== null ? t(locked) : "";
  };
  const submit = () => {
    if (pending || locked !== null) return;
    const values = {};
    for (const input of spec.inputs) {
      const value = readers[input.name]();
      if (value !== undefined) values[input.name] = value;
    }
    actions.submit(values);
  };
  state.stay = (name, value) => {
    state.values[name] = value;
    submit();
  };
  state.choose = (name, value) => {
    state.values[name] = value;
    for (const mark of Object.values(state.marks)) mark();
    const input = spec.inputs.find((i) => i.name === name);
    if (input && input.type === "loc" && spec.area) {
      actions.pick(name, value);
      return; // a route is shown first; the answer button confirms it
    }
    if (single) submit();
  };
  for (const input of spec.inputs) {
    const part = node("div", { class: "input" }, box);
    readers[input.name] = control(input, part, state);
  }
  box.appendChild(routeLine);
  box.appendChild(problem);
  box.appendChild(note);
  const hasLocation = spec.inputs.some((i) => i.type === "loc" && spec.area);
  const buttons = node("div", { class: "dialog-buttons" }, box);
  if (spec.back && actions.back) {
    // The answer before this question taken back: that question is asked again.
    const back = node("button", { type: "button", class: "back" }, buttons, t("back"));
    back.title = t("backHelp");
    back.addEventListener("click", () => {
      if (!pending && locked === null) actions.back();
    });
  }
  if (!single || hasLocation) {
    const button = node("button", { type: "button", class: "submit" }, buttons, t("answer"));
    button.addEventListener("click", submit);
  }
  return {
    element: box,
    choose: (name, value) => state.choose(name, value),
    showRoute: (text) => {
      routeLine.textContent = text;
    },
    showProblem: (text) => {
      problem.textContent = text;
    },
    // The same question asked more than once at once: {index, count}, or null.
    setTogether: (value) => {
      together.textContent = value ? tf("askedTogether", value) : "";
    },
    // Sent, until the server's answer: nothing more can be given (the note says so).
    setPending: (value) => {
      pending = value;
      lock();
    },
    // Why it cannot be answered now (a key of the texts: paused, ended ...), or null.
    setLocked: (key) => {
      locked = key;
      lock();
    },
    values: state.values,
  };
}
