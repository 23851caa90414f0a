"""train.py and agents/ppo.py: smoke run of the real script, exact resume, configs, masking, per-seat GAE."""

import dataclasses
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.forward import probabilities, sampled_actions
from ghost_euchre.agents.heuristic import ClassicHeuristic
from ghost_euchre.agents.networks import (
    ActorCritic,
    load_model,
    mask_logits,
    masked_entropy,
    masked_log_probs,
    torch_forward,
)
from ghost_euchre.agents.ppo import PPOPolicy, load_policy
from ghost_euchre.plumbing.files import current_umask
from ghost_euchre.trainer import cli
from ghost_euchre.trainer.checkpoint import CHECKPOINT_FORMAT, read_checkpoint
from ghost_euchre.trainer.config import (
    CONFIG_DIR,
    TrainConfig,
    field_docs,
    find_config,
    init_from_file,
    make_config,
    read_yaml,
)
from ghost_euchre.trainer.opponents import LEARNER
from ghost_euchre.trainer.ranks import Ranks
from ghost_euchre.trainer.rollout import RolloutBuffer, collect_rollout
from ghost_euchre.trainer.run import setup
from ghost_euchre.trainer.stats import auction_counts, margins
from ghost_euchre_env import ClassicEuchre, ClassicEuchreVec, GhostEuchre, GhostEuchreVec, classic
from ghost_euchre_env.ghost import BID_3, PASS, SWAP

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TINY = [  # a run of a few hundred decisions that still touches every part of the loop
    "--num_envs",
    "16",
    "--num_steps",
    "8",
    "--minibatch_size",
    "32",
    "--update_epochs",
    "2",
    "--hidden_sizes",
    "[32]",
    "--pool_size",
    "2",
    "--snapshot_every",
    "1",
    "--opponent_share",
    "0.5",
    "--heuristic_share",
    "0.5",
    "--eval_games",
    "6",
    "--progress",
    "false",
    "--torch_threads",
    "1",
    "--bidding_warmup_steps",
    "256",
]


def test_smoke_run_of_the_real_script(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    result = subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "train.py"),
            "--runs_dir",
            str(tmp_path),
            "--name",
            "smoke",
            "--total_steps",
            "512",
            "--eval_every",
            "2",
            "--checkpoint_every",
            "2",
            "--final_eval_games",
            "6",
            *TINY,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    run = tmp_path / "smoke"
    assert (
        "decisions/s" in result.stdout
        and "heuristic" in result.stdout
        and "random" in result.stdout
    )
    assert (run / "final.pt").is_file() and (run / "policy.pt").is_file()
    assert (run / "checkpoints" / "update_000002.pt").is_file()
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(run))
    events = EventAccumulator(str(run))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    expected = {
        "charts/SPS",
        "losses/policy_loss",
        "losses/value_loss",
        "losses/entropy",
        "losses/approx_kl",
        "losses/clipfrac",
        "losses/explained_variance",
        "euchre/bid_rate",
        "euchre/bid_success_rate",
        "euchre/moon_rate",
        "euchre/swap_rate",
        "euchre/points_per_deal",
        "eval/win_rate_vs_heuristic",
        "eval/win_rate_vs_random",
        "time/rollout_decisions_per_s",
        "time/update_decisions_per_s",
        "time/rollout_s",
        "time/update_s",
        "time/evaluation_s",
    }
    assert expected <= tags, expected - tags
    # where the time went, and the win rate at each periodic evaluation (update 2 of 4: not the last)
    assert re.search(
        r"where the time went: rollouts \d+ s \([\d,]+ decisions/s of every seat\), updates \d+ s "
        r"\([\d,]+ learner decisions/s\), periodic evaluations \d+ s; \d+ s wall",
        result.stdout,
    ), result.stdout
    curve = result.stdout[result.stdout.index("learning curve") :].splitlines()
    assert curve[1].split() == [
        "update",
        "decisions",
        "wall",
        "win",
        "rate",
        "vs",
        "heuristic",
        "[95%",
        "CI]",
    ]
    assert curve[3].split()[:2] == ["2", "256"] and not curve[4].strip()
    [rate] = events.Scalars("eval/win_rate_vs_heuristic")
    assert curve[3].split()[4] == f"{rate.value:.1%}"
    # the first update (games start with the auction) is in the bidding warm-up: the heuristic bids
    # for the learner's seats, and those bids count
    first_bid_rate = events.Scalars("euchre/bid_rate")[0].value
    assert 0 < first_bid_rate < 1, first_bid_rate
    assert "evaluation after update 2 " in result.stdout  # periodic evaluations are printed too
    written = make_config(read_yaml(str(run / "config.yaml")))  # readable, reusable
    saved = torch.load(run / "final.pt", weights_only=True)["config"]
    assert dataclasses.asdict(written) == {**saved, "hidden_sizes": (32,)}
    assert written.num_envs == 16 and written.name == "smoke"
    assert oct((run / "config.yaml").stat().st_mode & 0o777) == oct(0o666 & ~current_umask())
    game = GhostEuchre()
    for path in (run / "policy.pt", run / "final.pt"):
        policy = make_policy(f"ppo:{path}", game, seed=0)
        assert isinstance(policy, PPOPolicy)
        venv = GhostEuchreVec(64, seed=3)
        obs, mask, _ = venv.reset()
        for _ in range(40):
            obs, mask, *_ = venv.step(
                policy.act(obs, mask)
            )  # venv.step raises on an illegal action


