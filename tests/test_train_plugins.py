"""The trainer's plug-in points: a user's network class, the opponents' mix (a user's bot class), the
card-set network, thread defaults, and the one-line errors of bad plug-ins, configs and checkpoints."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from test_train import TINY

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.cardset import CardSetNet
from ghost_euchre.agents.networks import PluggedNetwork
from ghost_euchre.agents.ppo import PPOPolicy
from ghost_euchre.trainer import cli
from ghost_euchre.trainer.ranks import default_threads
from ghost_euchre_env import GhostEuchre, GhostEuchreVec, classic, ghost

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUIET = ["--eval_every", "0", "--final_eval_games", "0", "--keep_checkpoints", "0"]
USER_MODULES = {
    "mynets.py": '''
        import torch
        from torch import nn


        class TinyNet(nn.Module):
            """A user's network: one hidden layer of ``width``."""

            def __init__(self, obs_size, num_actions, width=8):
                super().__init__()
                self.body = nn.Sequential(nn.Linear(obs_size, width), nn.Tanh())
                self.logits = nn.Linear(width, num_actions)
                self.value = nn.Linear(width, 1)

            def forward(self, obs):
                hidden = self.body(obs)
                return self.logits(hidden), self.value(hidden).squeeze(-1)


        class WrongShape(TinyNet):
            def forward(self, obs):
                logits, value = super().forward(obs)
                return logits[:, :5], value


        def not_a_class(obs_size, num_actions):
            return None
    ''',
    "mybots.py": """
        import numpy as np

        from ghost_euchre.agents.base import Policy


        class LowestCard(Policy):
            '''A user's bot: the lowest legal action id; counts the decisions it made.'''

            name = "lowest"
            decisions = 0

            def act(self, obs, mask):
                LowestCard.decisions += len(mask)
                return np.argmax(mask, axis=1).astype(np.int64)
    """,
}


@pytest.fixture
def user_modules(tmp_path, monkeypatch):
    """A folder outside the repository with a user's network and bot modules, on sys.path."""
    folder = tmp_path / "user"
    folder.mkdir()
    for name, text in USER_MODULES.items():
        (folder / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(folder))
    yield folder
    for name in ("mynets", "mybots"):
        sys.modules.pop(name, None)


def _final(run):
    return torch.load(os.path.join(run, "final.pt"), weights_only=True)


