// The Play page: a person at one seat, bots at the others (POST /api/games, .../actions).
import {
  api, cardList, cardNode, dealLine, el, historyTable, moveList, renderTable, scoreLabels, showError, trickList,
} from "/static/table.js";

const $ = (id) => document.getElementById(id);
let options = null;
let game = null; // the latest play response
let busy = false;

const OTHER = ""; // the list's last entry: a spec typed in a text field (the server checks it)

// One bot's choice: a list of the specs the server offers (GET /api/options), and "other spec…",
// which shows a text field for any spec the server allows (a composite, other options).
function botChoice(k, spec) {
  const offered = options.specs.includes(spec);
  const select = el("select", { class: "bot", "data-bot": k },
    options.specs.map((s) => el("option", { value: s, text: s, selected: s === spec })),
    el("option", { value: OTHER, text: "other spec…", selected: !offered }));
  const typed = el("input", { class: "bot-spec", "data-bot": k, size: 22, value: offered ? "" : spec,
    placeholder: "e.g. composite[pimc | heuristic]", hidden: offered, "aria-label": `Bot ${k + 1} spec` });
  select.addEventListener("change", () => {
    typed.hidden = select.value !== OTHER;
    if (!typed.hidden) typed.focus();
  });
  return el("label", { class: "bot-choice" }, `Bot ${k + 1} `, select, typed);
}

function chosenBots() {
  return [...document.querySelectorAll("select.bot")].map((select) => (select.value === OTHER
    ? document.querySelector(`input.bot-spec[data-bot="${select.dataset.bot}"]`).value.trim()
    : select.value));
}

function seatChoices() {
  const n = options.variants[$("variant").value];
  const seat = Math.min(Number($("seat").value || 0), n - 1);
  $("seat").replaceChildren(...Array.from({ length: n }, (_, s) => el("option", { value: s, text: `seat ${s}`, selected: s === seat })));
  const old = document.querySelector("select.bot") ? chosenBots() : [];
  $("bots").replaceChildren(...Array.from({ length: n - 1 }, (_, k) => botChoice(k, old[k] || options.default_bot)));
}

async function start(event) {
  event.preventDefault();
  const seed = $("seed").value.trim();
  const body = {
    variant: $("variant").value,
    seat: Number($("seat").value),
    bots: chosenBots(),
    episode: $("episode").value,
    seed: seed === "" ? null : seed, // its digits: a 63-bit seed is past JavaScript's 53-bit numbers
  };
  try {
    show(await api("POST", "/api/games", body));
    showError("");
  } catch (error) {
    showError(error.message);
  }
}

async function move(action) {
  if (busy || !game) return;
  busy = true;
  document.querySelectorAll("#board button").forEach((b) => { b.disabled = true; });
  try {
    show(await api("POST", `/api/games/${game.id}/actions`, { action, step: game.view.step }));
    showError("");
  } catch (error) {
    showError(error.message);
    show(game);
  } finally {
    busy = false;
  }
}

function show(response) {
  game = response;
  sessionStorage.setItem("game", response.id);
  const view = response.view;
  const names = view.seats.map((s) => s.name);
  $("board").hidden = false;
  $("board").dataset.step = view.step; // for tests: changes with every move shown
  $("board").dataset.over = view.over;
  renderTable($("table"), view, response.seat, true);
  const you = view.seats[response.seat];
  $("hand").replaceChildren(...(you.hand.length
    ? you.hand.map((c) => cardNode(c, { onclick: move, legal: c.legal }))
    : [el("span", { class: "muted", text: "(no cards)" })]));
  $("actions").replaceChildren(...view.buttons.map((b) =>
    el("button", { class: "action", "data-action": b.action, disabled: !b.legal, onclick: () => move(b.action) }, b.name)));
  $("tricks").replaceChildren(trickList(view.tricks, view.seats));
  const last = response.last_deal;
  $("last-deal").replaceChildren(last
    ? el("div", {}, el("p", { text: dealLine(last, names) }),
      last.ghost_taken ? el("p", {}, "the ghost hand held ", cardList(last.ghost_taken)) : null,
      trickList(last.tricks_played, view.seats))
    : el("span", { class: "muted", text: "none yet" }));
  $("moves").replaceChildren(moveList(response.moves.slice().reverse(), names));
  $("history").replaceChildren(historyTable(response.history, names, scoreLabels(view, names)));
  const seed = response.seed === undefined ? "seed shown at the end" : `seed ${response.seed}`;
  $("game-info").textContent = `${view.variant}, ${seed}, ${view.episode === "deal" ? "one deal" : `to ${view.rules.target_score} points`} · game ${response.id}`;
  if (view.over) {
    const labels = scoreLabels(view, names);
    $("status").textContent = view.truncated ? "Game cut at the deal limit." : "Game over.";
    $("result").hidden = false;
    $("result").replaceChildren("Final scores: ", ...labels.map((label, k) =>
      el("span", { class: "final", "data-index": k }, `${label} `, el("b", { text: view.scores[k] }))),
      " · ", el("a", { id: "watch-link", href: `/watch?game=${response.id}`, text: "watch this game again" }),
      " · ", el("a", { href: `/api/games/${response.id}/record`, download: `game-${response.seed}.json`, text: "download its record" }));
  } else {
    $("result").hidden = true;
    $("status").textContent = `Your turn (${view.phase}): choose a ${view.phase === "play" ? "card" : "move"}.`;
  }
}

async function init() {
  options = await api("GET", "/api/options");
  $("variant").replaceChildren(...Object.keys(options.variants).map((v) => el("option", { value: v, text: `${options.titles[v]} (${options.variants[v]} players)` })));
  $("variant").addEventListener("change", seatChoices);
  $("setup").addEventListener("submit", start);
  seatChoices();
  const id = sessionStorage.getItem("game");
  if (id) {
    try {
      show(await api("GET", `/api/games/${id}`));
    } catch {
      sessionStorage.removeItem("game");
    }
  }
}

init().catch((error) => showError(error.message));
