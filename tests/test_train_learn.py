"""train.py's learn modes: auction (the auction view, card play by a spec) and play; exact resume, loading."""

import os

import numpy as np
import pytest
import torch
from test_train import TINY

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.composite import CompositePolicy
from ghost_euchre.agents.heuristic import GhostHeuristic
from ghost_euchre.agents.networks import deepens, load_model
from ghost_euchre.agents.ppo import PPOPolicy
from ghost_euchre.trainer import cli
from ghost_euchre.trainer.config import make_config
from ghost_euchre.trainer.ranks import start_ranks
from ghost_euchre.trainer.rollout import RolloutBuffer, collect_rollout
from ghost_euchre.trainer.run import setup
from ghost_euchre_env import GhostEuchre, GhostEuchreVec

PLAY_CARDS = slice(0, 24)  # the card actions
LEARN = {
    "auction": ["--learn", "auction", "--card_play", "heuristic"],
    "play": ["--learn", "play", "--bidding", "heuristic"],
}


@pytest.mark.parametrize("learn", ["auction"])
def test_resume_of_a_learn_mode_run_is_exact(tmp_path, torch_globals, learn):
    common = [
        "--total_steps", "512", "--checkpoint_every", "2", "--keep_checkpoints", "0",
        "--eval_every", "3", "--final_eval_games", "0", *TINY, *LEARN[learn],
    ]  # fmt: skip
    straight = cli.run(["--runs_dir", str(tmp_path / "a"), "--name", "run", *common])
    halfway = os.path.join(straight, "checkpoints", "update_000002.pt")
    resumed = cli.run(["--resume", halfway, "--runs_dir", str(tmp_path / "b")])
    a, b = (
        torch.load(os.path.join(run, "final.pt"), weights_only=True) for run in (straight, resumed)
    )
    assert a["update"] == b["update"] == 4 and a["deals"] == b["deals"] > 0
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key]), key
    assert all(torch.equal(a["env_state"][f][2], b["env_state"][f][2]) for f in a["env_state"])
    for key in ("numpy", "heuristic", "partner"):
        assert a["rng"][key] == b["rng"][key], key
    half = torch.load(halfway, weights_only=True)
    assert not all(torch.equal(half["model"][k], a["model"][k]) for k in a["model"])


def test_a_learn_auction_run_loads_as_a_full_player(tmp_path, torch_globals):
    run = cli.run(
        ["--runs_dir", str(tmp_path), "--name", "bid", "--total_steps", "256",
         "--final_eval_games", "0", *TINY, *LEARN["auction"]]
    )  # fmt: skip
    game = GhostEuchre()
    players = {
        name: make_policy(f"ppo:{os.path.join(run, name)}", game, seed=0)
        for name in ("policy.pt", "final.pt")
    }
    for name, player in players.items():
        assert isinstance(player, CompositePolicy)
        assert isinstance(player.auction, PPOPolicy) and player.play.name == "heuristic"
        assert player.name == f"composite[ppo:{name} | heuristic]"
    player = players["policy.pt"]
    assert isinstance(player, CompositePolicy)
    # the network only bids: its card plays are the heuristic's
    venv = GhostEuchreVec(64, seed=2)
    obs, mask, _ = venv.reset()
    heuristic = GhostHeuristic(game)
    for _ in range(40):
        actions = player.act(obs, mask)
        playing = mask[:, :24].any(axis=1)
        np.testing.assert_array_equal(actions[playing], heuristic.act(obs[playing], mask[playing]))
        obs, mask, _, _, _ = venv.step(actions)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--learn", "bids"], "learn must be 'all', 'auction' or 'play', got 'bids'"),
        (["--card_play", "composite[heuristic]"], "card_play: policy spec 'composite[heuristic]'"),
        (["--card_play", "nobot", "--learn", "auction"], "unknown policy spec 'nobot'"),
    ],
)
def test_learn_mode_errors_are_one_line(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit):
        cli.run([*argv, "--runs_dir", str(tmp_path), "--num_envs", "4"])
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_ghost_warm_up_imitates_the_heuristics_card_play_at_the_networks_own_decisions(
    tmp_path, torch_globals
):
    config = make_config(
        {"num_envs": 16, "num_steps": 24, "hidden_sizes": [32], "imitate_card_play": True,
         "bidding_warmup_steps": 16 * 24, "runs_dir": str(tmp_path)}
    )  # fmt: skip
    run = setup(config, start_ranks(config))
    buf = RolloutBuffer(16 * 24, run.game.obs_size, run.game.num_actions, 16)
    _, lessons = collect_rollout(run, buf)
    assert len(lessons) == 24  # the warm-up is this whole rollout
    obs, mask, actions = (np.concatenate(part) for part in zip(*lessons, strict=True))
    plays = mask[:, PLAY_CARDS].any(axis=1)
    assert plays.any() and (~plays).any()  # card play and the auction
    assert np.array_equal(actions, GhostHeuristic(run.engine, seed=0).act(obs, mask))
    assert buf.mask[: buf.count, PLAY_CARDS].any(axis=1).sum() >= plays.sum()
    _, after = collect_rollout(run, buf)
    assert after == []


