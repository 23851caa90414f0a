"""What the web page's table shows of classic Euchre beyond what every variant shares: teams,
calls, the upcard, the dealer's discard and lone hands."""

from ghost_euchre_env import classic
from ghost_euchre_env.cards import SUIT_SYMBOLS
from ghost_euchre_env.render import calls_text

from .common import card, seat_or_none

VARIANT = "classic"  # the descriptor's name of the variant this table shows

BUTTONS = (  # the moves that are not cards, in the order the page shows them as buttons
    classic.PASS,
    *range(classic.SUIT_CLUBS, classic.SUIT_CLUBS + 4),
    classic.GO_ALONE,
    classic.WITH_PARTNER,
)


class TableShows:
    """What the page shows of classic Euchre beyond what both variants share: teams, calls, the
    upcard, the dealer's discard and lone hands."""

    buttons = BUTTONS

    def before_move(self, s, action):
        del s, action

    def new_deal(self):
        pass

    def deal(self, summary):
        """The upcard as a card in a deal's JSON summary."""
        summary["upcard"] = card(summary["upcard"])

    def view(self, s, view, visible):
        """Add the scores by team, each seat's calls, alone choice and roles, the upcard, the discard
        (to the dealer) and the contract."""
        dealer, maker, trump = view["dealer"], seat_or_none(s.maker[0]), seat_or_none(s.trump[0])
        view["scores"] = [int(x) for x in s.scores[0]]  # by team: seats 0 & 2, seats 1 & 3
        alone_names = {-1: "", 0: "with partner", 1: "alone"}
        for entry in view["seats"]:
            seat = entry["seat"]
            entry["team"] = int(classic.SEAT_TEAM[seat])
            entry["score"] = view["scores"][entry["team"]]
            entry["auction"] = calls_text(s, 0, seat, True)
            entry["alone"] = alone_names[int(s.alone[0, seat])]
            entry["roles"] = [
                label for label, who in (("dealer", dealer), ("maker", maker)) if who == seat
            ]
            if not int(s.active[0]) >> seat & 1:
                entry["roles"].append("sits out")
        discard = int(s.discard[0])
        view["upcard"] = card(int(s.upcard[0]))
        view["discard"] = card(discard) if discard >= 0 and dealer in visible else None
        view["contract"] = (
            None
            if maker is None
            else {"maker": maker, "trump": None if trump is None else SUIT_SYMBOLS[trump]}
        )
