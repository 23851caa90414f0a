"""Policies: the spec parser, random, the heuristics (hand-built positions) and the human player.

Cards are written 'JH' (jack of hearts). Ghost positions use dealer 2, so seat 0
acts first in the auction.
"""

import collections
import os
import pickle
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ghost_euchre.agents.pretrained
from ghost_euchre.agents import Policy, make_policy
from ghost_euchre.agents.heuristic import (
    ClassicHeuristic,
    GhostHeuristic,
    cards_played,
    hand_evaluation,
    moon_ready,
)
from ghost_euchre.agents.human import HumanPolicy, HumanQuit, action_name, parse_move
from ghost_euchre.agents.network_file import network_sizes
from ghost_euchre.agents.pretrained import NETWORKS, network_path
from ghost_euchre.agents.random_policy import random_set_bits
from ghost_euchre.agents.specs import parse_value, split_spec
from ghost_euchre_env import ClassicEuchreVec, GhostEuchre, GhostEuchreVec, classic, ghost, variants
from ghost_euchre_env.cards import cards_to_mask, mask_to_bool, pack_bits, parse_card, unpack_bits
from ghost_euchre_env.classic import ClassicEuchre
from ghost_euchre_env.dealing import stream_keys
from ghost_euchre_env.ghost import BID_3, BID_4, MOON, PASS, SWAP, TRUMP_CLUBS

H = 2  # hearts
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cards(text):
    return [parse_card(t) for t in text.split()]


def hand_bool(text):
    return mask_to_bool(np.array([cards_to_mask(cards(text))]))


def ghost_position(hands, ghost, actions=(), dealer=2):
    """A one-game Ghost Hand state after ``actions``; returns (game, state, obs, mask) of the seat to act."""
    game = GhostEuchre()
    deal = {"hands": [cards(h) for h in hands], "ghost": cards(ghost)}
    state = game.init(stream_keys(0, 1), {"dealer": dealer, "deals": [deal]})
    for action in actions:
        game.step(state, np.array([action]))
    player = state.player.astype(np.int64)
    return game, state, game.observe(state, player), game.legal_mask(state)


# ------------------------------------------------------------------ specs
def test_split_spec_reads_builtins_checkpoints_classes_and_arguments():
    assert split_spec("random") == ("random", None, {})
    assert split_spec(" heuristic ") == ("heuristic", None, {})
    assert split_spec("ppo:runs/a/final.pt") == ("ppo", "runs/a/final.pt", {})
    assert split_spec("ppo:runs/a=b.pt") == ("ppo", "runs/a=b.pt", {})
    assert split_spec("ppo:runs/a.pt:sample=true") == ("ppo", "runs/a.pt", {"sample": True})
    kind, target, kwargs = split_spec(
        "my.pkg.bots:Greedy:depth=3,temperature=0.5,greedy=false,label=x1"
    )
    assert (kind, target) == ("class", "my.pkg.bots:Greedy")
    assert kwargs == {"depth": 3, "temperature": 0.5, "greedy": False, "label": "x1"}
    assert type(kwargs["depth"]) is int and type(kwargs["temperature"]) is float


def test_shipped_networks_are_named_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the names do not depend on the working folder
    for name, network in NETWORKS.items():
        kind, target, kwargs = split_spec(f"ppo:{name}:sample=true")
        assert (kind, kwargs) == ("ppo", {"sample": True})
        assert target == os.path.join(  # the real folder (a clone links ghost_euchre/agents)
            os.path.dirname(os.path.realpath(ghost_euchre.agents.pretrained.__file__)), network.file
        )
        game = GhostEuchre() if network.variant == "ghost" else ClassicEuchre()
        policy = make_policy(f"ppo:{name}", game, seed=0)
        obs, mask, _ = (GhostEuchreVec if network.variant == "ghost" else ClassicEuchreVec)(
            4, seed=0
        ).reset()
        assert mask[np.arange(4), policy.act(obs, mask)].all()
    assert {n.variant for n in NETWORKS.values()} == {"ghost", "classic"}


