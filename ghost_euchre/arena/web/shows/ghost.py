"""What the web page's table shows of Ghost Hand beyond what every variant shares: the bids, the
ghost hand (and what the swapper took from it this deal), the scores by seat."""

from ghost_euchre_env import ghost
from ghost_euchre_env.cards import SUIT_SYMBOLS
from ghost_euchre_env.render import auction_text, bid_name

from .common import cards, seat_or_none

VARIANT = "ghost"  # the descriptor's name of the variant this table shows

BUTTONS = (  # the moves that are not cards, in the order the page shows them as buttons
    ghost.PASS,
    ghost.BID_3,
    ghost.BID_4,
    ghost.BID_5,
    ghost.MOON,
    ghost.SWAP,
    *range(ghost.TRUMP_CLUBS, ghost.TRUMP_CLUBS + 4),
)


class TableShows:
    """What the page shows of Ghost Hand beyond what both variants share: the bids, the ghost hand
    (and what the swapper took from it this deal)."""

    buttons = BUTTONS

    def __init__(self):
        self.taken = None  # the cards the swapper took this deal (uint32 mask)

    def before_move(self, s, action):
        """Remember the ghost hand a swap takes (the state's ``ghost`` then holds the dead hand)."""
        if action == ghost.SWAP:
            self.taken = int(s.ghost[0])

    def new_deal(self):
        self.taken = None

    def deal(self, summary):
        """Name the bid and add ``ghost_taken`` to a deal's JSON summary."""
        summary["bid"] = bid_name(summary["bid"]) if summary["bid"] else None
        summary["ghost_taken"] = None if self.taken is None else cards(self.taken)

    def view(self, s, view, visible):
        """Add the scores by seat, each seat's auction and roles, the contract and the ghost hand."""
        maker, swapper, trump = (seat_or_none(x[0]) for x in (s.maker, s.swapper, s.trump))
        auction = int(s.phase[0]) == ghost.AUCTION  # s.maker is then the high bidder so far
        view["scores"] = [int(x) for x in s.scores[0]]
        for entry in view["seats"]:
            seat = entry["seat"]
            entry["score"] = view["scores"][seat]
            entry["auction"] = auction_text(s, 0, seat)
            entry["roles"] = [
                label
                for label, who in (
                    ("dealer", view["dealer"]),
                    ("high bidder" if auction else "declarer", maker),
                    ("took the ghost hand", swapper),
                )
                if who == seat
            ]
        high = int(s.high_bid[0])
        view["contract"] = (  # the high bid so far during the auction (see "phase")
            {
                "maker": maker,
                "bid": bid_name(high),
                "trump": None if trump is None else SUIT_SYMBOLS[trump],
            }
            if high
            else None
        )
        shown = swapper in visible if swapper is not None else len(visible) == ghost.NUM_PLAYERS
        view["ghost"] = {
            "taken_by": swapper,
            "count": int(s.ghost[0]).bit_count(),
            "cards": cards(s.ghost[0]) if shown else None,
            "taken": cards(self.taken)
            if self.taken is not None and len(visible) == ghost.NUM_PLAYERS
            else None,
        }
