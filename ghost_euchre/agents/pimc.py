"""``pimc``: determinized Monte Carlo search (perfect-information Monte Carlo).

For each decision the seat to act samples ``samples`` hidden worlds consistent
with what it has seen (:mod:`ghost_euchre.agents.worlds`: uniform over the deals that fit its
own cards, the cards played, the upcard and the shown voids). Every legal action
is tried in every world: the world is stepped with the action and then played
to the end of the deal by a fast default policy (the ``heuristic`` for every
seat), on the batched engine, all decisions x worlds x actions in one batch (a
policy with a compiled ``playout()``, as the heuristic, plays in the engine's own
loop, ``play_until_deal_ends``: one call until a deal ends, not one a step). The
action with the best mean value over the worlds is played; all worlds share one
sample per action (common random numbers), so the comparison between actions is
paired. Keyed by game (:mod:`ghost_euchre.agents.streams`): in a match, a decision's worlds
and playouts depend only on its key, not on the other decisions searched with it.

This covers every decision of both variants. Ghost Hand: card play, trump, bids
(including the moon) and the swap (after ``SWAP`` the seat holds the world's
ghost hand and the playout policy makes its bid). Classic: ordering up, naming
trump, going alone, the dealer's discard and card play. A thrown-in deal is
worth 0.

Value of a playout (``objective``): "relative" (default) is the seat's deal
points minus the mean of its opponents' points (Ghost Hand: the two other
seats; classic: the other team's points, so the seat's team's margin), so
setting a declarer or stopping a moon counts; "points" is the seat's (team's)
own deal points only.

What a world is valued by (``leaf``): "playout" (default) plays it to the
deal's end as above; "solver" solves it exactly once its cards are being
played (:mod:`ghost_euchre_env.solver`, as bridge programs value a world
double-dummy): at a card decision each world is solved once and every legal
card gets its solved value; before the cards (the auction, the swap, trump)
each action's world is played by the playout policy to the first lead (the
contract, the trump and the swap settled) and that position's solved value is
the action's; "cards" solves the card decisions' worlds only and plays the
others out. The solver's concept is the objective's: "relative" for
"relative", "paranoid" (the seat's own points, the others against it) for
"points".

Cost and strength: ``samples`` worlds per decision (default 64). Decisions with
one legal action are played without search. ``max_games`` bounds the playout
batch (decisions are searched in chunks of at most that many games). Measured
figures (``benchmarks/pimc_speed.py``, matches) are on the documentation's Results and Speed pages.
"""

import dataclasses
import os
import typing

import numpy as np

from ghost_euchre_env import solver, variants

from .base import Policy, end_match
from .composite import card_player
from .heuristic import heuristic_policy
from .streams import RowRandom, act_keyed, child_keys, takes_keys
from .worlds import read_knowledge, sample_worlds, world_states

OBJECTIVES = ("relative", "points")
LEAVES = ("playout", "solver", "cards")
SOLVER_CONCEPT = {"relative": "relative", "points": "paranoid"}
"""the solver's solution concept for each objective (``leaf="solver"`` or ``"cards"``)"""
WORLD_BYTES = 32 * 1024
"""memory one sampled world of one decision takes with its playouts (one per legal action): 30.5 KB
measured in Ghost Hand, 24.8 KB in classic, on a decision of 5-6 legal actions (tracemalloc's peak of
one ``act``)"""
CANDIDATE_BYTES = 4 * 1024
"""memory one candidate world of ``search``'s inference takes (4.2 KB measured in classic)"""


