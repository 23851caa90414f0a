"""Bad input to the arena's commands, stores, game records and policy files.

Each case: one line on stderr naming the value and what was expected, exit
status 2, nothing printed before it, and no file created or changed.
"""

import json
import re
import sqlite3

import pytest
import torch

import ghost_euchre.agents
from ghost_euchre.agents import networks
from ghost_euchre.agents.specs import make_policy, uses_human
from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena.bidding import run_bidding_match
from ghost_euchre.arena.interactive import play_interactive
from ghost_euchre.arena.store import Store
from ghost_euchre_env import GhostEuchre

HUMAN_SEAT = "human plays only a whole seat of a game: at a terminal"


def refused(capsys, argv, *expected):
    """Run the command line; it must exit 2 with one error line holding every ``expected`` text."""
    assert evaluate.main(argv) == 2
    captured = capsys.readouterr()
    error = captured.err.strip()
    assert error.startswith("evaluate.py: error:") and "\n" not in error, error
    for text in expected:
        assert text in error, error
    assert captured.out == ""  # nothing before the error: no progress bar, no address
    return error


@pytest.fixture
def nobody_at_the_terminal(monkeypatch):
    def no_input(prompt=""):
        raise AssertionError("a person was asked for a move")

    monkeypatch.setattr("builtins.input", no_input)


# ---------------------------------------------------------------- human
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("human", True),
        (" composite[human | heuristic] ", True),
        ("composite[heuristic | composite[random | human]]", True),
        ("pimc:rollout=human", True),
        ("pimc:samples=4,rollout=composite[heuristic | human]", True),
        ("heuristic", False),
        ("pimc:rollout=heuristic", False),
        ("ppo:human", False),  # a checkpoint file named human
        ("composite[pimc | heuristic]", False),
    ],
)
def test_uses_human_looks_at_every_depth(spec, expected):
    assert uses_human(spec) is expected


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (["composite[human | heuristic]", "heuristic", "random"], "player"),
        (["heuristic", "heuristic", "random", "--card-play", "human"], "card-play policy"),
        (["pimc:rollout=human", "heuristic", "random"], "player"),
        (["--league", "human", "heuristic", "random", "pimc"], "league player"),
        (["human", "composite[random | human]", "heuristic"], "composite[random | human]"),
        (["human", "heuristic", "random", "--card-play", "heuristic"], "--card-play"),
        (["human", "heuristic", "random", "--bid-regret", "4"], "--bid-regret"),
    ],
)
def test_human_where_nobody_can_answer_is_refused_up_front(
    tmp_path, monkeypatch, capsys, nobody_at_the_terminal, argv, what
):
    monkeypatch.chdir(tmp_path)
    refused(capsys, [*argv, "--games", "6", "--quiet"], what)
    assert list(tmp_path.iterdir()) == []  # no league store made


def test_human_inside_another_policy_does_not_build():
    for spec in ("composite[human | heuristic]", "pimc:rollout=human"):
        with pytest.raises(ValueError, match=rf"{HUMAN_SEAT}.*not inside another policy"):
            make_policy(spec, GhostEuchre())
    with pytest.raises(
        ValueError, match=re.escape("policy spec 'composite[heuristic | human]': human plays only")
    ):
        play_interactive(["human", "composite[heuristic | human]", "heuristic"], out=print)


# ---------------------------------------------------------------- league and store
@pytest.mark.parametrize(
    ("players", "message"),
    [
        (["nobot", "heuristic", "random"], "unknown policy spec 'nobot'"),
        (["heuristic", "random"], "needs at least 3 players, got 2"),
        (["heuristic", "random", "random"], "given more than once: ['random']"),
    ],
)
def test_a_league_that_cannot_start_creates_no_store(tmp_path, capsys, players, message):
    db = tmp_path / "runs" / "league.sqlite"
    refused(capsys, ["--league", *players, "--db", str(db), "--quiet"], message)
    assert list(tmp_path.iterdir()) == []


def _foreign_database(path):
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
        db.execute("INSERT INTO notes VALUES ('mine')")
    db.close()
    return path.read_bytes()


def test_another_applications_database_is_refused_and_left_as_it_was(tmp_path, capsys):
    path = tmp_path / "notes.sqlite"
    before = _foreign_database(path)
    with pytest.raises(
        ValueError, match=r"is not a league store: .*other tables \(notes\)"
    ) as error:
        Store(path)
    assert "\n" not in str(error.value)
    argv = ["--league", "heuristic", "random", "pimc", "--db", str(path), "--games", "6"]
    refused(capsys, [*argv, "--quiet"], repr(str(path)), "is not a league store")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite"]  # no -wal, no -shm


