"""Bots in any language (issue 57): the line protocol's messages, the ``proc:PATH`` spec, programs
playing matches, leagues, bidding matches and the command line, and each way a program fails
told in one line with the game, with no process left behind.

The test programs are small Python scripts (``#!`` the interpreter running the tests), so every
test runs without a compiler; the C examples of ``ghost_euchre/examples/proc`` are built and played where a C
compiler exists. The tests that start programs are marked slow."""

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from terminal_helpers import script_at_a_terminal

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.checked import PlugInError
from ghost_euchre.agents.program import LINE_BYTES_PER_GAME, ProgramPolicy, line_limit
from ghost_euchre.agents.protocol import AnswerError, Messages, action_names
from ghost_euchre.agents.specs import spec_text, spec_tree, split_spec
from ghost_euchre.agents.versions import fingerprint
from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena.bidding import run_bidding_match
from ghost_euchre.arena.interactive import play_interactive
from ghost_euchre.arena.league import run_league
from ghost_euchre.arena.match import run_match
from ghost_euchre.arena.store import Store
from ghost_euchre.arena.web.gate import SpecGate
from ghost_euchre_env import variants
from ghost_euchre_env.cards import card_name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = {"target_score": 8}  # short games

# A program of the protocol: it notes every message's type and games in RECORD (one JSON line
# each, with its pid at hello), answers hello with its name and each decision with ANSWER.
PROGRAM = """\
#!{python}
import json, os, sys, time
RECORD = {record!r}

def note(entry):
    with open(RECORD, "a") as handle:
        handle.write(json.dumps(entry) + "\\n")

for line in sys.stdin:
    message = json.loads(line)
    games = [g["game"] for g in message.get("games", [])]
    note({{"type": message["type"], "games": games, "pid": os.getpid()}})
    if message["type"] == "hello":
{hello}
    elif message["type"] == "decide":
        legal = [g["legal"] for g in message["games"]]
{decide}
note({{"type": "eof", "games": [], "pid": os.getpid()}})
{after}
"""
HELLO = 'print(json.dumps({"name": "tester", "protocol": 1}), flush=True)'
FIRST_LEGAL = 'print(json.dumps({"actions": [names[0] for names in legal]}), flush=True)'


def write_program(folder, name, hello=HELLO, decide=FIRST_LEGAL, after=""):
    """An executable protocol program ``folder/name`` (see PROGRAM); returns (its path, its record)."""
    record = os.path.join(folder, f"{name}.record")
    text = PROGRAM.format(
        python=sys.executable,
        record=record,
        hello=textwrap.indent(textwrap.dedent(hello), " " * 8),
        decide=textwrap.indent(textwrap.dedent(decide), " " * 8),
        after=textwrap.dedent(after),
    )
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path, record


