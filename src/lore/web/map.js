// Drawing an area's map as SVG: square and hex grids with their terrain, Linked graphs as
// nodes and links, points; the areas inside it, the actors and objects the seat sees,
// the places a question offers, a route, and the last moves.

import { lengthText } from "./units.js";

const NS = "http://www.w3.org/2000/svg";
const CELL = 44;
const PALETTE = ["#d9cfb8", "#6b6257", "#9fc48b", "#8bb6d6", "#c9a26b", "#b7b0c9", "#e3d37a", "#a3c2b0"];

function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

function text(parent, x, y, content, cls) {
  const node = el("text", { x, y, class: cls || "" }, parent);
  node.textContent = content;
  return node;
}

export function splitLocation(location) {
  const found = /^(.*?)(?:\[([^\]]*)\])?$/.exec(String(location || ""));
  return { area: found[1] || "/", place: found[2] === undefined ? null : found[2].replace(/\s/g, "") };
}

// Where each place of the map is drawn, and the shapes of the places.
function layout(map) {
  const centers = new Map();
  const shapes = [];
  let width = CELL * 4;
  let height = CELL * 3;
  if (map.style === "Sectioned2D") {
    const hex = map.kind === 6;
    const r = CELL / 2;
    const w = hex ? Math.sqrt(3) * r : CELL;
    map.rows.forEach((row, y) => {
      row.forEach((cell, x) => {
        const cx = hex ? w * (x + 0.5 * (y & 1)) + w / 2 + 4 : x * CELL + r + 4;
        const cy = hex ? r * 1.5 * y + r + 4 : y * CELL + r + 4;
        const key = `${x},${y}`;
        centers.set(key, [cx, cy]);
        shapes.push({ key, cx, cy, cell, hex, r });
        width = Math.max(width, cx + (hex ? w / 2 : r) + 4);
        height = Math.max(height, cy + r + 4);
      });
    });
  } else {
    const labels = map.style === "Linked" ? map.nodes.map((n) => n.label) : map.points || [];
    const n = labels.length;
    const radius = Math.max(90, n * 26);
    const raw = labels.map((label, i) => {
      const angle = n === 2 ? Math.PI * (1 - i) : (2 * Math.PI * i) / Math.max(1, n) - Math.PI / 2;
      return n === 1 ? [0, 0] : [radius * Math.cos(angle), radius * Math.sin(angle)];
    });
    const left = Math.min(...raw.map((p) => p[0])) - 80;
    const top = Math.min(...raw.map((p) => p[1])) - 60;
    labels.forEach((label, i) => {
      const cx = raw[i][0] - left;
      const cy = raw[i][1] - top;
      centers.set(label, [cx, cy]);
      const found = map.style === "Linked" ? map.nodes[i] : null;
      shapes.push({ key: label, cx, cy, node: true, name: (found && found.description) || label });
      width = Math.max(width, cx + 80);
      height = Math.max(height, cy + 70);
    });
  }
  return { centers, shapes, width, height };
}

// A drawn text's box, which no token's label may cover.
function obstacle(node, obstacles) {
  const box = node.getBBox();
  obstacles.push({ x: box.x, y: box.y, width: box.width, height: box.height });
}

function drawPlaces(svg, map, shapes, options, obstacles) {
  const choices = options.choices || new Set();
  for (const shape of shapes) {
    const group = el("g", { class: "place", "data-place": shape.key }, svg);
    let outline;
    if (shape.node) {
      outline = el("circle", { cx: shape.cx, cy: shape.cy, r: 26, class: "node" }, group);
      obstacle(text(group, shape.cx, shape.cy + 44, shape.name, "node-label"), obstacles); // what the map calls it
    } else {
      const [terrain, prohibited, description] = shape.cell;
      const fill = terrain >= 0 ? PALETTE[terrain % PALETTE.length] : "#eee";
      if (shape.hex) {
        const points = [];
        for (let i = 0; i < 6; i += 1) {
          const a = (Math.PI / 3) * i - Math.PI / 6;
          points.push(`${shape.cx + shape.r * Math.cos(a)},${shape.cy + shape.r * Math.sin(a)}`);
        }
        outline = el("polygon", { points: points.join(" "), fill }, group);
      } else {
        outline = el("rect", { x: shape.cx - shape.r, y: shape.cy - shape.r, width: CELL, height: CELL, fill }, group);
      }
      outline.setAttribute("class", prohibited ? "cell blocked" : "cell");
      const terrainName = terrain >= 0 ? map.terrains[terrain] : "";
      const tip = el("title", {}, group);
      tip.textContent = `[${shape.key}] ${terrainName}${description ? " — " + description : ""}`;
      if (description) obstacle(text(group, shape.cx, shape.cy - shape.r + 11, "★", "mark"), obstacles);
    }
    if (choices.has(shape.key)) {
      group.classList.add("choice");
      if (options.selected === shape.key) group.classList.add("selected");
      group.addEventListener("click", () => options.onPick(shape.key));
      group.setAttribute("tabindex", "0");
      group.setAttribute("role", "button");
      group.setAttribute("aria-label", shape.name || shape.key);
      group.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") options.onPick(shape.key);
      });
    }
  }
}

