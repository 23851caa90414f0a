"""A spec is read once into a tree; make_policy builds from it; bots of bots are handed the builder."""

import collections
import re

import gymnasium
import pytest

from ghost_euchre.agents import specs
from ghost_euchre.agents.pimc import PIMCPolicy
from ghost_euchre.agents.search import SearchPolicy
from ghost_euchre.agents.specs import SpecTree, make_policy, spec_text, spec_tree, uses_human
from ghost_euchre.arena.cli import main
from ghost_euchre.trainer import cli as train_cli
from ghost_euchre.trainer import exploit
from ghost_euchre.trainer.config import specs_read_once
from ghost_euchre_env import GhostEuchre, ghost_bidding_v0, options

EXPECTED = specs.EXPECTED


@pytest.fixture
def parses(monkeypatch):
    """Counter of the spec strings :func:`ghost_euchre.agents.specs.split_spec` reads."""
    seen = collections.Counter()
    split = specs.split_spec

    def counted(spec):
        seen[spec] += 1
        return split(spec)

    monkeypatch.setattr(specs, "split_spec", counted)
    return seen


QUIET = ["--games", "6", "--seed", "1", "--quiet", "--workers", "1"]


@pytest.mark.parametrize(
    ("argv", "read"),
    [
        (
            ["composite[random | heuristic]", "pimc:samples=2,rollout=random", "random", *QUIET],
            {"random": 3, "heuristic": 1, "pimc:samples=2,rollout=random": 1},
        ),
        (
            ["heuristic", "random", "pimc:samples=2", "--card-play", "heuristic", *QUIET],
            {"heuristic": 2, "random": 1, "pimc:samples=2": 1},
        ),
        (
            ["--league", "random", "heuristic", "composite[heuristic | random]", *QUIET],
            {"random": 2, "heuristic": 2},
        ),
        (
            ["--league", "random", "heuristic", "pimc:samples=2", "--card-play", "random", *QUIET],
            {"random": 2, "heuristic": 1, "pimc:samples=2": 1},
        ),
    ],
    ids=["match", "bidding", "league", "bidding-league"],
)
def test_a_command_reads_each_spec_once(argv, read, parses, tmp_path, capsys):
    """Each place a spec is written in the command line (a player, a composite's part, an option
    value, --card-play) is read once, for everything the command does with it."""
    db = ["--db", str(tmp_path / "league.sqlite")] if argv[0] == "--league" else []
    assert main([*argv, *db]) == 0, capsys.readouterr().err
    assert parses == read


def test_the_train_commands_config_check_reads_each_spec_once(parses, tmp_path):
    """The train command checks three configs of one command line (the defaults its --help
    shows, the config file's, the file's with the command line's values): each spec string is
    read once for all of them, the human check included."""
    opponents = '{"pimc:samples=2,rollout=random": 1, "composite[random | heuristic]": 2}'
    argv = ["--opponents", opponents, "--card_play", "random", "--runs_dir", str(tmp_path)]
    config, _, _ = train_cli.parse_args(argv)
    assert config.card_play == "random" and len(config.opponents) == 2
    # card_play and bidding ('heuristic', the default) once; an option value that is a spec and
    # a composite's parts are places of their own, read once each
    assert parses == {"random": 3, "heuristic": 2, "pimc:samples=2,rollout=random": 1}


def test_a_train_run_reads_each_spec_once(parses, tmp_path):
    """The train command's checks and the run's bots (card play, bidding, the warm-up's heuristic,
    the opponents) come from one tree a spec."""
    tiny = ["--num_envs", "16", "--num_steps", "8", "--minibatch_size", "32", "--hidden_sizes"]
    tiny += ["[32]", "--pool_size", "1", "--eval_every", "0", "--final_eval_games", "0"]
    tiny += ["--eval_games", "0", "--checkpoint_every", "0", "--progress", "false"]
    opponents = '{"pimc:samples=2,rollout=random": 1, "pool": 1}'
    argv = ["--runs_dir", str(tmp_path), "--total_steps", "256", "--opponents", opponents]
    train_cli.run([*argv, *tiny, "--bidding_warmup_steps", "256", "--torch_threads", "1"])
    assert parses == {"heuristic": 1, "pimc:samples=2,rollout=random": 1, "random": 1}


def test_exploit_reads_its_spec_once_for_its_checks_and_its_config(parses, tmp_path):
    args = exploit.parse_args(["pimc:samples=2", "--runs-dir", str(tmp_path), "--quiet"])
    with specs_read_once():  # as exploit's run: its checks, then the config against SPEC
        rules, init = exploit.check_args(args)
        config = exploit.train_config(args, rules, init, "name")
    assert config.opponents == {"pimc:samples=2": 1.0}
    assert parses == {"pimc:samples=2": 1, "heuristic": 1}  # heuristic: card_play and bidding


@pytest.mark.parametrize(
    ("make", "read"),
    [
        (
            lambda spec: gymnasium.make(
                "GhostEuchre-v0", opponents={"player_1": spec, "player_2": spec}
            ),
            {"pimc:samples=2,rollout=random": 1, "random": 1},
        ),
        (
            lambda spec: gymnasium.make_vec(
                "GhostEuchreBidding-v0",
                2,
                opponents=spec,
                card_play="composite[random | heuristic]",
            ),
            {"pimc:samples=2,rollout=random": 1, "random": 2, "heuristic": 1},
        ),
    ],
    ids=["single", "auction-vector"],
)
def test_a_door_reads_an_opponent_spec_once(make, read, parses):
    """A door reads a spec string once: its human check and the policy it builds (one policy for
    the seats the same string plays) come from one tree; the auction vector env hands its card
    play to the auction view it steps read already."""
    env = make("pimc:samples=2,rollout=random")
    env.reset(seed=0)
    env.close()
    assert parses == read


