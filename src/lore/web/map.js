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

function drawPlaces(svg, map, shapes, options) {
  const choices = options.choices || new Set();
  for (const shape of shapes) {
    const group = el("g", { class: "place", "data-place": shape.key }, svg);
    let outline;
    if (shape.node) {
      outline = el("circle", { cx: shape.cx, cy: shape.cy, r: 26, class: "node" }, group);
      text(group, shape.cx, shape.cy + 44, shape.name, "node-label"); // what the map calls it
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
      if (description) text(group, shape.cx, shape.cy - shape.r + 11, "★", "mark");
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

function drawLinks(svg, map, centers) {
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
      text(svg, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2 - 6, label, "link-label");
    }
  }
}

function drawChildren(svg, map, centers, options) {
  for (const child of map.children || []) {
    const at = centers.get(String(child.place || "").replace(/\s/g, ""));
    if (!at) continue;
    const name = options.areaName ? options.areaName(child) : child.label;
    const marker = text(svg, at[0], at[1] - (map.style === "Sectioned2D" ? 12 : 34), `▣ ${name}`, "child-area");
    if (options.onArea) marker.addEventListener("click", () => options.onArea(child.path));
  }
}

function drawPath(svg, centers, path, cls) {
  const points = path.map((p) => centers.get(String(p).replace(/\s/g, ""))).filter(Boolean);
  if (points.length < 2) return;
  el("polyline", { points: points.map((p) => p.join(",")).join(" "), class: cls }, svg);
}

function drawTokens(svg, map, centers, options) {
  const here = new Map();
  const put = (item, kind) => {
    const where = splitLocation(item.location);
    if (where.area !== map.path || where.place === null) return;
    const list = here.get(where.place) || [];
    list.push({ item, kind });
    here.set(where.place, list);
  };
  for (const actor of options.actors || []) put(actor, "actor");
  for (const obj of options.objects || []) put(obj, "object");
  for (const [place, list] of here) {
    const at = centers.get(place);
    if (!at) continue;
    list.forEach(({ item, kind }, i) => {
      const dx = (i - (list.length - 1) / 2) * 26;
      const cx = at[0] + dx;
      const cy = at[1] + (kind === "actor" ? 0 : 8);
      const seen = item.hidden && item.seenBy && item.seenBy.length > 0;
      const hidden = item.hidden ? (seen ? " hidden seen" : " hidden") : "";
      const group = el("g", { class: `token ${kind}${item.mine ? " mine" : ""}${hidden}` }, svg);
      group.dataset.id = item.id;
      const name = item.name || item.id.split(".").pop();
      if (kind === "actor") el("circle", { cx, cy, r: 11 }, group);
      else el("rect", { x: cx - 9, y: cy - 9, width: 18, height: 18, rx: 3 }, group);
      text(group, cx, cy + 4, name.slice(0, 2), "token-mark");
      text(group, cx, cy + 24, name, "token-label");
      if (options.onToken) options.onToken(group, item, cx, cy); // (sheets.js: its HP bar)
      const tip = el("title", {}, group);
      const known = seen ? ` — ${item.seenBy.join(", ")}` : "";
      tip.textContent = item.hidden ? `${name} (${options.hiddenText}: ${item.hidden.join(", ")}${known})` : name;
    });
  }
}

// Draw `map` into `container`. options: actors, objects (with location), choices (a Set of
// places that can be picked), selected, onPick(place), route (places), moves ([from, to]
// pairs of places), onArea(path), areaName(child) (an area inside as people call it), hiddenText.
export function drawMap(container, map, options) {
  container.textContent = "";
  if (!map || !map.style) return;
  const { centers, shapes, width, height } = layout(map);
  const svg = el("svg", { viewBox: `0 0 ${Math.ceil(width)} ${Math.ceil(height)}`, class: "map-svg", role: "img" });
  svg.setAttribute("aria-label", map.path);
  drawLinks(svg, map, centers);
  drawPlaces(svg, map, shapes, options);
  drawChildren(svg, map, centers, options);
  for (const [from, to] of options.moves || []) drawPath(svg, centers, [from, to], "move");
  if (options.route) drawPath(svg, centers, options.route, "route");
  drawTokens(svg, map, centers, options);
  container.appendChild(svg);
}
