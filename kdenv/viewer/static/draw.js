// Drawing a game in SVG, in the colours of kdenv.render: kingdoms (terrains, crowns, castles), both lines with
// the kings in the players' colours, player cards. Shared by the record viewer and the web game.
"use strict";

const CELL = 36; // pixels per square
const SVGNS = "http://www.w3.org/2000/svg";

function el(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function html(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function shade(hex, factor) {
  const v = [1, 3, 5].map((i) => Math.round(parseInt(hex.slice(i, i + 2), 16) * factor));
  return `rgb(${v[0]},${v[1]},${v[2]})`;
}

// One square: terrain colour with a darker edge and a gold crown per crown; terrain -1 is the castle.
function square(g, x, y, terrain, crowns, pal) {
  if (terrain < 0) {
    el("rect", { x, y, width: CELL, height: CELL, fill: pal.castle, stroke: shade(pal.castle, 0.7), class: "castle" }, g);
    const t = `M${x + 8},${y + 27} v-13 h4 v4 h3 v-4 h4 v4 h3 v-4 h4 v13 z`;
    el("path", { d: t, fill: "#6e6e7c" }, g);
    return;
  }
  const colour = pal.terrains[terrain];
  el("rect", { x: x + 0.5, y: y + 0.5, width: CELL - 1, height: CELL - 1, fill: colour, stroke: shade(colour, 0.72) }, g);
  for (let k = 0; k < crowns; k++) crown(g, x + 4 + k * 9, y + 4, pal);
}

function crown(g, x, y, pal) {
  const d = `M${x},${y + 7} l0,-6 l2,3 l2.5,-4 l2.5,4 l2,-3 l0,6 z`;
  el("path", { d, fill: pal.gold, stroke: "#281e18", "stroke-width": 0.8 }, g);
}

// The S x S area shown for a kingdom: its squares, centred, within the frame (kdenv.render._area), as the
// castle-relative row and column of its top-left square.
function kingdomArea(squares, size) {
  const start = (values) => {
    const lo = Math.min(...values), hi = Math.max(...values);
    return Math.min(Math.max(lo - Math.floor((size - (hi - lo + 1)) / 2), -(size - 1)), 0);
  };
  return { top: start(squares.map((s) => s[0])), left: start(squares.map((s) => s[1])), rows: size, cols: size };
}

// A kingdom at (x, y): its area's empty cells, then its squares. Returns the cell rects by "row,col" so that a
// page can make them clickable (opts.area overrides the area, opts.mark outlines cells given as "row,col").
function drawKingdom(g, squares, size, x, y, pal, opts = {}) {
  const area = opts.area || kingdomArea(squares, size);
  const cells = {};
  const byCell = new Map(squares.map((s) => [`${s[0]},${s[1]}`, s]));
  for (let r = 0; r < area.rows; r++) {
    for (let c = 0; c < area.cols; c++) {
      const row = area.top + r, col = area.left + c, key = `${row},${col}`;
      const cx = x + c * CELL, cy = y + r * CELL;
      const content = byCell.get(key);
      if (content) square(g, cx, cy, content[2], content[3], pal);
      else cells[key] = el("rect", { x: cx + 1, y: cy + 1, width: CELL - 2, height: CELL - 2, fill: pal.empty, class: "empty" }, g);
    }
  }
  for (const key of opts.mark || []) {
    const [row, col] = key.split(",").map(Number);
    const cx = x + (col - area.left) * CELL, cy = y + (row - area.top) * CELL;
    el("rect", { x: cx + 2, y: cy + 2, width: CELL - 4, height: CELL - 4, fill: "none", stroke: "#fff", "stroke-width": 3, class: "last" }, g);
  }
  return { cells, area };
}

// A king: a disc in the player's colour; "acting" gets a dark ring, "done" is faded, "free" is an empty ring.
function king(g, x, y, player, state, pal) {
  const r = CELL / 2 - 3, cx = x + CELL / 2, cy = y + CELL / 2;
  if (state === "free") return el("circle", { cx, cy, r, fill: "none", stroke: "#aaa096", "stroke-width": 2 }, g);
  const attrs = { cx, cy, r, fill: pal.players[player], class: `king p${player}` };
  if (state === "done") attrs["fill-opacity"] = 0.35;
  if (state === "acting") Object.assign(attrs, { stroke: "#281e18", "stroke-width": 3 });
  return el("circle", attrs, g);
}

function domino(g, x, y, number, halves, pal) {
  const [ta, ca, tb, cb] = halves[number];
  square(g, x, y, ta, ca, pal);
  square(g, x + CELL, y, tb, cb, pal);
  el("text", { x: x + CELL, y: y + CELL + 12, "text-anchor": "middle", class: "number" }, g, `#${number}`);
}

// Both lines at (x, y): the current line (kings on the dominoes of this round) and the next line (claims).
// Returns the next line's slot groups, so that the web game can make them clickable.
function drawLines(g, table, state, x, y) {
  const pal = table.palette, slot = 3 * CELL + 14, over = state.phase === "over";
  el("text", { x, y: y + 22, class: "label" }, g, "this round");
  el("text", { x, y: y + CELL + 42, class: "label" }, g, "next round");
  const x0 = x + 82;
  state.queue.forEach((owner, i) => {
    const status = over || i < state.king ? "done" : i === state.king ? "acting" : "waiting";
    king(g, x0 + i * slot, y, owner, status, pal);
    if (state.held[i]) {
      if (status === "acting" && state.phase === "place")
        el("rect", { x: x0 + i * slot + CELL - 3, y: y - 3, width: 2 * CELL + 6, height: CELL + 6, fill: "#281e18" }, g);
      domino(g, x0 + i * slot + CELL, y, state.held[i], table.halves, pal);
    }
  });
  const slots = [];
  const y1 = y + CELL + 22;
  if (!state.line.length) el("text", { x: x0, y: y1 + 22, class: "label" }, g, "none: the last round");
  state.line.forEach((number, i) => {
    const s = el("g", { class: "slot", "data-slot": i }, g);
    king(s, x0 + i * slot, y1, state.claims[i], state.claims[i] < 0 ? "free" : "waiting", pal);
    domino(s, x0 + i * slot + CELL, y1, number, table.halves, pal);
    slots.push(s);
  });
  return slots;
}

// The name of a player as the pages show it: seat and agent.
function playerName(table, p) {
  return `P${p} ${table.agents[p]}`;
}

function describeMove(table, move) {
  const who = playerName(table, move.player);
  if (move.action === "pick") return `${who} picks #${move.domino}`;
  if (move.action === "discard") return `${who} discards #${move.domino}`;
  const [[ra, ca], [rb, cb]] = move.cells;
  return `${who} places #${move.domino} at (${ra},${ca})+(${rb},${cb})`;
}

function rulesText(rules) {
  const on = Object.entries(rules).filter(([, v]) => v === true).map(([k]) => k.replace(/_/g, " "));
  return `${rules.kingdom_size}×${rules.kingdom_size}` + (on.length ? `, ${on.join(", ")}` : ", base game");
}

// Where each player's score comes from: its properties with crowns, and the bonuses.
function breakdownTable(parent, table, final, scores) {
  const t = html("table", { class: "breakdown" }, parent);
  const head = html("tr", {}, t);
  ["player", "properties (squares × crowns)", "middle kingdom", "harmony", "total"].forEach((h) => html("th", {}, head, h));
  final.forEach((b, p) => {
    const row = html("tr", {}, t);
    const name = html("td", {}, row);
    html("span", { class: "dot", style: `background:${table.palette.players[p]}` }, name);
    name.append(playerName(table, p));
    const props = html("td", {}, row);
    for (const prop of b.properties) {
      const chip = html("span", { class: "chip", style: `background:${table.palette.terrains[prop.terrain]}` }, props);
      chip.textContent = `${table.terrains[prop.terrain]} ${prop.squares}×${prop.crowns} = ${prop.points}`;
    }
    if (!b.properties.length) props.textContent = "no crowns, no points";
    html("td", {}, row, b.middle_kingdom ? `+${b.middle_kingdom}` : "–");
    html("td", {}, row, b.harmony ? `+${b.harmony}` : "–");
    html("td", { class: "total" }, row, String(scores[p]));
  });
  return t;
}

// A player's card above its kingdom: colour, name, score, a crown for a winner.
function drawCard(g, table, state, p, x, y, width) {
  el("rect", { x, y, width, height: 24, rx: 4, fill: table.palette.players[p] }, g);
  const name = playerName(table, p), room = Math.floor((width - 40) / 8.4);
  const label = el("text", { x: x + 6, y: y + 17, class: "card" }, g, name.length > room ? name.slice(0, room - 1) + "…" : name);
  el("title", {}, label, name);
  el("text", { x: x + width - 6, y: y + 17, class: "card score", "text-anchor": "end", id: `score-p${p}` }, g, String(state.scores[p]));
  if (state.winners.includes(p)) crown(g, x + width - 44, y + 8, table.palette);
}
