"""Classic Euchre's auction view (ClassicAuctionGame, ClassicBiddingVec): the same deals, contracts and
scores as the full engine with the same policies, every decision asked before the first card."""

import json
import os
import warnings

import gymnasium
import numpy as np
import pytest
from aec_helpers import (
    card_play_renders,
    check_pettingzoo_api,
    check_plays_like_game_0,
    config_id,
)
from gymnasium.utils.env_checker import check_env
from test_train import TINY

from ghost_euchre.agents import Policy, make_policy
from ghost_euchre.agents.composite import CompositePolicy
from ghost_euchre.agents.ppo import PPOPolicy
from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena.bidding import bidding_stats, points_difference, run_bidding_match
from ghost_euchre.arena.regret import action_values, auction_rows
from ghost_euchre.trainer import cli
from ghost_euchre.trainer.config import make_config
from ghost_euchre.trainer.ranks import start_ranks
from ghost_euchre.trainer.rollout import RolloutBuffer, collect_rollout
from ghost_euchre.trainer.run import setup
from ghost_euchre_env import (
    CLASSIC_BIDDING_GYM_ENV_ID,
    ClassicEuchre,
    ClassicEuchreVec,
    classic_bidding_v0,
    variants,
)
from ghost_euchre_env.bidding import ClassicBiddingVec
from ghost_euchre_env.classic import OBS_OFFSETS
from ghost_euchre_env.gym_bidding import ClassicEuchreBiddingGymEnv

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
                    bool(deals.alone[k]),
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
    _, played = card_play_renders(env)
    for text in played:
        tricks = [line for line in text.splitlines() if line.startswith("trick ")]
        assert len(tricks) == 5 and "scored: points" in text, text


# ------------------------------------------------------------ the Gymnasium view
def test_gymnasium_check_env_masks_and_the_learners_team_points():
    for kwargs in ({}, {"learner": 1, "episode": "game", "target_score": 5}):
        env = gymnasium.make(
            CLASSIC_BIDDING_GYM_ENV_ID, illegal_action="terminate", render_mode="ansi", **kwargs
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped)
    env = ClassicEuchreBiddingGymEnv(learner=1, opponents={3: "random"})  # partner random
    assert env.observation_space.shape == (464,) and env.action_space == gymnasium.spaces.Discrete(
        31
    )
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    rewards, phases = [], set()
    for _ in range(60):
        mask = env.action_masks()
        phases.add(int(np.flatnonzero(info["action_mask"] == mask).size == 31))
        legal = np.flatnonzero(mask)
        obs, reward, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
        assert obs[PLAYING] == 0 or terminated  # no card play is asked for
        rewards.append(reward)
        if terminated or truncated:
            assert reward == info["last_deal_points"][1 % 2]  # the learner's team's points
            _, info = env.reset()
    assert phases == {1} and any(rewards)


def _episodes(seed, **kwargs):
    env = ClassicEuchreBiddingGymEnv(**kwargs)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(0)
    seen = [obs.tobytes()]
    for _ in range(40):
        legal = np.flatnonzero(env.action_masks())
        obs, reward, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
        seen.append((obs.tobytes(), reward))
        if terminated or truncated:
            obs, _ = env.reset()
            seen.append(obs.tobytes())
    return seen


def test_gymnasium_same_seed_same_episodes_and_the_native_vector_env():
    assert _episodes(3) == _episodes(3) != _episodes(4)
    venv = gymnasium.make_vec(CLASSIC_BIDDING_GYM_ENV_ID, num_envs=3)
    obs, _ = venv.reset(seed=7)
    single = gymnasium.make(CLASSIC_BIDDING_GYM_ENV_ID)
    for i in range(3):  # sub-env i is the single env seeded seed + i
        np.testing.assert_array_equal(obs[i], single.reset(seed=7 + i)[0])


# ------------------------------------------------------------ composite players
class LastLegal(Policy):
    name = "last-legal"  # orders up at once, with the partner; discards its highest card id

    def act(self, obs, mask):
        return last_legal(mask)


def last_legal(mask):
    return mask.shape[1] - 1 - np.asarray(mask)[:, ::-1].argmax(axis=1)


def test_a_composite_routes_the_dealers_discard_to_its_auction_part():
    game = ClassicEuchre()
    bidder = LastLegal(game)
    heuristic = make_policy("heuristic", game, seed=0)
    player = CompositePolicy(game, bidder, heuristic)
    venv = ClassicEuchreVec(256, seed=1)
    obs, mask, _ = venv.reset()
    discards = plays = 0
    for _ in range(30):
        actions = player.act(obs, mask)
        phase = variants.make("classic").view(obs).phase
        playing, discarding = phase == 4, phase == 2
        np.testing.assert_array_equal(actions[~playing], last_legal(mask[~playing]))
        np.testing.assert_array_equal(actions[playing], heuristic.act(obs[playing], mask[playing]))
        discards, plays = discards + int(discarding.sum()), plays + int(playing.sum())
        obs, mask, _, _, _ = venv.step(actions)
    assert discards and plays


# ------------------------------------------------------------ the trainer
TRAIN = ["--variant", "classic", "--total_steps", "512", "--final_eval_games", "0", *TINY]


