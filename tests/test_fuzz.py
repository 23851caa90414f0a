"""Stateful fuzzing of the vector envs (both variants), both AEC envs and the auction view's two.

Hypothesis drives each env with random legal and illegal actions, actions of
the wrong shape and dtype, malformed reset options and seeds, and resets in
the middle of games; the auction view's envs (``ghost_bidding_v0`` and
``GhostEuchreBidding-v0``) also with a card-play policy and opponents that fail
now and then (an illegal action, an action of the wrong shape, an exception of
their own); the trainer with such a policy as an opponent or a distillation
teacher, breaking after a drawn number of decisions (it stops naming it). The
contract checked: the only exceptions are the documented
``ValueError`` (bad input) and a failing policy's own, and after a rejected
call the env is bit for bit what it was (every state array, the masks, the AEC
dicts, the card play shown, the random opponents' generator), however many
steps the call made before the failure. Example counts are bounded so the
whole file runs in seconds.
"""

import copy
import os
import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from ghost_euchre.agents.base import Policy
from ghost_euchre.agents.heuristic import GhostHeuristic
from ghost_euchre_env import (
    ClassicEuchreVec,
    GhostEuchre,
    GhostEuchreVec,
    classic_euchre_v0,
    ghost_bidding_v0,
    ghost_euchre_v0,
)
from ghost_euchre_env.gym_bidding import GhostEuchreBiddingGymEnv

