"""Plain-text rendering of a table, shared by the Euchre variants' adapters.

The helpers at the top (hands, tricks, aligned tables) know nothing about a
variant; :func:`render_ghost` composes them into the Ghost Hand Euchre table.
A classic variant builds its own ``render_classic`` from the same helpers.
Rendering only reads the engine state; it never decides a rule.
"""

from .cards import CARD_RANK, CARD_SUIT, NUM_CARDS, SUIT_SYMBOLS, card_name, mask_to_cards
from .ghost import AUCTION, BID_LEVELS, MOON_LEVEL, NUM_TRICKS, OVER, PHASE_NAMES, PLAY

EMPTY_SLOT = "·"


def hand_text(mask, unicode=True):
    """A hand (one uint32 card mask) as text grouped by suit, high ranks first: 'A♣ 9♣  K♥'."""
    cards = mask_to_cards(mask)
    groups = []
    for suit in range(len(SUIT_SYMBOLS)):
        in_suit = sorted((c for c in cards if CARD_SUIT[c] == suit), key=lambda c: -CARD_RANK[c])
        if in_suit:
            groups.append(" ".join(card_name(c, unicode) for c in in_suit))
    return "  ".join(groups) if groups else "(no cards)"


def trick_text(cards, order, names, unicode=True):
    """The current trick in play order: 'player_1 J♥, player_2 9♣, player_0 ·'.

    cards: int[S] card each seat put in the trick (-1 none); order: seats in the
    order they play this trick; names: seat names.
    """
    parts = []
    for seat in order:
        card = int(cards[seat])
        parts.append(f"{names[seat]} {card_name(card, unicode) if 0 <= card < NUM_CARDS else EMPTY_SLOT}")
    return ", ".join(parts)


def text_table(rows):
    """Rows of strings (the first is the header) as left-aligned columns."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def _bid_name(level):
    return "moon" if level == MOON_LEVEL else str(level)


def _auction_text(game_state, g, seat):
    """What seat did in the auction of this deal: 'bid 3, pass', 'pass', '' (not yet)."""
    made = [f"bid {_bid_name(level)}" for k, level in enumerate(BID_LEVELS) if game_state.bids[g, k] == seat]
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
        f"Ghost Hand Euchre · deal {int(s.deal_number[g])} · {PHASE_NAMES[phase]}"
        f" · target {game.rules.target_score}"
    )
    dealer, declarer, swapper = int(s.dealer[g]), int(s.declarer[g]), int(s.swapper[g])
    rows = [("seat", "score", "auction", "tricks", "")]
    for seat in range(game.num_players):
        roles = [label for label, who in (("dealer", dealer), ("declarer", declarer), ("took ghost", swapper))
                 if who == seat]
        rows.append((names[seat], str(int(s.scores[g, seat])), _auction_text(s, g, seat) or EMPTY_SLOT,
                     str(int(s.tricks_won[g, seat])), ", ".join(roles)))
    lines = [header, text_table(rows)]

    high = int(s.high_bid[g])
    trump = int(s.trump[g])
    if high:
        trump_text = SUIT_SYMBOLS[trump] if trump >= 0 else "not named yet"
        lines.append(f"contract: {names[declarer]} bids {_bid_name(high)}, trump {trump_text}")
    elif phase == AUCTION:
        lines.append("contract: no bid yet")
    ghost_cards = bin(int(s.ghost[g])).count("1")
    if swapper >= 0:
        lines.append(f"ghost hand: taken by {names[swapper]}; their old hand lies dead ({ghost_cards} cards)")
    else:
        lines.append(f"ghost hand: {ghost_cards} cards face down")
    if phase == PLAY:
        leader = int(s.leader[g])
        order = [(leader + k) % game.num_players for k in range(game.num_players)]
        lines.append(f"trick {int(s.trick_number[g]) + 1} of {NUM_TRICKS}: " + trick_text(s.trick[g], order, names, unicode))
    if phase == OVER:
        lines.append("episode over")
    else:
        seat = int(s.player[g])
        lines.append(f"to act: {names[seat]}, holding {hand_text(s.hands[g, seat], unicode)}")
    return "\n".join(lines)

