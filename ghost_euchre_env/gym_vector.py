"""The native Gymnasium vector env: N single-agent games stepped together on the batched engine.

``gymnasium.make_vec("GhostEuchre-v0", num_envs=N, **env_kwargs)`` (and
``GhostEuchreBidding-v0``, ``ClassicEuchre-v0``) returns a
:class:`EuchreVectorEnv`: the ``vector_entry_point`` of each registration, so
it is ``make_vec``'s default (``vectorization_mode="sync"`` still builds a
``SyncVectorEnv`` of single envs). One ``step`` applies the N learner actions
in one engine call and then plays every other seat with batched policies, one
engine call per round of moves across all games, until each game has the
learner on move again.

Sub-env i is the single env (``gymnasium.make(id, **env_kwargs)``) seeded with
``seed + i`` (Gymnasium's rule for an int seed; a list gives each sub-env its
own), action for action: the same observations, masks, rewards,
terminations, truncations and phases, as long as the opponents decide
deterministically (``heuristic``, a PPO network taking its most likely
action...). Random opponents (``opponents=None``) draw from the vector env's
``np_random``, so they play other (equally random) moves than N single envs.

- ``single_observation_space``: the single env's Box (float32[390] Ghost Hand,
  float32[464] classic); ``single_action_space``: Discrete(34 or 31). With
  ``mask_in_observation=True`` the observation is instead
  ``Dict(observations=Box, action_mask=Box(0, 1, [A], float32))`` (the layout
  of RLlib's action-masking module).
- ``action_masks()``: bool[N, A], the learner's legal actions now;
  ``infos["action_mask"]`` holds the same, and ``infos["phase"]`` int64[N].
- ``autoreset_mode`` (an attribute, as Gymnasium's vector envs have it, and
  ``metadata["autoreset_mode"]``): ``AutoresetMode.NEXT_STEP`` by default
  (Gymnasium's default; the step after an episode ended resets that game,
  ignores its action and returns reward 0) or ``SAME_STEP``
  (``autoreset_mode=AutoresetMode.SAME_STEP`` or ``"SameStep"``: the step
  that ends an episode returns the next episode's first observation, with
  ``infos["final_obs"]`` and ``infos["final_info"]`` for the games that ended).
- ``illegal_action``: ``"raise"`` (``ValueError``, nothing changed) or
  ``"terminate"``: an illegal learner action (a library's checker sends
  unmasked random ones; TorchRL's ``GymWrapper`` plays one such step when it
  wraps any vector env, where ``GymEnv`` over the single env plays none: the
  RL-libraries page) ends that game's episode with ``illegal_action_penalty``
  as its reward, as the single env does; out-of-range actions still raise.
- ``call``, ``get_attr``, ``set_attr`` as Gymnasium's ``SyncVectorEnv`` (one
  batched env: an attribute is the same for every game).
- ``render()``: the table of game ``render_game`` (an attribute, default 0),
  as the single env renders it (``render_mode`` "ansi" returns it, "human"
  prints it); it renders when called, not at every step.
- All or nothing: a step or reset whose learner actions are wrong (shape,
  type, range, legality), whose opponent returns a bad action or raises,
  leaves every game (and the random opponents' generator) as it was, and the
  error passes on.

Opponents are what the single env takes (:mod:`ghost_euchre_env.options`):
batched policies, objects with ``act(obs float32[M, D], mask bool[M, A]) ->
int[M]`` (``ghost_euchre.agents.Policy``), which the env asks once per round of moves, with
just the games where one of its seats is on move, in no fixed order, so a
policy must not keep per-game memory (observations have perfect recall); spec
strings (``"heuristic"``, ``"pimc:..."``, ``"ppo:NAME|PATH"``, ``"module:Class"``,
composites), built with ``ghost_euchre.agents.make_policy`` (imported by name, only when a
string is given); and per-game callables ``(obs, mask) -> action``, asked game by
game. ``num_envs`` is checked against this machine's memory before anything is
allocated.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import dealing, options, variants
from .aec import render_as
from .bidding import policy_name
from .core import EpisodeState, check_actions, check_int
from .options import DEFAULT_POLICY


class EuchreVectorEnv(VectorEnv):
    """N games of one learner seat against batched policies; see the module docstring.

    ``EuchreVectorEnv(aec, num_envs, chosen, opponents, skip_undecided=False, render_game=0)``.
    aec: an unwrapped AEC env of the variant (its batched ``game`` is the engine stepped here;
    its spaces, names and renderer are the ones used); chosen: the door's checked options
    (:class:`ghost_euchre_env.options.EnvOptions`); opponents: {seat: None (random legal moves)
    or a batched policy} for every seat but the learner's. skip_undecided: start the next
    episode at once when one ends before the learner's first decision (as the single auction
    and classic envs do).
    """

    def __init__(
        self,
        aec,
        num_envs,
        chosen: options.EnvOptions,
        opponents,
        skip_undecided=False,
        render_game=0,
    ):
        options.check_num_envs(num_envs, bytes_per_game(aec.door().engine))
        self.aec = aec
        self.game = aec.game
        self.num_envs = num_envs
        self.names = tuple(aec.possible_agents)
        self.learner = chosen.learner
        self.opponents = opponents
        policies = list({id(policy): policy for policy in self.opponents.values()}.values())
        self._groups = [  # (policy, its seats), each policy once
            (policy, [seat for seat, p in self.opponents.items() if p is policy])
            for policy in policies
        ]
        self._group_of_seat = np.full(len(self.names), -1, np.int64)
        for index, (_, seats) in enumerate(self._groups):
            self._group_of_seat[seats] = index
        self.skip_undecided = skip_undecided
        self.render_mode = chosen.render_mode
        self.render_game = render_game
        self.illegal_action = chosen.illegal_action
        self.illegal_action_penalty = chosen.illegal_action_penalty
        self.autoreset_mode = chosen.autoreset_mode
        self.metadata = {
            "render_modes": aec.metadata["render_modes"],
            "render_fps": aec.metadata["render_fps"],
            "autoreset_mode": chosen.autoreset_mode,
        }
        num_actions = self.game.num_actions
        board = aec.observation_space(self.names[self.learner])["observation"]
        self.mask_in_observation = chosen.mask_in_observation
        if chosen.mask_in_observation:
            mask_space = spaces.Box(0.0, 1.0, (num_actions,), np.float32)
            self.single_observation_space = spaces.Dict(
                {"observations": board, "action_mask": mask_space}
            )
        else:
            self.single_observation_space = board
        self.single_action_space = spaces.Discrete(num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._batch: EpisodeState | None = None  # the N games (see ``state``)
        self._mask = np.zeros((num_envs, num_actions), bool)
        self._ended = np.zeros(num_envs, bool)  # NEXT_STEP: games to restart at the next step
        self._cut = np.zeros(num_envs, bool)  # NEXT_STEP: games ended by an illegal action

    # ---------------------------------------------------------------- episodes
    def reset(
        self,
        *,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | list[dict[str, Any]] | None = None,
    ):
        """Start N episodes: sub-env i seeded with ``seed + i`` (or ``seed[i]``, N ints), or,
        without a seed, the next episode of every game's stream. options: None, one dict for
        every game or a list of N (``dealer``, ``deals``: the single env's). Returns (obs, infos)."""
        return self._all_or_nothing(self._reset, seed, options)

    @property
    def state(self) -> EpisodeState:
        """The engine state of the N games; RuntimeError before ``reset()``."""
        if self._batch is None:
            raise RuntimeError("call reset() first")
        return self._batch

    def _reset(self, seed, options):
        n = self.num_envs
        if seed is None and self._batch is not None:
            state = self._batch.copy()
            state.episode += 1
            self.game.start_episodes(state, np.arange(n), options)
        elif seed is None:
            state = self.game.init(dealing.stream_keys(None, n), options)
        else:
            if isinstance(seed, (int, np.integer, np.bool_)):  # a bool is refused here
                first = dealing.check_seed(seed)
                seeds = [first + i for i in range(n)]  # each checked by stream_keys
            else:
                seeds = seed
            if not isinstance(seeds, list) or None in seeds:
                raise ValueError(
                    f"seed must be None, an int in 0..2**64-1 or a list of {n} such ints, "
                    f"got {seed!r}"
                )
            state = self.game.init(dealing.stream_keys(seeds, n), options)  # checks every seed
            self._np_random, self._np_random_seed = seeding.np_random(int(seeds[0]))
        self._batch = state
        self._ended = np.zeros(n, bool)
        self._cut = np.zeros(n, bool)
        scratch = np.zeros(n, np.float32), np.zeros(n, bool), np.zeros(n, bool)
        self._play_others(np.ones(n, bool), *scratch, None)
        return self._observe(), self._infos()

    def step(self, actions):
        """One learner action per game (int[N]), then the other seats up to the learner's next
        turn. Returns (obs, rewards float32[N], terminated bool[N], truncated bool[N], infos)."""
        if self._batch is None:
            raise RuntimeError("call reset() before step()")
        return self._all_or_nothing(self._step, actions)

    def _step(self, actions):
        n = self.num_envs
        actions = np.asarray(actions)
        if actions.shape != (n,):
            raise ValueError(f"actions must have shape ({n},), got {actions.shape}")
        allowed = self._mask | self._ended[:, None]  # a restarting game's action is ignored
        rewards = np.zeros(n, np.float32)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        if self.illegal_action == "terminate":  # an illegal action ends its game, penalised
            chosen = check_actions(actions, np.ones_like(allowed))  # shape, type and range
            cut = ~allowed[np.arange(n), chosen]
            rewards[cut] = self.illegal_action_penalty
            terminated |= cut
        else:
            chosen = check_actions(actions, allowed)
            cut = np.zeros(n, bool)
        fresh = self._ended.copy()  # NEXT_STEP: the games whose episode ended at the last step
        if fresh.any():
            self.game.next_episodes(self.state, np.flatnonzero(fresh))
        self._cut = np.zeros(n, bool)
        moving = np.flatnonzero(~fresh & ~cut)
        if len(moving):
            self._apply(moving, chosen[moving], rewards, terminated, truncated, fresh)
        same_step = self.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        finals = {"obs": np.full(n, None, dtype=object), "phase": np.zeros(n, np.int64)}
        self._play_others(fresh, rewards, terminated, truncated, finals if same_step else None)
        done = terminated | truncated
        if not same_step:
            self._cut = cut  # their learner has no action until they restart
        obs = self._observe()
        infos = self._infos()
        if same_step and done.any():
            final_info = {
                "phase": finals["phase"],
                "_phase": done,
                "action_mask": np.zeros_like(self._mask),
                "_action_mask": done,
            }
            infos |= {"final_obs": finals["obs"], "_final_obs": done}
            infos |= {"final_info": final_info, "_final_info": done}
        elif not same_step:
            self._ended = done
        return obs, rewards, terminated, truncated, infos

    def _apply(self, games, actions, rewards, terminated, truncated, fresh, sub=None):
        """Step ``games`` (int[M]; ``sub``: their state, taken when not given) with ``actions``
        (int[M]); the rewards and ends of games in a reset (bool[N] ``fresh``) are not reported."""
        state = self.state
        if sub is None:
            sub = self._games(games)
        result = self.game.step(sub, actions)
        if sub is not state:
            state.put(games, sub)
        told = ~fresh[games]
        rows = slice(None) if told.all() else np.flatnonzero(told)
        games = games[rows]
        rewards[games] += result.rewards[rows, self.learner]
        terminated[games] |= result.terminated[rows]
        truncated[games] |= result.truncated[rows]

    def _play_others(self, fresh, rewards, terminated, truncated, finals):
        """The other seats' moves, in every game at once, until each game has the learner on move
        or (NEXT_STEP) has ended.

        fresh: bool[N], games in a reset (updated in place): their rewards and ends are not
        reported, and with ``skip_undecided`` an episode of theirs that ends before the learner's
        first decision is replaced by the next. finals: None (NEXT_STEP, reset), or SAME_STEP's
        {"obs": object[N], "phase": int64[N]} to fill for the games that end, which then start
        their next episode here.
        """
        state = self.state
        while True:
            if finals is not None:
                ended = np.flatnonzero((terminated | truncated) & ~fresh)
                if len(ended):
                    self._record_finals(ended, finals)
                    self.game.next_episodes(state, ended)
                    fresh[ended] = True
            if self.skip_undecided:
                undecided = np.flatnonzero(fresh & (state.player < 0))
                if len(undecided):
                    self.game.next_episodes(state, undecided)
            player = state.player
            waiting = np.flatnonzero((player >= 0) & (player != self.learner))
            if not len(waiting):
                return
            sub = self._games(waiting)
            actions = self._opponent_actions(sub)
            self._apply(waiting, actions, rewards, terminated, truncated, fresh, sub)

    def _games(self, games):
        """The state of ``games`` (int[M]): the batch itself when M = N (no copy), else a copy."""
        return self.state if len(games) == self.num_envs else self.state.take(games)

    def _opponent_actions(self, sub):
        """int64[M]: each game's move by the policy of the seat on move in ``sub`` (M games); one
        call of each policy (a policy playing several seats is asked once for all of them)."""
        player = sub.player.astype(np.int64)
        obs = self.game.observe(sub, player)
        mask = self.game.legal_mask(sub)
        actions = np.zeros(len(player), np.int64)
        group = self._group_of_seat.take(player)
        for index, (policy, seats) in enumerate(self._groups):
            rows = np.flatnonzero(group == index)
            if not len(rows):
                continue
            legal = mask[rows]
            if policy is None:
                actions[rows] = np.where(legal, self.np_random.random(legal.shape), -1.0).argmax(1)
                continue
            try:
                actions[rows] = check_actions(policy.act(obs[rows], legal), legal)
            except ValueError as error:
                at = ", ".join(self.names[seat] for seat in seats)
                raise ValueError(
                    f"opponent {policy_name(policy)!r} at {at} returned a bad action "
                    f"(in its batch of {len(rows)}): {error}"
                ) from None
        return actions

    def _record_finals(self, ended, finals):
        """SAME_STEP: the learner's last observation and phase of the games ``ended`` (int[M])."""
        final = self.state.take(ended)
        learner = np.full(len(ended), self.learner, np.int64)
        mask = np.zeros((len(ended), self.game.num_actions), bool)
        last = self._as_observation(self.game.observe(final, learner), mask)
        for row, game in enumerate(ended):
            finals["obs"][game] = (
                {key: value[row] for key, value in last.items()}
                if isinstance(last, dict)
                else last[row]
            )
        finals["phase"][ended] = final.phase

    # ---------------------------------------------------------------- outputs
    def _observe(self):
        """The learner's observations of every game; refreshes the masks (all False where the episode is over)."""
        state = self.state
        learner = np.full(self.num_envs, self.learner, np.int64)
        on_move = (state.player == self.learner) & ~self._cut
        self._mask = self.game.legal_mask(state) & on_move[:, None]
        return self._as_observation(self.game.observe(state, learner), self._mask)

    def _as_observation(self, board, mask):
        if self.mask_in_observation:
            return {"observations": board, "action_mask": mask.astype(np.float32)}
        return board

    def _infos(self):
        every = np.ones(self.num_envs, bool)
        return {
            "phase": self.state.phase.astype(np.int64),
            "_phase": every,
            "action_mask": self._mask.copy(),
            "_action_mask": every,
        }

    def action_masks(self):
        """bool[N, A]: the learner's legal actions in each game now (all False in a game whose episode
        is over); RuntimeError before ``reset()``, as ``step``."""
        if self._batch is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.copy()

    # ------------------------------------------- Gymnasium's vector env methods
    def call(self, name, *args, **kwargs):
        """A tuple of N results, as ``SyncVectorEnv.call``: ``action_masks`` gives game i's row
        (bool[A]); any other attribute of this one batched env is called (or read) once and its
        result given for every game."""
        if name == "action_masks":
            return tuple(self.action_masks())
        value = getattr(self, name)
        result = value(*args, **kwargs) if callable(value) else value
        return (result,) * self.num_envs

    def get_attr(self, name):
        """``call(name)``, as ``SyncVectorEnv.get_attr``: the attribute once per game."""
        return self.call(name)

    def set_attr(self, name, values):
        """Set an attribute of this one batched env, as ``SyncVectorEnv.set_attr``: ``values``
        is one value, or a list or tuple of N equal ones (the games cannot differ)."""
        if isinstance(values, (list, tuple)):
            if len(values) != self.num_envs or any(v != values[0] for v in values):
                raise ValueError(
                    f"set_attr({name!r}) takes one value or {self.num_envs} equal ones (the "
                    f"native env's games share their attributes), got {values!r}"
                )
            values = values[0]
        setattr(self, name, values)

    def render(self):
        """The table of game ``render_game``, as the single env renders it."""
        state = self.state
        check_int("render_game", self.render_game, 0)
        if self.render_game >= self.num_envs:
            raise ValueError(
                f"render_game must be below num_envs ({self.num_envs}), got {self.render_game}"
            )
        return render_as(
            self.render_mode,
            lambda: self.aec.render_table(self.game, state, self.render_game, self.names),
        )

    def _all_or_nothing(self, call, *args):
        """``call(*args)``; if it raises, the games, masks and generator are put back as they were."""
        saved = self._mask, self._ended, self._cut
        batch = None if self._batch is None else self._batch.copy()
        generator, seed = self._np_random, self._np_random_seed
        draws = {} if generator is None else generator.bit_generator.state  # a copy, cheap
        try:
            return call(*args)
        except BaseException:
            self._batch, (self._mask, self._ended, self._cut) = batch, saved
            self._np_random, self._np_random_seed = generator, seed
            if generator is not None:
                generator.bit_generator.state = draws
            raise


def bytes_per_game(game):
    """The memory one game of the native env holds (its engine state, the learner's observation
    and mask, and the step's copies of them), to check ``num_envs`` before allocating; game: the
    variant's engine class."""
    return 3 * (game.state_type.dtype.itemsize + game.obs_size * 4 + game.num_actions)


def _door(raw_env, kind):
    """The vector door of a variant's (auction or full-game) AEC env class ``raw_env``."""
    doors = raw_env.variant.doors
    gym_id = doors.auction_gym_id if kind == "vector_auction" else doors.gym_id
    name = f"gymnasium.make_vec({gym_id!r})"
    return options.Door(name, kind, raw_env.door().engine, raw_env.agent_names)


def play_vector_env(raw_env, num_envs, skip_undecided, given, kind="vector", default=None):
    """The :class:`EuchreVectorEnv` of a variant's AEC env class ``raw_env`` with the keywords
    ``given`` (checked by :func:`ghost_euchre_env.options.parse`); skip_undecided as
    :class:`EuchreVectorEnv`'s; default: who plays the seats an ``opponents`` dict does not name."""
    door = _door(raw_env, kind)
    chosen = options.parse(door, given)
    options.check_num_envs(num_envs, bytes_per_game(door.engine))  # before any game is made
    aec_options = {
        "episode": chosen.episode,
        "reward": chosen.reward,
        "illegal_action": chosen.illegal_action,
        "illegal_action_penalty": chosen.illegal_action_penalty,
        **chosen.rules,
    }
    if kind == "vector_auction":
        aec_options |= {"card_play": chosen.card_play, "policy_seed": chosen.policy_seed}
    aec = raw_env(render_mode=chosen.render_mode, **aec_options)
    opponents = options.resolve_opponents(chosen, door.agents, door.engine, default)
    batched = {seat: options.as_batched(policy) for seat, policy in opponents.items()}
    return EuchreVectorEnv(aec, num_envs, chosen, batched, skip_undecided)


def vector_entry_point(variant):
    """The ``vector_entry_point`` of the variant's Gymnasium id (``ghost_vector_env``): N games
    of its single env (:func:`ghost_euchre_env.gym_env.gym_env_class`)."""
    raw_env = variant.door("aec")
    skip_undecided = variant.seat_can_sit_out

    def make(num_envs, **given):
        return play_vector_env(raw_env, num_envs, skip_undecided, given)

    make.__doc__ = variant.door_doc(
        "gym_vector",
        f"""``{variant.doors.gym_id}``'s vector entry point: N games of its single env.

given: the options of :mod:`ghost_euchre_env.options` (the single env's, and
``autoreset_mode``); policy_seed seeds the policies built from specs.""",
    )
    return make


def auction_vector_entry_point(variant):
    """The ``vector_entry_point`` of the variant's auction Gymnasium id (``bidding_vector_env``):
    N games of its auction view; seats not named in an ``opponents`` dict play the heuristic."""
    raw_env = variant.door("auction_aec")

    def make(num_envs, **given):
        return play_vector_env(raw_env, num_envs, True, given, "vector_auction", DEFAULT_POLICY)

    make.__doc__ = variant.door_doc(
        "auction_gym_vector",
        f"""``{variant.doors.auction_gym_id}``'s vector entry point: N games of its auction view;
seats not named in an ``opponents`` dict play the heuristic, as there.""",
    )
    return make


__getattr__, __dir__ = variants.published(__name__)  # the doors the declarations publish here
if TYPE_CHECKING:  # the shipped variants' ones, as ghost.py and classic.py declare them
    ghost_vector_env: Callable[..., EuchreVectorEnv]
    classic_vector_env: Callable[..., EuchreVectorEnv]
    bidding_vector_env: Callable[..., EuchreVectorEnv]
    classic_bidding_vector_env: Callable[..., EuchreVectorEnv]