def test_the_tree_holds_parts_and_option_values_that_are_specs():
    tree = spec_tree("composite[pimc:rollout=ppo:ghost,samples=4 | heuristic]")
    auction, play = tree.parts
    assert (auction.kind, play.kind) == ("pimc", "heuristic")
    assert auction.options["rollout"] == "ppo:ghost" and auction.options["samples"] == 4
    assert auction.nested["rollout"].kind == "ppo" and set(auction.nested) == {"rollout"}
    assert auction.text == "pimc:rollout=ppo:ghost,samples=4"
    assert spec_tree(tree) is tree  # a tree is read already
    assert spec_tree(spec_text(tree)) == tree
    assert uses_human("pimc:rollout=composite[random | human]")
    assert not uses_human(spec_tree("pimc:objective=points"))


def test_make_policy_builds_from_a_tree_as_from_its_string():
    game = GhostEuchre()
    tree = spec_tree("composite[pimc:samples=2,rollout=random | heuristic]")
    from_tree, from_text = make_policy(tree, game, seed=3), make_policy(spec_text(tree), game, 3)
    assert (
        from_tree.name == from_text.name == "composite[pimc:samples=2,rollout=random | heuristic]"
    )
    assert from_tree.auction.rollout.name == "random"
    made_by_hand = SpecTree("pimc", options={"samples": 2})  # no text: written back
    assert make_policy(made_by_hand, game).name == "pimc(samples=2)"


def test_bots_of_bots_are_handed_the_builder():
    game = GhostEuchre()
    handed = []

    def build(spec, game, seed=None):
        handed.append(spec)
        return make_policy(spec, game, seed)

    pimc = PIMCPolicy(game, samples=2, rollout="random", build=build)
    search = SearchPolicy(game, samples=2, infer="none", network="random", build=build)
    assert handed == ["random", "random"]
    assert pimc.rollout.name == "random" and search.network.name == "random"
    assert PIMCPolicy(game, samples=2).rollout.name == "heuristic"  # no builder needed for it
    with pytest.raises(ValueError, match=r"policy spec 'random': .* build="):
        PIMCPolicy(game, samples=2, rollout="random")
    with pytest.raises(ValueError, match="reserved"):  # make_policy hands it, never the spec
        make_policy("pimc:build=random", game)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "composite[nosuch | heuristic]",
            (
                "policy spec 'composite[nosuch | heuristic]': its auction part: "
                f"unknown policy spec 'nosuch'; expected {EXPECTED}"
            ),
        ),
        (
            "composite[random | composite[heuristic | pimc:x]]",
            (
                "policy spec 'composite[random | composite[heuristic | pimc:x]]': its play part: "
                "policy spec 'composite[heuristic | pimc:x]': its play part: policy spec 'pimc:x': "
                "unexpected 'x' after 'pimc'; arguments are written pimc:key=value,..."
            ),
        ),
        (
            "composite[pimc:rollout=nosuch | heuristic]",
            f"unknown policy spec 'nosuch'; expected {EXPECTED}",
        ),
    ],
)
def test_a_bad_nested_spec_names_its_part(spec, message, capsys):
    with pytest.raises(ValueError, match=r"^(.*: )?" + re.escape(message) + "$"):
        make_policy(spec, GhostEuchre())
    assert main([spec, "heuristic", "random", *QUIET]) == 2
    assert capsys.readouterr().err.strip().endswith(message)


@pytest.fixture
def uninstalled(monkeypatch):
    """The engine's spec reader looked up as in a clone before any install (no entry points)."""
    monkeypatch.setattr(options.importlib.metadata, "entry_points", lambda **_: ())
    options.spec_reader.cache_clear()
    yield
    options.spec_reader.cache_clear()


def test_a_clone_before_any_install_finds_the_spec_reader(uninstalled):
    assert options.spec_reader() is specs
    env = ghost_bidding_v0.env(card_play="random")  # a spec string, built by the reader
    env.reset(seed=0)
    assert env.agent_selection in env.agents


@pytest.mark.parametrize(
    ("pyproject", "why"),
    [
        (None, "there is no pyproject.toml beside ghost_euchre_env (not a clone)"),
        ('[project]\nname = "other"\n', "nor does"),
    ],
)
def test_without_a_spec_reader_a_spec_string_says_why_in_one_line(
    pyproject, why, uninstalled, monkeypatch, tmp_path
):
    (tmp_path / "ghost_euchre_env").mkdir()
    if pyproject is not None:
        (tmp_path / "pyproject.toml").write_text(pyproject)
    monkeypatch.setattr(options, "__file__", str(tmp_path / "ghost_euchre_env" / "options.py"))
    with pytest.raises(ValueError, match=re.escape(why)) as error:
        ghost_bidding_v0.env(card_play="random")
    assert "\n" not in str(error.value) and "no installed distribution declares one" in str(
        error.value
    )
