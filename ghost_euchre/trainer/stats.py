"""What TensorBoard shows of a rollout: deal statistics of the learner's seats (both variants) and the
update's scalars (losses, explained variance, bid rate), summed over the ranks."""

import re

import numpy as np

from ghost_euchre.trainer.opponents import LEARNER
from ghost_euchre_env import variants
from ghost_euchre_env.ghost import MOON_LEVEL

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


class DealStats(LearnerCounts):
    """Ghost Hand counts over the deals that ended, seen from the learner's seats (for TensorBoard)."""

    VARIANT = "ghost"
    OPPONENTS = variants.GHOST.opponent_seats

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
        seats = np.arange(variants.GHOST.num_players)
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


class ClassicDealStats(LearnerCounts):
    """Classic counts over the deals that ended, seen from the learner's seats (for TensorBoard).

    A "seat-deal" is one deal at one learner seat (a team of two learners counts twice).
    """

    VARIANT = "classic"
    OPPONENTS = variants.CLASSIC.opponent_seats
    TEAM = variants.CLASSIC.teams  # int[4]: each seat's team
    SEATS = np.arange(variants.CLASSIC.num_players)

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
        return variants.CLASSIC.teams == scores.argmax(axis=1)[:, None]  # scores by team: int[G, 2]

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


DEAL_STATS = {"ghost": DealStats, "classic": ClassicDealStats}


def auction_counts(masks, actions, variant):
    """(auction decisions, bids) among decisions masks bool[M, A], actions int[M].

    An auction decision has PASS legal and passes or bids (Ghost Hand's SWAP is
    not one); a bid is one of the variant's ``bid_actions`` (classic: order up or
    name a suit).
    """
    variant = variants.make(variant)
    bids = np.isin(actions, variant.bid_actions)
    auction = masks[:, variant.actions.PASS] & (bids | (actions == variant.actions.PASS))
    return int(auction.sum()), int((auction & bids).sum())


SHARED_LOSSES = (
    "losses/policy_loss",
    "losses/value_loss",
    "losses/entropy",
    "losses/imitation_loss",
)
"""losses that ppo_update returns as each rank's part of the mean (summed over the ranks here)"""


def update_scalars(run, buf, returns, stats, lessons, losses):
    """TensorBoard scalars of one update, over all ranks: losses, learner share, explained variance, Euchre
    rates. The bid rate counts the learner's seats' auction decisions: the network's, and during the warm-up
    the heuristic's for it."""
    count = buf.count
    # the learner's seats' auction decisions: the network's, and the heuristic's for it during the
    # warm-up of learn='all' (with learn='auction' the lessons are choices that were not played)
    played = lessons if run.config.learn == "all" else []
    masks = np.concatenate([buf.mask[:count], *(mask for _, mask, _ in played)])
    actions = np.concatenate([buf.action[:count], *(action for _, _, action in played)])
    auction, bids = auction_counts(masks, actions, run.variant)
    returns = returns.astype(np.float64)
    residual = returns - buf.value[:count]
    sums = {
        **stats.counts,
        **{key: losses[key] for key in SHARED_LOSSES},
        "learner": count,
        "auction": auction,
        "bids": bids,
        "returns": returns.sum(),
        "returns_squared": (returns**2).sum(),
        "residual": residual.sum(),
        "residual_squared": (residual**2).sum(),
    }
    summed = dict(zip(sums, run.ranks.all_sum(list(sums.values())), strict=True))
    stats.counts = {key: summed[key] for key in stats.counts}
    n = summed["learner"]
    variance = lambda key: summed[f"{key}_squared"] / n - (summed[key] / n) ** 2  # noqa: E731
    explained_var = (
        1 - variance("residual") / variance("returns")
        if n and variance("returns") > 0
        else float("nan")
    )
    return {
        **losses,
        **{key: summed[key] for key in SHARED_LOSSES},
        "charts/learner_share": n / run.batch_size,
        "losses/explained_variance": float(explained_var),
        "euchre/bid_rate": summed["bids"] / summed["auction"]
        if summed["auction"]
        else float("nan"),
        **stats.rates(),
    }