def test_a_users_network_trains_resumes_exactly_and_plays_with_evaluate(
    tmp_path, user_modules, torch_globals
):
    common = ["--model", "mynets:TinyNet", "--model_options", "{width: 6}", "--total_steps", "512"]
    common += ["--checkpoint_every", "2", *QUIET, *TINY]
    straight = cli.run(["--runs_dir", str(tmp_path / "a"), "--name", "run", *common])
    halfway = os.path.join(straight, "checkpoints", "update_000002.pt")
    resumed = cli.run(["--resume", halfway, "--runs_dir", str(tmp_path / "b")])
    a, b = _final(straight), _final(resumed)
    assert a["update"] == b["update"] == 4
    assert a["model_config"] == {
        "obs_size": ghost.OBS_SIZE, "num_actions": ghost.NUM_ACTIONS, "model": "mynets:TinyNet",
        "model_options": {"width": 6}, "canonical_suits": True,
    }  # fmt: skip
    assert a["model"]["net.body.0.weight"].shape == (6, ghost.OBS_SIZE)
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key]), key
    half = torch.load(halfway, weights_only=True)
    assert not all(torch.equal(half["model"][k], a["model"][k]) for k in a["model"])
    policy = os.path.join(straight, "policy.pt")
    player = make_policy(f"ppo:{policy}", GhostEuchre(), seed=0)
    assert isinstance(player, PPOPolicy) and isinstance(player.network.model, PluggedNetwork)
    venv = GhostEuchreVec(32, seed=2)
    obs, mask, _ = venv.reset()
    for _ in range(30):
        obs, mask, *_ = venv.step(player.act(obs, mask))  # raises on an illegal action
    evaluate = [sys.executable, os.path.join(ROOT, "evaluate.py"), f"ppo:{policy}", "random"]
    evaluate += ["random", "--games", "6", "--seed", "1"]
    env = {**os.environ, "PYTHONPATH": str(user_modules)}
    played = subprocess.run(
        evaluate, cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert played.returncode == 0, played.stderr
    assert any(line.startswith("ppo") for line in played.stdout.splitlines()), played.stdout
    env.pop("PYTHONPATH")  # without the network's module: one line naming it
    failed = subprocess.run(
        evaluate, cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert failed.returncode != 0 and "Traceback" not in failed.stderr
    assert "no module named 'mynets'" in failed.stderr and failed.stderr.count("\n") == 1


def test_a_users_bot_as_the_only_opponent(tmp_path, user_modules, torch_globals):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    options = [*TINY, *QUIET, "--opponents", "{mybots:LowestCard: 1}", "--opponent_share", "1"]
    options += ["--total_steps", "1024", "--runs_dir", str(tmp_path), "--name", "br"]
    options += ["--episode", "deal"]  # episodes that end, so that there is a win rate to log
    run = cli.run(options)
    assert sys.modules["mybots"].LowestCard.decisions > 0  # the module the trainer imported
    final = _final(run)
    roles = final["roles"].numpy()
    pool_size = final["config"]["pool_size"]
    assert ((roles == 0).sum(axis=1) == 1).all()  # one learner seat per game
    assert (roles[roles != 0] == pool_size + 1).all()  # every other seat is the user's bot
    events = EventAccumulator(run)
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {
        "opponents/win_rate_vs_mybots_LowestCard",
        "opponents/margin_vs_mybots_LowestCard",
    } <= tags
    margins = [e.value for e in events.Scalars("opponents/margin_vs_mybots_LowestCard")]
    assert any(np.isfinite(margins))


def test_a_mix_of_opponents_is_drawn_by_weight(tmp_path, torch_globals):
    options = [*TINY, *QUIET, "--opponents", "{heuristic: 1, random: 3}", "--opponent_share", "1"]
    options += ["--total_steps", "128", "--runs_dir", str(tmp_path), "--name", "mix"]
    options[options.index("--num_envs") + 1] = "256"
    roles = _final(cli.run(options))["roles"].numpy()
    pool_size = 2  # TINY's
    drawn = roles[roles != 0]
    assert set(np.unique(drawn)) == {pool_size + 1, pool_size + 2}  # heuristic, random; no pool
    assert 0.65 < (drawn == pool_size + 2).mean() < 0.85  # random's weight: 3 / 4


def test_the_card_set_network_trains_and_plays_both_variants(tmp_path, torch_globals):
    for variant in ("ghost", "classic"):
        options = [
            "--model",
            "ghost_euchre.agents.cardset:CardSetNet",
            "--variant",
            variant,
            "--model_options",
        ]
        options += [
            "{embed_size: 8, hidden_size: 16, pooling: attention, heads: 2}",
            "--total_steps",
        ]
        options += ["256", "--runs_dir", str(tmp_path), "--name", variant, *QUIET, *TINY]
        run = cli.run(options)
        game = GhostEuchre() if variant == "ghost" else classic.ClassicEuchre()
        player = make_policy(f"ppo:{os.path.join(run, 'policy.pt')}", game, seed=0)
        assert isinstance(player, PPOPolicy) and isinstance(player.network.model.net, CardSetNet)
    net = CardSetNet(ghost.OBS_SIZE, ghost.NUM_ACTIONS, embed_size=8, hidden_size=16)
    obs = torch.rand(5, ghost.OBS_SIZE)
    logits, value = net(obs)
    assert logits.shape == (5, ghost.NUM_ACTIONS) and value.shape == (5,)
    # a card's logit depends on its own token: the same weights score every card
    swapped = obs.clone()
    swapped[:, [0, 1]] = obs[:, [1, 0]]  # the hand's cards 0 and 1 trade places
    assert not torch.allclose(net(swapped)[0][:, :2], logits[:, :2])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "mynets:not_a_class"], "model: 'mynets:not_a_class' is not a class deriving"),
        (["--model", "mynets:WrongShape"], ("model: 'mynets:WrongShape': forward(obs float32[B, 390]) must return (logits"
          " float32[B, 34], value float32[B]), finite; for B=2 it returned shapes")),
        (["--model", "nosuch.nets:Net"], "model: 'nosuch.nets:Net': no module named 'nosuch.nets'"),
        (["--model", "mynets:TinyNet", "--model_options", "{depth: 2}"],
         "model: 'mynets:TinyNet': cannot build it as TinyNet(obs_size, num_actions, depth=...)"),
        (["--model", "heuristic"], "model must be a class as package.module:ClassName"),
        (["--model_options", "{width: 3}"], "model_options needs model"),
        (["--opponents", "{nobot: 1}"], "opponents: unknown policy spec 'nobot'"),
        (["--opponents", "{nosuch.bots:Bot: 1}"], "opponents: policy spec 'nosuch.bots:Bot': no module"),
        (["--opponents", "{'pimc:sample=3': 1}"], "opponents: policy spec 'pimc:sample=3': unknown option"),
        (["--opponents", "{heuristic: -1}"], "opponents: the weight of 'heuristic' must be > 0"),
        (["--opponents", "{heuristic: many}"], "opponents: the weight of 'heuristic' must be a number"),
    ],
)  # fmt: skip
def test_bad_plug_ins_stop_with_one_line_naming_the_field(
    argv, message, tmp_path, user_modules, torch_globals, capsys
):
    with pytest.raises(SystemExit) as stop:
        cli.main([*argv, "--runs_dir", str(tmp_path), *QUIET, *TINY])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_config_and_checkpoint_errors_are_one_line(tmp_path, torch_globals, capsys):
    def error_of(argv):
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "weights_only=False" not in err, err
        return err

    assert "README.md' is not valid YAML: " in error_of(
        ["--config", os.path.join(ROOT, "README.md")]
    )
    assert "configs by name: bidding, classic, classic_bidding, classic_ship, default" in error_of(
        ["--config", "nosuch"]
    )
    noise = tmp_path / "noise.pt"
    noise.write_bytes(np.random.default_rng(0).bytes(4000))
    assert "not a file torch.save wrote" in error_of(["--resume", str(noise)])
    run = cli.run(
        ["--runs_dir", str(tmp_path), "--name", "r", "--total_steps", "128", *QUIET, *TINY]
    )
    saved = _final(run)
    broken = {**saved, "model": dict(saved["model"])}
    del broken["model"]["actor.bias"]
    broken["model"]["critic.weight"] = torch.zeros(3, 3)
    torch.save(broken, tmp_path / "broken.pt")
    err = error_of(["--resume", str(tmp_path / "broken.pt"), "--runs_dir", str(tmp_path / "b")])
    assert "does not fit the network: missing actor.bias; mis-shaped critic.weight (3, 3)" in err
    torch.save({"model": broken["model"], "model_config": saved["model_config"]}, tmp_path / "p.pt")
    with pytest.raises(ValueError, match=r"^PPO checkpoint .* missing actor.bias; mis-shaped") as e:
        make_policy(f"ppo:{tmp_path / 'p.pt'}", GhostEuchre())
    assert "\n" not in str(e.value)


