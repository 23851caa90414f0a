"""The auction view (GhostBiddingVec): equal to GhostEuchreVec driven by the same policies, bad input."""

import numpy as np
import pytest

from ghost_euchre.agents.heuristic import GhostHeuristic
from ghost_euchre_env import GhostEuchreVec
from ghost_euchre_env.bidding import AuctionGame, GhostBiddingVec
from ghost_euchre_env.ghost import NUM_CARDS, PASS, GhostEuchre

HEURISTIC = GhostHeuristic(GhostEuchre())


class HashPolicy:
    """A legal action picked by an integer hash of the observation: a pure function of each row.

    Unlike a seeded random policy it acts the same on a game whatever else is in the batch.
    """

    name = "hash"

    def __init__(self, salt):
        self.weights = np.random.default_rng(salt).integers(1, 1 << 20, 390)

    def act(self, obs, mask):
        key = np.round(obs * 1000).astype(np.int64) @ self.weights
        counts = mask.sum(axis=1)
        pick = key % counts
        ranks = np.cumsum(mask, axis=1) - 1
        return ((ranks == pick[:, None]) & mask).argmax(axis=1)


def last_deals(env):
    """The deal summary of the env's latest step."""
    assert env.last_result is not None
    return env.last_result.deals


def current_state(env):
    """A copy of the env's batch state."""
    assert env.state is not None
    return env.state.copy()


def auction_records_full(policy, card_play, num_envs, decisions, **kwargs):
    """Per game: (player, obs, action, rewards so far) of its first auction/trump decisions in GhostEuchreVec."""
    env = GhostEuchreVec(num_envs, seed=5, **kwargs)
    obs, mask, player = env.reset()
    records = [[] for _ in range(num_envs)]
    total = np.zeros((num_envs, 3))
    while min(len(r) for r in records) < decisions:
        playing = mask[:, :NUM_CARDS].any(axis=1)
        actions = np.where(playing, card_play.act(obs, mask), policy.act(obs, mask))
        for g in np.flatnonzero(~playing):
            records[g].append((player[g], obs[g].copy(), actions[g], total[g].copy()))
        obs, mask, player, rewards, _ = env.step(actions)
        total += rewards
    return [r[:decisions] for r in records]


def auction_records_view(policy, card_play, num_envs, decisions, **kwargs):
    env = GhostBiddingVec(num_envs, card_play, seed=5, **kwargs)
    obs, mask, player = env.reset()
    records = [[] for _ in range(num_envs)]
    total = np.zeros((num_envs, 3))
    for _ in range(decisions):
        assert not mask[:, :NUM_CARDS].any()
        actions = policy.act(obs, mask)
        for g in range(num_envs):
            records[g].append((player[g], obs[g].copy(), actions[g], total[g].copy()))
        obs, mask, player, rewards, _ = env.step(actions)
        total += rewards
    return records


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"episode": "game", "target_score": 12}, {"auction": "open", "allow_renege": True}],
)
@pytest.mark.parametrize("card_play", ["heuristic", "hash"])
def test_view_equals_the_full_game_decision_for_decision(kwargs, card_play):
    card = HEURISTIC if card_play == "heuristic" else HashPolicy(2)
    auction = HashPolicy(1)
    kwargs = {"episode": "deal", **kwargs}
    full = auction_records_full(auction, card, 24, 30, **kwargs)
    view = auction_records_view(auction, card, 24, 30, **kwargs)
    for game_full, game_view in zip(full, view, strict=True):
        for (p1, o1, a1, r1), (p2, o2, a2, r2) in zip(game_full, game_view, strict=True):
            assert p1 == p2 and a1 == a2
            np.testing.assert_array_equal(o1, o2)
            np.testing.assert_array_equal(r1, r2)


def test_deals_rewards_and_shapes():
    env = GhostBiddingVec(64, HEURISTIC, seed=3)
    obs, mask, player = env.reset()
    assert obs.shape == (64, 390) and obs.dtype == np.float32
    assert mask.shape == (64, 34) and mask.dtype == bool and player.dtype == np.int64
    points = 0
    for _ in range(20):
        obs, mask, player, rewards, done = env.step(HEURISTIC.act(obs, mask))
        assert rewards.shape == (64, 3) and rewards.dtype == np.float32 and done.dtype == bool
        deals = last_deals(env)
        assert sorted(deals.game.tolist()) == np.flatnonzero(done).tolist()  # one deal per episode
        np.testing.assert_array_equal(rewards[deals.game], deals.points)
        points += deals.points.sum()
    assert points != 0


def test_all_pass_ends_the_deal_with_zero_points_and_margin_is_zero_sum():
    always_pass = FunctionPolicy(lambda obs, mask: np.full(len(obs), PASS), "pass")
    env = GhostBiddingVec(16, HEURISTIC, seed=0)
    obs, mask, _ = env.reset()
    for step in range(3):
        obs, mask, _, rewards, done = env.step(always_pass.act(obs, mask))
        assert not rewards.any() and done.all() == (step == 2)
    assert last_deals(env).thrown_in.all()
    env = GhostBiddingVec(64, HEURISTIC, seed=0, reward="margin")
    obs, mask, _ = env.reset()
    for _ in range(10):
        obs, mask, _, rewards, _ = env.step(HEURISTIC.act(obs, mask))
        np.testing.assert_allclose(rewards.sum(axis=1), 0, atol=1e-5)


def test_same_seed_same_cards_as_the_full_game():
    view = GhostBiddingVec(32, HEURISTIC, seed=9, episode="game")
    full = GhostEuchreVec(32, seed=9, episode="game")
    np.testing.assert_array_equal(view.reset()[0], full.reset()[0])


class FunctionPolicy:
    """A policy acting by ``result(obs, mask)``."""

    def __init__(self, result, name="badcards"):
        self.result = result
        self.name = name

    def act(self, obs, mask):
        return self.result(obs, mask)


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (lambda obs, mask: np.full(len(obs), PASS), "action 24 is not legal"),
        (lambda obs, mask: mask.argmax(axis=1)[:-1], "shape"),
        (lambda obs, mask: mask.argmax(axis=1).astype(float), "integers"),
    ],
)
def test_a_bad_card_play_policy_is_named_and_changes_nothing(result, message):
    env = GhostBiddingVec(32, FunctionPolicy(result), seed=1)
    obs, mask, _ = env.reset()
    while not (mask[:, 25:29].any(axis=1)).any():  # until some declarer is to name trump
        obs, mask, _, _, _ = env.step(HEURISTIC.act(obs, mask))
    before = current_state(env)
    actions = HEURISTIC.act(obs, mask)
    with pytest.raises(
        ValueError, match=f"card-play policy 'badcards' returned a bad action.*{message}"
    ):
        env.step(actions)
    for name, value in vars(before).items():
        np.testing.assert_array_equal(getattr(current_state(env), name), value, err_msg=name)


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="card_play must have a batched act"):
        GhostBiddingVec(4, "heuristic")
    with pytest.raises(ValueError, match="reward must be one of"):
        AuctionGame(HEURISTIC, reward="score")
    env = GhostBiddingVec(4, HEURISTIC, seed=0)
    env.reset()
    with pytest.raises(ValueError, match="not legal"):
        env.step(np.zeros(4, np.int64))  # a card is never an auction action
