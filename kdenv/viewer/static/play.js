// The web game of `kdenv play --web` (agents/play/web/server.py): a form to start a game, then the table from the
// person's seat. Pick: click a domino of the next line. Place: click a highlighted cell (where half A may go),
// rotate until half B is where you want it, and place; discard only when the rules allow it.
"use strict";

const app = document.getElementById("app");
html("h1", {}, app, "Kingdomino: play against the agents");
const status = html("p", { id: "status", class: "status" }, app);
const errorBox = html("p", { id: "error", class: "error" }, app);
let game = null, busy = false, selected = null, turn = 0;

// ----- the new-game form --------------------------------------------------------------------------------
const form = html("form", { class: "new", id: "new-game" }, app);
function field(label, input) {
  html("label", { for: input.id }, form, label);
  form.appendChild(input);
  return input;
}
const players = field("players", html("select", { id: "players" }));
[2, 3, 4].forEach((n) => html("option", { value: n }, players, String(n)));
players.value = DATA.players;
const seat = field("your seat", html("select", { id: "seat" }));
const opponentsBox = html("div", { id: "opponents" });
field("opponents", opponentsBox);
const rules = {};
const rulesBox = html("div", { id: "rules" });
field("rules", rulesBox);
for (const name of ["middle_kingdom", "harmony", "mighty_duel", "voluntary_discard"]) {
  const l = html("label", {}, rulesBox);
  rules[name] = html("input", { type: "checkbox", id: `rule-${name}` }, l);
  l.append(` ${name.replace(/_/g, " ")} `);
}
const seed = field("seed", html("input", { id: "seed", type: "number", placeholder: "random" }));
const trace = field("keep traces", html("input", { id: "trace", type: "checkbox" }));
trace.checked = DATA.trace;
html("span", {}, form);
html("button", { type: "submit", id: "start", class: "primary" }, form, "Start the game");

// one select per opponent seat, of the players the server offers (DATA.offered, as GET /api/players)
function seats() {
  const n = Number(players.value), kept = [...opponentsBox.querySelectorAll("select")].map((s) => s.value);
  seat.textContent = "";
  for (let p = 0; p < n; p++) html("option", { value: p }, seat, `P${p}`);
  opponentsBox.textContent = "";
  for (let i = 0; i < n - 1; i++) {
    const choice = html("select", { id: `opponent-${i}` }, opponentsBox);
    DATA.offered.forEach((spec) => html("option", { value: spec }, choice, spec));
    choice.value = kept[i] ?? DATA.opponents[i] ?? DATA.opponents[DATA.opponents.length - 1] ?? DATA.offered[0];
  }
}
players.onchange = seats;
seats();

form.onsubmit = async (e) => {
  e.preventDefault();
  const body = {
    opponents: [...opponentsBox.querySelectorAll("select")].map((s) => s.value),
    players: Number(players.value),
    seat: Number(seat.value),
    rules: Object.keys(rules).filter((r) => rules[r].checked),
    seed: seed.value === "" ? null : Number(seed.value),
    trace: trace.checked,
  };
  await request("POST", "/api/games", body, "starting the game (the agents move first where they sit first)…");
};

