"""Plain-text rendering of a table, shared by the Euchre variants' adapters.

The helpers at the top (hands, tricks, aligned tables, the seat to act) know
nothing about a variant; :func:`render_ghost` composes them into the Ghost Hand
Euchre table, :func:`render_classic` into the classic Euchre table. Rendering
only reads the engine state; it never decides a rule.
"""

from . import classic, ghost
from .cards import (
    CARD_RANK,
    CARD_SUIT,
    NUM_CARDS,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    card_name,
    mask_to_cards,
)

EMPTY_SLOT = "·"


def hand_by_suit(mask):
    """A hand (one uint32 card mask) as card ids grouped by suit, high ranks first: [[A♣, 9♣], [], [K♥], []]."""
    cards = mask_to_cards(mask)
    return [
        sorted((c for c in cards if CARD_SUIT[c] == suit), key=lambda c: -CARD_RANK[c])
        for suit in range(len(SUIT_SYMBOLS))
    ]


def hand_text(mask, unicode=True):
    """A hand (one uint32 card mask) as text grouped by suit, high ranks first: 'A♣ 9♣  K♥'."""
    groups = [" ".join(card_name(c, unicode) for c in suit) for suit in hand_by_suit(mask) if suit]
    return "  ".join(groups) if groups else "(no cards)"


def trick_text(game_state, g, order, num_tricks, names, unicode=True):
    """The current trick of game ``g`` in play order: 'trick 2 of 6: player_1 J♥, player_2 9♣, player_0 ·'.

    game_state: an engine state with ``trick`` int8[N, S] (card each seat put in
    the trick, -1 none) and ``trick_number`` int8[N] (0-based); order: seats in
    the order they play this trick; names: seat names.
    """
    parts = []
    for seat in order:
        card = int(game_state.trick[g, seat])
        parts.append(
            f"{names[seat]} {card_name(card, unicode) if 0 <= card < NUM_CARDS else EMPTY_SLOT}"
        )
    return f"trick {int(game_state.trick_number[g]) + 1} of {num_tricks}: " + ", ".join(parts)


