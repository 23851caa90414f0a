"""Classic Euchre's deal statistics for TensorBoard: orders up, trump made, lone hands, euchres
(``euchre/lone_rate``, ``euchre/euchred_rate``, ...), counted by seat, a team's points at each of its seats."""

import numpy as np

from ghost_euchre.trainer.opponents import LEARNER
from ghost_euchre_env import variants

from .counts import LearnerCounts

VARIANT = "classic"  # the descriptor's name of the variant these statistics count
CLASSIC = variants.make(VARIANT)


class DealStats(LearnerCounts):
    """Classic counts over the deals that ended, seen from the learner's seats (for TensorBoard).

    A "seat-deal" is one deal at one learner seat (a team of two learners counts twice).
    """

    VARIANT = VARIANT
    OPPONENTS = CLASSIC.opponent_seats
    TEAM = CLASSIC.teams  # int[4]: each seat's team
    SEATS = np.arange(CLASSIC.num_players)

    COUNTS = (
        "seat_deals",
        "ordered_up",
        "made_trump",
        "maker_made",
        "alone",
        "alone_made",
        "euchred",
        "points",
        "deals",
        "thrown_in",
        "seat_games",
        "games_won",
    )

    def add_deals(self, deals, roles):
        self.add_margins(deals, roles, deals.points[:, self.TEAM])
        learner = roles[deals.game] == LEARNER  # bool[M, 4]
        maker = learner & (deals.maker[:, None] == self.SEATS)  # the learner seat made trump
        ordered = deals.ordered_up[:, None]
        made = deals.made[:, None]
        alone = deals.alone[:, None]
        makers_team = (
            learner & (self.TEAM[deals.maker][:, None] == self.TEAM) & ~deals.thrown_in[:, None]
        )
        c = self.counts
        c["deals"] += len(deals.game)
        c["thrown_in"] += int(deals.thrown_in.sum())
        c["seat_deals"] += int(learner.sum())
        c["ordered_up"] += int((maker & ordered).sum())
        c["made_trump"] += int(maker.sum())
        c["maker_made"] += int((maker & made).sum())
        c["alone"] += int((maker & alone).sum())
        c["alone_made"] += int((maker & alone & made).sum())
        c["euchred"] += int((makers_team & ~made).sum())
        c["points"] += int(deals.points[:, self.TEAM][learner].sum())

    @staticmethod
    def seat_won(scores):
        return CLASSIC.teams == scores.argmax(axis=1)[:, None]  # scores by team: int[G, 2]

    def rates(self):
        ratio = self.ratio
        return {
            "euchre/order_up_rate": ratio("ordered_up", "seat_deals"),
            "euchre/maker_rate": ratio("made_trump", "seat_deals"),
            "euchre/maker_success_rate": ratio("maker_made", "made_trump"),
            "euchre/lone_rate": ratio("alone", "seat_deals"),
            "euchre/lone_made_rate": ratio("alone_made", "alone"),
            "euchre/euchred_rate": ratio("euchred", "seat_deals"),
            "euchre/points_per_deal": ratio("points", "seat_deals"),
            "euchre/thrown_in_rate": ratio("thrown_in", "deals"),
            "charts/learner_game_win_rate": ratio("games_won", "seat_games"),
            **self.against_rates(),
        }