def _final_state(path):
    return torch.load(path, weights_only=True)


def straight_and_resumed(tmp_path, args):
    """A run of ``args`` straight through and resumed from its checkpoint after update 2 (a separate
    folder): (final state straight, final state resumed, the straight run's folder, that checkpoint)."""
    straight = cli.run(["--runs_dir", str(tmp_path / "a"), "--name", "run", *args])
    halfway = os.path.join(straight, "checkpoints", "update_000002.pt")
    resumed = cli.run(["--resume", halfway, "--runs_dir", str(tmp_path / "b")])
    a, b = (_final_state(os.path.join(run, "final.pt")) for run in (straight, resumed))
    return a, b, straight, halfway


def test_resume_continues_exactly(tmp_path, torch_globals):
    common = [
        "--total_steps",
        "512",
        "--checkpoint_every",
        "2",
        "--keep_checkpoints",
        "0",
        "--eval_every",
        "3",
        "--final_eval_games",
        "0",
        *TINY,
    ]
    a, b, _, halfway = straight_and_resumed(tmp_path, common)
    assert a["update"] == b["update"] == 4 and a["global_step"] == b["global_step"]
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key]), key
    for slot_a, slot_b in zip(a["pool"], b["pool"], strict=True):
        assert all(torch.equal(slot_a[k], slot_b[k]) for k in slot_a)
    state_a, state_b = a["optimizer"]["state"], b["optimizer"]["state"]
    assert all(torch.equal(state_a[i]["exp_avg"], state_b[i]["exp_avg"]) for i in state_a)
    assert all(torch.equal(a["env_state"][f][2], b["env_state"][f][2]) for f in a["env_state"])
    assert torch.equal(a["roles"], b["roles"]) and a["rng"]["numpy"] == b["rng"]["numpy"]
    # and the halfway point really differs from the end (the resumed run did train)
    half = _final_state(halfway)
    assert not all(torch.equal(half["model"][k], a["model"][k]) for k in a["model"])


def test_a_checkpoint_from_before_canonical_suits_resumes_with_its_plain_network(
    tmp_path, torch_globals
):
    """Checkpoints written before the field existed hold networks that see the suits as dealt; the
    field's default (true) must not rebuild them as canonical ones (same weights, other meaning)."""
    common = ["--total_steps", "256", "--checkpoint_every", "1", "--keep_checkpoints", "0"]
    common += ["--eval_every", "0", "--final_eval_games", "0", *TINY]
    plain = ["--canonical_suits", "false", *common]
    straight = cli.run(["--runs_dir", str(tmp_path / "a"), "--name", "run", *plain])
    old = _final_state(os.path.join(straight, "checkpoints", "update_000001.pt"))
    del old["config"]["canonical_suits"]  # as written before the field existed
    assert "canonical_suits" not in old["model_config"]
    old_path = tmp_path / "old.pt"
    torch.save(old, old_path)
    resumed = cli.run(["--resume", str(old_path), "--runs_dir", str(tmp_path / "b")])
    a, b = (
        _final_state(os.path.join(straight, "final.pt")),
        _final_state(os.path.join(resumed, "final.pt")),
    )
    assert "canonical_suits" not in b["model_config"] and b["config"]["canonical_suits"] is False
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])


