// The Watch page: a recorded game replayed position by position, every hand shown.
// The server replays the record through the engine and sends every position.
import {
  api, cardList, dealLine, el, historyTable, moveList, renderTable, scoreLabels, showError, signed, trickList,
} from "/static/table.js";

const $ = (id) => document.getElementById(id);
let replay = null; // the first page of the game shown: {names, moves, deals, positions, page, ...}
let frames = []; // frames[k]: position k, once the page holding it has come
let fetchPage = null; // first -> a promise of the replay page from position `first` on
let loading = null; // the page on its way, if any
let step = 0;
let timer = null;
let records = null; // a loaded record file
const NONE = ""; // the value of a selector's "nothing of this kind on screen" option

function keep(data) {
  data.frames.forEach((frame, i) => { frames[data.first + i] = frame; });
}

// Show position k; its page is fetched first when it has not come yet.
function show(k) {
  const target = Math.max(0, Math.min(k, replay.positions - 1));
  if (frames[target]) return draw(target);
  if (loading) return undefined;
  loading = fetchPage(Math.floor(target / replay.page) * replay.page)
    .then((data) => { keep(data); draw(target); })
    .catch((error) => { stop(); showError(error.message); })
    .finally(() => { loading = null; });
  return undefined;
}

function draw(k) {
  step = k;
  const view = frames[step];
  const names = replay.names;
  const last = replay.positions - 1;
  view.variant = replay.variant;
  $("board").dataset.step = step;
  renderTable($("table"), view, 0);
  markSolver(view.solver);
  $("slider").value = step;
  $("position").textContent = `position ${step} of ${last}`;
  const next = replay.moves[step];
  $("next-move").textContent = next
    ? `next: ${names[next.seat]} ${next.phase === "play" ? "plays" : "→"} ${next.name}`
    : (view.truncated ? "game cut at the deal limit" : "game over");
  $("tricks").replaceChildren(trickList(view.tricks, view.seats));
  const ended = replay.deals.slice(0, view.deals_ended);
  const lastDeal = ended[ended.length - 1];
  $("last-deal").replaceChildren(lastDeal
    ? el("div", {}, el("p", { text: dealLine(lastDeal, names) }),
      lastDeal.ghost_taken ? el("p", {}, "the ghost hand held ", cardList(lastDeal.ghost_taken)) : null,
      trickList(lastDeal.tricks_played, view.seats))
    : el("span", { class: "muted", text: "none yet" }));
  $("moves").replaceChildren(moveList(replay.moves.slice(0, step).reverse(), names));
  $("history").replaceChildren(historyTable(ended, names, scoreLabels(view, names)));
  const over = step === last;
  $("result").hidden = !over;
  if (over) {
    const labels = scoreLabels(view, names);
    $("result").replaceChildren("Final scores: ", ...labels.map((label, i) =>
      el("span", { class: "final", "data-index": i }, `${label} `, el("b", { text: view.scores[i] }))));
    stop();
  }
  $("prev").disabled = $("first").disabled = step === 0;
  $("next").disabled = $("last").disabled = over;
}

// The exact solver's answer at a card decision (the server's, every hand seen): the best
// card(s) of the seat to play get class "best", every legal card its value as a tooltip.
function markSolver(solved) {
  if (!solved) return;
  const hand = $("table").querySelector(`.seat[data-seat="${solved.seat}"] .hand-row`);
  if (!hand) return;
  const values = new Map(solved.values.map((v) => [v.id, v.value]));
  for (const node of hand.querySelectorAll(".card[data-card]")) {
    const id = Number(node.dataset.card);
    if (!values.has(id)) continue;
    const best = solved.best.includes(id);
    if (best) node.classList.add("best");
    node.title = `${node.title}: ${signed(values.get(id))} points, double-dummy${best ? " (best)" : ""}`;
  }
}

function stop() {
  clearInterval(timer);
  timer = null;
  $("auto").textContent = "▶ play";
}

function toggle() {
  if (timer) return stop();
  if (step === replay.positions - 1) show(0);
  $("auto").textContent = "⏸ pause";
  timer = setInterval(() => show(step + 1), Number($("speed").value));
  return undefined;
}

