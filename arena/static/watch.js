// The Watch page: a recorded game replayed position by position, every hand shown.
// The server replays the record through the engine and sends every position.
import {
  api, cardList, dealLine, el, historyTable, moveList, renderTable, showError, trickList,
} from "/static/table.js";

const $ = (id) => document.getElementById(id);
let replay = null; // {names, frames, moves, deals, ...}
let step = 0;
let timer = null;
let records = null; // a loaded record file

function show(k) {
  step = Math.max(0, Math.min(k, replay.frames.length - 1));
  const view = replay.frames[step];
  const names = replay.names;
  view.variant = replay.variant;
  $("board").dataset.step = step;
  renderTable($("table"), view, 0);
  $("slider").value = step;
  $("position").textContent = `position ${step} of ${replay.frames.length - 1}`;
  const next = replay.moves[step];
  $("next-move").textContent = next
    ? `next: ${names[next.seat]} ${next.phase === "play" ? "plays" : "→"} ${next.name}`
    : (view.truncated ? "game cut at the deal limit" : "game over");
  $("tricks").replaceChildren(trickList(view.tricks, view.seats));
  const ended = replay.deals.slice(0, view.deals_ended);
  const last = ended[ended.length - 1];
  $("last-deal").replaceChildren(last
    ? el("div", {}, el("p", { text: dealLine(last, names, replay.variant) }),
      last.ghost_taken ? el("p", {}, "the ghost hand held ", cardList(last.ghost_taken)) : null,
      trickList(last.tricks_played, view.seats))
    : el("span", { class: "muted", text: "none yet" }));
  $("moves").replaceChildren(moveList(replay.moves.slice(0, step).reverse(), names));
  $("history").replaceChildren(historyTable(ended, names, replay.variant));
  const over = step === replay.frames.length - 1;
  $("result").hidden = !over;
  if (over) {
    const labels = replay.variant === "ghost" ? names : ["team A (seats 0, 2)", "team B (seats 1, 3)"];
    $("result").replaceChildren("Final scores: ", ...labels.map((label, k) =>
      el("span", { class: "final", "data-index": k }, `${label} `, el("b", { text: view.scores[k] }))));
    stop();
  }
  $("prev").disabled = $("first").disabled = step === 0;
  $("next").disabled = $("last").disabled = over;
}

function stop() {
  clearInterval(timer);
  timer = null;
  $("auto").textContent = "▶ play";
}

function toggle() {
  if (timer) return stop();
  if (step === replay.frames.length - 1) show(0);
  $("auto").textContent = "⏸ pause";
  timer = setInterval(() => show(step + 1), Number($("speed").value));
}

function start(data, label) {
  stop();
  replay = data;
  $("board").hidden = false;
  $("slider").max = replay.frames.length - 1;
  $("game-info").textContent = `${label} · ${replay.variant}, ${replay.episode === "deal" ? "one deal" : `to ${replay.rules.target_score} points`}, ${replay.moves.length} moves`;
  showError("");
  show(0);
}

async function load(promise, label) {
  try {
    start(await promise, label);
  } catch (error) {
    showError(error.message);
  }
}

function readFile() {
  const file = $("file").files[0];
  if (!file) return;
  file.text().then((text) => {
    records = JSON.parse(text);
    const games = records.games || [];
    $("file-game").replaceChildren(...games.map((g, k) =>
      el("option", { value: k, text: `game ${k}: ${g.names.join(", ")} → ${g.final_scores.join("/")}` })));
    $("file-game").hidden = $("load-file").hidden = false;
    showError("");
  }).catch((error) => showError(`${file.name}: not a JSON record file (${error.message})`));
}

async function storeGames() {
  const id = $("match").value;
  const games = await api("GET", `/api/store/matches/${id}/games`);
  $("stored-game").replaceChildren(...games.map((g) =>
    el("option", { value: g.game, text: `game ${g.game}: ${g.names.join(", ")} → ${g.final_scores.join("/")}` })));
}

async function init() {
  $("file").addEventListener("change", readFile);
  $("load-file").addEventListener("click", () => load(
    api("POST", "/api/replays", { records, game: Number($("file-game").value) }),
    `${$("file").files[0].name}, game ${$("file-game").value}`));
  $("first").addEventListener("click", () => show(0));
  $("prev").addEventListener("click", () => show(step - 1));
  $("next").addEventListener("click", () => show(step + 1));
  $("last").addEventListener("click", () => show(replay.frames.length - 1));
  $("auto").addEventListener("click", toggle);
  $("slider").addEventListener("input", () => show(Number($("slider").value)));
  $("speed").addEventListener("change", () => { if (timer) { stop(); toggle(); } });
  const store = await api("GET", "/api/store");
  if (store.matches.length) {
    $("from-store").hidden = false;
    $("match").replaceChildren(...store.matches.map((m) =>
      el("option", { value: m.id, text: `match ${m.id}: ${m.players.join(", ")} (${m.variant}, ${m.games} games)` })));
    $("match").addEventListener("change", () => storeGames().catch((e) => showError(e.message)));
    $("load-stored").addEventListener("click", () => load(
      api("GET", `/api/store/matches/${$("match").value}/games/${$("stored-game").value}/replay`),
      `league match ${$("match").value}, game ${$("stored-game").value}`));
    await storeGames();
  }
  const params = new URLSearchParams(location.search);
  if (params.get("game")) {
    const id = params.get("game");
    load(api("GET", `/api/games/${id}/record`).then((r) => api("POST", "/api/replays", { records: r, game: 0 })),
      "your game");
  } else if (params.get("match") && params.get("stored")) {
    load(api("GET", `/api/store/matches/${params.get("match")}/games/${params.get("stored")}/replay`),
      `league match ${params.get("match")}, game ${params.get("stored")}`);
  }
}

init().catch((error) => showError(error.message));