def test_a_checkpoint_path_still_works_and_a_file_named_like_a_network_takes_its_folder(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ghost").write_bytes(b"")  # a file named like a shipped network
    assert split_spec("ppo:ghost")[1] == network_path("ghost")
    assert split_spec("ppo:./ghost")[1] == "./ghost"
    shutil.copy(
        os.path.join(os.path.dirname(ghost_euchre.agents.pretrained.__file__), "ghost_ppo.pt"),
        "mine.pt",
    )
    assert make_policy("ppo:mine.pt", GhostEuchre()).name == "ppo:mine.pt"


def test_an_unknown_network_name_lists_the_shipped_ones():
    with pytest.raises(ValueError, match="no shipped network has that name") as error:
        make_policy("ppo:ghots", GhostEuchre())
    assert str(error.value).endswith("the shipped networks are " + ", ".join(NETWORKS))
    assert "\n" not in str(error.value)


def test_parse_value_types():
    assert parse_value("12") == 12 and parse_value("-3") == -3
    assert parse_value("1e-3") == 0.001
    assert parse_value("TRUE") is True and parse_value("false") is False
    assert parse_value("abc") == "abc" and parse_value("") == ""


USER_MODULE = textwrap.dedent("""
    import numpy as np
    from ghost_euchre.agents.base import Policy

    class FirstLegal(Policy):
        def __init__(self, game, seed=None, depth=1, label="x"):
            super().__init__(game, seed)
            self.depth, self.label = depth, label

        def act(self, obs, mask):
            return mask.argmax(axis=1).astype(np.int64)

    class FromFile(FirstLegal):
        def __init__(self, game, seed=None, path="model.zip"):
            super().__init__(game, seed)
            self.path = path

    class NoAct:
        def __init__(self, game, seed=None):
            pass

    NOT_A_CLASS = 3
""")


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "my_user_bots.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "my_user_bots"
    sys.modules.pop("my_user_bots", None)


def test_user_class_from_a_module_with_arguments(user_module):
    game = GhostEuchre()
    policy = make_policy(f"{user_module}:FirstLegal:depth=4,label=deep", game, seed=1)
    assert isinstance(policy, Policy)
    assert (vars(policy)["depth"], vars(policy)["label"]) == (4, "deep")
    assert policy.name == f"{user_module}:FirstLegal:depth=4,label=deep"
    state = game.init(stream_keys(0, 5))
    mask = game.legal_mask(state)
    actions = policy.act(game.observe(state, state.player.astype(np.int64)), mask)
    assert mask[np.arange(5), actions].all()


def test_a_user_class_may_take_an_option_named_path(user_module):
    policy = make_policy(f"{user_module}:FromFile:path=models/sb3.zip", GhostEuchre())
    assert vars(policy)["path"] == "models/sb3.zip"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "{mod}:FirstLegal:seed=3,depth=2",
            (
                "policy spec '{mod}:FirstLegal:seed=3,depth=2': option 'seed' of {mod}:FirstLegal "
                "is reserved (the reserved names are game, seed: the program gives them, not the spec)"
            ),
        ),
        (
            "ppo:ghost_euchre/agents/pretrained/ghost_ppo.pt:path=x.pt",
            "option 'path' of ppo is reserved (the reserved names are game, seed, path: ",
        ),
    ],
)
def test_options_the_program_gives_are_refused_as_reserved(user_module, spec, message):
    with pytest.raises(ValueError, match=re.escape(message.format(mod=user_module))):
        make_policy(spec.format(mod=user_module), GhostEuchre())