function start(data, label, fetch) {
  stop();
  replay = data;
  frames = [];
  keep(data);
  fetchPage = fetch;
  $("board").hidden = false;
  $("slider").max = replay.positions - 1;
  $("game-info").textContent = `${label} · ${replay.variant}, ${replay.episode === "deal" ? "one deal" : `to ${replay.rules.target_score} points`}, ${replay.moves.length} moves`;
  showError("");
  draw(0);
}

// Load a game: fetch(first) gives its replay page from position `first` on; shown: what the
// selectors say is on screen ({match, game} of the league store, {file: k}, or neither).
async function load(fetch, label, shown = {}) {
  try {
    start(await fetch(0), label, fetch);
    await select(shown);
  } catch (error) {
    showError(error.message);
  }
}

// The selectors name the game on screen, or say none of theirs is.
async function select({ match = NONE, game = NONE, file = NONE }) {
  if ($("file-game").options.length) $("file-game").value = String(file);
  if (!$("match").options.length) return;
  $("match").value = String(match);
  await storeGames();
  $("stored-game").value = String(game);
}

function readFile() {
  const file = $("file").files[0];
  if (!file) return;
  file.text().then((text) => {
    records = JSON.parse(text);
    const games = records.games || [];
    $("file-game").replaceChildren(el("option", { value: NONE, text: "(choose a game of the file)" }),
      ...games.map((g, k) => el("option", { value: k, text: `game ${k}: ${g.names.join(", ")} → ${g.final_scores.join("/")}` })));
    $("file-game").value = games.length ? "0" : NONE;
    $("file-game").hidden = $("load-file").hidden = false;
    showError("");
  }).catch((error) => showError(`${file.name}: not a JSON record file (${error.message})`));
}

async function storeGames() {
  const id = $("match").value;
  const games = id === NONE ? [] : await api("GET", `/api/store/matches/${id}/games`);
  $("stored-game").replaceChildren(el("option", { value: NONE, text: "(game)" }), ...games.map((g) =>
    el("option", { value: g.game, text: `game ${g.game}: ${g.names.join(", ")} → ${g.final_scores.join("/")}` })));
  if (games.length) $("stored-game").value = "0";
}

function watchStored(match, game) {
  load((first) => api("GET", `/api/store/matches/${match}/games/${game}/replay?first=${first}`),
    `league match ${match}, game ${game}`, { match, game });
}

async function init() {
  $("file").addEventListener("change", readFile);
  $("load-file").addEventListener("click", () => {
    const game = $("file-game").value;
    if (game === NONE) return;
    const name = $("file").files[0].name;
    const chosen = records;
    load((first) => api("POST", "/api/replays", { records: chosen, game: Number(game), first }),
      `${name}, game ${game}`, { file: game });
  });
  $("first").addEventListener("click", () => show(0));
  $("prev").addEventListener("click", () => show(step - 1));
  $("next").addEventListener("click", () => show(step + 1));
  $("last").addEventListener("click", () => show(replay.positions - 1));
  $("auto").addEventListener("click", toggle);
  $("slider").addEventListener("input", () => show(Number($("slider").value)));
  $("speed").addEventListener("change", () => { if (timer) { stop(); toggle(); } });
  const store = await api("GET", "/api/store");
  if (store.matches.length) {
    $("from-store").hidden = false;
    $("match").replaceChildren(el("option", { value: NONE, text: "(choose a match)" }), ...store.matches.map((m) =>
      el("option", { value: m.id, text: `match ${m.id}: ${m.players.join(", ")} (${m.variant}, ${m.games} games)` })));
    $("match").addEventListener("change", () => storeGames().catch((e) => showError(e.message)));
    $("load-stored").addEventListener("click", () => {
      if ($("match").value !== NONE && $("stored-game").value !== NONE) watchStored($("match").value, $("stored-game").value);
    });
    $("match").value = String(store.matches[0].id);
    await storeGames();
  }
  const params = new URLSearchParams(location.search);
  if (params.get("game")) {
    const record = api("GET", `/api/games/${params.get("game")}/record`);
    load(async (first) => api("POST", "/api/replays", { records: await record, game: 0, first }), "your game");
  } else if (params.get("match") && params.get("stored")) {
    watchStored(params.get("match"), params.get("stored"));
  }
}

init().catch((error) => showError(error.message));
