// The Leaderboard page: a league's ranking, head to head and plot, read from the SQLite store.
import { api, el, showError } from "/static/table.js";

const $ = (id) => document.getElementById(id);

function groupLabel(g) {
  const rules = Object.entries(g.rules).map(([k, v]) => `${k}=${v}`).join(", ");
  return `${g.variant}, episode ${g.episode} (${rules})`;
}

function show(data) {
  const board = data.board;
  $("board").hidden = false;
  $("group").replaceChildren(...data.groups.map((g, k) =>
    el("option", { value: k, text: groupLabel(g), selected: k === data.group })));
  $("summary").textContent = `${board.matches} matches, ${board.games} games · store ${data.db}`;
  // the exploitability column once a stored best response exists (evaluate.py exploit SPEC)
  const exploited = board.players.some((p) => p.exploitability);
  $("ranking").replaceChildren(el("table", { class: "ranking" },
    el("tr", {}, ["rank", "player", "rating mu ± sigma", "ordinal", "games", "wins", "win rate [95% CI]", "points / deal"]
      .concat(exploited ? ["exploited by [95% CI]"] : []).map((h) => el("th", { text: h }))),
    board.players.map((p, i) => {
      const t = data.text.players[i]; // the numbers as the command line prints them (ghost_euchre.arena.report)
      return el("tr", { "data-rank": p.rank },
        el("td", { class: "num", text: p.rank }),
        el("td", { text: p.name }),
        el("td", { class: "num", text: `${t.mu} ± ${t.sigma}` }),
        el("td", { class: "num", text: t.ordinal }),
        el("td", { class: "num", text: p.games }),
        el("td", { class: "num", text: p.wins }),
        el("td", { class: "num", text: `${t.win_rate} [${t.win_rate_lo}, ${t.win_rate_hi}]` }),
        el("td", { class: "num", text: t.points_per_deal }),
        exploited ? [el("td", { class: "num", text: t.exploited,
          title: p.exploitability ? `best response of ${p.exploitability.budget} decisions` : "" })] : []);
    })));
  $("head").replaceChildren(el("table", { class: "head" },
    el("tr", {}, el("th", { text: "ahead of →" }), board.players.map((p) => el("th", { class: "num", text: p.rank }))),
    board.players.map((p, i) => el("tr", {},
      el("th", { text: `${p.rank}. ${p.name}` }),
      data.text.head_to_head[i].map((cell, j) => el("td", {
        class: "num", text: cell, title: `${board.head_to_head_games[i][j]} games met`,
      }))))));
  $("plot").src = `/api/leaderboard/plot.png?group=${data.group}`;
  const group = data.groups[data.group];
  const matches = data.matches.filter((m) => m.variant === group.variant && m.episode === group.episode &&
    JSON.stringify(m.rules) === JSON.stringify(group.rules));
  $("matches").replaceChildren(el("ul", {}, matches.map((m) => el("li", {},
    `match ${m.id}: ${m.players.join(", ")} · ${m.games} games, seed ${m.seed}, ${m.created} · `,
    el("a", { href: `/watch?match=${m.id}&stored=0`, text: "watch game 0" })))));
}

async function load(group) {
  try {
    show(await api("GET", `/api/leaderboard?group=${group}`));
    showError("");
    $("no-league").hidden = true;
  } catch (error) {
    if (error.status !== 404) {
      showError(error.message);
      return;
    }
    // no store, an empty file, or a store of benchmark cards only: nothing wrong, no league yet
    $("board").hidden = true;
    $("no-league").hidden = false;
    $("no-league-why").textContent = error.message;
  }
}

// the stored benchmark cards (ghost-euchre-evaluate benchmark SPEC): one row each
const FIGURES = [["field/heuristics", "vs heuristics"], ["field/pimc", "vs pimc"],
  ["field/network", "vs network"], ["field/three-way", "three-way"]];
const pct = (x) => (x === null ? "-" : `${(100 * x).toFixed(1)}%`);

function showCards(cards) {
  $("cards-panel").hidden = cards.length === 0;
  $("cards").replaceChildren(el("table", { class: "ranking" },
    el("tr", {}, ["bot", "variant", "suite, seed", ...FIGURES.map(([, label]) => label), "auction pts/deal"]
      .map((h) => el("th", { text: h }))),
    cards.map((c) => el("tr", {},
      el("td", { text: c.spec, title: `fingerprint ${c.fingerprint}` }),
      el("td", { text: c.variant }),
      el("td", { text: `${c.suite}, ${c.published_seed ? "published" : "private"} seed ${c.seed}` }),
      FIGURES.map(([section]) => {
        const f = c.sections[section];
        return el("td", { class: "num", text: f ? `${pct(f.win_rate)} [${pct(f.win_rate_ci95[0])}, ${pct(f.win_rate_ci95[1])}]` : "-" });
      }),
      el("td", { class: "num", text: c.sections.auction ? c.sections.auction.points_per_deal_over_heuristic.toFixed(3) : "-" })))));
}

api("GET", "/api/cards").then((data) => showCards(data.cards)).catch((error) => showError(error.message));

$("group").addEventListener("change", () => load(Number($("group").value)));
load(0);