def physical_memory():
    """The machine's memory in bytes (None where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_fits(what, samples, pool=0, memory=None):
    """ValueError (one line: the estimate, the bound and the reason) unless one decision's ``samples``
    worlds with their playouts (and, for an inference, ``pool`` candidate worlds per world) fit in the
    machine's memory (``memory`` bytes; default :func:`physical_memory`): refused before anything is
    allocated, where NumPy would end in a MemoryError after minutes. ``what`` names the option."""
    memory = physical_memory() if memory is None else memory
    per_world = WORLD_BYTES + pool * CANDIDATE_BYTES
    need = samples * per_world
    if memory is None or need <= memory:
        return
    candidates = f" and {pool} candidates of {CANDIDATE_BYTES // 1024} KiB" if pool else ""
    bound = (
        f"at most {memory // per_world:,} worlds per decision"
        + (f" with pool={pool}" if pool else "")
        if memory >= per_world
        else f"pool={pool} does not fit even one world"
    )
    raise ValueError(
        f"{what} cannot fit in memory: one decision needs about {need / 2**30:,.1f} GiB "
        f"({WORLD_BYTES // 1024} KiB per world with its playouts{candidates}), this machine has "
        f"{memory / 2**30:,.1f} GiB: {bound}"
    )


def built(build, spec, game, seed):
    """The policy of ``spec`` for ``game``: the heuristic for ``heuristic`` (the default playouts),
    else ``build(spec, game, seed)``; ValueError (one line) for another spec without ``build``."""
    if isinstance(spec, str) and spec.strip() == "heuristic":
        return heuristic_policy(game, seed)
    if build is not None:
        return build(spec, game, seed)
    raise ValueError(
        f"policy spec {spec!r}: a spec other than heuristic is built by build= "
        "(ghost_euchre.agents.make_policy, which hands itself down), or pass a Policy"
    )


class PIMCPolicy(Policy):
    """Determinized Monte Carlo search for Ghost Hand or classic Euchre.

    game: a ``GhostEuchre`` or ``ClassicEuchre`` (its rules are used for the playouts); seed: int or
    None; samples: worlds per decision (int >= 1); rollout: the playout policy,
    a policy spec (default ``heuristic``; a string, or a parsed spec that ``build`` takes) or a
    Policy object; objective: "relative" or
    "points" (see the module docstring); max_games: most playout games stepped at
    once (int >= 1); leaf: what a world is valued by, "playout", "solver" or "cards" (see
    the module docstring); build: what builds a spec other than ``heuristic``
    (:func:`ghost_euchre.agents.specs.make_policy` hands itself down), or None.
    """

    name = "pimc"

    def __init__(
        self,
        game,
        seed=None,
        samples=64,
        rollout="heuristic",
        objective="relative",
        max_games=32768,
        leaf="playout",
        build=None,
    ):
        super().__init__(game, seed)
        variant = variants.of(game)  # TypeError for anything but a variant's engine
        for key, value in (("samples", samples), ("max_games", max_games)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{type(self).name}: {key} must be an int >= 1, got {value!r}")
        if type(self) is PIMCPolicy:  # a subclass checks its own sizes (search: its pool too)
            check_fits(f"pimc: samples={samples}", int(samples))
        if objective not in OBJECTIVES:
            raise ValueError(
                f"{type(self).name}: objective must be one of {list(OBJECTIVES)}, got {objective!r}"
            )
        if leaf not in LEAVES:
            raise ValueError(f"{type(self).name}: leaf must be one of {list(LEAVES)}, got {leaf!r}")
        to_build = not callable(getattr(rollout, "act", None))  # a spec
        if to_build and not isinstance(rollout, str) and build is None:
            raise ValueError(
                f"{type(self).name}: rollout must be a policy spec or a Policy, got {rollout!r}"
            )
        self.samples = int(samples)
        self.objective = objective
        self.leaf = leaf
        self.max_games = int(max_games)
        self.playout_game = type(game)(
            episode="deal", reward="points", **dataclasses.asdict(game.rules)
        )
        self.opponents = variant.opponents  # relative seats whose points count against the searcher
        if to_build:
            rollout_seed = int(self.rng.integers(2**63))
            rollout = built(build, rollout, self.playout_game, rollout_seed)
        self.rollout = typing.cast(Policy, rollout)
        played_out_by = getattr(self.rollout, "name", type(self.rollout).__name__)
        rollout_note = "" if played_out_by == "heuristic" else f", rollout={played_out_by}"
        leaf_note = "" if leaf == "playout" else f", leaf={leaf}"
        self.name = f"pimc(samples={self.samples}{rollout_note}{leaf_note})"

    def act(self, obs, mask, keys=None):
        """obs float32[N, D] of the seats to act, mask bool[N, A] -> int64[N]: the action of best
        searched value (:meth:`searched_values`)."""
        return self.searched_values(obs, mask, keys).argmax(axis=1)

    def searched_values(self, obs, mask, keys=None):
        """float64[N, A]: the value of each action searched (points a deal, the ``objective``'s),
        -inf for one not searched; a position with one legal action is not searched (0 for it).

        obs float32[N, D] of the seats to act, mask bool[N, A]; keys: uint64[N] decision keys
        (:mod:`ghost_euchre.agents.streams`): the worlds and the playouts of decision i then depend only on
        keys[i]; None: on ``rng``.
        """
        mask = np.asarray(mask, dtype=bool)
        values = np.where(mask, 0.0, -np.inf)
        search = np.flatnonzero(mask.sum(axis=1) > 1)
        if len(search) == 0:
            return values
        keys = None if keys is None else child_keys(np.asarray(keys)[search], self.stream_key)
        rng = self.rng if keys is None else RowRandom(keys)
        values[search] = self.search(np.asarray(obs)[search], mask[search], keys, rng)
        return values

    def end_match(self):
        """The match is over: passed on to the playout policy (a program stops, :mod:`ghost_euchre.agents.program`)."""
        end_match(self.rollout)

    def search(self, obs, mask, keys, rng):
        """float64[N, A]: the searched value of each legal action of N positions with a choice
        (-inf if illegal).

        obs float32[N, D], mask bool[N, A]; keys: uint64[N] keys of the
        positions (or None); rng: the source of the worlds' draws (a numpy
        Generator or :class:`ghost_euchre.agents.streams.RowRandom` of the keys).
        """
        knowledge = read_knowledge(obs, self.game)
        worlds = sample_worlds(knowledge, self.samples, rng)
        return self.action_values(knowledge, worlds, mask, keys)

    def action_values(self, knowledge, worlds, mask, keys=None):
        """float64[N, A]: mean playout value of each legal action (-inf if illegal).

        knowledge: the knowledge of N positions (``worlds.read_knowledge``);
        worlds: the sampled worlds as ``worlds.sample_worlds`` returns them
        (arrays [N, W, ...]); mask: bool[N, A]; keys: uint64[N] keys of the
        positions, for a playout policy keyed by game (or None).
        """
        num_worlds = worlds[0].shape[1]
        values = np.full(mask.shape, -np.inf)
        if self.leaf != "playout":
            solved = self._solved_cards(knowledge, worlds, mask, values)
            mask = mask & ~solved[:, None]
        games_needed = mask.sum(axis=1) * num_worlds
        playout_keys = keys if takes_keys(self.rollout) else None  # keys of playouts: only if used
        start = 0
        while start < len(mask) and games_needed.any():
            fit = int(np.searchsorted(np.cumsum(games_needed[start:]), self.max_games, "right"))
            stop = start + max(fit, 1)
            rows, acts = np.nonzero(mask[start:stop])
            rows += start
            game_row = np.repeat(rows, num_worlds)
            game_world = np.tile(np.arange(num_worlds), len(rows))
            state = world_states(
                self.playout_game,
                knowledge,
                *(part[game_row, game_world] for part in worlds),
                rows=game_row,
            )
            first = np.repeat(acts, num_worlds)
            if playout_keys is None:
                totals = self._play_out(state, first)
            else:
                totals = self._play_out(
                    state, first, child_keys(playout_keys[game_row], first, game_world)
                )
            values[rows, acts] = totals.reshape(len(rows), num_worlds).mean(axis=1)
            start = stop
        return values

    def _solved_cards(self, knowledge, worlds, mask, values):
        """Value the card decisions among the positions by solving each world once: writes the mean
        solved value of each legal card over the worlds into ``values`` (float64[N, A]) and returns
        bool[N], the positions so valued (the others are before the cards)."""
        game = self.playout_game
        first_worlds = world_states(game, knowledge, *(part[:, 0] for part in worlds))
        playing = solver.in_play(game, first_worlds)  # a position's worlds share its phase
        rows = np.flatnonzero(playing)
        if len(rows):
            num_worlds = worlds[0].shape[1]
            game_row = np.repeat(rows, num_worlds)
            game_world = np.tile(np.arange(num_worlds), len(rows))
            state = world_states(
                game, knowledge, *(part[game_row, game_world] for part in worlds), rows=game_row
            )
            card_values = solver.solve(game, state, None, SOLVER_CONCEPT[self.objective], seat=0)
            mean = card_values.reshape(len(rows), num_worlds, -1).mean(axis=1)
            cards = mean.shape[1]
            values[rows, :cards] = np.where(mask[rows, :cards], mean, -np.inf)
        return playing

    def _play_out(self, state, first_actions, keys=None):
        """Step every world with its first action, then play it to the deal's end (with
        ``leaf="solver"``: to its first lead, valued there by the solver).

        keys: uint64[M] key of each playout (for a keyed playout policy) or None.
        Returns float64[M]: the value of each playout for seat 0 (the searcher).
        """
        game = self.playout_game
        value = np.zeros(len(first_actions))
        alive = np.arange(len(first_actions))
        actions = first_actions
        step = 0
        compiled, from_card_play = self._compiled_rollout()
        while True:
            if compiled is None or (from_card_play and not solver.in_play(game, state).all()):
                rewards = game.step(state, actions).rewards
            else:  # to the first deal that ends, the policy's kernel in the engine's loop
                rewards = game.play_until_deal_ends(state, actions, *compiled).rewards
            if rewards.any():  # points come at a deal's end: most steps score nothing
                value[alive] += rewards[:, 0]
                if self.objective == "relative":  # minus the opponents' mean: a sum, one division
                    value[alive] -= rewards[:, self.opponents].sum(axis=1) / len(self.opponents)
            going_on = state.phase != game.over_phase
            if self.leaf == "solver":
                leads = np.flatnonzero(solver.in_play(game, state))
                if len(leads):
                    value[alive[leads]] += solver.position_value(
                        game, state, leads, SOLVER_CONCEPT[self.objective], seat=0
                    )
                    going_on[leads] = False
            if not going_on.all():
                alive = alive[going_on]
                if len(alive) == 0:
                    return value
                state = state.take(going_on)
            step += 1
            actions = self._rollout_actions(
                state, None if keys is None else child_keys(keys[alive], step)
            )

    def _compiled_rollout(self):
        """((playout kernel, its policy's arguments), from_card_play) of a playout policy that plays
        by one compiled kernel (the heuristic's ``playout()``, a greedy network's, a network's
        auction over the heuristic's cards), or (None, False): then the playouts step in Python,
        one decision a call (also for ``leaf="solver"``, which looks at every position).
        from_card_play: the kernel is its card player's (a composite's whose auction has none),
        used once every game is playing its cards. A policy's ``playout()`` is keyless (it chooses
        by the position alone) or None."""
        if self.leaf == "solver":
            return None, False
        for part, from_card_play in ((self.rollout, False), (card_player(self.rollout), True)):
            playout = getattr(part, "playout", None)
            compiled = playout() if playout is not None else None
            if compiled is not None:
                return compiled, from_card_play
        return None, False

    def _rollout_actions(self, state, keys=None):
        """int64[M]: the playout policy's action in each game; forced moves skip it.

        keys: uint64[M] keys of the games' decisions for a keyed playout policy, or None.
        """
        game = self.playout_game
        mask = game.legal_mask(state)
        actions = mask.argmax(axis=1)
        choice = np.flatnonzero(mask.sum(axis=1) > 1)
        if len(choice) == len(actions):
            obs = game.observe(state, state.player.astype(np.int64))
            actions = act_keyed(self.rollout, obs, mask, keys)
        elif len(choice):  # only the games with a choice observed (no copy of the others' rows)
            obs = game.observe(state, state.player[choice].astype(np.int64), games=choice)
            choice_keys = None if keys is None else keys[choice]
            actions[choice] = act_keyed(self.rollout, obs, mask[choice], choice_keys)
        return actions
