// Drawing a table view (ghost_euchre.arena.web.table.Table.view) and the shared page helpers.
// Everything shown comes from the server's view: this file decides layout only.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

export async function api(method, url, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) {
    const error = new Error(data.error || `HTTP ${response.status}`);
    error.status = response.status; // 404: nothing there (yet), which a page may say without alarm
    throw error;
  }
  return data;
}

export function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message || "";
  box.hidden = !message;
}

const RED = new Set(["♥", "♦"]);
const TEAMS = "AB";  // a team's letter by its index

// A card face (span), or a button when onclick is given (disabled unless legal).
export function cardNode(card, { onclick = null, legal = false, small = false } = {}) {
  const cls = `card${RED.has(card.suit) ? " red" : ""}${small ? " small" : ""}`;
  const face = [el("span", { class: "rank", text: card.rank }), el("span", { class: "suit", text: card.suit })];
  if (!onclick) return el("span", { class: cls, "data-card": card.id, title: card.name }, face);
  return el(
    "button",
    { class: cls, "data-action": card.id, title: card.name, disabled: !legal, onclick: () => onclick(card.id) },
    face,
  );
}

export function cardBacks(count) {
  return el("span", { class: "backs", title: `${count} cards` },
    Array.from({ length: count }, () => el("span", { class: "card back small" })));
}

// Where seat `seat` sits on screen when `bottom` sits at the bottom.
export function position(seat, bottom, numSeats) {
  const relative = (seat - bottom + numSeats) % numSeats;
  return (numSeats === 3 ? ["bottom", "left", "right"] : ["bottom", "left", "top", "right"])[relative];
}

export function cardList(cards) {
  return cards && cards.length ? cards.map((c) => cardNode(c, { small: true })) : [el("span", { text: "-" })];
}

function seatBox(view, entry, bottom, handBelow) {
  const n = view.seats.length;
  const turn = view.to_act === entry.seat;
  const scoreLabel = entry.team === undefined ? "" : `team ${TEAMS[entry.team]}: `;
  const box = el(
    "div",
    { class: `seat pos-${position(entry.seat, bottom, n)}${turn ? " turn" : ""}`, "data-seat": entry.seat },
    el("div", { class: "seat-name" }, el("b", { text: entry.name }), el("span", { class: "seat-no", text: ` seat ${entry.seat}` })),
    el("div", {}, scoreLabel, "score ", el("b", { class: "score", text: entry.score }),
      " · tricks ", el("b", { class: "tricks", text: entry.tricks })),
    el("div", { class: "auction", text: entry.auction ? entry.auction + (entry.alone ? ` · ${entry.alone}` : "") : (entry.alone || "") }),
    el("div", { class: "roles", text: entry.roles.join(", ") }),
  );
  if (entry.hand && !(handBelow && entry.seat === bottom)) box.append(el("div", { class: "hand-row" }, cardList(entry.hand)));
  else if (!entry.hand) box.append(cardBacks(entry.held));
  return box;
}

function centerBox(view, bottom) {
  const n = view.seats.length;
  const trick = el("div", { class: "trick" });
  for (const play of view.trick.cards) {
    trick.append(el("div", { class: `slot pos-${position(play.seat, bottom, n)}`, "data-seat": play.seat },
      cardNode(play.card), el("div", { class: "slot-name", text: view.seats[play.seat].name })));
  }
  const info = [];
  if (view.ghost) {  // a ghost hand: the bids' contract, the ghost or dead hand
    if (view.contract) {
      const who = view.seats[view.contract.maker].name;
      const text = view.phase === "auction"
        ? `high bid so far: ${who}, ${view.contract.bid}`
        : `${who} bid ${view.contract.bid}, trump ${view.contract.trump || "not named yet"}`;
      info.push(el("div", { class: "contract", text }));
    }
    const g = view.ghost;
    const label = g.taken_by === null ? "ghost hand (face down)" : `dead hand (${view.seats[g.taken_by].name} took the ghost hand)`;
    info.push(el("div", { class: "ghost-hand" }, el("div", { class: "label", text: label }),
      g.cards ? el("div", { class: "hand-row" }, cardList(g.cards)) : cardBacks(g.count)));
    if (g.taken) info.push(el("div", { class: "ghost-hand" }, el("div", { class: "label", text: "the ghost hand taken was" }), el("div", { class: "hand-row" }, cardList(g.taken))));
  } else {  // an upcard: the contract made by a call, the dealer's discard
    info.push(el("div", { class: "upcard" }, el("span", { class: "label", text: "upcard " }), cardNode(view.upcard, { small: true })));
    if (view.contract) {
      info.push(el("div", { class: "contract", text: `trump ${view.contract.trump}, made by ${view.seats[view.contract.maker].name}` }));
    }
    if (view.discard) info.push(el("div", {}, el("span", { class: "label", text: "discarded " }), cardNode(view.discard, { small: true })));
  }
  return el("div", { class: "center" },
    el("div", { class: "phase", text: `deal ${view.deal} · ${view.phase}${view.phase === "play" ? ` · trick ${view.trick.number}` : ""}` }),
    trick, info);
}

