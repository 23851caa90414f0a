"""train.py's learn modes: auction (the auction view, card play by a spec) and play; exact resume, loading."""

import os

import numpy as np
import pytest
import torch
from test_train import TINY

import train
from agents import make_policy
from agents.composite import CompositePolicy
from agents.heuristic import GhostHeuristic
from agents.ppo import PPOPolicy
from ghost_euchre_env import GhostEuchre, GhostEuchreVec

PRETRAINED = os.path.join(
    os.path.dirname(os.path.dirname(__file__)), "agents", "pretrained", "ghost_ppo.pt"
)
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
    straight = train.main(["--runs_dir", str(tmp_path / "a"), "--name", "run", *common])
    halfway = os.path.join(straight, "checkpoints", "update_000002.pt")
    resumed = train.main(["--resume", halfway, "--runs_dir", str(tmp_path / "b")])
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
    run = train.main(
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
        (["--init_policy", "missing.pt"], "init_policy must be empty or an existing policy file"),
        (["--init_policy", PRETRAINED, "--hidden_sizes", "[32]"], "holds the network"),
    ],
)
def test_learn_mode_errors_are_one_line(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit):
        train.main([*argv, "--runs_dir", str(tmp_path), "--num_envs", "4"])
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_run_can_start_from_a_policy_file(tmp_path, torch_globals):  # noqa: F811
    args = ["--total_steps", "64", "--final_eval_games", "0", "--eval_every", "0", *TINY]
    args += ["--hidden_sizes", "[256, 256]", "--learning_rate", "1e-9", "--anneal_lr", "false"]
    run = train.main(
        ["--runs_dir", str(tmp_path), "--init_policy", PRETRAINED, *LEARN["auction"], *args]
    )
    start, end = (
        torch.load(PRETRAINED, weights_only=True),
        torch.load(os.path.join(run, "policy.pt"), weights_only=True),
    )
    for key in start["model"]:
        assert torch.allclose(start["model"][key], end["model"][key], atol=1e-6), key