def test_a_store_on_a_directory_names_the_path(tmp_path):
    with pytest.raises(ValueError, match=f"league store {str(tmp_path)!r} is a directory"):
        Store(tmp_path)


def _read_only_connections(monkeypatch):
    """Every store opened from now on is opened read-only (SQLite's mode=ro: as a read-only
    file is, also when the tests run as root, whom file permissions do not stop)."""
    connect = sqlite3.connect

    def read_only(database, *args, **kwargs):  # the store opens a URI, file:/path
        return connect(f"{database}?mode=ro", *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", read_only)


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_a_read_only_store_is_read_and_says_so_before_any_match(
    tmp_path, monkeypatch, capsys, journal
):
    path = tmp_path / "league.sqlite"
    Store(path).close()
    with sqlite3.connect(path, isolation_level=None) as db:
        db.execute(f"PRAGMA journal_mode={journal}")
    db.close()
    before = path.read_bytes()
    _read_only_connections(monkeypatch)
    with Store(path) as store:
        assert store.matches() == []  # readable as it is
        with pytest.raises(ValueError, match="is read-only") as error:
            store.player_id(("heuristic", ""))
    assert str(error.value).startswith(f"league store {str(path)!r} is read-only")

    def no_match(*args, **kwargs):
        raise AssertionError("a match was played")

    monkeypatch.setattr("ghost_euchre.arena.league.run_match", no_match)
    argv = ["--league", "heuristic", "random", "pimc", "--db", str(path), "--quiet"]
    refused(capsys, argv, "is read-only")
    assert path.read_bytes() == before


# ---------------------------------------------------------------- policy files
def _policy_file(path, edit):
    payload = networks.policy_payload(networks.ActorCritic(390, 34, (8,)))
    edit(payload)
    torch.save(payload, path)
    return path


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda p: p["model"].pop("actor.bias"), "missing actor.bias"),
        (
            lambda p: p["model"].update({"actor.weight": torch.zeros(3, 8)}),
            "mis-shaped actor.weight (3, 8) (expected (34, 8))",
        ),
        (lambda p: p["model"].update({"extra": torch.zeros(2)}), "unexpected extra"),
        (lambda p: p.update(model=[1, 2]), "its weights are a list, not a state dict"),
    ],
)
def test_weights_that_do_not_fit_are_one_line(tmp_path, edit, message):
    path = _policy_file(tmp_path / "bot.pt", edit)
    with pytest.raises(ValueError, match="does not fit the network") as error:
        make_policy(f"ppo:{path}", GhostEuchre())
    assert str(error.value) == f"PPO checkpoint {str(path)!r} does not fit the network: {message}"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (bytes(range(256)) * 8, "not a file torch.save wrote"),
        (b"", "torch.load cannot read it (EOFError)"),
    ],
    ids=["random-bytes", "empty"],
)
def test_a_file_that_is_not_a_policy_is_one_line_without_torchs_advice(tmp_path, content, message):
    path = tmp_path / "bot.pt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        networks.load_file(path)
    text = str(error.value)
    assert "\n" not in text and "weights_only=False" not in text
    assert len(text) - len(str(path)) < 150  # a line, not torch's ~720 characters of advice
    with pytest.raises(ValueError, match="is a directory"):
        networks.load_file(tmp_path)


@pytest.mark.parametrize(
    ("partner", "message"),
    [
        ("nobot", "unknown policy spec 'nobot'"),
        ("human", "not inside another policy"),
    ],
)
def test_a_recorded_partner_spec_that_does_not_build_names_its_file(tmp_path, partner, message):
    path = _policy_file(
        tmp_path / "bidder.pt", lambda p: p.update(learn="auction", partner=partner)
    )
    with pytest.raises(ValueError, match="does not build") as error:
        make_policy(f"ppo:{path}", GhostEuchre())
    text = str(error.value)
    assert text.startswith(
        f"PPO checkpoint {str(path)!r}: the spec recorded in it for the card play, {partner!r}"
    )
    assert message in text and "\n" not in text


