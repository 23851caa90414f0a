"""Ghost Hand's deal statistics for TensorBoard: the bids at each level and how often each is
made, moons, swaps of the ghost hand (``euchre/moon_rate``, ``euchre/bid_rate_4``, ...)."""

import numpy as np

from ghost_euchre.trainer.opponents import LEARNER
from ghost_euchre_env import variants
from ghost_euchre_env.ghost import MOON_LEVEL

from .counts import LearnerCounts

VARIANT = "ghost"  # the descriptor's name of the variant these statistics count
GHOST = variants.make(VARIANT)


class DealStats(LearnerCounts):
    """Ghost Hand counts over the deals that ended, seen from the learner's seats (for TensorBoard)."""

    VARIANT = VARIANT
    OPPONENTS = GHOST.opponent_seats

    LEVELS = ((3, "3"), (4, "4"), (5, "5"), (MOON_LEVEL, "moon"))
    COUNTS = (
        "seat_deals",
        "declared",
        "made",
        "moons",
        "swaps",
        "points",
        "contract_points",
        "deals",
        "thrown_in",
        "seat_games",
        "games_won",
        *(f"declared_{name}" for _, name in LEVELS),
        *(f"made_{name}" for _, name in LEVELS),
    )

    def add_deals(self, deals, roles):
        self.add_margins(deals, roles, deals.points)
        learner = roles[deals.game] == LEARNER  # bool[M, 3]
        seats = np.arange(GHOST.num_players)
        maker = learner & (deals.maker[:, None] == seats)
        made = deals.made
        moon = deals.bid == MOON_LEVEL
        c = self.counts
        c["deals"] += len(deals.game)
        c["thrown_in"] += int(deals.thrown_in.sum())
        c["seat_deals"] += int(learner.sum())
        c["declared"] += int(maker.sum())
        c["made"] += int((maker & made[:, None]).sum())
        c["moons"] += int((maker & moon[:, None]).sum())
        c["swaps"] += int((learner & (deals.swapper[:, None] == seats)).sum())
        c["points"] += int(deals.points[learner].sum())
        c["contract_points"] += int(deals.points[maker].sum())
        declared = maker.any(axis=1)
        for level, name in self.LEVELS:
            at_level = declared & (deals.bid == level)
            c[f"declared_{name}"] += int(at_level.sum())
            c[f"made_{name}"] += int((at_level & made).sum())

    @staticmethod
    def seat_won(scores):
        return scores.argmax(axis=1)[:, None] == np.arange(scores.shape[1])

    def rates(self):
        ratio = self.ratio
        return {
            "euchre/declarer_rate": ratio("declared", "seat_deals"),
            "euchre/bid_success_rate": ratio("made", "declared"),
            "euchre/moon_rate": ratio("moons", "seat_deals"),
            "euchre/swap_rate": ratio("swaps", "seat_deals"),
            "euchre/points_per_deal": ratio("points", "seat_deals"),
            "euchre/points_per_contract": ratio("contract_points", "declared"),
            **{
                f"euchre/bid_rate_{n}": ratio(f"declared_{n}", "seat_deals") for _, n in self.LEVELS
            },
            **{
                f"euchre/make_rate_{n}": ratio(f"made_{n}", f"declared_{n}") for _, n in self.LEVELS
            },
            "euchre/thrown_in_rate": ratio("thrown_in", "deals"),
            "charts/learner_game_win_rate": ratio("games_won", "seat_games"),
            **self.against_rates(),
        }