// The table: seats around, the trick and the contract in the middle. `bottom` sits at the
// bottom; handBelow: its hand is drawn elsewhere on the page (the Play page's buttons).
export function renderTable(container, view, bottom, handBelow = false) {
  container.replaceChildren(
    el("div", { class: `felt seats-${view.seats.length}` },
      view.seats.map((entry) => seatBox(view, entry, bottom, handBelow)),
      centerBox(view, bottom)),
  );
}

export function trickList(tricks, seats) {
  if (!tricks.length) return el("p", { class: "muted", text: "no trick completed yet" });
  return el("ol", { class: "tricks" }, tricks.map((t) => el("li", {},
    t.cards.map((play) => el("span", { class: play.seat === t.winner ? "play won" : "play" }, `${seats[play.seat].name} `, cardNode(play.card, { small: true }))),
    el("span", { class: "muted", text: ` → ${seats[t.winner].name}` }))));
}

// One line about an ended deal (a summary from Table.deals).
export function dealLine(deal, names) {
  if (deal.thrown_in) return `deal ${deal.deal}: everybody passed, thrown in`;
  if (deal.upcard === undefined) {  // a bid contract, the ghost hand taken or not
    const ghost = deal.swapper >= 0 ? `${names[deal.swapper]} took the ghost hand` : "nobody took the ghost hand";
    return `deal ${deal.deal}: ${names[deal.maker]} bid ${deal.bid}, trump ${deal.trump}; ${ghost}; ` +
      `tricks ${deal.tricks.join("/")}; points ${deal.points.map(signed).join("/")}`;
  }
  const alone = deal.alone ? " alone" : "";
  return `deal ${deal.deal}: ${names[deal.maker]} made ${deal.trump}${alone} (upcard ${deal.upcard.name}); ` +
    `tricks ${deal.tricks.join("/")}; points A ${signed(deal.points[0])}, B ${signed(deal.points[1])}`;
}

export function signed(x) {
  return x > 0 ? `+${x}` : `${x}`;
}

// The heading of each score column of a view: the seats' names, or the teams' when seats score by team.
export function scoreLabels(view, names) {
  if (view.seats.every((entry) => entry.team === undefined)) return names;
  return view.scores.map((_, team) => {
    const seats = view.seats.filter((entry) => entry.team === team).map((entry) => entry.seat);
    return `team ${TEAMS[team]} (seats ${seats.join(", ")})`;
  });
}

// The scores after every ended deal, one row per deal; heads: the score columns' headings.
export function historyTable(history, names, heads) {
  return el("table", { class: "history" },
    el("tr", {}, el("th", { text: "deal" }), el("th", { text: "what happened" }), heads.map((h) => el("th", { text: h }))),
    history.map((d) => el("tr", {}, el("td", { text: d.deal }), el("td", { text: dealLine(d, names).replace(/^deal \d+: /, "") }),
      d.scores.map((s) => el("td", { class: "num", text: s })))));
}

export function moveList(moves, names) {
  return el("ol", { class: "moves" }, moves.map((m) =>
    el("li", { value: m.step, class: m.phase === "play" ? "" : "bid" }, `${names[m.seat]}: ${m.name}`)));
}