def test_a_network_of_the_other_variant_is_named_before_torch_is_imported():
    """The sizes come from the file's small pickle: the message is out before torch is imported."""
    code = textwrap.dedent("""
        import sys
        from ghost_euchre.agents import make_policy
        from ghost_euchre_env import GhostEuchre
        try:
            make_policy("ppo:ghost_euchre/agents/pretrained/classic_ppo.pt", GhostEuchre())
        except ValueError as error:
            print(error)
        print("torch imported:", "torch" in sys.modules)
    """)
    printed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.splitlines()
    assert printed == [
        (
            "policy spec 'ppo:ghost_euchre/agents/pretrained/classic_ppo.pt': a classic Euchre network "
            "(obs_size=464, num_actions=31) cannot play Ghost Hand Euchre (obs_size=390, num_actions=34): "
            "play it with --variant classic"
        ),
        "torch imported: False",
    ]


def test_a_file_read_only_by_torch_gets_the_same_variant_message(tmp_path):
    """A file network_sizes cannot read (the legacy non-zip format) is checked after torch loads it."""
    import torch

    from ghost_euchre.agents.networks import ActorCritic, policy_payload

    path = tmp_path / "old.pt"
    network = ActorCritic(ghost.OBS_SIZE, ghost.NUM_ACTIONS, hidden_sizes=[8])
    torch.save(policy_payload(network), path, _use_new_zipfile_serialization=False)
    assert network_sizes(path) is None
    assert network_sizes("ghost_euchre/agents/pretrained/ghost_ppo.pt") == (
        ghost.OBS_SIZE,
        ghost.NUM_ACTIONS,
    )
    with pytest.raises(
        ValueError, match=re.escape("a Ghost Hand Euchre network (obs_size=390, ")
    ) as error:
        make_policy(f"ppo:{path}", ClassicEuchre())
    assert str(error.value).endswith(
        "cannot play classic Euchre (obs_size=464, num_actions=31): play it with --variant ghost"
    )


def test_a_spec_that_needs_a_missing_extra_says_the_command_s_line(tmp_path):
    """Without torch, make_policy raises the line the evaluate command prints after "error: ": the
    spec, then the extra to install (a shipped network may instead play without torch)."""
    (tmp_path / "torchbot.py").write_text("import torch\n\n\nclass Bot:\n    pass\n")
    code = textwrap.dedent("""
        import contextlib, io, sys
        sys.modules["torch"] = None  # as if not installed
        from ghost_euchre.agents import make_policy
        from ghost_euchre.commands import evaluate_main
        from ghost_euchre_env import GhostEuchre
        for spec in ("torchbot:Bot", "composite[heuristic | torchbot:Bot]", "ppo:ghost"):
            try:
                make_policy(spec, GhostEuchre())
                print("built")
            except ImportError as error:
                print(type(error).__name__, error)
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                evaluate_main([spec, "heuristic", "heuristic", "--games", "6", "--quiet"])
            print(err.getvalue().partition("error: ")[2].strip() or "played")
    """)
    printed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout.splitlines()
    needs = (
        "this needs torch, which comes with the 'train' extra: pip install 'ghost-euchre[train]'"
    )
    line = f"policy spec 'torchbot:Bot': {needs} (or [all] for everything)"
    composite = f"policy spec 'composite[heuristic | torchbot:Bot]': {line}"
    assert printed[:4] == [f"MissingExtra {line}", line, f"MissingExtra {composite}", composite]
    network = f"policy spec 'ppo:ghost': {needs} (or [all] for everything)"
    assert printed[4:] in (["built", "played"], [f"MissingExtra {network}", network])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "non-empty string"),
        ("foo", "unknown policy spec 'foo'"),
        ("Random", "unknown policy spec"),
        ("random:extra", "unexpected 'extra'"),
        ("random:x", "unexpected 'x'"),
        ("random:a=1,b", "expected key=value"),
        ("random:x=1,x=2", "given twice"),
        ("random:x=1", "unknown option 'x' for random; it takes no options"),
        ("pimc:sample=8", "unknown option 'sample' for pimc; its options are samples, rollout,"),
        (
            "ppo:ghost_euchre/agents/pretrained/ghost_ppo.pt:foo=1",
            "unknown option 'foo' for ppo; its options are sample",
        ),
        ("ppo:", "needs a shipped network's name or a checkpoint path"),
        ("ppo:/no/such/file.pt", "does not exist"),
        ("no_such_module_xyz:Bot", "no module named 'no_such_module_xyz'"),
        ("{mod}:Missing", "has no 'Missing'"),
        ("{mod}:NoAct", "does not meet the Policy interface"),
        ("{mod}:NOT_A_CLASS", "is not a class"),
        ("{mod}:FirstLegal:nope=1", "unknown option 'nope'"),
        ("a b:C", "unknown policy spec"),
    ],
)
def test_bad_specs_give_a_one_line_error(user_module, spec, message):
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        make_policy(spec.format(mod=user_module), GhostEuchre())
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"hello, not a checkpoint\n", "torch.load cannot read it"),
        (pickle.dumps(collections.Counter(a=1)), "objects other than tensors"),
    ],
)
def test_a_file_that_is_not_a_checkpoint_gives_a_one_line_error(tmp_path, content, message):
    path = tmp_path / "notes.pt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message) as error:
        make_policy(f"ppo:{path}", GhostEuchre())
    assert "not a policy file or training checkpoint" in str(error.value)
    assert "\n" not in str(error.value)