# ---------------------------------------------------------------- records
@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    """The JSON of a --record file of 6 single-deal games."""
    path = tmp_path_factory.mktemp("records") / "games.json"
    argv = ["heuristic", "random", "random", "--games", "6", "--episode", "deal", "--quiet"]
    assert evaluate.main([*argv, "--record", str(path)]) == 0
    return json.loads(path.read_text())


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["games"][0].update(names=[1, 2, 3]), "game record 0: names must be a list"),
        (lambda d: d["games"][1].update(names=["a"]), "game record 1: names must be a list of 3"),
        (lambda d: d.update(games=[]), "games must be a non-empty list of games, got []"),
        (lambda d: d["games"][0].update(key=7), "game record 0: key must be 16 hex digits"),
        (
            lambda d: d["games"][2].update(final_scores=[1]),
            "game record 2: final_scores must be a list of 3",
        ),
        (lambda d: d.update(rules=[1]), "rules must be a dict of rules options"),
    ],
)
@pytest.mark.parametrize("game", [[], ["--game", "0"]])
def test_records_that_do_not_replay_name_the_file_and_the_problem(
    tmp_path, capsys, record_file, edit, message, game
):
    data = json.loads(json.dumps(record_file))
    edit(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    refused(capsys, ["replay", str(path), *game], f"{str(path)!r}: {message}")


def test_a_binary_file_is_not_a_records_file(tmp_path, capsys):
    path = tmp_path / "games.json"
    path.write_bytes(bytes(range(256)))
    refused(capsys, ["replay", str(path)], f"{str(path)!r} is not a game records file", "utf-8")


def test_replay_of_a_missing_file_or_a_folder_says_what_it_reads(tmp_path, capsys):
    missing = str(tmp_path / "nothere.json")
    error = refused(capsys, ["replay", missing], f"{missing!r} is no file", "a league store")
    assert "Errno" not in error
    refused(capsys, ["replay", str(tmp_path)], f"{str(tmp_path)!r} is a folder")


def test_an_os_error_is_one_line_naming_its_file_without_errno():
    error = OSError(13, "Permission denied", "runs/x.json")
    assert evaluate._file_error(error) == "'runs/x.json': Permission denied"
    assert evaluate._file_error(OSError("no space")) == "no space"


class NoAct(ghost_euchre.agents.Policy):
    """A user's bot that forgot its act method."""

    name = "noact"


def test_a_policy_without_act_is_refused_when_built_naming_what_it_lacks(capsys):
    error = refused(
        capsys, ["test_arena_bad_input:NoAct", "random", "random", "--games", "6"], "NoAct"
    )
    assert "defines no act method" in error and "act(self, obs, mask) -> int64[N]" in error
    assert "NotImplementedError" not in error
    with pytest.raises(NotImplementedError, match="NoAct defines no act"):  # called directly
        NoAct(GhostEuchre()).act(None, None)


# ---------------------------------------------------------------- serve
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "70000"], "--port must be 0..65535 (0: any free port), got 70000"),
        (["--port", "-1"], "--port must be 0..65535"),
        (["--db", "{dir}"], "--db '{dir}' is a directory; expected a league store file"),
    ],
)
def test_serve_checks_its_arguments_before_starting(tmp_path, monkeypatch, capsys, argv, message):
    def no_server(*args, **kwargs):
        raise AssertionError("the server was started")

    monkeypatch.setattr("ghost_euchre.arena.web.serve", no_server)
    argv = [a.format(dir=tmp_path) for a in argv]
    refused(capsys, ["serve", *argv], message.format(dir=tmp_path))


# ---------------------------------------------------------------- options
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "-1"], "--seed must be an int >= 0, got -1"),
        (["--seed", "-1", "--bid-regret", "2"], "--seed must be an int >= 0, got -1"),
        (["--num-envs", "0"], "--num-envs must be an int >= 1, got 0"),
        (["--regret-worlds", "0"], "--regret-worlds is the worlds of each --bid-regret decision"),
        (["--regret-worlds", "8"], "give --bid-regret N"),
        (["--bid-regret", "2", "--regret-worlds", "0"], "--regret-worlds must be an int >= 1"),
        (["pimc", "--league", "--regret-worlds", "8"], "give --bid-regret N"),
    ],
)
def test_options_name_their_flag_and_are_never_ignored(
    capsys, nobody_at_the_terminal, argv, message
):
    refused(capsys, ["heuristic", "random", "random", *argv, "--games", "6", "--quiet"], message)


def test_a_zero_regret_worlds_is_refused_before_the_match(monkeypatch):
    def no_match(*args, **kwargs):
        raise AssertionError("the match was played")

    monkeypatch.setattr("ghost_euchre.arena.bidding.run_match", no_match)
    with pytest.raises(ValueError, match="regret_worlds must be an int >= 1, got 0"):
        run_bidding_match(["heuristic"] * 3, regret_decisions=2, regret_worlds=0)
    with pytest.raises(ValueError, match="seed must be an int >= 0, got -1"):
        run_bidding_match(["heuristic"] * 3, "random", seed=-1)
