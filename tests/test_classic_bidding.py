"""Classic Euchre's auction view (ClassicAuctionGame, ClassicBiddingVec): the same deals, contracts and
scores as the full engine with the same policies, every decision asked before the first card."""

import numpy as np
import pytest
from aec_helpers import check_pettingzoo_api, check_plays_like_game_0, config_id, random_action

from agents import make_policy
from ghost_euchre_env import ClassicEuchre, ClassicEuchreVec, classic_bidding_v0
from ghost_euchre_env.bidding import ClassicBiddingVec
from ghost_euchre_env.classic import OBS_OFFSETS

PLAYING = OBS_OFFSETS["phase"][0] + 4  # the observation's phase column "play"
DEALS = 4  # deals per game compared


def _deals_by_game(summaries, num_games):
    """[[(dealer, maker, trump, upcard, alone, points) of each deal] of each game] from deal summaries."""
    found = [[] for _ in range(num_games)]
    for deals in summaries:
        for k, game in enumerate(deals.game):
            found[game].append(
                (
                    int(deals.dealer[k]),
                    int(deals.maker[k]),
                    int(deals.trump[k]),
                    int(deals.upcard[k]),
                    bool(deals.maker_alone[k]),
                    tuple(int(p) for p in deals.points[k]),
                )
            )
    return [deals[:DEALS] for deals in found]


def _full_engine(num_games, seed, bidder, card_play):
    """Every deal of the full vector env: ``card_play`` in the play phase, ``bidder`` before it."""
    venv = ClassicEuchreVec(num_games, seed=seed, episode="deal")
    obs, mask, _ = venv.reset()
    summaries = []
    while min(len(g) for g in _deals_by_game(summaries, num_games)) < DEALS:
        playing = obs[:, PLAYING] == 1
        actions = np.zeros(num_games, np.int64)
        for policy, rows in ((card_play, playing), (bidder, ~playing)):
            if rows.any():
                actions[rows] = policy.act(obs[rows], mask[rows])
        obs, mask, _, _, _ = venv.step(actions)
        assert venv.last_result is not None
        summaries.append(venv.last_result.deals)
    return _deals_by_game(summaries, num_games)


def _auction_view(num_games, seed, bidder, card_play):
    """Every deal of the auction view, ``bidder`` making each decision it asks for."""
    venv = ClassicBiddingVec(num_games, card_play, seed=seed)
    obs, mask, _ = venv.reset()
    summaries = []
    while min(len(g) for g in _deals_by_game(summaries, num_games)) < DEALS:
        assert not (obs[:, PLAYING] == 1).any()  # no card-play decision is asked for
        obs, mask, _, _, _ = venv.step(bidder.act(obs, mask))
        assert venv.last_result is not None
        summaries.append(venv.last_result.deals)
    return _deals_by_game(summaries, num_games)


@pytest.mark.parametrize("card_play_spec", ["heuristic", "ppo:classic"])
def test_the_auction_view_scores_every_deal_as_the_full_engine(card_play_spec):
    game = ClassicEuchre()
    bidder = make_policy("heuristic", game, seed=0)
    card_play = make_policy(card_play_spec, game, seed=0)
    num_games = 512 if card_play_spec == "heuristic" else 128
    full = _full_engine(num_games, 11, bidder, card_play)
    view = _auction_view(num_games, 11, bidder, card_play)
    assert view == full
    deals = [deal for game_deals in full for deal in game_deals]
    assert len(deals) == num_games * DEALS
    upcard_suit_made = sum(
        maker >= 0 and trump == upcard % 4 for _, maker, trump, upcard, _, _ in deals
    )
    second_round = sum(
        maker >= 0 and trump != upcard % 4 for _, maker, trump, upcard, _, _ in deals
    )
    lone = sum(alone for *_, alone, _ in deals)
    assert upcard_suit_made and second_round and lone  # every kind of contract was compared


def test_the_discard_belongs_to_the_auction():
    game = ClassicEuchre()
    heuristic = make_policy("heuristic", game, seed=0)
    venv = ClassicBiddingVec(256, heuristic, seed=3)
    obs, mask, _ = venv.reset()
    discards = 0
    for _ in range(12):
        discards += int(obs[:, OBS_OFFSETS["phase"][0] + 2].sum())  # the phase column "discard"
        obs, mask, _, _, _ = venv.step(heuristic.act(obs, mask))
    assert discards > 0


def test_a_bad_card_play_leaves_the_games_as_they_were():
    class Illegal:
        name = "illegal"

        def act(self, obs, mask):
            return np.where(mask, -1, np.arange(mask.shape[1])).max(axis=1)  # an illegal id

    bidder = make_policy("heuristic", ClassicEuchre(), seed=0)
    venv = ClassicBiddingVec(64, Illegal(), seed=5)
    obs, mask, _ = venv.reset()
    before, error = None, None
    for _ in range(50):  # until a deal's card play starts
        before = venv.state.copy()
        try:
            obs, mask, _, _, _ = venv.step(bidder.act(obs, mask))
        except ValueError as raised:
            error = raised
            break
    assert "card-play policy 'illegal' returned a bad action" in str(error)
    assert before is not None
    arrays = {k: v for k, v in vars(before).items() if isinstance(v, np.ndarray)}
    assert arrays
    for name, array in arrays.items():
        assert np.array_equal(array, getattr(venv.state, name)), name


CLASSIC_CONFIGS = [
    {},
    {"episode": "game", "target_score": 5},
    {"reward": "margin", "stick_the_dealer": True},
]


@pytest.mark.parametrize("config", CLASSIC_CONFIGS, ids=config_id)
def test_pettingzoo_api_seed_and_render(config):
    heuristic = make_policy("heuristic", ClassicEuchre(), seed=0)
    check_pettingzoo_api(classic_bidding_v0, {"card_play": heuristic, **config})


def test_the_aec_env_plays_like_game_0_of_the_vector_view():
    heuristic = make_policy("heuristic", ClassicEuchre(), seed=0)
    env = classic_bidding_v0.env(heuristic, episode="game", target_score=5)
    venv = ClassicBiddingVec(2, heuristic, seed=4, episode="game", target_score=5)
    check_plays_like_game_0(env, venv, 4, lambda obs: obs["observation"][PLAYING] == 0)


def test_render_shows_each_trick_of_the_card_play_lone_hands_included():
    heuristic = make_policy("heuristic", ClassicEuchre(), seed=0)
    env = classic_bidding_v0.env(heuristic, render_mode="ansi", episode="game", target_score=10)
    env.reset(seed=1)
    texts = []
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else random_action(obs, np.random.default_rng(0)))
        texts.append(env.render())
    played = [t for t in texts if "card play since the last decision" in t]
    assert played
    for text in played:
        tricks = [line for line in text.splitlines() if line.startswith("trick ")]
        assert len(tricks) == 5 and "scored: points" in text, text