def test_non_string_spec_is_a_clear_error():
    with pytest.raises(ValueError, match="non-empty string"):
        make_policy(None, GhostEuchre())


# ----------------------------------------------------------------- random
def test_random_is_legal_seeded_and_uniform():
    mask = np.zeros((30000, 34), bool)
    mask[:, [3, 24, 33]] = True
    game = GhostEuchre()
    first = make_policy("random", game, seed=7).act(None, mask)
    again = make_policy("random", game, seed=7).act(None, mask)
    other = make_policy("random", game, seed=8).act(None, mask)
    assert np.array_equal(first, again) and not np.array_equal(first, other)
    assert set(np.unique(first)) == {3, 24, 33}
    assert np.allclose(
        np.bincount(first, minlength=34)[[3, 24, 33]] / len(first), 1 / 3, atol=0.015
    )
    assert first.dtype == np.int64


def test_random_set_bits_draws_each_set_bit_equally_often():
    rng = np.random.default_rng(0)
    bits = np.zeros(60000, np.uint64)
    bits[:30000] = (1 << 0) | (1 << 9) | (1 << 33)  # three choices
    bits[30000:] = (1 << 5) | (1 << 24) | (1 << 30) | (1 << 31) | (1 << 32) | (1 << 33)  # six
    drawn = random_set_bits(bits, rng)
    assert drawn.dtype == np.int64
    assert ((bits >> drawn.astype(np.uint64)) & 1).all()
    assert np.allclose(np.bincount(drawn[:30000])[[0, 9, 33]] / 30000, 1 / 3, atol=0.015)
    assert np.allclose(
        np.bincount(drawn[30000:])[[5, 24, 30, 31, 32, 33]] / 30000, 1 / 6, atol=0.012
    )
    with pytest.raises(ValueError, match="unsigned"):
        random_set_bits(np.array([3]), rng)


def test_pack_bits_inverts_unpack_bits():
    rng = np.random.default_rng(1)
    for width in (1, 8, 24, 31, 34, 57):
        flags = rng.random((101, width)) < 0.4
        assert np.array_equal(unpack_bits(pack_bits(flags), width), flags)
    with pytest.raises(ValueError, match="at most 57"):
        pack_bits(np.zeros((2, 58), bool))


@pytest.mark.parametrize("game", [GhostEuchre(), ClassicEuchre()], ids=["ghost", "classic"])
@pytest.mark.parametrize("spec", ["random", "heuristic"])
def test_policies_play_only_legal_moves(game, spec):
    policy = make_policy(spec, game, seed=0)
    state = game.init(stream_keys(3, 64))
    for _ in range(400):
        live = np.flatnonzero(state.player >= 0)
        if len(live) == 0:
            break
        state = state.take(live)
        mask = game.legal_mask(state)
        actions = policy.act(game.observe(state, state.player.astype(np.int64)), mask)
        assert actions.dtype == np.int64 and mask[np.arange(len(actions)), actions].all()
        game.step(state, actions)