def test_classic_run_resumes_exactly_and_logs_classic_metrics(tmp_path, torch_globals):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    common = ["--variant", "classic", "--total_steps", "512", "--checkpoint_every", "2"]
    common += ["--keep_checkpoints", "0", "--eval_every", "3", "--final_eval_games", "0", *TINY]
    a, b, straight, _ = straight_and_resumed(tmp_path, common)
    assert a["config"]["variant"] == b["config"]["variant"] == "classic"
    assert a["update"] == b["update"] == 4 and a["global_step"] == b["global_step"]
    assert a["roles"].shape == (16, 4)
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key]), key
    assert all(torch.equal(a["env_state"][f][2], b["env_state"][f][2]) for f in a["env_state"])
    events = EventAccumulator(straight)
    events.Reload()
    expected = {
        "euchre/order_up_rate",
        "euchre/maker_success_rate",
        "euchre/lone_rate",
        "euchre/euchred_rate",
        "euchre/bid_rate",
        "euchre/points_per_deal",
        "eval/win_rate_vs_heuristic",
    }
    tags = set(events.Tags()["scalars"])
    assert expected <= tags  # euchre/lone_made_rate too, once a lone hand has been played
    for tag in tags:  # a rate of nothing counted (no lone hand, no game ended) is left out
        assert all(math.isfinite(event.value) for event in events.Scalars(tag)), tag
    policy = make_policy(f"ppo:{os.path.join(straight, 'policy.pt')}", ClassicEuchre(), seed=0)
    assert isinstance(policy, PPOPolicy)
    venv = ClassicEuchreVec(32, seed=3)
    obs, mask, _ = venv.reset()
    for _ in range(60):
        obs, mask, *_ = venv.step(policy.act(obs, mask))  # venv.step raises on an illegal action
    with pytest.raises(ValueError, match="obs_size=464, num_actions=31"):
        make_policy(f"ppo:{os.path.join(straight, 'policy.pt')}", GhostEuchre())


@pytest.mark.parametrize("imitate", [False, True])
def test_warm_up_lessons_in_classic(imitate, torch_globals):
    """Before card play the heuristic acts for the learner; with imitate_card_play the network plays
    its cards itself and the heuristic's choices there are lessons too."""
    config = make_config(
        {"variant": "classic", "num_envs": 16, "num_steps": 40, "hidden_sizes": [16],
         "pool_size": 2, "bidding_warmup_steps": 10**6, "imitate_card_play": imitate}
    )  # fmt: skip
    run = setup(config, Ranks(0, 1, torch.device("cpu"), 60.0))
    game = run.game
    buf = RolloutBuffer(16 * 40, game.obs_size, game.num_actions, 16, 4)
    _, lessons = collect_rollout(run, buf)
    obs, mask, actions = (np.concatenate(part) for part in zip(*lessons, strict=True))
    start, stop = classic.OBS_OFFSETS["phase"]
    play = obs[:, stop - 1] > 0.5  # the observation's phase is card play
    assert (~play).any() and play.any() == imitate
    heuristic = ClassicHeuristic(game, seed=0)
    assert np.array_equal(heuristic.act(obs, mask), actions)  # the heuristic's choices
    learner_play = buf.obs[: buf.count, stop - 1] > 0.5
    assert learner_play.any() and not (buf.obs[: buf.count, start : stop - 1] > 0.5).any()


def test_classic_margin_is_team_points_minus_the_other_teams():
    # team 0 (seats 0, 2) scored 2, team 1 nothing; then team 1 scored 1
    rewards = np.array([[2, 0, 2, 0], [0, 1, 0, 1]], np.float32)
    assert margins(rewards, "classic").tolist() == [[2, -2, 2, -2], [-1, 1, -1, 1]]
    ghost = np.array([[3, 0, 1]], np.float32)
    assert margins(ghost, "ghost").tolist() == [[2.5, -2, -0.5]]


def test_same_seed_same_run_and_other_seed_differs(tmp_path, torch_globals):
    args = [
        "--total_steps",
        "256",
        "--checkpoint_every",
        "0",
        "--eval_every",
        "0",
        "--final_eval_games",
        "0",
        *TINY,
    ]
    runs = [
        cli.run(["--runs_dir", str(tmp_path / d), "--name", "r", "--seed", s, *args])
        for d, s in (("x", "5"), ("y", "5"), ("z", "6"))
    ]
    x, y, z = (_final_state(os.path.join(r, "policy.pt"))["model"] for r in runs)
    assert all(torch.equal(x[k], y[k]) for k in x)
    assert not all(torch.equal(x[k], z[k]) for k in x)