def test_a_config_error_comes_before_torch_is_imported():
    code = (
        "import sys\nfrom ghost_euchre.trainer import cli\n"
        "try:\n    cli.main(['--num_envs', 'many'])\n"
        "except SystemExit as stop:\n    print(stop.code, 'torch' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["2", "False"]
    assert result.stderr.strip().endswith(
        "num_envs must be an integer, got 'many' (str) (see train.py --help)"
    )
    assert result.stderr.count("\n") == 1


def test_torch_threads_default_to_the_cores_per_local_rank(monkeypatch, tmp_path, torch_globals):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: set(range(8)), raising=False)
    assert default_threads() == 8
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "3")
    assert default_threads() == 2
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "16")
    assert default_threads() == 1
    monkeypatch.delenv("LOCAL_WORLD_SIZE")
    at = TINY.index("--torch_threads")  # without TINY's explicit value
    options = [
        "--runs_dir",
        str(tmp_path),
        "--total_steps",
        "128",
        *QUIET,
        *TINY[:at],
        *TINY[at + 2 :],
    ]
    auto = cli.run([*options, "--name", "auto"])
    assert _final(auto)["config"]["torch_threads"] == 8  # the number used, written into the run
    explicit = cli.run([*options, "--name", "explicit", "--torch_threads", "3"])
    assert _final(explicit)["config"]["torch_threads"] == 3


def test_help_groups_the_fields_by_concern(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    groups = ["run:", "games:", "opponents:", "warm-up:", "PPO:", "network:", "evaluation, logging"]
    positions = [out.index(f"\n{group}") for group in groups]
    assert positions == sorted(positions)
    assert out.index("--opponents") > out.index("\nopponents:") and out.index(
        "--model "
    ) > out.index("\nnetwork:")