// ----- talking to the server ------------------------------------------------------------------------------
async function request(method, url, body, waiting) {
  if (busy) return;
  busy = true;
  document.body.dataset.busy = "true";
  errorBox.textContent = "";
  status.textContent = waiting;
  try {
    const response = await fetch(url, { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const answer = await response.json();
    if (!response.ok) errorBox.textContent = answer.error;
    else {
      game = answer;
      selected = null;
      turn += 1;
    }
  } catch (err) {
    errorBox.textContent = `the server did not answer (${err}); is kdenv play --web still running?`;
  }
  busy = false;
  document.body.dataset.busy = "false";
  if (game) render();
}

function play(action) {
  return request("POST", `/api/games/${game.id}/moves`, { action }, "the agents are thinking…");
}

// ----- the table --------------------------------------------------------------------------------------------
const board = html("div", { class: "layout", id: "game" }, app);

function render() {
  form.hidden = true;
  board.textContent = "";
  const T = game.table, st = game.state, S = T.kingdom_size, F = 2 * S - 1, me = game.seat;
  document.body.dataset.phase = game.legal.length ? st.phase : st.phase === "over" ? "over" : "waiting";
  document.body.dataset.turn = String(turn);
  const left = html("div", { class: "board" }, board);
  const big = F * CELL, small = S * CELL, gap = 18;
  const others = [...Array(T.num_players).keys()].filter((p) => p !== me);
  const linesTop = Math.max(big + 30, Math.ceil(others.length / 2) * (small + 40) - 10) + 24;
  const width = Math.max(big + gap + Math.min(2, others.length) * (small + gap), 4 * (3 * CELL + 14) + 100);
  const svg = el("svg", { width, height: linesTop + 2 * CELL + 44, class: "table", id: "board" }, left);
  drawCard(svg, T, st, me, 0, 0, big);
  const area = { top: -(S - 1), left: -(S - 1), rows: F, cols: F };
  const mine = drawKingdom(svg, game.kingdoms[me], S, 0, 30, T.palette, { area });
  others.forEach((p, i) => {
    const x = big + gap + (i % 2) * (small + gap), y = Math.floor(i / 2) * (small + 40);
    drawCard(svg, T, st, p, x, y, small);
    drawKingdom(svg, game.kingdoms[p], S, x, y + 30, T.palette);
  });
  const slots = drawLines(svg, T, st, 0, linesTop);

  const side = html("aside", { class: "side" }, board);
  const actions = html("div", { class: "actions" }, side);
  const rotate = html("button", { id: "btn-rotate", disabled: "" }, actions, "Rotate ⟳");
  const place = html("button", { id: "btn-place", class: "primary", disabled: "" }, actions, "Place");
  const discard = html("button", { id: "btn-discard", disabled: "" }, actions, "Discard");
  const picks = game.legal.filter((m) => m.kind === "pick");
  const places = game.legal.filter((m) => m.kind === "place");
  const discardMove = game.legal.find((m) => m.kind === "discard");

  if (st.phase === "over") {
    actions.hidden = true;
    status.textContent = "Game over. " + (st.winners.includes(me) ? "You win!" : `Won by ${st.winners.map((p) => playerName(T, p)).join(", ")}.`);
    html("h2", {}, side, "Final scores");
    breakdownTable(side, T, game.final, st.scores);
    html("p", { id: "record" }, side, `The record is saved in ${game.record}: open it with kdenv view.`);
    html("button", { id: "btn-new", onclick: "location.reload()" }, side, "New game");
  } else if (picks.length) {
    status.textContent = "Your turn: pick a domino of the next line (click it).";
    for (const m of picks) {
      const g = slots[m.slot];
      g.classList.add("pickable");
      g.addEventListener("click", () => play(m.action));
    }
  } else if (places.length || discardMove) {
    const held = st.held[st.king];
    status.textContent = places.length
      ? `Your turn: place #${held}. Click a highlighted cell for its first half, rotate, then place.`
      : `#${held} fits nowhere in your kingdom: discard it.`;
    const starts = [...new Set(places.map((m) => m.cells[0].join(",")))];
    for (const key of starts) {
      const rect = mine.cells[key];
      rect.classList.add("legal");
      rect.setAttribute("data-cell", key);
      rect.addEventListener("click", () => {
        const options = places.filter((m) => m.cells[0].join(",") === key);
        selected = selected && selected.key === key ? { ...selected, index: (selected.index + 1) % options.length } : { key, options, index: 0 };
        render();
      });
    }
    if (selected) {
      const m = selected.options[selected.index];
      mine.cells[selected.key].classList.add("selected");
      const preview = el("g", { class: "preview" }, svg);
      const [ta, ca, tb, cb] = T.halves[held];
      for (const [[r, c], t, k] of [[m.cells[0], ta, ca], [m.cells[1], tb, cb]])
        square(preview, (c - area.left) * CELL, 30 + (r - area.top) * CELL, t, k, T.palette);
      rotate.disabled = selected.options.length < 2;
      place.disabled = false;
      rotate.onclick = () => {
        selected.index = (selected.index + 1) % selected.options.length;
        render();
      };
      place.onclick = () => play(m.action);
    }
    if (discardMove) {
      discard.disabled = false;
      discard.onclick = () => play(discardMove.action);
    }
  }
  const log = html("ol", { class: "log", id: "log" }, side);
  game.moves.slice(-12).forEach((m) => html("li", {}, log, describeMove(T, m)));
  log.start = Math.max(1, game.moves.length - 11);
}
