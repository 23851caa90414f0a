"""Properties of the Ghost Hand engine over thousands of random games, and the golden playthrough."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ghost_euchre_env import ClassicEuchre, GhostEuchre, GhostEuchreVec
from ghost_euchre_env.cards import ALL_CARDS, mask_to_bool
from ghost_euchre_env.dealing import stream_keys
from ghost_euchre_env.ghost import OBS_OFFSETS, OBS_SIZE, OVER
from ghost_euchre_env.playthrough import playthrough

GOLDEN = Path(__file__).parent / "golden" / "ghost_playthrough_seed7.txt"


def random_actions(mask, rng):
    """One uniformly random legal action per row of mask bool[N, A]."""
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def count(masks):
    return mask_to_bool(masks).sum(axis=-1)


def check_invariants(state):
    live = state.phase != OVER
    held = np.concatenate([state.hands, state.ghost[:, None], state.played_cards], axis=1)
    assert (np.bitwise_or.reduce(held, axis=1)[live] == ALL_CARDS).all()
    assert (count(held).sum(axis=1)[live] == 24).all()  # every card exactly once
    played = count(state.played_cards).sum(axis=1)
    assert (played == 3 * state.trick_number + (state.trick >= 0).sum(axis=1)).all()
    assert (count(state.hands) == 6 - count(state.played_cards)).all()


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**63 - 1),
    auction=st.sampled_from(["single_round", "open"]),
    allow_renege=st.booleans(),
)
def test_random_games_keep_the_invariants(seed, auction, allow_renege):
    """500 games per example, played to the end (max_deals=12 keeps random games short)."""
    game = GhostEuchre(auction=auction, allow_renege=allow_renege, max_deals=12)
    state = game.init(stream_keys(seed, 500))
    rng = np.random.default_rng(seed)
    points = np.zeros((500, 3), np.int64)
    rewards = np.zeros((500, 3), np.float64)
    finished = 0
    while (state.phase != OVER).any():
        live = state.phase != OVER
        mask = game.legal_mask(state)
        assert mask[live].any(axis=1).all() and not mask[~live].any()
        actions = random_actions(mask, rng)
        sub = np.flatnonzero(live)
        part = state.take(sub)
        result = game.step(part, actions[sub])
        state.put(sub, part)
        check_invariants(state)
        deals = result.deals
        scored = ~deals.thrown_in
        assert (deals.tricks[scored].sum(axis=1) == 6).all()
        assert (deals.tricks[~scored] == 0).all() and (deals.points[~scored] == 0).all()
        points[sub[deals.game]] += deals.points
        rewards[sub] += result.rewards
        finished += int((result.terminated | result.truncated).sum())
    assert finished == 500
    assert (state.scores == points).all() and (rewards == points).all()
    top = state.scores.max(axis=1)
    winners = (state.scores == top[:, None]).sum(axis=1) == 1
    won = winners & (top >= 32)
    assert (won | (state.deal_number == 12)).all()


def play_vector(seed, num_envs, steps, **kwargs):
    venv = GhostEuchreVec(num_envs, seed=seed, **kwargs)
    obs, mask, _ = venv.reset()
    rng = np.random.default_rng(1)
    history = [obs.copy()]
    total = np.zeros((num_envs, 3))
    for _ in range(steps):
        obs, mask, _, rewards, _ = venv.step(random_actions(mask, rng))
        history.append(obs.copy())
        total += rewards
    return np.stack(history), total


def test_same_seed_same_games_different_seed_different_games():
    a, ta = play_vector(3, 64, 300)
    b, tb = play_vector(3, 64, 300)
    c, _ = play_vector(4, 64, 300)
    assert (a == b).all() and (ta == tb).all()
    assert not (a[0] == c[0]).all()


def test_a_game_deals_the_same_whatever_the_batch():
    venv1 = GhostEuchreVec(1, seed=11)
    venv8 = GhostEuchreVec(8, seed=11)
    venv1.reset()
    venv8.reset()
    assert (venv1.state.hands[0] == venv8.state.hands[0]).all()
    assert venv1.state.dealer[0] == venv8.state.dealer[0]
    # A list of seeds: game i deals like game 0 of seed[i].
    listed = GhostEuchreVec(2)
    listed.reset(seed=[5, 11])
    assert (listed.state.hands[1] == venv1.state.hands[0]).all()


def test_vector_step_rejects_bad_actions_and_leaves_the_batch_unchanged():
    venv = GhostEuchreVec(4, seed=0)
    _obs, mask, _player = venv.reset()
    before = venv.state.copy()
    actions = np.flatnonzero(mask[0])[[0, 0, 0, 0]]
    actions[2] = 0 if not mask[2, 0] else 25  # illegal for game 2
    with pytest.raises(ValueError, match=r"game 2: action \d+ is not legal; legal actions are \["):
        venv.step(actions)
    with pytest.raises(ValueError, match="game 0: action 99 is not legal"):
        venv.step(np.array([99, 0, 0, 0]))
    with pytest.raises(ValueError, match="shape"):
        venv.step(np.zeros(3, int))
    with pytest.raises(ValueError, match="integers"):
        venv.step(np.zeros(4, float))
    for name, value in vars(before).items():
        assert (getattr(venv.state, name) == value).all(), name


def test_vector_auto_reset_and_deal_mode():
    venv = GhostEuchreVec(32, seed=5, episode="deal")
    obs, mask, player = venv.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        obs, mask, player, _rewards, done = venv.step(random_actions(mask, rng))
        ended += done.sum()
        assert mask.any(axis=1).all() and (player >= 0).all()
        assert obs.shape == (32, OBS_SIZE) and obs.dtype == np.float32
        # Each finished game restarts at its first auction decision.
        assert (venv.state.deal_number[done] == 1).all() and (venv.state.phase[done] == 0).all()
    assert ended > 100


def test_observation_is_egocentric():
    venv = GhostEuchreVec(16, seed=2)
    _, mask, _ = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(9):
        _, mask, _, _, _ = venv.step(random_actions(mask, rng))
    state = venv.state
    start, _ = OBS_OFFSETS["played_by"]
    for seat in range(3):
        seen = venv.game.observe(state, np.full(16, seat))
        for rel in range(3):
            block = seen[:, start + 24 * rel : start + 24 * (rel + 1)].astype(bool)
            assert (block == mask_to_bool(state.played_cards[:, (seat + rel) % 3])).all()
        hand_start, hand_stop = OBS_OFFSETS["hand"]
        assert (
            seen[:, hand_start:hand_stop].astype(bool) == mask_to_bool(state.hands[:, seat])
        ).all()
        dealer_start, dealer_stop = OBS_OFFSETS["dealer"]
        assert (seen[:, dealer_start:dealer_stop].argmax(axis=1) == (state.dealer - seat) % 3).all()


def test_golden_playthrough():
    assert playthrough(7) == GOLDEN.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "engine", [GhostEuchre(target_score=8), ClassicEuchre(target_score=3)], ids=["ghost", "classic"]
)
def test_auto_reset_step_equals_step_then_next_episodes(engine):
    with_reset = engine.init(stream_keys(5, 64))
    by_hand = with_reset.copy()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(600):
        actions = random_actions(engine.legal_mask(with_reset), rng)
        first = engine.step(with_reset, actions, auto_reset=True)
        second = engine.step(by_hand, actions)
        done = second.terminated | second.truncated
        engine.next_episodes(by_hand, np.flatnonzero(done))
        ended += done.sum()
        assert np.array_equal(first.terminated, second.terminated) and np.array_equal(
            first.rewards, second.rewards
        )
        for name, array in with_reset.arrays().items():
            assert np.array_equal(array, getattr(by_hand, name)), name
    assert ended > 0