FUZZ_SETTINGS = settings(
    max_examples=10,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# ------------------------------------------------------------------ strategies
_cards = st.integers(-2, 25)
_hand = st.one_of(
    st.lists(_cards, min_size=0, max_size=7), st.integers(), st.none(), st.text(max_size=4)
)


@st.composite
def _partition(draw, sizes):
    """Card ids 0..23 in a random order, cut into hands of ``sizes`` (a valid deal's hands)."""
    order = draw(st.permutations(range(24)))
    hands, start = [], 0
    for size in sizes:
        hands.append(list(order[start : start + size]))
        start += size
    return hands


def _deal(variant):
    """A chosen deal: valid, or broken in one of many ways."""
    if variant == "ghost":
        valid = _partition([6, 6, 6, 6]).map(lambda h: {"hands": h[:3], "ghost": h[3]})
        keys = ("hands", "ghost")
    else:
        valid = _partition([5, 5, 5, 5, 1]).map(lambda h: {"hands": h[:4], "upcard": h[4][0]})
        keys = ("hands", "upcard")
    broken = st.dictionaries(
        st.sampled_from((*keys, "kitty")),
        st.one_of(_hand, st.lists(_hand, max_size=5)),
        max_size=3,
    )
    return st.one_of(valid, broken, st.integers(), st.none(), st.lists(st.integers(), max_size=3))


def _option(variant):
    """One game's reset options: a dict of dealer / deals (some keys unknown), or junk."""
    return st.one_of(
        st.none(),
        st.integers(-1, 1),
        st.text(max_size=3),
        st.dictionaries(
            st.sampled_from(("dealer", "deals", "seed")),
            st.one_of(
                st.integers(-2, 5),
                st.booleans(),
                st.none(),
                st.lists(_deal(variant), max_size=2),
                _deal(variant),
            ),
            max_size=3,
        ),
    )


def _options(variant, num_envs):
    return st.one_of(
        _option(variant),
        st.lists(_option(variant), min_size=num_envs - 1, max_size=num_envs + 1),
        st.tuples(*[_option(variant)] * num_envs),
    )


_seeds = st.one_of(
    st.none(),
    st.integers(-3, 2**64),
    st.booleans(),
    st.floats(allow_nan=True),
    st.lists(st.integers(-1, 5), max_size=4),
    st.text(max_size=2),
)


# ------------------------------------------------------------------ vector env
def _vector_snapshot(venv):
    state = {name: array.copy() for name, array in venv.state.arrays().items()}
    return state, venv.mask.copy(), venv.truncated.copy()


def _assert_same_vector(venv, before):
    state, mask, truncated = before
    for name, array in state.items():
        now = getattr(venv.state, name)
        assert now.dtype == array.dtype and np.array_equal(now, array), name
    assert np.array_equal(venv.mask, mask) and np.array_equal(venv.truncated, truncated)


class VectorMachine(RuleBasedStateMachine):
    """A small batch of one variant's vector env (short games, so resets and truncation happen)."""

    variant = "ghost"
    num_envs = 3

    def __init__(self):
        super().__init__()
        if self.variant == "ghost":
            self.venv = GhostEuchreVec(
                self.num_envs, seed=1, target_score=6, max_deals=3, auction="open"
            )
        else:
            self.venv = ClassicEuchreVec(self.num_envs, seed=1, target_score=3, max_deals=3)
        self.obs, self.mask, self.player = self.venv.reset()

    def _rejected(self, call):
        """Run ``call``; if it raises, it must be a ValueError and change nothing. Returns True if it raised."""
        before = _vector_snapshot(self.venv)
        try:
            call()
        except ValueError:
            _assert_same_vector(self.venv, before)
            return True
        return False

    @rule(seed=st.integers(0, 2**32 - 1))
    def step_legal(self, seed):
        rng = np.random.default_rng(seed)
        actions = (rng.random(self.mask.shape) * self.mask).argmax(axis=1)
        self.obs, self.mask, self.player, rewards, done = self.venv.step(actions)
        assert rewards.shape == (self.num_envs, self.venv.num_players) and done.dtype == bool

    @rule(seed=st.integers(0, 2**32 - 1), game=st.integers(0, 2), wild=st.integers(-5, 40))
    def step_with_an_illegal_action(self, seed, game, wild):
        rng = np.random.default_rng(seed)
        actions = (rng.random(self.mask.shape) * self.mask).argmax(axis=1)
        illegal = np.flatnonzero(~self.mask[game])
        actions[game] = illegal[seed % len(illegal)] if wild % 2 else wild
        legal = 0 <= actions[game] < self.venv.num_actions and self.mask[game, actions[game]]
        assert self._rejected(lambda: self._step(actions)) != legal

    def _step(self, actions):
        self.obs, self.mask, self.player, _, _ = self.venv.step(actions)

    @rule(
        actions=st.one_of(
            st.lists(st.integers(0, 33), min_size=0, max_size=5).filter(lambda a: len(a) != 3),
            st.integers(0, 33),
            st.lists(st.floats(0, 33), min_size=3, max_size=3),
            st.lists(st.booleans(), min_size=3, max_size=3),
            st.lists(st.text(max_size=2), min_size=3, max_size=3),
            st.none(),
        ),
        as_array=st.booleans(),
    )
    def step_with_a_bad_shape_or_dtype(self, actions, as_array):
        if as_array and actions is not None:
            actions = np.asarray(actions)
        assert self._rejected(lambda: self._step(actions))

    @rule(data=st.data())
    def reset_with_any_options(self, data):
        options = data.draw(_options(self.variant, self.num_envs))
        seed = data.draw(_seeds)

        def reset():
            self.obs, self.mask, self.player = self.venv.reset(seed=seed, options=options)

        self._rejected(reset)

    @invariant()
    def every_game_has_a_legal_move(self):
        assert self.mask.any(axis=1).all()
        assert np.array_equal(self.player, self.venv.state.player)
        assert np.isfinite(self.obs).all() and self.obs.shape == (self.num_envs, self.venv.obs_size)


class ClassicVectorMachine(VectorMachine):
    variant = "classic"


TestGhostVector = VectorMachine.TestCase
TestGhostVector.settings = FUZZ_SETTINGS
TestClassicVector = ClassicVectorMachine.TestCase
TestClassicVector.settings = FUZZ_SETTINGS


# ------------------------------------------------------------------ AEC envs
def _aec_snapshot(raw):
    state = raw.game_state
    arrays = {name: array.copy() for name, array in state.arrays().items()}
    plain = copy.deepcopy(
        {
            name: getattr(raw, name)
            for name in (
                "agents",
                "rewards",
                "_cumulative_rewards",
                "terminations",
                "truncations",
                "infos",
                "agent_selection",
                "_on_move",
            )
        }
    )
    return arrays, plain, raw._mask.copy()


def _assert_same_aec(raw, before):
    arrays, plain, mask = before
    for name, array in arrays.items():
        now = getattr(raw.game_state, name)
        assert now.dtype == array.dtype and np.array_equal(now, array), name
    for name, value in plain.items():
        assert getattr(raw, name) == value, name
    assert np.array_equal(raw._mask, mask)


class AECMachine(RuleBasedStateMachine):
    """One AEC env of a variant (short games), stepped through the order-enforcing wrapper."""

    module = ghost_euchre_v0
    variant = "ghost"

    def __init__(self):
        super().__init__()
        self.env = self.make_env()
        self.raw = self.env.unwrapped
        self.env.reset(seed=2)

    def make_env(self):
        return self.module.env(target_score=4, max_deals=3)

    def _rejected(self, call):
        before = _aec_snapshot(self.raw)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # unknown reset keys are ignored with a warning
                call()
        except ValueError:
            _assert_same_aec(self.raw, before)
            return True
        return False

    def _mask(self):
        """int8[A]: the action mask of the agent to act."""
        obs = self.env.observe(self.env.agent_selection)
        assert obs is not None
        return obs["action_mask"]

    def _done(self):
        agent = self.env.agent_selection
        return not self.env.agents or self.env.terminations[agent] or self.env.truncations[agent]

    @rule(seed=st.integers(0, 2**32 - 1))
    def step_legal_or_dead(self, seed):
        if not self.env.agents:
            self.env.reset()
            return
        if self._done():
            self.env.step(None)
            return
        legal = np.flatnonzero(self._mask())
        assert len(legal)
        self.env.step(int(legal[seed % len(legal)]))

    @rule(
        action=st.one_of(
            st.integers(-3, 40),
            st.floats(0, 33),
            st.booleans(),
            st.text(max_size=2),
            st.lists(st.integers(0, 33), max_size=2),
            st.none(),
        ),
        as_numpy=st.booleans(),
    )
    def step_with_any_action(self, action, as_numpy):
        if not self.env.agents:
            return
        if as_numpy and isinstance(action, (int, float, bool)):
            action = np.asarray(action)[()]
        mask = self._mask()
        if self._done():
            expected_ok = action is None
        else:
            expected_ok = (
                type(action) in (int, np.int64)
                and 0 <= action < len(mask)
                and bool(mask[int(action)])
            )
        assert self._rejected(lambda: self.env.step(action)) != expected_ok

    @rule(data=st.data())
    def reset_with_any_options(self, data):
        options = data.draw(st.one_of(_option(self.variant), st.lists(_option(self.variant))))
        seed = data.draw(_seeds)
        self._rejected(lambda: self.env.reset(seed=seed, options=options))

    @invariant()
    def the_agent_on_move_has_a_legal_action(self):
        if self.env.agents and not self._done():
            assert self._mask().any()


class ClassicAECMachine(AECMachine):
    module = classic_euchre_v0
    variant = "classic"


TestGhostAEC = AECMachine.TestCase
TestGhostAEC.settings = FUZZ_SETTINGS
TestClassicAEC = ClassicAECMachine.TestCase
TestClassicAEC.settings = FUZZ_SETTINGS


# ------------------------------------------------------------ the auction view
FAILURES = ("illegal", "shape", "raise")


class PolicyFailed(Exception):
    """A failing policy's own exception."""


class Flaky:
    """The heuristic, or (while ``failure`` is set) a policy that fails in that way.

    As a batched policy (``act``) it is a card-play policy; called as
    ``(obs, mask) -> action`` it is an opponent. ``calls`` counts the calls.
    """

    name = "flaky"

    def __init__(self):
        self.inner = GhostHeuristic(GhostEuchre(), seed=0)
        self.failure = None
        self.calls = 0

    def act(self, obs, mask):
        self.calls += 1
        if self.failure == "raise":
            raise PolicyFailed("the policy broke")
        if self.failure == "shape":
            return np.zeros(len(mask) + 1, np.int64)
        if self.failure == "illegal":
            return (~mask).argmax(axis=1)
        return self.inner.act(obs, mask)

    def __call__(self, obs, mask):
        return int(self.act(obs[None], mask[None])[0])


def _bidding_snapshot(raw):
    return _aec_snapshot(raw), list(raw.game.last_plays)


def _assert_same_bidding(raw, before):
    aec, plays = before
    _assert_same_aec(raw, aec)
    assert len(raw.game.last_plays) == len(plays)
    for now, then in zip(raw.game.last_plays, plays, strict=True):
        assert all(np.array_equal(a, b) for a, b in zip(now, then, strict=True))


class BiddingAECMachine(AECMachine):
    """``ghost_bidding_v0`` (short games) with a card-play policy that fails when told to."""

    module = ghost_bidding_v0

    def make_env(self):
        self.card_play = Flaky()
        return ghost_bidding_v0.env(self.card_play, episode="game", target_score=4, max_deals=3)

    def _rejected(self, call, allowed=(ValueError,)):
        before = _bidding_snapshot(self.raw)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call()
        except allowed:
            _assert_same_bidding(self.raw, before)
            return True
        return False

    @rule(seed=st.integers(0, 2**32 - 1), failure=st.sampled_from(FAILURES))
    def step_with_a_failing_card_play_policy(self, seed, failure):
        if not self.env.agents or self._done():
            return
        legal = np.flatnonzero(self._mask())
        self.card_play.failure, calls = failure, self.card_play.calls
        try:
            rejected = self._rejected(
                lambda: self.env.step(int(legal[seed % len(legal)])), (ValueError, PolicyFailed)
            )
        finally:
            self.card_play.failure = None
        assert rejected == (self.card_play.calls > calls)  # it fails exactly when it was asked


class BiddingGymMachine(RuleBasedStateMachine):
    """``GhostEuchreBidding-v0`` (short games; learner seat 1) with a card-play policy and an
    opponent that fail when told to, and random opponents drawing from the env's generator."""

    def __init__(self):
        super().__init__()
        self.card_play, self.opponent = Flaky(), Flaky()
        self.env = GhostEuchreBiddingGymEnv(
            learner=1,
            opponents={0: self.opponent, 2: "random"},
            card_play=self.card_play,
            episode="game",
            target_score=4,
            max_deals=3,
        )
        self.env.reset(seed=3)
        self.over = False

    def _snapshot(self):
        env = self.env
        return (
            _bidding_snapshot(env.aec),
            env.action_masks(),
            copy.deepcopy(env.np_random.bit_generator.state),
        )

    def _rejected(self, call, allowed=(ValueError,)):
        before = self._snapshot()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call()
        except allowed:
            bidding, mask, generator = before
            _assert_same_bidding(self.env.aec, bidding)
            assert np.array_equal(self.env.action_masks(), mask)
            assert self.env.np_random.bit_generator.state == generator
            return True
        return False

    def _step(self, action):
        _, reward, terminated, truncated, info = self.env.step(action)
        assert np.isfinite(reward) and info["action_mask"].shape == (34,)
        self.over = terminated or truncated

    def _reset(self, seed, options):
        self.env.reset(seed=seed, options=options)
        self.over = False

    def _legal(self, seed):
        legal = np.flatnonzero(self.env.action_masks())
        return int(legal[seed % len(legal)])

    @rule(seed=st.integers(0, 2**32 - 1))
    def step_legal(self, seed):
        if self.over:
            self.env.reset()
            self.over = False
            return
        self._step(self._legal(seed))

    @rule(action=st.one_of(st.integers(-3, 40), st.floats(0, 33), st.none(), st.text(max_size=2)))
    def step_with_any_action(self, action):
        if self.over:
            return
        mask = self.env.action_masks()
        legal = type(action) is int and 0 <= action < len(mask) and bool(mask[action])
        rejected = self._rejected(lambda: self._step(action))
        if legal:  # a legal action may still fail in the policies, which fail only when told
            assert not rejected
        else:
            assert rejected

    @rule(
        seed=st.integers(0, 2**32 - 1),
        failure=st.sampled_from(FAILURES),
        who=st.sampled_from(("card_play", "opponent")),
    )
    def step_with_a_failing_policy(self, seed, failure, who):
        if self.over:
            return
        policy = getattr(self, who)
        policy.failure, calls = failure, policy.calls
        try:
            rejected = self._rejected(
                lambda: self._step(self._legal(seed)), (ValueError, PolicyFailed)
            )
        finally:
            policy.failure = None
        assert rejected == (policy.calls > calls)

    @rule(
        data=st.data(),
        failure=st.sampled_from((None, *FAILURES)),
        who=st.sampled_from(("card_play", "opponent")),
    )
    def reset_with_any_options_and_policies(self, data, failure, who):
        options = data.draw(st.one_of(_option("ghost"), st.lists(_option("ghost"))))
        seed = data.draw(st.one_of(st.none(), st.integers(0, 2**32 - 1)))
        policy = getattr(self, who)
        policy.failure = failure
        try:
            self._rejected(lambda: self._reset(seed, options), (ValueError, PolicyFailed))
        finally:
            policy.failure = None

    @invariant()
    def the_learner_has_a_legal_action(self):
        assert self.over or self.env.action_masks().any()


TestBiddingAEC = BiddingAECMachine.TestCase
TestBiddingAEC.settings = FUZZ_SETTINGS
TestBiddingGym = BiddingGymMachine.TestCase
TestBiddingGym.settings = FUZZ_SETTINGS


# ---------------------------------------------------------- the trainer's plug-ins
class TurnsBad(Policy):
    """The lowest legal action for ``after`` calls (counted over the class), then ``failure`` (one of
    FAILURES): a training opponent or distillation teacher that breaks mid-run."""

    name = "turns-bad"
    failure, after, calls = "raise", 0, 0

    def act(self, obs, mask):
        TurnsBad.calls += 1
        if TurnsBad.calls <= TurnsBad.after:
            return np.argmax(mask, axis=1).astype(np.int64)
        if TurnsBad.failure == "raise":
            raise PolicyFailed("the policy broke")
        if TurnsBad.failure == "shape":
            return np.zeros(len(mask) + 1, np.int64)
        return (~mask).argmax(axis=1)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    failure=st.sampled_from(FAILURES),
    after=st.integers(0, 30),
    role=st.sampled_from(("opponent", "distill_teacher")),
    variant=st.sampled_from(("ghost", "classic")),
)
def test_a_plug_in_that_breaks_mid_run_stops_training_naming_it(
    tmp_path_factory, failure, after, role, variant
):
    """As an opponent or a teacher, a policy that turns bad stops the run with one line naming it
    and the update (its traceback kept when it raised); the checkpoint named resumes."""
    import torch

    from ghost_euchre.trainer.checkpoint import read_checkpoint
    from ghost_euchre.trainer.config import make_config
    from ghost_euchre.trainer.failures import TrainingStopped
    from ghost_euchre.trainer.loop import train

    spec = f"{__name__}:TurnsBad"
    values = {
        "variant": variant, "num_envs": 8, "num_steps": 4, "total_steps": 128, "minibatch_size": 16,
        "update_epochs": 1, "hidden_sizes": [8], "pool_size": 1, "eval_every": 0,
        "final_eval_games": 0, "checkpoint_every": 1, "progress": False, "torch_threads": 1,
        "bidding_warmup_steps": 0, "runs_dir": str(tmp_path_factory.mktemp("runs")), "name": "r",
    }  # fmt: skip
    if role == "opponent":
        values.update(opponents={spec: 1.0}, opponent_share=1.0)
    else:
        values.update(distill_decisions=4, distill_teacher=spec, distill_phase="all")
    TurnsBad.failure, TurnsBad.after, TurnsBad.calls = failure, after, 0
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    stop, run_dir = None, ""
    try:
        run_dir = train(make_config(values), None, "fuzz")
    except TrainingStopped as stopped:
        stop = stopped
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic)
    if stop is None:
        assert TurnsBad.calls <= after and os.path.isfile(os.path.join(run_dir, "final.pt"))
        return
    message = str(stop)
    assert TurnsBad.calls > after and "\n" not in message
    assert message.startswith("update ") and f"{role} {spec!r} " in message
    if failure == "raise":
        assert stop.status == 1 and "raised PolicyFailed: the policy broke" in message
        assert stop.trace.rstrip().endswith("PolicyFailed: the policy broke")
    else:
        assert stop.status == 2 and "returned a bad action: " in message and not stop.trace
    if "--resume " in message:  # the last checkpoint, whole: from before the failing update
        saved = read_checkpoint(message.rsplit("--resume ", 1)[1])
        assert saved["update"] < int(message.split(":")[0].split()[1])