# ------------------------------------------------------------------------------ configs
def test_every_field_has_a_docstring_and_shipped_configs_load():
    assert set(field_docs()) == {f.name for f in dataclasses.fields(TrainConfig)}
    names = [n[: -len(".yaml")] for n in os.listdir(CONFIG_DIR)]
    for name in names:
        config = make_config(read_yaml(find_config(name)), name)
        if config.init_from:  # the network a config starts from ships with the package
            load_model(init_from_file(config.init_from))


def test_a_config_is_named_from_any_folder_or_given_as_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config, _, stem = cli.parse_args(["--config", "classic"])
    assert (config.variant, stem) == ("classic", "classic")
    (tmp_path / "mine.yaml").write_text("num_envs: 8\n")
    config, _, stem = cli.parse_args(["--config", "mine.yaml"])
    assert (config.num_envs, stem) == (8, "mine")


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"num_env": 8}, "unknown config key(s) ['num_env']"),
        ({"num_envs": "many"}, "num_envs must be an integer"),
        ({"num_envs": 8.0}, "num_envs must be an integer"),
        ({"anneal_lr": 1}, "anneal_lr must be true or false"),
        ({"hidden_sizes": [64, "wide"]}, "hidden_sizes must be a list of integers"),
        ({"rules": "open"}, "rules must be a mapping"),
        ({"learning_rate": "fast"}, "learning_rate must be a number"),
        ({"gamma": 1.5}, "gamma must be in [0, 1]"),
        ({"num_envs": 0}, "num_envs must be at least 1"),
        ({"reward": "win", "episode": "deal"}, "reward='win' needs episode='game'"),
        ({"reward": "win"}, "reward='win' needs return_horizon='game'"),
        ({"return_horizon": "trick"}, "return_horizon must be 'game' or 'deal'"),
        ({"reward": "score"}, "reward must be 'margin', 'points' or 'win'"),
    ],
)
def test_config_errors_name_the_key(values, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make_config(values, "test.yaml")


def test_config_values_are_read_as_yaml_and_override_the_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("num_envs: 64\nlearning_rate: 3e-4\ntarget_kl: 0.02\n")
    config, resume, stem = cli.parse_args(
        [
            "--config",
            str(path),
            "--num_envs",
            "32",
            "--rules",
            "{auction: open}",
            "--hidden_sizes",
            "[64, 32]",
            "--target_kl",
            "null",
        ]
    )
    assert (config.num_envs, config.learning_rate, config.target_kl) == (32, 3e-4, None)
    assert config.rules == {"auction": "open"} and config.hidden_sizes == (64, 32)
    assert resume is None and stem == "c"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bogus", "1"], "unrecognized arguments: --bogus"),
        (["--num_envs", "abc"], "num_envs must be an integer"),
        (["--config", "missing.yaml"], "does not exist"),
        (
            ["--config", "clasic"],
            "(configs by name: bidding, classic, classic_bidding, classic_ship, default, expert_iteration, long, ship)",
        ),
        (["--rules", "{jokers: 1}"], "rules: unknown rules option(s) ['jokers']"),
        (["--rules", "{target_score: 0}"], "rules: target_score must be an int >= 1, got 0"),
        (["--rules", "{auction: sealed}"], "rules: auction must be one of"),
        (["--learning_rate", ".inf"], "learning_rate must be a finite positive number, got inf"),
        (["--learning_rate", ".nan"], "learning_rate must be a finite positive number, got nan"),
        (["--max_grad_norm", ".inf"], "max_grad_norm must be a finite positive number, got inf"),
        (["--reward_scale", "1e400"], "reward_scale must be a finite positive number, got inf"),
        (["--reward_scale", "-0.1"], "reward_scale must be a finite positive number"),
        (["--ent_coef", ".inf"], "ent_coef must be a finite number >= 0, got inf"),
        (["--target_kl", ".inf"], "target_kl must be null or a finite positive number, got inf"),
        (["--num_envs", "[1"], "a command-line value is not valid YAML"),
    ],
)
def test_command_line_errors_exit_with_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as error:
        cli.parse_args(argv)
    assert error.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1, err  # one line, not the usage of every option