def test_init_from_starts_from_that_network_and_rejects_another_shape(
    tmp_path, torch_globals, capsys
):
    first = cli.run(
        ["--runs_dir", str(tmp_path), "--name", "a", "--total_steps", "128",
         "--final_eval_games", "0", *TINY]
    )  # fmt: skip
    policy = os.path.join(first, "policy.pt")
    config = make_config({"hidden_sizes": [32], "init_from": policy, "num_envs": 16})
    run = setup(config, start_ranks(config))
    stored = torch.load(policy, weights_only=True)["model"]
    for key, value in run.model.state_dict().items():
        assert torch.equal(value, stored[key]), key
        assert torch.equal(run.pool[0].state_dict()[key], stored[key])  # the first opponent too
    other = make_config({"hidden_sizes": [16], "init_from": policy, "num_envs": 16})
    with pytest.raises(ValueError, match=r"init_from: .* holds a network"):
        setup(other, start_ranks(other))
    plain = {"hidden_sizes": [32], "init_from": policy, "num_envs": 16, "canonical_suits": False}
    plain = make_config(plain)  # a canonical network into a plain one: says which to set
    with pytest.raises(ValueError, match=r"holds a network .*\(set canonical_suits: true\)$"):
        setup(plain, start_ranks(plain))
    with pytest.raises(SystemExit):
        cli.parse_args(["--init_from", str(tmp_path / "missing.pt")])
    err = capsys.readouterr().err
    assert "missing.pt' does not exist" in err and err.count("\n") == 1


def test_init_from_into_a_deeper_network_starts_from_the_same_function(tmp_path, torch_globals):
    first = cli.run(
        ["--runs_dir", str(tmp_path), "--name", "a", "--total_steps", "128",
         "--final_eval_games", "0", *TINY]
    )  # fmt: skip
    policy = os.path.join(first, "policy.pt")
    config = make_config({"hidden_sizes": [32, 32, 32], "init_from": policy, "num_envs": 16})
    run = setup(config, start_ranks(config))
    stored = load_model(policy)
    obs = torch.from_numpy(run.obs)
    with torch.no_grad():
        for got, want in zip(run.model(obs), stored(obs), strict=True):
            assert torch.equal(got, want)  # every logit and value, bit for bit
    assert deepens({**stored.config, "hidden_sizes": [32, 32, 32]}, stored.config)
    for sizes, activation in (([32, 16], "relu"), ([32, 32], "tanh"), ([16, 32], "relu")):
        not_deeper = {**stored.config, "hidden_sizes": sizes, "activation": activation}
        assert not deepens(not_deeper, stored.config)  # another width, tanh, another first layer
    other = make_config({"hidden_sizes": [32, 16], "init_from": policy, "num_envs": 16})
    with pytest.raises(ValueError, match=r"more relu layers of its last width\)$"):
        setup(other, start_ranks(other))
