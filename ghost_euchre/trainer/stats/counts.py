"""What every variant's deal statistics share: counts over the deals and games that ended, seen
from the learner's seats, and the learner's margin against each kind of player."""

import re

import numpy as np

from ghost_euchre.trainer.opponents import LEARNER
from ghost_euchre_env import variants

AGAINST = ("games", "won", "deals", "margin")  # counted against each kind of player


def margins(rewards, variant):
    """float32[N, S] rewards by seat -> each seat's reward minus the mean of its opponents' (zero-sum).

    Ghost Hand: minus the mean of the other two seats'; classic (rewards are the
    team's, at both seats of a team): minus the other team's.
    """
    opponents = variants.make(variant).opponent_seats
    weights = (opponents / opponents.sum(axis=1, keepdims=True)).astype(rewards.dtype)
    return rewards - rewards @ weights.T


class LearnerCounts:
    """Counts over the deals and games that ended, seen from the learner's seats (for TensorBoard).

    A variant's subclass names its ``COUNTS``, adds its deals (``add_deals``), says
    which seats won a game (``seat_won``) and turns the counts into ``rates``.
    """

    COUNTS: tuple[str, ...] = ()
    VARIANT = ""
    OPPONENTS = np.zeros((0, 0), bool)
    """bool[S, S]: seat t is an opponent of seat s (classic: the other team)"""

    def __init__(self, kinds=(), kind_of_role=None):
        """kinds: the names of the players a learner meets (ghost_euchre.trainer.opponents.kind_names), whose
        win rate and margin against each are counted too; kind_of_role: int[roles], each seat role's kind."""
        self.kinds = list(kinds)
        self.kind_of_role = np.zeros(0, np.int64) if kind_of_role is None else kind_of_role
        against = [f"{count}_vs_{k}" for k in range(len(self.kinds)) for count in AGAINST]
        self.counts: dict[str, float] = dict.fromkeys((*self.COUNTS, *against), 0)

    def ratio(self, numerator, denominator):
        """counts[numerator] / counts[denominator], NaN when nothing was counted."""
        c = self.counts
        return c[numerator] / c[denominator] if c[denominator] else float("nan")

    @staticmethod
    def seat_won(scores):
        """bool[G, seats]: the seats that won each game (scores: the final scores by seat)."""
        raise NotImplementedError

    def add_game_ends(self, deals, roles, finished):
        """finished: bool[N] games that ended by the rules this step (not truncated)."""
        rows = finished[deals.game]
        games, scores = deals.game[rows], deals.scores[rows]
        learner = roles[games] == LEARNER
        won = self.seat_won(scores)
        self.counts["seat_games"] += int(learner.sum())
        self.counts["games_won"] += int((learner & won).sum())
        for k, faces in enumerate(self.facing(roles[games])):
            self.counts[f"games_vs_{k}"] += int(faces.sum())
            self.counts[f"won_vs_{k}"] += int((faces & won).sum())

    def facing(self, roles):
        """bool[K, M, S]: the learner's seat s of row m has a player of kind k among its opponents
        (roles: int8[M, S] of the rows' games)."""
        kinds = self.kind_of_role[roles] if self.kinds else roles
        present = kinds[None] == np.arange(len(self.kinds))[:, None, None]  # [K, M, seat t]
        faces = (present[:, :, None, :] & self.OPPONENTS).any(-1)  # [K, M, seat s]
        return faces & (roles == LEARNER)

    def add_margins(self, deals, roles, seat_points):
        """Each kind's deals and the learner's margin summed over them (seat_points: float[M, S])."""
        margin = margins(seat_points.astype(np.float64), self.VARIANT)
        for k, faces in enumerate(self.facing(roles[deals.game])):
            self.counts[f"deals_vs_{k}"] += int(faces.sum())
            self.counts[f"margin_vs_{k}"] += float(margin[faces].sum())

    def against_rates(self):
        """TensorBoard's opponents/win_rate_vs_KIND and opponents/margin_vs_KIND (points per deal)."""
        rates = {}
        for k, name in enumerate(self.kinds):
            tag = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
            rates[f"opponents/win_rate_vs_{tag}"] = self.ratio(f"won_vs_{k}", f"games_vs_{k}")
            rates[f"opponents/margin_vs_{tag}"] = self.ratio(f"margin_vs_{k}", f"deals_vs_{k}")
        return rates