def text_table(rows):
    """Rows of strings (the first is the header) as left-aligned columns."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


def to_act_text(game_state, g, names, unicode=True):
    """'to act: player_1, holding A♣ K♣  9♥' for game ``g``, or 'episode over' when nobody is to act."""
    seat = int(game_state.player[g])
    if seat < 0:
        return "episode over"
    return f"to act: {names[seat]}, holding {hand_text(game_state.hands[g, seat], unicode)}"


def bid_name(level):
    """A Ghost Hand bid level (3, 4, 5, MOON_LEVEL) as text: '3', '4', '5', 'moon'."""
    return "moon" if level == ghost.MOON_LEVEL else str(level)


def auction_text(game_state, g, seat):
    """What seat did in the auction of this deal: 'bid 3, pass', 'pass', '' (not yet)."""
    made = [
        f"bid {bid_name(level)}"
        for k, level in enumerate(ghost.BID_LEVELS)
        if game_state.bids[g, k] == seat
    ]
    if game_state.passed_at[g, seat] >= 0:
        made.append("pass")
    return ", ".join(made)


def render_ghost(game, game_state, g=0, names=None, unicode=True):
    """The Ghost Hand Euchre table of game ``g`` of a batch, as text.

    Shows scores, each seat's auction and tricks this deal, the contract and
    trump, the ghost hand's whereabouts, the current trick and the hand of the
    seat to act (the only hand shown). game: the ``GhostEuchre`` engine (for its
    rules); game_state: a ``GhostState``; names: seat names (default 'seat 0'...).
    """
    s = game_state
    names = names or [f"seat {i}" for i in range(game.num_players)]
    phase = int(s.phase[g])
    header = (
        f"Ghost Hand Euchre · deal {int(s.deal_number[g])} · {ghost.PHASE_NAMES[phase]}"
        f" · target {game.rules.target_score}"
    )
    dealer, maker, swapper = int(s.dealer[g]), int(s.maker[g]), int(s.swapper[g])
    rows = [("seat", "score", "auction", "tricks", "")]
    for seat in range(game.num_players):
        roles = [
            label
            for label, who in (("dealer", dealer), ("declarer", maker), ("took ghost", swapper))
            if who == seat
        ]
        rows.append(
            (
                names[seat],
                str(int(s.scores[g, seat])),
                auction_text(s, g, seat) or EMPTY_SLOT,
                str(int(s.tricks_won[g, seat])),
                ", ".join(roles),
            )
        )
    lines = [header, text_table(rows)]

    high = int(s.high_bid[g])
    trump = int(s.trump[g])
    if high:
        trump_text = (
            (SUIT_SYMBOLS if unicode else SUIT_LETTERS)[trump] if trump >= 0 else "not named yet"
        )
        lines.append(f"contract: {names[maker]} bids {bid_name(high)}, trump {trump_text}")
    elif phase == ghost.AUCTION:
        lines.append("contract: no bid yet")
    ghost_cards = bin(int(s.ghost[g])).count("1")
    if swapper >= 0:
        lines.append(
            f"ghost hand: taken by {names[swapper]}; their old hand lies dead ({ghost_cards} cards)"
        )
    else:
        lines.append(f"ghost hand: {ghost_cards} cards face down")
    if phase == ghost.PLAY:
        leader = int(s.leader[g])
        order = [(leader + k) % game.num_players for k in range(game.num_players)]
        lines.append(trick_text(s, g, order, ghost.NUM_TRICKS, names, unicode))
    lines.append(to_act_text(s, g, names, unicode))
    return "\n".join(lines)


def calls_text(game_state, g, seat, unicode):
    """What seat called in the bidding of this deal: 'pass', 'pass, ♥', '' (not yet)."""
    suits = SUIT_SYMBOLS if unicode else SUIT_LETTERS
    passes, dealer = int(game_state.passes[g]), int(game_state.dealer[g])
    made = game_state.maker[g] >= 0
    calls = [
        "pass"
        if k < passes
        else ("order up " if k < classic.NUM_PLAYERS else "name ") + suits[game_state.trump[g]]
        for k in range(passes + made)
        if (dealer + 1 + k) % classic.NUM_PLAYERS == seat
    ]
    return ", ".join(calls)


def render_classic(game, game_state, g=0, names=None, unicode=True):
    """The classic Euchre table of game ``g`` of a batch, as text.

    Shows the team scores, each seat's calls, alone choice and tricks this deal,
    the upcard, trump and maker, the current trick and the hand of the seat to
    act (the only hand shown). game: the ``ClassicEuchre`` engine (for its rules);
    game_state: a ``ClassicState``; names: seat names (default 'seat 0'...).
    """
    s = game_state
    names = names or [f"seat {i}" for i in range(game.num_players)]
    phase = int(s.phase[g])
    lines = [
        (
            f"Classic Euchre · deal {int(s.deal_number[g])} · {classic.PHASE_NAMES[phase]}"
            f" · target {game.rules.target_score}"
        ),
        f"scores: {names[0]} & {names[2]} {int(s.scores[g, 0])}, {names[1]} & {names[3]} {int(s.scores[g, 1])}",
    ]
    dealer, maker = int(s.dealer[g]), int(s.maker[g])
    rows = [("seat", "calls", "alone", "tricks", "")]
    for seat in range(game.num_players):
        alone = {-1: EMPTY_SLOT, 0: "with partner", 1: "alone"}[int(s.alone[g, seat])]
        roles = [label for label, who in (("dealer", dealer), ("maker", maker)) if who == seat]
        if not s.active[g] >> seat & 1:
            roles.append("sits out")
        calls = calls_text(s, g, seat, unicode) or EMPTY_SLOT
        rows.append((names[seat], calls, alone, str(int(s.tricks_won[g, seat])), ", ".join(roles)))
    lines.append(text_table(rows))
    upcard = card_name(int(s.upcard[g]), unicode)
    picked_up = maker >= 0 and s.passes[g] < classic.NUM_PLAYERS
    lines.append(f"upcard: {upcard}" + (f", picked up by {names[dealer]}" if picked_up else ""))
    if maker >= 0:
        suits = SUIT_SYMBOLS if unicode else SUIT_LETTERS
        lines.append(f"trump: {suits[s.trump[g]]}, made by {names[maker]}")
    elif phase == classic.BIDDING:
        lines.append("trump: not made yet")
    if phase == classic.PLAY:
        leader = int(s.leader[g])
        order = [
            seat
            for seat in ((leader + k) % game.num_players for k in range(game.num_players))
            if s.active[g] >> seat & 1
        ]
        lines.append(trick_text(s, g, order, classic.NUM_TRICKS, names, unicode))
    lines.append(to_act_text(s, g, names, unicode))
    return "\n".join(lines)