def test_a_classic_learn_auction_run_bids_and_discards_and_loads_as_a_full_player(
    tmp_path, torch_globals
):
    run = cli.run(
        ["--runs_dir", str(tmp_path), "--name", "bid", "--learn", "auction", "--card_play",
         "heuristic", "--eval_every", "2", "--eval_games", "4", "--eval_regret_decisions", "3",
         *TRAIN]
    )  # fmt: skip
    game = ClassicEuchre()
    player = make_policy(f"ppo:{os.path.join(run, 'policy.pt')}", game, seed=0)
    assert isinstance(player, CompositePolicy) and player.play.name == "heuristic"
    assert isinstance(player.auction, PPOPolicy)
    config = make_config({"variant": "classic", "learn": "auction", "num_envs": 16,
                          "num_steps": 24, "hidden_sizes": [32], "runs_dir": str(tmp_path)})  # fmt: skip
    state = setup(config, start_ranks(config))
    assert isinstance(state.venv, ClassicBiddingVec)
    buf = RolloutBuffer(16 * 24, game.obs_size, game.num_actions, 16, game.num_players)
    collect_rollout(state, buf)
    phase = variants.make("classic").view(buf.obs[: buf.count]).phase
    assert (phase == 2).any() and not (phase == 4).any()  # discards, never a card play


def test_a_classic_learn_play_run_plays_the_cards_only(tmp_path, torch_globals):
    config = make_config({"variant": "classic", "learn": "play", "num_envs": 16, "num_steps": 24,
                          "hidden_sizes": [32], "runs_dir": str(tmp_path)})  # fmt: skip
    state = setup(config, start_ranks(config))
    buf = RolloutBuffer(16 * 24, state.game.obs_size, state.game.num_actions, 16, 4)
    collect_rollout(state, buf)
    phase = variants.make("classic").view(buf.obs[: buf.count]).phase
    assert buf.count and (phase == 4).all()  # the bidding spec made every auction decision
    run = cli.run(["--runs_dir", str(tmp_path), "--name", "play", "--learn", "play", *TRAIN])
    player = make_policy(f"ppo:{os.path.join(run, 'policy.pt')}", ClassicEuchre(), seed=0)
    assert isinstance(player, CompositePolicy) and player.auction.name == "heuristic"


# ------------------------------------------------------------ matches and the bid regret
def test_a_classic_bidding_match_with_bid_regret_from_the_api_and_the_json(tmp_path):
    result, regrets = run_bidding_match(
        ["heuristic", "random", "heuristic", "random"], "heuristic", regret_decisions=12,
        regret_worlds=4, games=16, episode="deal", variant="classic",
    )  # fmt: skip
    assert regrets is not None and [r.decisions for r in regrets] == [12] * 4
    assert regrets[1].mean > regrets[0].mean  # random bids worse than the heuristic
    for p, entry in enumerate(bidding_stats(result)):
        kinds = entry["contracts_by_kind"]
        assert set(kinds) == {"ordered up", "named", "alone"}
        assert sum(n for n, _ in kinds.values()) == result.players[p]["contracts"]
        assert sum(m for _, m in kinds.values()) == result.players[p]["contracts_made"]
    mean, (lo, hi) = points_difference(result, 0, 1)
    assert lo < mean < hi and mean > 0
    assert points_difference(result, 0, 2)[0] == 0  # partners share their team's points
    data = json.loads(result.to_json())
    bidding = data["players"][1]["bidding"]
    assert bidding["card_play"] == "heuristic"
    assert bidding["bid_regret"]["decisions"] == 12


def test_the_bid_regret_oracle_values_a_classic_decision_by_the_teams_points():
    """The oracle's values are the team's points minus the other team's (objective relative)."""
    game = ClassicEuchre(episode="deal")
    venv = ClassicBiddingVec(64, make_policy("heuristic", game, seed=0), seed=2)
    obs, mask, _ = venv.reset()
    rows = np.flatnonzero(auction_rows("classic", obs, mask))[:4]
    values = action_values(game, obs[rows], mask[rows], worlds=4, seed=1)
    finite = values[np.isfinite(values)]
    assert len(finite) and (np.abs(finite) <= 4).all()  # a deal is worth at most 4 points
    assert np.isfinite(values).sum(axis=1).tolist() == mask[rows].sum(axis=1).tolist()


def test_evaluate_card_play_and_bid_regret_for_classic(tmp_path, capsys):
    out_json = tmp_path / "m.json"
    code = evaluate.main(
        ["heuristic", "random", "heuristic", "random", "--variant", "classic", "--card-play",
         "heuristic", "--episode", "deal", "--games", "8", "--bid-regret", "4",
         "--regret-worlds", "2", "--quiet", "--workers", "1", "--json", str(out_json)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "ordered up (made)" in out and "bid regret [95% CI]" in out
    assert json.loads(out_json.read_text())["players"][0]["bidding"]["bid_regret"]


def test_a_classic_bidding_league_plays_composites(tmp_path, capsys):
    db = tmp_path / "league.sqlite"
    code = evaluate.main(
        ["heuristic", "random", "ppo:classic", "pimc:samples=1", "--variant", "classic", "--league",
         "--card-play", "heuristic",
         "--episode", "deal", "--games", "4", "--quiet", "--workers", "1", "--db", str(db)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "composite[random | heuristic]" in out
