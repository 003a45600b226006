// The game page of the record viewer: steps through the moves of DATA (see kdenv/viewer/site.py) with buttons,
// the arrow keys (Home and End too) and a slider; draws the table after each move, the score chart, the trace of
// the move just played, and the final breakdown.
"use strict";

const T = DATA, N = T.moves.length, S = T.kingdom_size;

// The squares of every kingdom after each move, built from the moves (castle at 0,0).
const kingdoms = [];
{
  let current = Array.from({ length: T.num_players }, () => [[0, 0, -1, 0]]);
  kingdoms.push(current);
  for (const move of T.moves) {
    if (move.action === "place") {
      current = current.slice();
      const [ta, ca, tb, cb] = T.halves[move.domino];
      const [a, b] = move.cells;
      current[move.player] = [...current[move.player], [a[0], a[1], ta, ca], [b[0], b[1], tb, cb]];
    }
    kingdoms.push(current);
  }
}

const app = document.getElementById("app");
const header = html("header", {}, app);
html("a", { href: T.index.back, class: "back" }, header, "← all games");
html("h1", {}, header, `Game ${T.index.number}: ` + T.agents.map((a, p) => `P${p} ${a}`).join(" · "));
html(
  "p",
  { class: "meta" },
  header,
  `${T.num_players} players · rules ${rulesText(T.rules)} · seed ${T.seed ?? "none"} · ${N} moves · ${T.index.where}`
);

const controls = html("div", { class: "controls" }, app);
const buttons = {};
for (const [name, label, title] of [
  ["first", "«", "first move (Home)"],
  ["prev", "‹ back", "previous move (←)"],
  ["next", "next ›", "next move (→)"],
  ["last", "»", "last move (End)"],
]) {
  buttons[name] = html("button", { id: `btn-${name}`, title }, controls, label);
}
const slider = html("input", { type: "range", min: 0, max: N, value: 0, id: "slider", "aria-label": "move" }, controls);
const counter = html("span", { id: "counter", class: "counter" }, controls);

const layout = html("div", { class: "layout" }, app);
const boardBox = html("div", { class: "board" }, layout);
const side = html("aside", { class: "side" }, layout);
const moveText = html("p", { id: "move", class: "move" }, side);
const traceBox = html("div", { id: "trace" }, side);
const chartBox = html("section", { class: "chart" }, app);
html("h2", {}, chartBox, "Score after each move");
const finalBox = html("section", { id: "final" }, app);

let position = 0;

function show(k) {
  position = Math.max(0, Math.min(N, k));
  slider.value = position;
  counter.textContent = `move ${position} / ${N}`;
  const state = T.states[position], last = position ? T.moves[position - 1] : null;
  drawBoard(state, kingdoms[position], last);
  moveText.textContent = last ? `${position}. ${describeMove(T, last)}` : "Set-up: the first line is dealt.";
  if (state.phase !== "over") moveText.textContent += `  Next: P${state.player} to ${state.phase}.`;
  drawTrace(last);
  drawCursor();
  finalBox.classList.toggle("shown", position === N && T.final !== null);
}

function drawBoard(state, squares, last) {
  boardBox.textContent = "";
  const span = S * CELL, gap = 18, perRow = Math.min(T.num_players, 4);
  const width = Math.max(perRow * (span + gap), 4 * (3 * CELL + 14) + 100);
  const linesTop = 34 + span + 26;
  const svg = el("svg", { width, height: linesTop + 2 * CELL + 44, class: "table", id: "board" }, boardBox);
  const mark = last && last.action === "place" ? last.cells.map((c) => `${c[0]},${c[1]}`) : [];
  for (let p = 0; p < T.num_players; p++) {
    const x = p * (span + gap);
    drawCard(svg, T, state, p, x, 0, span);
    drawKingdom(svg, squares[p], S, x, 30, T.palette, { mark: last && last.player === p ? mark : [] });
  }
  drawLines(svg, T, state, 0, linesTop);
}

