"""The networks' forward pass without torch (agents/forward.py, agents/network_file.py): the
weights read as torch reads them, the logits and the choices torch's, the compiled playouts the
step-by-step ones."""

import re

import numpy as np
import pytest
import torch

from ghost_euchre.agents.forward import Forward, mlp_shapes
from ghost_euchre.agents.network_file import read_network
from ghost_euchre.agents.networks import ActorCritic, mask_logits, policy_payload
from ghost_euchre.agents.ppo import PPOPolicy, load_policy
from ghost_euchre.agents.pretrained import NETWORKS, network_path
from ghost_euchre.agents.specs import make_policy
from ghost_euchre_env import variants


def _positions(variant, count, seed=0):
    """(obs, mask) of the players to act in deals of the heuristic mixed with random moves."""
    venv = variants.make(variant).vector_env(64, seed=seed, episode="deal")
    heuristic = make_policy("heuristic", venv.game, seed=seed)
    rng = np.random.default_rng(seed)
    obs, mask, _ = venv.reset()
    seen = []
    while sum(len(o) for o, _ in seen) < count:
        seen.append((obs, mask))
        random_move = (rng.random(mask.shape) * mask).argmax(axis=1)
        actions = np.where(rng.random(len(mask)) < 0.3, random_move, heuristic.act(obs, mask))
        obs, mask, *_ = venv.step(actions)
    return tuple(np.concatenate(part)[:count] for part in zip(*seen, strict=True))


@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_the_shipped_files_read_without_torch_as_torch_reads_them(name):
    path = network_path(name)
    assert path is not None
    mine, torchs = read_network(path), torch.load(path, weights_only=True)
    assert mine["model_config"] == torchs["model_config"]
    assert (mine.get("learn"), mine.get("partner")) == (torchs.get("learn"), torchs.get("partner"))
    assert sorted(mine["model"]) == sorted(torchs["model"])
    for key, tensor in torchs["model"].items():
        assert mine["model"][key].dtype == np.float32
        assert np.array_equal(mine["model"][key], tensor.numpy()), key


@pytest.mark.parametrize("name", ["ghost", "classic", "ghost-bidder", "classic-bidder"])
def test_a_shipped_network_chooses_what_torch_chooses(name):
    """Logits within float32 rounding of torch's, and the same greedy action on every position."""
    path = network_path(name)
    assert path is not None
    config = read_network(path)["model_config"]
    found = variants.by_sizes(config["obs_size"], config["num_actions"])
    assert found is not None
    variant = found.name
    obs, mask = _positions(variant, 3000)
    from ghost_euchre.agents.networks import load_model

    model = load_model(path)
    with torch.no_grad():
        logits = model.act_logits(torch.from_numpy(obs))
        chosen = mask_logits(logits, torch.from_numpy(mask)).argmax(-1).numpy()
    policy = load_policy(path, variants.make(variant).make_game())[0]
    assert isinstance(policy.network, Forward)
    np.testing.assert_allclose(policy.network.logits(obs), logits.numpy(), rtol=0, atol=1e-3)
    assert np.array_equal(policy.act(obs, mask), chosen)


@pytest.mark.parametrize(
    ("hidden", "activation", "canonical"),
    [((16,), "tanh", False), ((12, 8, 8), "relu", True), ((8,), "relu", False)],
)
@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_any_mlp_of_the_trainer_plays_as_torch(variant, hidden, activation, canonical):
    game = variants.make(variant).make_game()
    torch.manual_seed(1)
    model = ActorCritic(game.obs_size, game.num_actions, hidden, activation, canonical)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_()  # logits far apart: a tie would be luck
    weights = {k: v.numpy() for k, v in policy_payload(model)["model"].items()}
    network = Forward(model.config, weights)
    obs, mask = _positions(variant, 500, seed=2)
    with torch.no_grad():
        expected = model.act_logits(torch.from_numpy(obs)).numpy()
        chosen = mask_logits(torch.from_numpy(expected), torch.from_numpy(mask)).argmax(-1)
    np.testing.assert_allclose(network.logits(obs), expected, rtol=1e-5, atol=1e-4)
    assert np.array_equal(network.greedy(obs, mask), chosen.numpy())
    one_row = [network.logits(obs[i : i + 1])[0] for i in range(0, 500, 50)]
    assert np.array_equal(np.array(one_row), network.logits(obs)[::50])  # a row alone: the same


def test_a_checkpoint_plays_without_torch_as_its_policy_file(tmp_path):
    from ghost_euchre.trainer import cli

    run = cli.run(
        ["--runs_dir", str(tmp_path), "--name", "r", "--total_steps", "256", "--num_envs", "8",
         "--num_steps", "8", "--minibatch_size", "32", "--hidden_sizes", "[16]", "--eval_every",
         "0", "--final_eval_games", "0", "--progress", "false", "--torch_threads", "1",
         "--bidding_warmup_steps", "0"]
    )  # fmt: skip
    game = variants.make("ghost").make_game()
    obs, mask = _positions("ghost", 300)
    final = make_policy(f"ppo:{run}/final.pt", game, seed=0)
    policy = make_policy(f"ppo:{run}/policy.pt", game, seed=0)
    assert np.array_equal(final.act(obs, mask), policy.act(obs, mask))


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"activation": "exec"}, "activation must be one of ['relu', 'tanh'], got 'exec'"),
        ({"hidden_sizes": []}, "hidden_sizes must be a non-empty list of positive ints, got []"),
        ({"hidden_sizes": [0]}, "hidden_sizes must be a non-empty list of positive ints"),
    ],
)
def test_a_config_that_builds_no_network_is_one_line(config, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        mlp_shapes({"obs_size": 390, "num_actions": 34, **config})


def test_sampling_is_keyed_and_only_legal():
    game = variants.make("ghost").make_game()
    policy = make_policy("ppo:ghost:sample=true", game, seed=0)
    assert isinstance(policy, PPOPolicy) and policy.playout() is None  # a sampler is not compiled
    obs, mask = _positions("ghost", 400)
    keys = np.arange(400, dtype=np.uint64)
    first = policy.act(obs, mask, keys)
    assert mask[np.arange(400), first].all()
    again = make_policy("ppo:ghost:sample=true", game, seed=0).act(
        obs[::-1], mask[::-1], keys[::-1]
    )
    assert np.array_equal(first, again[::-1])  # a row's draw is its key's, wherever it sits


def test_a_torch_only_file_needs_torch_and_says_which_extra(tmp_path, monkeypatch):
    """Without torch, a legacy (non-zip) file is one line naming the extra."""
    import builtins

    from ghost_euchre.agents import networks

    path = tmp_path / "old.pt"
    torch.save(
        networks.policy_payload(ActorCritic(390, 34, (8,))), path,
        _use_new_zipfile_serialization=False,
    )  # fmt: skip
    real_import = builtins.__import__

    def no_torch(name, globals=None, locals=None, fromlist=(), level=0):
        if (name == "" and "networks" in (fromlist or ())) or name.startswith("torch"):
            raise ModuleNotFoundError("No module named 'torch'", name="torch")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    with pytest.raises(ValueError, match="needs torch") as error:
        load_policy(str(path), variants.make("ghost").make_game())
    text = str(error.value)
    assert "not a zip archive (torch's legacy format?)" in text and "'train' extra" in text, text
    assert "\n" not in text