def test_resume_from_a_folder_without_a_checkpoint_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "empty" / "checkpoints").mkdir(parents=True)
    with pytest.raises(SystemExit) as stopped:
        cli.parse_args(["--resume", str(tmp_path / "empty")])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.count("\n") == 1
    assert f"run folder {str(tmp_path / 'empty')!r} holds no checkpoint" in err


def test_checkpoint_missing_keys_is_a_one_line_error(tmp_path, capsys):
    path = tmp_path / "partial.pt"
    torch.save({"format": CHECKPOINT_FORMAT, "config": {}, "update": 3}, path)
    with pytest.raises(
        ValueError, match=r"missing the key\(s\) \['model', 'model_config', 'optimizer'"
    ):
        read_checkpoint(str(path))
    with pytest.raises(SystemExit):
        cli.parse_args(["--resume", str(path)])
    err = capsys.readouterr().err
    assert "missing the key(s)" in err and "'learner_step']" in err and err.count("\n") == 1
    path.write_bytes(b"not a torch file")
    with pytest.raises(SystemExit):
        cli.parse_args(["--resume", str(path)])
    err = capsys.readouterr().err
    assert "is not a training checkpoint" in err and err.count("\n") == 1


def test_auction_counts_count_auction_decisions_only():
    masks = np.zeros((5, 34), bool)
    masks[:3, PASS] = True  # three auction decisions (one of them a SWAP), two card plays
    actions = np.array([PASS, BID_3, SWAP, 3, 7])
    assert auction_counts(masks, actions, "ghost") == (2, 1)
    assert auction_counts(masks[3:], actions[3:], "ghost") == (0, 0)
    classic_actions = np.array([PASS, classic.SUIT_CLUBS + 2, PASS, 3, 7])
    assert auction_counts(masks[:, :31], classic_actions, "classic") == (3, 1)
    # naming clubs (the first suit action) is a bid too
    clubs = np.array([classic.SUIT_CLUBS, classic.SUIT_CLUBS, PASS, 3, 7])
    assert auction_counts(masks[:, :31], clubs, "classic") == (3, 2)