function drawTrace(move) {
  traceBox.textContent = "";
  if (!move) return;
  const trace = move.trace;
  if (!trace) {
    const anyTrace = T.moves.some((m) => m.trace);
    if (anyTrace) html("p", { class: "quiet" }, traceBox, "No trace for this move (a scripted player, or a pick planned with the placement before it).");
    return;
  }
  const title = trace.kind === "policy" ? `What ${T.agents[move.player]} thought: value ${trace.value.toFixed(3)}` : `What ${T.agents[move.player]} searched`;
  html("h2", {}, traceBox, title);
  const t = html("table", { class: "trace" }, traceBox);
  // az's candidates also hold the network's prior and the search's improved policy
  const guided = trace.candidates.some((c) => "policy" in c);
  const cols = trace.kind === "policy" ? ["move", "probability"] : ["move", "value", "visits", ...(guided ? ["prior", "policy"] : [])];
  const head = html("tr", {}, t);
  cols.forEach((c) => html("th", {}, head, c));
  const best = Math.max(...trace.candidates.map((c) => (trace.kind === "policy" ? c.probability : c.visits)), 1e-9);
  for (const c of trace.candidates) {
    const row = html("tr", { class: c.chosen ? "chosen" : "" }, t);
    html("td", {}, row, c.move + (c.chosen ? "  ✓" : ""));
    for (const col of cols.slice(1)) {
      const cell = html("td", { class: "num" }, row);
      const v = c[col];
      const shares = ["probability", "prior", "policy"].includes(col);
      const text = v === null ? "–" : shares ? `${(100 * v).toFixed(1)}%` : col === "value" ? v.toFixed(3) : String(v);
      const share = (col === "visits" || col === "probability" ? v / best : shares ? v : 0) * 100;
      if (share) html("span", { class: "bar", style: `width:${share.toFixed(0)}%` }, cell);
      html("span", { class: "v" }, cell, text);
    }
  }
}

// The score chart: one line per player over the moves, a cursor at the move shown.
const chart = (() => {
  const w = 760, h = 180, pad = 34;
  const svg = el("svg", { width: w, height: h, class: "chart", id: "chart" }, chartBox);
  const top = Math.max(10, ...T.states.map((s) => Math.max(...s.scores)));
  const x = (k) => pad + ((w - pad - 10) * k) / Math.max(1, N);
  const y = (v) => h - 20 - ((h - 30) * v) / top;
  for (let v = 0; v <= top; v += Math.max(10, Math.ceil(top / 50) * 10)) {
    el("line", { x1: pad, x2: w - 10, y1: y(v), y2: y(v), class: "grid" }, svg);
    el("text", { x: pad - 4, y: y(v) + 4, "text-anchor": "end", class: "axis" }, svg, String(v));
  }
  for (let p = 0; p < T.num_players; p++) {
    const points = T.states.map((s, k) => `${x(k).toFixed(1)},${y(s.scores[p]).toFixed(1)}`).join(" ");
    el("polyline", { points, fill: "none", stroke: T.palette.players[p], "stroke-width": 2.5 }, svg);
  }
  el("text", { x: w - 10, y: h - 4, "text-anchor": "end", class: "axis" }, svg, "move");
  const cursor = el("line", { y1: 8, y2: h - 20, class: "cursor" }, svg);
  svg.addEventListener("click", (e) => {
    const box = svg.getBoundingClientRect();
    show(Math.round(((e.clientX - box.left - pad) / (w - pad - 10)) * N));
  });
  return { cursor, x };
})();

function drawCursor() {
  chart.cursor.setAttribute("x1", chart.x(position));
  chart.cursor.setAttribute("x2", chart.x(position));
}

if (T.final) {
  html("h2", {}, finalBox, "Final scores");
  const scores = T.states[N].scores, winners = T.states[N].winners;
  html("p", { id: "winners" }, finalBox, (winners.length > 1 ? "Shared victory: " : "Winner: ") + winners.map((p) => playerName(T, p)).join(", "));
  breakdownTable(finalBox, T, T.final, scores).id = "breakdown";
} else {
  html("p", { class: "quiet" }, finalBox, "This game is unfinished.");
}

buttons.first.onclick = () => show(0);
buttons.prev.onclick = () => show(position - 1);
buttons.next.onclick = () => show(position + 1);
buttons.last.onclick = () => show(N);
slider.oninput = () => show(Number(slider.value));
document.addEventListener("keydown", (e) => {
  if (e.target === slider) return; // the slider moves itself with the arrow keys
  const keys = { ArrowLeft: position - 1, ArrowRight: position + 1, Home: 0, End: N };
  if (e.key in keys) {
    e.preventDefault();
    show(keys[e.key]);
  }
});
show(0);