function drawLinks(svg, map, centers, obstacles) {
  if (map.style !== "Linked") return;
  const drawn = new Set();
  for (const node of map.nodes) {
    for (const link of node.links) {
      const pair = [node.label, link.to].sort().join("\u0000");
      const a = centers.get(node.label);
      const b = centers.get(link.to);
      if (!a || !b || drawn.has(pair)) continue;
      drawn.add(pair);
      el("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: "link" }, svg);
      const label = lengthText(link.distance * map.scale, map);
      obstacle(text(svg, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2 - 6, label, "link-label"), obstacles);
    }
  }
}

function drawChildren(svg, map, centers, options, bounds, obstacles) {
  for (const child of map.children || []) {
    const at = centers.get(String(child.place || "").replace(/\s/g, ""));
    if (!at) continue;
    const name = options.areaName ? options.areaName(child) : child.label;
    const marker = text(svg, at[0], at[1] - (map.style === "Sectioned2D" ? 12 : 34), `▣ ${name}`, "child-area");
    const box = marker.getBBox(); // (kept inside the map, and no token's label put on it)
    const shift = Math.max(0, 2 - box.x) - Math.max(0, box.x + box.width - (bounds.right - 2));
    marker.setAttribute("x", at[0] + shift);
    obstacles.push({ x: box.x + shift, y: box.y, width: box.width, height: box.height });
    if (options.onArea) marker.addEventListener("click", () => options.onArea(child.path));
  }
}

function drawPath(svg, centers, path, cls) {
  const points = path.map((p) => centers.get(String(p).replace(/\s/g, ""))).filter(Boolean);
  if (points.length < 2) return;
  el("polyline", { points: points.map((p) => p.join(",")).join(" "), class: cls }, svg);
}

// Where the tokens of one place go: one in the middle, more in a grid in the place
// (smaller as they are more), at most nine drawn and the rest said by "+n".
function slots(count, at) {
  if (count === 1) return { r: 11, points: [at] };
  const columns = count <= 4 ? 2 : 3;
  const shown = Math.min(count, columns * columns);
  const step = CELL / (columns + 0.3);
  const r = columns === 2 ? 8.5 : 6;
  const rows = Math.ceil(shown / columns);
  const points = [];
  for (let i = 0; i < shown; i += 1) {
    const col = i % columns;
    const row = Math.floor(i / columns);
    const inRow = row === rows - 1 ? shown - row * columns : columns;
    points.push([at[0] + (col - (inRow - 1) / 2) * step, at[1] + (row - (rows - 1) / 2) * step]);
  }
  return { r, points };
}

function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

// Put each label near its token where it overlaps no other label and stays inside the
// map: below, above, right, left, then further away; the map grows when none fits.
function placeLabels(svg, labels, bounds, obstacles) {
  const taken = [...obstacles];
  for (const { node, x, y, r } of labels) {
    node.setAttribute("x", x);
    node.setAttribute("y", y);
    const box = node.getBBox();
    const w = box.width + 2;
    const h = box.height + 1;
    const ascent = y - box.y; // (from the box's top to the text's baseline)
    if (w + 2 > bounds.right - bounds.left) bounds.right = bounds.left + w + 2; // (the map grows)
    const tries = [];
    for (let ring = 0; ring < 6; ring += 1) {
      const d = r + 2 + ring * h;
      tries.push([x, y + d], [x, y - d - h], [x + d + w / 2, y - h / 2], [x - d - w / 2, y - h / 2]);
    }
    let chosen = null;
    for (const [tx, top] of tries) {
      const cx = Math.min(Math.max(tx, bounds.left + w / 2 + 1), bounds.right - w / 2 - 1);
      const candidate = { x: cx - w / 2, y: top, width: w, height: h };
      if (candidate.y < bounds.top + 1 || candidate.y + h > bounds.bottom - 1) continue;
      if (!taken.some((p) => overlaps(p, candidate))) {
        chosen = candidate;
        break;
      }
    }
    if (!chosen) {
      const lowest = Math.max(bounds.bottom, ...taken.map((p) => p.y + p.height));
      const cx = Math.min(Math.max(x, bounds.left + w / 2 + 1), bounds.right - w / 2 - 1);
      chosen = { x: cx - w / 2, y: lowest + 1, width: w, height: h };
      bounds.bottom = chosen.y + h + 2;
    }
    node.setAttribute("x", chosen.x + w / 2);
    node.setAttribute("y", chosen.y + 0.5 + ascent);
    taken.push(chosen);
  }
}

function tokenClass(item, kind) {
  const seen = item.hidden && item.seenBy && item.seenBy.length > 0;
  const hidden = item.hidden ? (seen ? " hidden seen" : " hidden") : "";
  const side = item.side || (kind === "actor" ? (item.mine ? "own" : "neutral") : "item");
  return `token ${kind} side-${side}${item.mine ? " mine" : ""}${item.state ? " " + item.state : ""}${hidden}`;
}

function drawTokens(svg, map, centers, options, bounds, given) {
  const here = new Map();
  const put = (item, kind) => {
    const where = splitLocation(item.location);
    if (where.area !== map.path || where.place === null) return;
    const list = here.get(where.place) || [];
    list.push({ item, kind: kind === "object" && item.side && item.side !== "item" ? "actor" : kind });
    here.set(where.place, list);
  };
  for (const actor of options.actors || []) put(actor, "actor");
  for (const obj of options.objects || []) put(obj, "object");
  const labels = [];
  const obstacles = [...given]; // (the tokens and the areas' markers: no label on one)
  const layer = el("g", { class: "token-labels" });
  for (const [place, list] of here) {
    const at = centers.get(place);
    if (!at) continue;
    const { r, points } = slots(list.length, at);
    list.forEach(({ item, kind }, i) => {
      const name = item.name || item.id.split(".").pop();
      if (i >= points.length) return;
      const [cx, cy] = points[i];
      const group = el("g", { class: tokenClass(item, kind) }, svg);
      group.dataset.id = item.id;
      if (kind === "actor") el("circle", { cx, cy, r }, group);
      else el("rect", { x: cx - r * 0.85, y: cy - r * 0.85, width: r * 1.7, height: r * 1.7, rx: 3 }, group);
      if (item.image) {
        // The bundle's picture in the token, its border the side's colour.
        const size = r * 1.6;
        el("image", { href: item.image, x: cx - size / 2, y: cy - size / 2, width: size, height: size, preserveAspectRatio: "xMidYMid meet", class: "token-image" }, group);
      }
      const mark = text(group, cx, cy + r * 0.35, item.image ? "" : item.mark || name.slice(0, 3), "token-mark");
      mark.style.fontSize = `${Math.round(r * 0.95)}px`;
      if (mark.getComputedTextLength() > r * 1.8) {
        mark.setAttribute("textLength", String(r * 1.8)); // (squeezed into the token)
        mark.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
      obstacles.push({ x: cx - r, y: cy - r, width: 2 * r, height: 2 * r });
      if (item.state) el("path", { d: `M${cx - r} ${cy - r}L${cx + r} ${cy + r}M${cx + r} ${cy - r}L${cx - r} ${cy + r}`, class: "token-cross" }, group);
      if (options.onToken) {
        options.onToken(group, item, cx, cy, r); // (sheets.js: its HP bar, as wide as the token)
        obstacle(group, obstacles); // (no label on the bar either)
      }
      const tip = el("title", {}, group);
      const seen = item.hidden && item.seenBy && item.seenBy.length > 0;
      const known = seen ? ` — ${item.seenBy.join(", ")}` : "";
      const state = item.state && options.stateText ? ` (${options.stateText(item.state)})` : "";
      tip.textContent = item.hidden ? `${name}${state} (${options.hiddenText}: ${item.hidden.join(", ")}${known})` : `${name}${state}`;
      const label = text(layer, cx, cy, name, `token-label side-${item.side || kind}`);
      label.dataset.id = item.id;
      labels.push({ node: label, x: cx, y: cy, r });
    });
    if (list.length > points.length) {
      text(svg, at[0] + CELL / 2 - 4, at[1] + CELL / 2 - 3, `+${list.length - points.length}`, "token-more");
    }
  }
  svg.appendChild(layer);
  placeLabels(svg, labels, bounds, obstacles);
}

// Draw `map` into `container`. options: actors, objects (with location), choices (a Set of
// places that can be picked), selected, onPick(place), route (places), moves ([from, to]
// pairs of places), onArea(path), areaName(child) (an area inside as people call it), hiddenText,
// stateText(state) (downed, dead as the seat's language says them). A token's mark, side
// (own, ally, enemy, neutral, item) and state come from the view's map entries.
export function drawMap(container, map, options) {
  container.textContent = "";
  if (!map || !map.style) return;
  const { centers, shapes, width, height } = layout(map);
  const svg = el("svg", { viewBox: `0 0 ${Math.ceil(width)} ${Math.ceil(height)}`, class: "map-svg", role: "img" });
  svg.setAttribute("aria-label", map.path);
  container.appendChild(svg); // (in the page, so that the labels can be measured)
  const obstacles = []; // (the places' names, the links' lengths: no token's label on one)
  drawLinks(svg, map, centers, obstacles);
  drawPlaces(svg, map, shapes, options, obstacles);
  const bounds = { left: 0, top: 0, right: Math.ceil(width), bottom: Math.ceil(height) };
  drawChildren(svg, map, centers, options, bounds, obstacles);
  for (const [from, to] of options.moves || []) drawPath(svg, centers, [from, to], "move");
  if (options.route) drawPath(svg, centers, options.route, "route");
  drawTokens(svg, map, centers, options, bounds, obstacles);
  svg.setAttribute("viewBox", `0 0 ${bounds.right} ${Math.ceil(bounds.bottom)}`);
}