def records(record):
    """The entries a test program noted ([] if it never started)."""
    if not os.path.exists(record):
        return []
    with open(record, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def alive(pid):
    """Whether process ``pid`` runs (a zombie waiting for its parent does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def gone(pids, within=5.0):
    """Whether every process of ``pids`` has stopped within ``within`` seconds."""
    end = time.monotonic() + within
    while any(alive(pid) for pid in pids):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A scratch folder as the current folder (programs are named from it, logs go under it)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ------------------------------------------------------------------ messages (no process)
def positions(variant, games=16, steps=40, seed=3):
    """(game, obs, mask) of the acting seats of ``games`` games after up to ``steps`` random actions."""
    game = variants.make(variant).make_game(rules=RULES)
    state = game.init(np.arange(games, dtype=np.uint64) + np.uint64(seed))
    rng = np.random.default_rng(seed)
    snapshots = []
    for _ in range(steps):
        player = state.player.astype(np.int64)
        mask = game.legal_mask(state)
        snapshots.append((game.observe(state, player), mask))
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        result = game.step(state, actions)
        if (result.terminated | result.truncated).any():
            break
    obs = np.concatenate([o for o, _ in snapshots])
    mask = np.concatenate([m for _, m in snapshots])
    return game, obs, mask


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_a_decision_gives_every_field_of_the_view_by_name(variant):
    game, obs, mask = positions(variant)
    messages = Messages(game)
    text = messages.decide(obs, mask, np.arange(len(obs)) + 100)
    decided = json.loads(text)
    assert text == json.dumps(decided, separators=(",", ":"))  # compact, keys in order
    assert decided["type"] == "decide"
    v = variants.make(variant)
    view = v.view(obs)
    for row, entry in enumerate(decided["games"]):
        assert list(entry) == ["game", "obs", "legal"]
        assert entry["game"] == row + 100
        assert list(entry["obs"]) == [f.name for f in v.fields]
        assert entry["legal"] == [messages.actions[a] for a in np.flatnonzero(mask[row])]
        for field in v.fields:
            value, decoded = entry["obs"][field.name], getattr(view, field.name)[row]
            if field.kind == "cards":  # one list of names per block of 24
                blocks = decoded.reshape(-1, 24)
                expected = [
                    [card_name(c, unicode=False) for c in np.flatnonzero(b)] for b in blocks
                ]
                assert (value if field.shape else [value]) == expected
            elif field.kind == "card":
                assert value == (None if decoded < 0 else card_name(int(decoded), unicode=False))
            elif field.kind == "seat":
                assert value == (None if decoded < 0 else int(decoded))
            elif field.name == "trump":
                assert value == (None if decoded < 0 else "CDHS"[decoded])
            elif field.name == "phase":
                assert value == v.phases[decoded]
            elif field.kind == "choice":
                assert value == (None if decoded == field.none else int(decoded))
            elif field.kind == "fraction":
                assert np.allclose(value, decoded, atol=1e-6)
            else:  # flags, counts
                assert np.array_equal(np.array(value), decoded)


def test_the_hello_message_names_the_game_every_action_and_field():
    game = variants.make("classic").make_game(rules=RULES)
    hello = json.loads(Messages(game).hello(7))
    assert hello["type"] == "hello" and hello["protocol"] == 1 and hello["variant"] == "classic"
    assert hello["rules"]["target_score"] == 8 and hello["episode"] == "game"
    assert hello["seats"] == 4 and hello["seed"] == 7
    assert hello["actions"][:2] == ["9C", "9D"] and hello["actions"][24:] == [
        "pass", "suit C", "suit D", "suit H", "suit S", "alone", "partner"
    ]  # fmt: skip
    assert hello["fields"][:3] == ["hand", "upcard", "discard"]
    ghost = action_names(variants.make("ghost"))
    assert ghost[10] == "JH" and ghost[24:] == (
        "pass", "trump C", "trump D", "trump H", "trump S", "bid 3", "bid 4", "bid 5", "moon", "swap"
    )  # fmt: skip


def test_game_over_and_match_over_messages():
    messages = Messages(variants.make("ghost").make_game())
    ended = json.loads(
        messages.game_over([4], np.array([[32, 17, -4]]), np.array([True]), np.array([False]))
    )
    assert ended == {
        "type": "game_over",
        "games": [{"game": 4, "won": True, "truncated": False, "scores": [32, 17, -4]}],
    }
    assert json.loads(messages.match_over()) == {"type": "match_over"}


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (b"thinking...", "answered 'thinking...' to the decision of games 7, 8, which is not JSON"),
        (b'["9C", "9D"]', "expected {\"actions\": [NAME, ...]} with 2 names"),
        (b'{"actions": ["pass"]}', "answered 1 action(s) to the decision of games 7, 8"),
        (b'{"actions": ["pass", "ace"]}', "answered 'ace' in game 8, which is not an action name"),
        (b'{"actions": ["pass", 3]}', "answered 3 in game 8, which is not an action name"),
        (b'{"actions": ["pass", "AS"]}', "answered 'AS' in game 8, which is not legal there (legal: 9C, pass)"),
    ],
)  # fmt: skip
def test_a_bad_answer_is_one_line_naming_the_game(answer, expected):
    messages = Messages(variants.make("ghost").make_game())
    mask = np.zeros((2, 34), bool)
    mask[:, [0, 24]] = True
    assert messages.read_actions(b'{"actions": ["pass", "9C"]}', mask, [7, 8]).tolist() == [24, 0]
    with pytest.raises(AnswerError) as raised:
        messages.read_actions(answer, mask, np.array([7, 8]))
    assert expected in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (b"{}", "answered hello with '{}'; expected {\"name\": NAME}"),
        (b'"tester"', "answered hello with"),
        (b'{"name": "x", "protocol": 2}', "speaks protocol 2; this is protocol 1"),
        (b'{"name": "x", "protocol": true}', "speaks protocol true; this is protocol 1"),
        (b'{"name": "x", "protocol": 1.0}', "speaks protocol 1.0; this is protocol 1"),
        (b'{"name": "x", "protocol": "1"}', 'speaks protocol "1"; this is protocol 1'),
        (b"[" * 5000 + b"]" * 5000, "JSON nested too deeply to read"),
    ],
)
def test_a_bad_answer_to_hello_is_one_line(answer, expected):
    messages = Messages(variants.make("ghost").make_game())
    assert messages.read_name(b'{"name": " tester "}') == "tester"
    with pytest.raises(AnswerError, match=expected.replace("{", r"\{").replace("}", r"\}")):
        messages.read_name(answer)


def test_a_deeply_nested_answer_to_a_decision_is_one_line():
    messages = Messages(variants.make("ghost").make_game())
    mask = np.ones((1, 34), bool)
    with pytest.raises(AnswerError, match=r"game 3, JSON nested too deeply to read; expected"):
        messages.read_actions(b'{"actions": ' + b"[" * 20000 + b"]" * 20000 + b"}", mask, [3])


def test_an_answer_line_is_bounded_by_the_games_it_answers():
    assert line_limit(0) == 65536 and line_limit(1000) == 65536 + 64 * 1000
    names = max(len(json.dumps(n)) + 2 for n in action_names(variants.make("classic")))
    assert names * 2 < LINE_BYTES_PER_GAME  # room for spaces: an honest answer fits twice over


# ---------------------------------------------------------------------- the spec (no process)
def test_proc_specs_parse_and_write_back(here):
    assert split_spec("proc:./bot") == ("proc", "./bot", {})
    assert split_spec("proc:./bot:timeout=5,log=x.log") == (
        "proc", "./bot", {"timeout": 5, "log": "x.log"}
    )  # fmt: skip
    assert split_spec("proc:./a=b") == ("proc", "./a=b", {})  # a path may hold '='
    for spec in ("proc:./bot", "proc:./bot:timeout=0.5"):
        assert spec_text(spec_tree(spec)) == spec


def test_a_proc_spec_that_cannot_run_is_refused_before_any_play(here):
    game = variants.make("ghost").make_game()
    path, _ = write_program(str(here), "bot")
    (here / "plain").write_text("not a program\n")
    (here / "folder").mkdir()
    cases = {
        "proc:": "proc needs a program's path, as in proc:./mybot",
        "proc:./missing": "no program file './missing' (a path from the current folder",
        "proc:./plain": "program file './plain' is not executable (chmod +x ./plain)",
        "proc:./folder": "'./folder' is a folder; expected an executable program file",
        "proc:./bot:timeout=0": "timeout must be a number of seconds > 0",
        "proc:./bot:timeout=fast": "timeout must be a number of seconds > 0",
        "proc:./bot:timeout=3000000": "timeout must be a number of seconds > 0 and <= 86400",
        "proc:./bot:timeout=1e12": "timeout must be a number of seconds > 0 and <= 86400",
        "proc:./bot:timeout=nan": "timeout must be a number of seconds > 0 and <= 86400",
        "proc:./bot:timeout=inf": "timeout must be a number of seconds > 0 and <= 86400",
        "proc:./bot:depth=2": "unknown option 'depth' for proc; its options are timeout, log",
        "proc:./bot:path=x": "option 'path' of proc is reserved",
    }
    for spec, expected in cases.items():
        with pytest.raises(ValueError, match=r"^policy spec .*") as raised:
            make_policy(spec, game, seed=0)
        assert expected in str(raised.value), spec
        assert "\n" not in str(raised.value)
    policy = make_policy("proc:./bot:timeout=2", game, seed=0)
    assert isinstance(policy, ProgramPolicy) and policy.name == "proc:./bot:timeout=2"
    assert policy.timeout == 2.0 and not os.path.exists(here / "runs")  # nothing started yet
    assert path.endswith("bot")


def test_the_web_page_never_builds_a_program(here):
    write_program(str(here), "bot")
    gate = SpecGate()
    for spec in ("proc:./bot", "composite[proc:./bot | heuristic]", "pimc:rollout=proc:./bot"):
        with pytest.raises(ValueError, match="proc:PATH runs a program: never on the web page"):
            gate.check(spec)
    with pytest.raises(ValueError, match=r"--allow-spec .proc:\./bot.: proc:PATH runs a program"):
        SpecGate(allowed=["proc:./bot"])


def test_a_rebuilt_program_is_a_new_version(here):
    path, _ = write_program(str(here), "bot")
    before = fingerprint("proc:./bot")
    assert before and fingerprint("proc:./bot:timeout=5") == before
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("# rebuilt\n")
    assert fingerprint("proc:./bot") not in ("", before)
    assert fingerprint("proc:./missing") == ""


# ------------------------------------------------------------------- programs playing (slow)
@pytest.mark.slow
@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_a_program_plays_a_match_as_the_protocol_says(here, variant):
    _, record = write_program(str(here), "bot")
    others = ["heuristic", "random", "heuristic"][: variants.make(variant).num_players - 1]
    result = run_match(["proc:./bot", *others], variant, games=12, seed=1, rules=RULES)
    seen = records(record)
    kinds = [r["type"] for r in seen]
    assert kinds[0] == "hello" and kinds[-2:] == ["match_over", "eof"]
    assert set(kinds[1:-2]) == {"decide", "game_over"}
    ended = [g for r in seen if r["type"] == "game_over" for g in r["games"]]
    assert sorted(ended) == list(range(len(result.sequence)))  # every game's end, once
    decided = {g for r in seen if r["type"] == "decide" for g in r["games"]}
    assert decided == set(range(len(result.sequence)))
    log = (here / "runs" / "proc" / "bot.log").read_text()
    assert "'tester'" in log and "stopped (exit code 0)" in log
    assert gone([r["pid"] for r in seen])


@pytest.mark.slow
def test_a_program_plays_a_league_card_play_and_a_bidding_match(here):
    _, record = write_program(str(here), "bot")
    store = Store(str(here / "league.sqlite"))
    run = run_league(["proc:./bot", "heuristic", "random", "ghost_euchre.agents.random_policy:RandomPolicy"],
                     store, games=6, seed=0, rules=RULES)  # fmt: skip
    assert len(run.played) == 4 and not run.failed
    starts = [r for r in records(record) if r["type"] == "hello"]
    assert len(starts) == 3  # once per match it plays
    result, _ = run_bidding_match(
        ["proc:./bot", "heuristic", "random"], card_play="proc:./bot", games=6, rules=RULES
    )
    assert result.players[0]["bidding"]["card_play"] == "proc:./bot"
    result, regrets = run_bidding_match(
        ["proc:./bot", "heuristic", "random"], None, regret_decisions=2, regret_worlds=2,
        games=6, rules=RULES,
    )  # fmt: skip
    assert regrets is not None and len(regrets) == 3
    assert gone({r["pid"] for r in records(record)})


@pytest.mark.slow
def test_a_program_on_two_workers_starts_once_in_each(here):
    _, record = write_program(str(here), "bot")
    one = run_match(["proc:./bot", "heuristic", "random"], games=24, rules=RULES)
    hellos = len([r for r in records(record) if r["type"] == "hello"])
    two = run_match(["proc:./bot", "heuristic", "random"], games=24, rules=RULES, workers=2)
    assert one.to_dict()["players"] == two.to_dict()["players"]
    assert len([r for r in records(record) if r["type"] == "hello"]) - hellos == 2
    assert gone({r["pid"] for r in records(record)})


# ------------------------------------------------------------------------- failures (slow)
FAILURES = {  # what a program does at its second decision, and the line that names it
    "exits": (
        "sys.exit(3)",
        r"exited \(with exit code 3\) before answering the decision of games? \d+",
    ),
    "hangs": ("time.sleep(600)", r"did not answer the decision of games? \d+.* within 0\.5 s"),
    "not json": ('print("thinking...", flush=True)', r"answered 'thinking\.\.\.' to the decision"),
    "unknown": (
        'print(json.dumps({"actions": ["ace"] * len(legal)}), flush=True)',
        r"answered 'ace' in game \d+, which is not an action name",
    ),
    "illegal": (
        'print(json.dumps({"actions": ["9C" if "9C" not in l else "AS" for l in legal]}), flush=True)',
        r"answered '(9C|AS)' in game \d+, which is not legal there \(legal: ",
    ),
    "count": (
        'print(json.dumps({"actions": []}), flush=True)',
        r"answered 0 action\(s\) to the decision of games? \d+",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("failure", list(FAILURES))
def test_each_failure_is_one_line_with_the_game_and_no_process_is_left(here, failure):
    failing, expected = FAILURES[failure]
    decide = f"""\
        if [r["type"] for r in map(json.loads, open(RECORD))].count("decide") < 2:
            {FIRST_LEGAL}
        else:
            {failing}
        """
    _, record = write_program(str(here), "bad", decide=decide)
    _, good = write_program(str(here), "good")  # another program of the match: stopped too
    with pytest.raises(PlugInError) as raised:
        run_match(["proc:./bad:timeout=0.5", "proc:./good", "heuristic"], games=6, rules=RULES)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("player 'proc:./bad:timeout=0.5': program ./bad (pid ")
    log = os.path.join(str(here), "runs", "proc", "bad.log")
    assert message.endswith(f"; its stderr: {log}")
    assert re.search(expected, message), message
    assert records(good)  # it started (and was stopped)
    assert gone({r["pid"] for r in records(record) + records(good)})
    with open(log, encoding="utf-8") as handle:
        assert "failed: " in handle.read()


@pytest.mark.slow
def test_a_program_that_fails_hello_or_does_not_start_is_one_line(here):
    write_program(str(here), "mute", hello="pass")
    write_program(str(here), "rude", hello='print("hi", flush=True)')
    (here / "broken").write_text("#!/no/such/interpreter\n")
    os.chmod(here / "broken", 0o755)
    cases = {
        "proc:./mute:timeout=0.5": "did not answer hello within 0.5 s",
        "proc:./rude": "answered 'hi' to hello, which is not JSON",
        "proc:./broken": "program ./broken does not start: No such file or directory",
    }
    for spec, expected in cases.items():
        with pytest.raises(PlugInError) as raised:
            run_match([spec, "heuristic", "random"], games=6, rules=RULES)
        assert expected in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.slow
def test_a_hung_program_and_what_it_started_are_killed(here):
    _, record = write_program(
        str(here),
        "spawner",
        decide="""\
            child = __import__("subprocess").Popen(["sleep", "600"])
            note({"type": "child", "games": [], "pid": child.pid})
            time.sleep(600)
            """,
    )
    with pytest.raises(PlugInError, match=r"within 0\.5 s"):
        run_match(["proc:./spawner:timeout=0.5", "heuristic", "random"], games=6, rules=RULES)
    assert gone({r["pid"] for r in records(record)})  # the program and its sleep


@pytest.mark.slow
def test_a_line_too_long_is_refused_before_it_is_read_whole(here):
    write_program(  # 12 million names on one line (60 MB): refused after 65 kB and a few
        str(here),
        "flood",
        decide="""\
            sys.stdout.write('{"actions":[' + ",".join(['"9C"'] * 12_000_000) + "]}\\n")
            sys.stdout.flush()
            """,
    )
    with pytest.raises(PlugInError) as raised:
        run_match(["proc:./flood", "heuristic", "random"], games=1, rules=RULES, num_envs=1)
    assert re.search(r"wrote more than 65,\d{3} bytes without a newline, answering the decision "
                     r"of games? [\d, ]+ \(an answer line holds at most 65,536 bytes \+ 64 per game\)",
                     str(raised.value))  # fmt: skip


def detached_child(folder, name, decide=FIRST_LEGAL):
    """A program that starts ``sleep 300`` in a session of its own (setsid, a double fork) at hello
    and notes its pid; returns (its path, its record)."""
    hello = f"""\
        if os.fork() == 0:
            os.setsid()
            child = __import__("subprocess").Popen(["sleep", "300"], stdin=-3, stdout=-3)
            note({{"type": "child", "games": [], "pid": child.pid}})
            os._exit(0)
        os.wait()
        {HELLO}
        """
    return write_program(folder, name, hello=hello, decide=decide)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the subreaper is Linux's")
def test_what_a_program_detaches_is_stopped_with_it(here):
    _, record = detached_child(str(here), "detacher")
    result = run_match(["proc:./detacher", "heuristic", "random"], games=6, rules=RULES)
    assert len(result.sequence) == 6
    pids = {r["pid"] for r in records(record)}
    assert "child" in {r["type"] for r in records(record)} and gone(pids, within=2.0)
    assert "stopped (exit code 0)" in (here / "runs" / "proc" / "detacher.log").read_text()


def evaluate_until_a_decision(here, record, *args):
    """The evaluate command playing ``args`` in a process of its own, started as a terminal starts
    it (SIGINT unblocked, at Python's handler: :mod:`terminal_helpers`), once ``record`` notes a
    decision (the program is thinking)."""
    evaluate_py = script_at_a_terminal(os.path.join(ROOT, "evaluate.py"))
    process = subprocess.Popen(
        [sys.executable, "-c", evaluate_py, *args, "--games", "2", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=here,
        env={**os.environ, "PYTHONPATH": ROOT, "OMP_NUM_THREADS": "1"},
    )
    end = time.monotonic() + 60
    while "decide" not in [r["type"] for r in records(record)]:
        assert process.poll() is None and time.monotonic() < end, process.communicate()
        time.sleep(0.05)
    time.sleep(0.2)  # the program's children noted
    return process


THINKS = """\
    child = __import__("subprocess").Popen(["sleep", "300"])
    note({"type": "child", "games": [], "pid": child.pid})
    time.sleep(300)
    """


@pytest.mark.slow
@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_a_match_stopped_while_a_program_thinks_leaves_nothing_running(here, stop):
    """Ctrl-C: one line, status 130; SIGTERM and SIGKILL: the signal's status (the keeper of each
    program stops it and what it started: its own child, and one it detached)."""
    _, record = detached_child(str(here), "thinker", decide=THINKS)
    process = evaluate_until_a_decision(here, record, "proc:./thinker", "heuristic", "random")
    process.send_signal(getattr(signal, stop))
    _, err = process.communicate(timeout=60)
    if stop == "SIGINT":
        assert (
            process.returncode == 130
            and err == "\nevaluate.py: stopped by Ctrl-C; nothing written\n"
        ), (process.returncode, err)
    else:
        assert process.returncode == -getattr(signal, stop) and "Traceback" not in err, (
            process.returncode,
            err,
        )
    pids = {r["pid"] for r in records(record)}
    assert len(pids) == 3 and gone(pids, within=5.0)  # the program, its child, the detached one
    assert sorted(os.listdir(here)) == ["runs", "thinker", "thinker.record"]


@pytest.mark.slow
def test_a_program_that_stays_after_its_input_closes_is_killed_and_the_match_counts(here):
    _, record = write_program(str(here), "stays", after="time.sleep(600)")
    result = run_match(["proc:./stays", "heuristic", "random"], games=6, rules=RULES)
    assert len(result.sequence) == 6
    assert gone({r["pid"] for r in records(record)}, within=0.5)
    assert "killed" in (here / "runs" / "proc" / "stays.log").read_text()


@pytest.mark.slow
def test_a_failure_in_a_worker_is_one_line_and_no_process_is_left(here):
    _, record = write_program(
        str(here),
        "late",
        decide="""\
            if max(games) >= 12:
                time.sleep(600)
            print(json.dumps({"actions": [names[0] for names in legal]}), flush=True)
            """,
    )
    with pytest.raises(ValueError, match=r"games 12\.\.23 of the match: player .* within 1 s"):
        run_match(
            ["proc:./late:timeout=1", "heuristic", "random"], games=24, rules=RULES, workers=2
        )
    assert gone({r["pid"] for r in records(record)})


@pytest.mark.slow
def test_the_command_line_names_the_failure_in_one_line(here, capsys):
    write_program(str(here), "bad", decide='print("oops", flush=True)')
    status = evaluate.main(
        ["proc:./bad", "heuristic", "random", "--games", "6", "--quiet", "--workers", "1"]
    )
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and ": error: player 'proc:./bad': program ./bad (pid " in err
    assert re.search(r"answered 'oops' to the decision of games? \d+", err)
    assert f"its stderr: {here / 'runs' / 'proc' / 'bad.log'}" in err


@pytest.mark.slow
def test_a_league_keeps_the_matches_stored_before_a_program_fails(here):
    _, record = write_program(
        str(here),
        "second",  # fails in its second match
        decide="""\
            if len([1 for e in open(RECORD) if '"hello"' in e]) > 1:
                sys.exit(1)
            print(json.dumps({"actions": [names[0] for names in legal]}), flush=True)
            """,
    )
    store = Store(str(here / "league.sqlite"))
    specs = [
        "proc:./second",
        "heuristic",
        "random",
        "ghost_euchre.agents.random_policy:RandomPolicy",
    ]
    with pytest.raises(ValueError, match=r"^match .*: player 'proc:./second': program ./second"):
        run_league(specs, store, games=6, seed=0, rules=RULES)
    assert len(store.matches()) >= 1  # what was finished before is kept
    rerun = Store(str(here / "league.sqlite"))
    assert len(rerun.matches()) == len(store.matches())
    assert gone({r["pid"] for r in records(record)})


# ----------------------------------------------------------------------- the C examples (slow)
COMPILER = shutil.which("cc") or shutil.which("gcc")


@pytest.mark.slow
@pytest.mark.skipif(COMPILER is None, reason="no C compiler")
def test_the_c_examples_build_and_play_matches_and_a_league(here):
    assert COMPILER is not None
    for name in ("first_legal", "simple_rule"):
        source = os.path.join(ROOT, "ghost_euchre", "examples", "proc", f"{name}.c")
        subprocess.run([COMPILER, "-O2", "-Wall", "-Werror", "-o", name, source], check=True)
    for variant, others in (("ghost", ["heuristic", "random"]), ("classic", ["heuristic"] * 3)):
        for name in ("first_legal", "simple_rule"):
            result = run_match([f"proc:./{name}", *others], variant, games=12, rules=RULES)
            assert result.players[0]["games"] == 12
    store = Store(str(here / "league.sqlite"))
    run = run_league(
        ["proc:./first_legal", "proc:./simple_rule", "heuristic", "random"], store, games=6
    )
    assert len(run.played) == 4


@pytest.mark.slow
def test_a_program_plays_at_the_table_of_a_narrated_game(here):
    _, record = write_program(str(here), "bot")
    lines = []
    scores = play_interactive(
        ["proc:./bot", "heuristic", "random"], games=2, rules=RULES, out=lines.append
    )
    assert len(scores) == 2 and any("=== game 2 of 2 ===" in line for line in lines)
    seen = records(record)
    assert {g for r in seen if r["type"] == "decide" for g in r["games"]} == {0, 1}
    assert [r["type"] for r in seen][-2:] == ["match_over", "eof"]
    assert gone({r["pid"] for r in seen})


def test_the_protocol_page_shows_the_messages_as_they_are_written():
    with open(os.path.join(ROOT, "docs", "protocol.md"), encoding="utf-8") as handle:
        page = handle.read()
    shown = re.findall(r"```json\n(.*?)\n```", page, re.DOTALL)
    hello, name, decide, answer, ended = shown
    game = variants.make("ghost").make_game()
    messages = Messages(game)
    assert hello == messages.hello(4052128211375542337)
    assert messages.read_name(name.encode()) == "my-bot"
    state = game.init(np.array([5], np.uint64))  # the page's game: dealt from key 5, then
    for _ in range(9):  # nine decisions of the first legal action
        game.step(state, game.legal_mask(state).argmax(axis=1))
    obs, mask = game.observe(state, state.player.astype(np.int64)), game.legal_mask(state)
    assert decide == messages.decide(obs, mask, [3])
    assert messages.read_actions(answer.encode(), mask, [3]).tolist() == [
        messages.action_ids["pass"]
    ]
    assert ended == messages.game_over([3], np.array([[32, 17, -4]]), [True], [False])
