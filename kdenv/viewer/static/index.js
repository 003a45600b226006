// The index page of the record viewer: each tournament's results and ratings (when the records are a
// tournament's) and the list of games, filterable by agent and by winner, each linking to its game page.
"use strict";

const app = document.getElementById("app");
const games = DATA.games;
html("h1", {}, app, "Kingdomino games");

function table(parent, header, rows, id) {
  const t = html("table", { id }, parent);
  const head = html("tr", {}, t);
  header.forEach((h) => html("th", {}, head, h));
  for (const row of rows) {
    const tr = html("tr", {}, t);
    row.forEach((cell, i) => html("td", { class: i ? "num" : "" }, tr, cell));
  }
  return t;
}

// One section per tournament: its own results, never merged with another's.
DATA.results.forEach((results, i) => {
  const box = html("section", { class: "results" }, app);
  html("h2", {}, box, `Results of ${results.source}: ${results.games} games, ${results.deals} deals`);
  table(box, results.columns, results.rows, `results-${i + 1}`);
  if (results.head_to_head.length) {
    html("h3", {}, box, "Head to head: share of the games in which the row agent placed ahead (ties ½)");
    table(box, ["", ...results.agents], results.head_to_head, `head-to-head-${i + 1}`);
  }
  html("img", { src: results.ratings, alt: "ratings and head-to-head", class: "ratings" }, box);
});

const agents = [...new Set(games.flatMap((g) => g.agents))].sort();
const section = html("section", {}, app);
html("h2", {}, section, `Games (${games.length})`);
const filters = html("div", { class: "filters" }, section);
function select(label, id, options) {
  const l = html("label", {}, filters, `${label} `);
  const s = html("select", { id }, l);
  html("option", { value: "" }, s, "any");
  options.forEach((o) => html("option", { value: o }, s, o));
  s.onchange = refresh;
  return s;
}
const byAgent = select("agent", "filter-agent", agents);
const byWinner = select("winner", "filter-winner", agents);
const shown = html("span", { class: "quiet", id: "shown" }, filters);

const list = html("table", { id: "games", class: "games" }, section);
const head = html("tr", {}, list);
["game", "players", "scores", "winner", "moves", ""].forEach((h) => html("th", {}, head, h));
const rows = games.map((g) => {
  const tr = html("tr", {}, list);
  const link = html("td", {}, tr);
  html("a", { href: g.page }, link, `#${g.number}`);
  html("td", {}, tr, g.agents.map((a, p) => `P${p} ${a}`).join(" · "));
  html("td", { class: "num" }, tr, g.scores.join(" – "));
  html("td", {}, tr, g.winners.map((p) => g.agents[p]).join(", ") || "unfinished");
  html("td", { class: "num" }, tr, String(g.moves));
  html("td", { class: "quiet" }, tr, g.traced ? "traced" : "");
  return { tr, g };
});

function refresh() {
  let count = 0;
  for (const { tr, g } of rows) {
    const ok = (!byAgent.value || g.agents.includes(byAgent.value)) && (!byWinner.value || g.winners.some((p) => g.agents[p] === byWinner.value));
    tr.hidden = !ok;
    count += ok;
  }
  shown.textContent = `${count} shown`;
}
refresh();
