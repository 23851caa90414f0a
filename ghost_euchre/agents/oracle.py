"""``oracle``: the search bot shown every hand, a perfect-information reference. NOT a legal player.

:class:`OraclePolicy` is :mod:`ghost_euchre.agents.search` (``infer=none``) whose worlds are
not sampled: each searched world is the real deal, every hidden card in its real
place, read from the engine's state. It answers "how much would knowing every
card be worth": the benchmark's scale (:mod:`ghost_euchre.arena.benchmark`) sets it beside
the uniform random floor on the same deals, and ``composite[oracle | heuristic]``
(the real deal seen in the auction only) bounds what a bidder could gain.

It sees the state only where an arena match shows it (:func:`ghost_euchre.agents.base.show_deal`,
called by :func:`ghost_euchre.arena.match.play_games` before each step); anywhere else (a web
game, a training opponent, a playout) it raises a ValueError rather than guess.

Options: ``samples`` (default 1: with a deterministic playout policy every copy
of the real world plays out alike), ``rollout``, ``objective``, ``top``,
``prior``, ``network``, ``max_games`` as :class:`ghost_euchre.agents.search.SearchPolicy`;
``cards``: "search" (default: the search above plays the cards too) or "solver" (every
card is played by the exact solver of the real deal, :mod:`ghost_euchre_env.solver`,
its best card, the lowest id among equals; the auction is still searched);
``concept``: the solver's solution concept in Ghost Hand ("relative", the default,
"paranoid" or "maxn"; see ``docs/solver.md``).
"""

import numpy as np

from ghost_euchre_env import solver

from .search import SearchPolicy
from .worlds import true_worlds

CARD_PLAYERS = ("search", "solver")
NOT_SHOWN = (
    "oracle: no deal was shown to it: the oracle is a perfect-information reference, no legal "
    "player, and plays only in an arena match (ghost_euchre.arena.match.run_match), which shows it every hand"
)


class OraclePolicy(SearchPolicy):
    """:class:`ghost_euchre.agents.search.SearchPolicy` searching the real deal (see the module docstring).

    game, seed, samples (copies of the real world per decision, int >= 1), rollout, objective,
    max_games, network, top, prior, build: as SearchPolicy's.
    """

    name = "oracle"

    def __init__(
        self,
        game,
        seed=None,
        samples=1,
        rollout=None,
        objective="relative",
        max_games=32768,
        network=None,
        top=0,
        prior=0.0,
        cards="search",
        concept="relative",
        build=None,
    ):
        if cards not in CARD_PLAYERS:
            raise ValueError(f"oracle: cards must be one of {list(CARD_PLAYERS)}, got {cards!r}")
        if concept not in solver.CONCEPTS:
            raise ValueError(
                f"oracle: concept must be one of {list(solver.CONCEPTS)}, got {concept!r}"
            )
        super().__init__(
            game,
            seed,
            samples=samples,
            network=network,
            infer="none",
            top=top,
            prior=prior,
            rollout=rollout,
            objective=objective,
            max_games=max_games,
            build=build,
        )
        self.name = self.name.replace("search(", "oracle(").replace(",infer=none", "")
        self.cards, self.concept = cards, concept
        if cards == "solver":
            note = "" if concept == "relative" else f",concept={concept}"
            self.name = self.name[:-1] + f",cards=solver{note})"
        self._shown = None  # (games int[M], state) of the next decisions
        self._truth = None  # the real worlds of the rows being searched

    def show_deal(self, games, state):
        """The engine state of the games about to act (int[M] match ids, the state's rows)."""
        self._shown = (np.asarray(games), state)

    def act(self, obs, mask, keys=None, games=None):
        """obs float32[N, D], mask bool[N, A] -> int64[N]: the search over each row's real deal.

        games: int[N] the rows' match ids (shown by :meth:`show_deal`); ValueError without them.
        """
        if self._shown is None or games is None:
            raise ValueError(NOT_SHOWN)
        shown, state = self._shown
        games = np.asarray(games)
        rows = np.searchsorted(shown, games)
        if (rows >= len(shown)).any() or (shown[np.minimum(rows, len(shown) - 1)] != games).any():
            raise ValueError(NOT_SHOWN)
        mask = np.asarray(mask, bool)
        actions = np.zeros(len(rows), np.int64)
        by_solver = np.zeros(len(rows), bool)
        if self.cards == "solver":
            by_solver = solver.in_play(self.game, state, rows)
        if by_solver.any():
            values = solver.solve(self.game, state, rows[by_solver], concept=self.concept)
            actions[by_solver] = values.argmax(axis=1)  # the lowest id among the best
        rest = np.flatnonzero(~by_solver)
        if len(rest):
            searched = rows[rest][mask[rest].sum(axis=1) > 1]  # the rows PIMCPolicy.act searches
            self._truth = true_worlds(self.game, state.take(searched), state.player[searched])
            try:
                rest_keys = None if keys is None else np.asarray(keys)[rest]
                actions[rest] = super().act(np.asarray(obs)[rest], mask[rest], rest_keys)
            finally:
                self._truth = None
        return actions

    def _worlds(self, knowledge, rng):
        """``samples`` copies of each searched position's real world."""
        del knowledge, rng
        if self._truth is None:  # searched outside act: no deal shown
            raise ValueError(NOT_SHOWN)
        return tuple(np.repeat(part, self.samples, axis=1) for part in self._truth)