# --------------------------------------------------------- the bots' kernels as plain Python
KERNELS_RUN = """
import json
import numpy as np
from ghost_euchre.agents import heuristic, worlds
from ghost_euchre_env import variants
out = {}
for name in ("ghost", "classic"):
    venv = variants.make(name).vector_env(3, seed=3, episode="deal")
    policy = heuristic.HEURISTICS[name](venv.game, 0)
    obs, mask, _ = venv.reset()
    seen = []
    for step in range(12):
        actions = policy.act(obs, mask)
        knowledge = worlds.read_knowledge(obs, venv.game)
        sampled = worlds.sample_worlds(knowledge, 2, np.random.default_rng(step))
        seen.append([actions.tolist(), knowledge.voids.tolist(), [w.tolist() for w in sampled]])
        obs, mask, *_ = venv.step(actions)
    out[name] = seen
print(json.dumps(out))
"""


def test_the_bots_kernels_run_as_plain_python_with_numba_disabled():
    """NUMBA_DISABLE_JIT=1 runs the heuristic's kernels and the worlds' (the sampler, the trick
    replay) as plain Python, with the same choices, voids and worlds as compiled."""
    runs = []
    for disabled in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disabled, "OMP_NUM_THREADS": "1"}
        done = subprocess.run(
            [sys.executable, "-c", KERNELS_RUN],
            check=False,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(done.stdout)
    assert runs[0] == runs[1] and '"ghost"' in runs[0]


# --------------------------------------------------------- ghost heuristic
def test_hand_evaluation_prefers_the_long_strong_suit():
    tricks = hand_evaluation(hand_bool("JH JD AH KH AS 9C"))[0]
    assert tricks.argmax() == H
    assert tricks[H] > 4.0 > tricks[0]


def test_moon_ready_needs_top_trumps_and_only_sure_off_suit_cards():
    empty = np.zeros((1, 24), bool)
    assert moon_ready(hand_bool("JH JD AH KH AS AC"), empty)[0, H]
    assert moon_ready(hand_bool("JH JD AH QH AS KS"), empty)[0, H]  # K backed by its ace
    assert not moon_ready(hand_bool("JH JD AH KH AS KC"), empty)[0, H]  # unguarded K
    assert not moon_ready(hand_bool("AH KH QH TH 9H AS"), empty)[0, H]  # both bowers out


def test_heuristic_shoots_the_moon_with_a_sure_hand():
    game, _, obs, mask = ghost_position(
        ["JH JD AH KH AS AC", "9C TC QC KC 9S TS", "9D TD QD KD AD QS"], "JS JC KS TH 9H QH"
    )
    assert GhostHeuristic(game).act(obs, mask)[0] == MOON
    _, _, obs, mask = ghost_position(
        ["JH JD AH KH AS AC", "9C TC QC KC 9S TS", "9D TD QD KD AD QS"],
        "JS JC KS TH 9H QH",
        actions=[MOON],
    )
    assert GhostHeuristic(game).act(obs, mask)[0] == TRUMP_CLUBS + H


def test_heuristic_swaps_a_weak_hand_and_bids_the_lowest_level_with_a_good_one():
    hands = ["9C TC TS 9D TD JD", "JH AH KH QH AS 9S", "QC KC AC QS KS AD"]
    game, _, obs, mask = ghost_position(hands, "JC JS QD KD TH 9H")
    assert (
        GhostHeuristic(game).act(obs, mask)[0] == SWAP
    )  # about 2.8 expected tricks: below swap_below
    # Seat 1 after seat 0 bid 3: hearts are worth about 5.1 tricks (left bower out: no moon): bid 4, not 5.
    _, _, obs, mask = ghost_position(hands, "JC JS QD KD TH 9H", actions=[BID_3])
    assert GhostHeuristic(game).act(obs, mask)[0] == BID_4


def test_heuristic_declarer_draws_trumps_with_the_right_bower():
    hands = ["JH JD AH 9C 9S AS", "KH QH TC QC KC TS", "9D TD QD KD AD 9H"]
    game, _, obs, mask = ghost_position(
        hands, "JC JS AC KS QS TH", actions=[BID_3, PASS, PASS, TRUMP_CLUBS + H]
    )
    assert GhostHeuristic(game).act(obs, mask)[0] == parse_card("JH")


def test_heuristic_wins_cheaply_last_and_throws_off_low_when_it_cannot_win():
    # Seat 0 declares hearts and leads AS; seat 1 follows with TS; seat 2, void in spades, is last.
    opening = [BID_3, PASS, PASS, TRUMP_CLUBS + H, parse_card("AS"), parse_card("TS")]
    hands = ["JH JD AH 9C 9S AS", "KH QH TC QC KC TS", "9D TD QD KD AD 9H"]
    game, _, obs, mask = ghost_position(hands, "JC JS AC KS QS TH", actions=opening)
    assert GhostHeuristic(game).act(obs, mask)[0] == parse_card(
        "9H"
    )  # its one trump wins the trick
    hands = ["JH JD AH 9C 9S AS", "KH QH TC QC KC TS", "9D TD QD KD AD JC"]
    game, _, obs, mask = ghost_position(hands, "KS JS AC 9H QS TH", actions=opening)
    # No trump: it throws off its loser JC (AC, KC, QC are out) and keeps the diamonds, all bosses.
    assert GhostHeuristic(game).act(obs, mask)[0] == parse_card("JC")
    hands = ["JH JD AH 9C 9S AS", "KH QH TC QC KC TS", "9D TD QD KD JC AC"]
    game, _, obs, mask = ghost_position(hands, "KS JS AD 9H QS TH", actions=opening)
    assert GhostHeuristic(game).act(obs, mask)[0] == parse_card("9D")  # now the lowest loser


def test_heuristic_is_deterministic_and_batch_independent():
    game = GhostEuchre()
    state = game.init(stream_keys(11, 200))
    for _ in range(30):
        game.step(
            state,
            make_policy("heuristic", game).act(
                game.observe(state, state.player.astype(np.int64)), game.legal_mask(state)
            ),
        )
    obs, mask = game.observe(state, state.player.astype(np.int64)), game.legal_mask(state)
    whole = GhostHeuristic(game).act(obs, mask)
    one_by_one = [
        GhostHeuristic(game).act(obs[i : i + 1], mask[i : i + 1])[0] for i in range(len(obs))
    ]
    assert np.array_equal(whole, one_by_one)


# ------------------------------------------------------- classic heuristic
def classic_position(hands, upcard, dealer=3, actions=()):
    game = ClassicEuchre()
    state = game.init(
        stream_keys(0, 1),
        {
            "dealer": dealer,
            "deals": [{"hands": [cards(h) for h in hands], "upcard": parse_card(upcard)}],
        },
    )
    for action in actions:
        game.step(state, np.array([action]))
    player = state.player.astype(np.int64)
    return game, game.observe(state, player), game.legal_mask(state)


def test_classic_heuristic_orders_up_a_strong_hand_and_passes_a_weak_one():
    hands = ["JH JD AH KH AS", "9C TC QC KC 9S", "9D TD QD KD AD", "JC JS AC KS QS"]
    game, obs, mask = classic_position(hands, "9H")
    assert ClassicHeuristic(game).act(obs, mask)[0] == 25 + H  # seat 0 orders up hearts
    game, obs, mask = classic_position(hands, "9H", actions=[24])
    assert ClassicHeuristic(game).act(obs, mask)[0] == 24  # seat 1: clubs trash, passes


def test_classic_heuristic_is_legal_in_lone_defender_games():
    game = ClassicEuchre(allow_lone_defender=True)
    policy = ClassicHeuristic(game)
    state = game.init(stream_keys(5, 128))
    while (state.player >= 0).any():
        state = state.take(np.flatnonzero(state.player >= 0))
        mask = game.legal_mask(state)
        actions = policy.act(game.observe(state, state.player.astype(np.int64)), mask)
        assert mask[np.arange(len(actions)), actions].all()
        game.step(state, actions)


# ------------------------------------------------------------------- human
def test_parse_move_accepts_numbers_and_names_and_rejects_the_rest():
    game = GhostEuchre()
    legal = [parse_card("JH"), 24, 29, 32, 33]
    assert parse_move(game, "1", legal) == parse_card("JH")
    assert parse_move(game, " jh ", legal) == parse_card("JH")
    assert parse_move(game, "J♥", legal) == parse_card("JH")
    assert parse_move(game, "PASS", legal) == 24
    assert parse_move(game, "bid 3", legal) == parse_move(game, "bid3", legal) == 29
    assert parse_move(game, "moon", legal) == 32 and parse_move(game, "swap", legal) == 33
    for bad in ("", "0", "6", "99", "JD", "bid 4", "xyzzy", "-1", "1.5", "\x00"):
        assert parse_move(game, bad, legal) is None
    trumps = [25, 26, 27, 28]
    assert (
        parse_move(game, "hearts", trumps)
        == parse_move(game, "H", trumps)
        == parse_move(game, "♥", trumps)
        == 27
    )
    assert action_name(game, 27) == "trump ♥ (hearts)"


def test_human_asks_again_on_bad_input_and_quits_on_end_of_input():
    game, _, obs, mask = ghost_position(
        ["JH JD AH KH AS AC", "9C TC QC KC 9S TS", "9D TD QD KD AD QS"], "JS JC KS TH 9H QH"
    )
    replies = iter(["", "garbage", "42", "moon"])
    shown = []
    human = HumanPolicy(game, read=lambda prompt: next(replies), write=shown.append)
    assert human.act(obs, mask)[0] == MOON
    assert sum("Not a legal move" in line for line in shown) == 3
    assert any("Your hand: " in line for line in shown)

    def end_of_input(prompt):
        raise EOFError

    with pytest.raises(HumanQuit):
        HumanPolicy(game, read=end_of_input, write=shown.append).act(obs, mask)


def test_heuristic_never_reneges_when_the_rules_allow_it():
    game = GhostEuchre(allow_renege=True, episode="deal")
    policy = GhostHeuristic(game)
    state = game.init(stream_keys(8, 256))
    reneges = 0
    while (state.player >= 0).any():
        state = state.take(np.flatnonzero(state.player >= 0))
        actions = policy.act(
            game.observe(state, state.player.astype(np.int64)), game.legal_mask(state)
        )
        reneges += game.step(state, actions).deals.reneges.sum()
    assert reneges == 0


@pytest.mark.parametrize("variant", [ghost, classic])
def test_heuristics_read_the_played_cards_from_the_observation(variant):
    game = variant.GhostEuchre() if variant is ghost else variant.ClassicEuchre()
    view = variants.of(game).view
    state = game.init(stream_keys(3, 64))
    policy = make_policy("random", game, seed=0)
    for _ in range(12):
        game.step(state, policy.act(None, game.legal_mask(state)))
        obs = game.observe(state, state.player.astype(np.int64))
        truth = mask_to_bool(np.bitwise_or.reduce(state.trick_cards, axis=1))
        assert (cards_played(view(obs).played_by) == truth).all()


def test_takes_keys_reads_each_act_signature():
    """A policy is keyed when its act takes ``keys=``: read from the class's act once, and from an
    instance's own act where one replaces it."""
    from ghost_euchre.agents.streams import takes_keys

    class Keyed:
        def act(self, obs, mask, keys=None):
            return mask

    class Plain:
        def act(self, obs, mask):
            return mask

    replaced = Keyed()
    vars(replaced)["act"] = lambda obs, mask: mask  # an instance's own act, without keys
    assert [takes_keys(p) for p in (Keyed(), Keyed(), Plain(), replaced)] == [
        True,
        True,
        False,
        False,
    ]