def test_unknown_key_in_a_config_file(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("num_envs: 64\nlearning_rte: 0.1\n")
    with pytest.raises(SystemExit):
        cli.parse_args(["--config", str(path)])
    err = capsys.readouterr().err
    assert "bad.yaml" in err and "learning_rte" in err


# ------------------------------------------------------------------------------ masking
def _random_masks(rng, rows, actions):
    mask = rng.random((rows, actions)) < 0.3
    mask[np.arange(rows), rng.integers(actions, size=rows)] = True
    return mask


def test_masked_distribution_never_samples_an_illegal_action():
    rng = np.random.default_rng(0)
    mask = torch.from_numpy(_random_masks(rng, 4000, 34))
    logits = torch.from_numpy(rng.normal(size=(4000, 34)).astype(np.float32) * 5)
    logits = torch.where(mask, logits, 80.0)  # illegal actions get the largest logits
    log_probs = masked_log_probs(logits, mask)
    assert torch.allclose(log_probs.exp().sum(-1), torch.ones(4000))
    assert (log_probs.exp()[~mask] == 0).all()
    chances = probabilities(logits.numpy(), mask.numpy())
    rng = np.random.default_rng(0)
    for _ in range(25):
        actions = sampled_actions(chances, rng.random(4000))
        assert mask[torch.arange(4000), actions].all()
    edges = sampled_actions(chances, np.full(4000, np.nextafter(1.0, 0.0)))  # a draw of almost 1
    assert mask[torch.arange(4000), edges].all()
    assert mask[torch.arange(4000), mask_logits(logits, mask).argmax(-1)].all()


def test_entropy_counts_legal_actions_only():
    mask = torch.tensor([[True, True, False, False], [True, False, False, False]])
    logits = torch.tensor([[0.0, 0.0, 9.0, -3.0], [1.0, 5.0, 5.0, 5.0]])
    entropy = masked_entropy(masked_log_probs(logits, mask), mask)
    assert torch.allclose(entropy, torch.tensor([np.log(2.0), 0.0], dtype=torch.float32))


def test_ppo_policy_plays_legal_actions_greedy_and_sampled():
    game = GhostEuchre()
    torch.manual_seed(0)
    model = ActorCritic(game.obs_size, game.num_actions, (16,))
    with torch.no_grad():
        model.actor.bias.copy_(
            torch.linspace(5, 40, game.num_actions)
        )  # prefers high (often illegal) ids
    rng = np.random.default_rng(1)
    obs = rng.random((500, game.obs_size), dtype=np.float32)
    mask = _random_masks(rng, 500, game.num_actions)
    for sample in (False, True):
        actions = PPOPolicy(game, torch_forward(model), seed=0, sample=sample).act(obs, mask)
        assert actions.dtype == np.int64 and mask[np.arange(500), actions].all()
    greedy = PPOPolicy(game, torch_forward(model)).act(obs, mask)
    assert (greedy == np.where(mask, np.arange(game.num_actions), -1).max(axis=1)).all()


def test_load_policy_rejects_other_files(tmp_path):
    bogus = tmp_path / "x.pt"
    torch.save({"weights": torch.zeros(3)}, bogus)
    with pytest.raises(ValueError, match="not a policy file or training checkpoint"):
        load_policy(str(bogus), GhostEuchre())
    with pytest.raises(ValueError, match="does not exist"):
        load_policy(str(tmp_path / "none.pt"), GhostEuchre())


# ------------------------------------------------------------------------------ per-seat GAE
def test_rewards_between_decisions_go_to_that_seats_last_decision():
    buf = RolloutBuffer(capacity=8, obs_size=1, num_actions=1, num_envs=2)
    buf.add(np.array([0, 1]), np.array([0, 2]))  # rows 0, 1
    buf.add_rewards(
        np.array([[1.0, 5.0, 0.0], [0.0, 0.0, 2.0]])
    )  # seat 1 of game 0 has not decided: dropped
    buf.add(np.array([0]), np.array([1]))  # row 2
    buf.add_rewards(np.array([[1.0, 3.0, 0.0], [0.0, 0.0, 4.0]]))
    buf.close(np.array([1]))
    buf.add(np.array([0, 1]), np.array([0, 2]))  # rows 3, 4: game 1 is a new game
    assert buf.reward[:5].tolist() == [2.0, 6.0, 3.0, 0.0, 0.0]
    assert buf.next[:5].tolist() == [3, -1, -1, -1, -1]
    assert buf.done[:5].tolist() == [False, True, False, False, False]
    games, seats = buf.pending()
    assert sorted(zip(games.tolist(), seats.tolist(), strict=True)) == [(0, 0), (0, 1), (1, 2)]


def _reference_gae(buf, gamma, lam):
    """Plain GAE along each linked sequence, written the slow way."""
    advantages = np.zeros(buf.count)
    heads = set(range(buf.count)) - set(buf.next[: buf.count][buf.next[: buf.count] >= 0].tolist())
    for head in heads:
        chain = [head]
        while buf.next[chain[-1]] >= 0:
            chain.append(buf.next[chain[-1]])
        running = 0.0
        for position in range(len(chain) - 1, -1, -1):
            row = chain[position]
            if buf.done[row]:
                next_value, running = 0.0, 0.0
            elif position + 1 < len(chain):
                next_value = buf.value[chain[position + 1]]
            else:
                next_value, running = buf.bootstrap[row], 0.0
            running = buf.reward[row] + gamma * next_value - buf.value[row] + gamma * lam * running
            advantages[row] = running
    return advantages


def test_gae_follows_each_seat_in_a_real_rollout():
    rng = np.random.default_rng(2)
    venv = GhostEuchreVec(64, seed=4, episode="deal")
    _, mask, player = venv.reset()
    learner = rng.random((64, 3)) < 0.6
    buf = RolloutBuffer(64 * 120, venv.obs_size, venv.num_actions, 64)
    for _ in range(120):
        games = np.flatnonzero(learner[np.arange(64), player])
        rows = buf.add(games, player[games])
        buf.value[rows] = rng.normal(size=len(games))
        actions = np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
        _, mask, player, rewards, done = venv.step(actions)
        buf.add_rewards(rewards * 0.1)
        if done.any():
            buf.close(np.flatnonzero(done))
    games, seats = buf.pending()
    buf.set_bootstrap(games, seats, rng.normal(size=len(games)))
    assert buf.done.any() and (buf.reward != 0).any()
    advantages, returns = buf.advantages(0.97, 0.9)
    assert np.allclose(advantages, _reference_gae(buf, 0.97, 0.9), atol=1e-5)
    assert np.allclose(returns, advantages + buf.value[: buf.count])


def recorded_rollout(values):
    """(buffer, bool[steps, N]: the learner's turn with a choice, and with one legal action) of one
    rollout of a small run of config ``values``."""
    config = make_config({"num_envs": 16, "num_steps": 60, "hidden_sizes": [16], **values})
    run = setup(config, Ranks(0, 1, torch.device("cpu"), 60.0))
    choice, forced = [], []
    step = run.venv.step

    def recording(actions):
        learner = run.roles[np.arange(16), run.player] == LEARNER
        legal = run.mask.sum(axis=1)
        choice.append(learner & (legal > 1))
        forced.append(learner & (legal == 1))
        return step(actions)

    run.venv.step = recording
    buf = RolloutBuffer(16 * 60, run.game.obs_size, run.game.num_actions, 16)
    collect_rollout(run, buf)
    return buf, np.array(choice), np.array(forced)


def test_skip_forced_keeps_every_choice_of_the_learner_and_no_forced_move(torch_globals):
    buf, choice, forced = recorded_rollout({"bidding_warmup_steps": 0, "skip_forced": True})
    assert forced.any() and buf.count == choice.sum()
    assert (buf.mask[: buf.count].sum(axis=1) > 1).all()
    buf, choice, forced = recorded_rollout({"bidding_warmup_steps": 0, "skip_forced": False})
    assert buf.count == choice.sum() + forced.sum()


def test_return_horizon_deal_closes_each_seats_sequence_at_the_end_of_its_deal(torch_globals):
    """The same games either way (the horizon changes no action): rewards are paid at a deal's end
    only, so with 'deal' every rewarded decision ends its sequence, and no other link is cut."""
    game_buf, _, _ = recorded_rollout({"return_horizon": "game"})
    deal_buf, _, _ = recorded_rollout({"return_horizon": "deal"})
    count = game_buf.count
    assert deal_buf.count == count
    assert np.array_equal(deal_buf.action[:count], game_buf.action[:count])
    assert np.array_equal(deal_buf.reward[:count], game_buf.reward[:count])
    rewarded = game_buf.reward[:count] != 0
    assert rewarded.any() and deal_buf.done[:count][rewarded].all()
    assert (deal_buf.done[:count] >= game_buf.done[:count]).all()
    kept = deal_buf.next[:count] >= 0
    assert np.array_equal(deal_buf.next[:count][kept], game_buf.next[:count][kept])
    assert deal_buf.done[:count].sum() > game_buf.done[:count].sum()


def test_default_yaml_matches_the_dataclass_defaults():
    config = make_config(read_yaml(os.path.join(CONFIG_DIR, "default.yaml")))
    assert config == TrainConfig()


def test_shipped_agent_loads_and_beats_random():
    from ghost_euchre.arena import cli as evaluate

    path = os.path.join(ROOT, "ghost_euchre", "agents", "pretrained", "ghost_ppo.pt")
    result = evaluate.run_match([f"ppo:{path}", "random", "random"], games=60, seed=3)
    assert result.players[0]["win_rate"] > 0.8


def test_shipped_classic_agent_loads_and_beats_random():
    from ghost_euchre.arena import cli as evaluate

    path = os.path.join(ROOT, "ghost_euchre", "agents", "pretrained", "classic_ppo.pt")
    spec = f"ppo:{path}"
    result = evaluate.run_match(
        [spec, "random", spec, "random"], variant="classic", games=40, seed=3
    )
    assert result.players[0]["win_rate"] > 0.8


def folder_bytes(folder):
    """{relative path: bytes} of every file under ``folder``."""
    return {
        os.path.relpath(os.path.join(where, name), folder): open(
            os.path.join(where, name), "rb"
        ).read()
        for where, _, names in os.walk(folder)
        for name in names
    }


def test_a_reused_name_is_refused_and_leaves_the_first_run_as_it_was(tmp_path, capsys):
    common = ["--runs_dir", str(tmp_path), "--name", "small3", "--total_steps", "128"]
    common += ["--final_eval_games", "0", "--eval_every", "0", "--checkpoint_every", "0", *TINY]
    cli.main([*common, "--seed", "1"])
    first = folder_bytes(tmp_path / "small3")
    assert "final.pt" in first and any(n.startswith("events.out") for n in first)
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        cli.main([*common, "--seed", "2"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0
    assert f"run folder {tmp_path / 'small3'} holds another run already" in error
    assert f"--resume {tmp_path / 'small3'}, " in error and "--name small3-2" in error
    assert folder_bytes(tmp_path / "small3") == first  # not a byte changed, no second event file
    assert sorted(os.listdir(tmp_path)) == ["small3"]


def test_the_final_table_has_a_row_for_every_opponent_of_the_mix(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(os.path.join(ROOT, "tests"))  # league_bots: a user's bot class
    argv = [
        "--runs_dir",
        str(tmp_path),
        "--name",
        "mix",
        "--total_steps",
        "128",
        "--eval_every",
        "0",
    ]
    argv += ["--checkpoint_every", "0", "--final_eval_games", "6", *TINY]
    cli.main([*argv, "--opponents", "{league_bots:Blend: 2, pool: 1}"])
    out = capsys.readouterr().out
    table = out[out.index("opponents  ") :].splitlines()
    header = ["opponents", "games", "win", "rate", "[95%", "CI]", "own", "pts/deal"]
    assert table[0].split() == header
    labels = [line.split("  ")[0] for line in table[2:6]]
    assert labels == ["heuristic", "random", "league_bots:Blend", "pool (latest snapshot)"]
    assert table[6].startswith("own pts/deal: the greedy policy's own points a deal, not a margin")
    for line in table[2:6]:  # games, then the win rate and its interval in percent
        assert re.search(r"  6  +\d+\.\d% \[\d+\.\d%, \d+\.\d%\]  +[+-]\d\.\d{3}$", line), line


def test_a_bfloat16_update_trains_and_differs_from_float32_only_in_rounding(
    tmp_path, torch_globals
):
    common = ["--runs_dir", str(tmp_path), "--total_steps", "256", "--eval_every", "0"]
    common += ["--final_eval_games", "0", "--checkpoint_every", "0", *TINY]
    weights = {}
    for precision in ("float32", "bfloat16"):
        cli.main([*common, "--name", precision, "--update_precision", precision])
        state = torch.load(tmp_path / precision / "final.pt", weights_only=True)["model"]
        weights[precision] = torch.cat([v.flatten() for v in state.values()])
    assert torch.isfinite(weights["bfloat16"]).all()
    difference = (weights["bfloat16"] - weights["float32"]).abs().max().item()
    assert 0 < difference < 0.05, difference  # trained through the same updates, rounded otherwise


def test_the_pool_row_says_when_no_snapshot_was_taken_yet():
    """Before the first snapshot (every snapshot_every updates) the pool holds the start network:
    the final table says so rather than calling it the latest snapshot."""
    from types import SimpleNamespace

    from ghost_euchre.trainer.evaluation import pool_label

    def run(pool_added, init_from=None):
        return SimpleNamespace(pool_added=pool_added, config=SimpleNamespace(init_from=init_from))

    assert pool_label(run(1)) == "pool (no snapshot yet: the untrained start network)"
    assert pool_label(run(1, "ghost")) == "pool (no snapshot yet: the init_from start network)"
    assert pool_label(run(2)) == "pool (latest snapshot)"


def test_total_steps_are_rounded_up_to_whole_rollouts_and_a_resume_counts_its_own_part(
    tmp_path, capsys
):
    common = ["--runs_dir", str(tmp_path), "--eval_every", "0", "--final_eval_games", "0", *TINY]
    run = tmp_path / "counted"
    cli.main([*common, "--name", "counted", "--total_steps", "200"])  # a rollout: 16 x 8 decisions
    out = capsys.readouterr().out
    assert (
        "total_steps 200 is not a whole number of rollouts (128 decisions each): "
        "running 2 updates, 256 decisions"
    ) in out
    assert re.search(r"^256 decisions \(\d+ by the learner\) in ", out, re.M)
    assert read_yaml(str(run / "config.yaml"))["total_steps"] == 256  # what ran
    learner = torch.load(run / "final.pt", weights_only=True)["learner_step"]
    cli.main(["--resume", str(run), "--total_steps", "640"])  # its folder: final.pt, in place
    out = capsys.readouterr().out
    assert "not a whole number" not in out
    part = re.search(
        r"^resumed after update 2: 384 decisions \((\d+) by the learner\) in \d+ s of rollouts and "
        r"updates: [\d,]+ decisions/s; (\d+) deals, [\d,]+ deals/s; the run in all: 640 decisions "
        r"\((\d+) by the learner\), (\d+) deals; saved ",
        out,
        re.M,
    )
    assert part, out
    final = torch.load(run / "final.pt", weights_only=True)
    assert int(part[3]) == final["learner_step"] == learner + int(part[1])
    assert final["global_step"] == 640 and int(part[4]) >= int(part[2])
