"""What every variant's table shows a card as, and a seat that may be none (-1)."""

from ghost_euchre_env.cards import CARD_RANK, CARD_SUIT, RANK_LETTERS, SUIT_SYMBOLS
from ghost_euchre_env.render import hand_by_suit


def card(card_id):
    """A card id (0..23) as {"id", "rank": 'J', "suit": '♥', "name": 'J♥'}."""
    rank, suit = RANK_LETTERS[CARD_RANK[card_id]], SUIT_SYMBOLS[CARD_SUIT[card_id]]
    return {"id": int(card_id), "rank": rank, "suit": suit, "name": rank + suit}


def cards(mask):
    """A uint32 card mask as a list of :func:`card` dicts, by suit, high ranks first."""
    return [card(c) for suit in hand_by_suit(mask) for c in suit]


def seat_or_none(seat):
    """A seat of the state (-1: none) as an int, or None."""
    seat = int(seat)
    return None if seat < 0 else seat
