"""Bidding matches (evaluate.py --card-play) and bid regret against the rollout oracle."""

import numpy as np
import pytest

from ghost_euchre.agents.heuristic import GhostHeuristic
from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena.bidding import bidding_stats, points_difference, run_bidding_match
from ghost_euchre.arena.regret import RecordingPolicy, action_values, auction_rows, bid_regret
from ghost_euchre_env import GhostEuchre, GhostEuchreVec
from ghost_euchre_env.ghost import BID_3, MOON, PASS, SWAP

# Seat 1 (first to act, left of dealer 0) holds the six highest hearts: J♥ J♦ A♥ K♥ Q♥ T♥.
# Hearts trump, it takes all six tricks whatever the others hold: MOON (24 points) is the
# best bid by far, and after it the deal is certain.
TOP_HEARTS = [10, 9, 22, 18, 14, 6]
REST = [c for c in range(24) if c not in TOP_HEARTS]
MOON_DEAL = {"hands": [REST[:6], TOP_HEARTS, REST[6:12]], "ghost": REST[12:]}


def moon_position():
    venv = GhostEuchreVec(1, seed=0, episode="deal")
    obs, mask, player = venv.reset(options={"dealer": 0, "deals": [MOON_DEAL]})
    assert player[0] == 1 and mask[0, [PASS, BID_3, MOON, SWAP]].all()
    return obs, mask


def test_the_oracle_knows_the_moon_is_the_best_bid():
    obs, mask = moon_position()
    game = GhostEuchre(episode="deal")
    values = action_values(game, obs, mask, worlds=8, seed=1)
    assert (
        values[0].argmax() == MOON and values[0, MOON] == 24
    )  # made in every world, others score 0
    best = bid_regret(game, obs, mask, [MOON], worlds=8, seed=1)
    assert best.mean == 0 and best.best_rate == 1
    passing = bid_regret(game, obs, mask, [PASS], worlds=8, seed=1)
    assert passing.mean == pytest.approx(24 - values[0, PASS]) and passing.mean > 15
    assert passing.best_rate == 0


def test_recording_keeps_a_uniform_sample_of_auction_decisions():
    game = GhostEuchre()
    recorder = RecordingPolicy(GhostHeuristic(game), 50, seed=0)
    venv = GhostEuchreVec(64, seed=0)
    obs, mask, _ = venv.reset()
    seen = 0
    for _ in range(60):
        seen += int(auction_rows("ghost", obs, mask).sum())
        obs, mask, _, _, _ = venv.step(recorder.act(obs, mask))
    sample = recorder.sample()
    assert sample is not None and seen > 50
    obs_s, mask_s, actions, keys = sample
    assert keys.dtype == np.uint64 and len(np.unique(keys)) == 50
    assert len(actions) == 50 and auction_rows("ghost", obs_s, mask_s).all()
    np.testing.assert_array_equal(GhostHeuristic(game).act(obs_s, mask_s), actions)


def test_bidding_match_stats_and_paired_difference():
    result, regrets = run_bidding_match(
        ["heuristic", "random", "heuristic"], "heuristic", regret_decisions=20, regret_worlds=4,
        games=60, episode="deal",
    )  # fmt: skip
    assert regrets is not None and [r.decisions for r in regrets] == [20, 20, 20]
    assert regrets[1].mean > regrets[0].mean  # random bids worse than the heuristic
    stats = bidding_stats(result)
    for p, entry in enumerate(stats):
        assert (
            sum(n for n, _ in entry["contracts_by_kind"].values()) == result.players[p]["contracts"]
        )
        assert (
            sum(m for _, m in entry["contracts_by_kind"].values())
            == result.players[p]["contracts_made"]
        )
    mean, (lo, hi) = points_difference(result, 0, 1)
    assert lo < mean < hi and mean > 0
    assert points_difference(result, 1, 0)[0] == pytest.approx(-mean)


def test_evaluate_card_play_and_bid_regret_print_the_bidding_table(capsys):
    code = evaluate.main(
        ["heuristic", "random", "random", "--card-play", "heuristic", "--episode", "deal",
         "--games", "12", "--bid-regret", "5", "--regret-worlds", "2", "--quiet"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "bid moon (made)" in out and "bid regret [95% CI]" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--card-play", "nobot"], "unknown policy spec 'nobot'"),
        (["--bid-regret", "-1"], "--bid-regret must be an int >= 0"),
        (["--card-play", "heuristic", "--variant", "classic"], "classic needs 4 players"),
    ],
)
def test_evaluate_bidding_errors_are_one_line(argv, message, capsys):
    assert evaluate.main(["heuristic", "random", "random", *argv, "--games", "6", "--quiet"]) == 2
    assert message in capsys.readouterr().err
