"""The web page as an attacker tries it: every class of probe is refused with a 4xx and one JSON
line, and nothing is imported, read, created or changed (ghost_euchre.arena.web, ghost_euchre.arena.web.gate, ghost_euchre.arena.web.guard).

Probes go to the app through Starlette's TestClient, or to uvicorn on 127.0.0.1
where the transport matters (timeouts, connection cap, a client that leaves).
"""

import contextlib
import dataclasses
import hashlib
import http.client
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys

import numpy as np
import pytest
import torch
import uvicorn
from starlette.testclient import WebSocketDenialResponse
from web_helpers import BASE, Gated, assert_error, served, web_client

from ghost_euchre.agents import ppo
from ghost_euchre.agents.networks import ActorCritic, policy_payload
from ghost_euchre.agents.pretrained import NETWORKS
from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena.report import share_cell
from ghost_euchre.arena.store import Store, player_identity
from ghost_euchre.arena.web import create_app
from ghost_euchre.arena.web import games as web
from ghost_euchre.arena.web import guard as web_http
from ghost_euchre.arena.web import league as web_league
from ghost_euchre.arena.web.games import (
    MAX_RECORD_ACTIONS,
    REPLAY_PAGE,
    GameStore,
    PlayGame,
    game_record,
)
from ghost_euchre.arena.web.gate import PRETRAINED_DIR, SpecGate
from ghost_euchre.arena.web.guard import MAX_ERROR_CHARS
from ghost_euchre.arena.web.table import Table, seed_key
from ghost_euchre_env import ghost
from ghost_euchre_env.classic import ClassicEuchre
from ghost_euchre_env.ghost import GhostEuchre
from ghost_euchre_env.records import records_from_dict, records_to_dict

PROBE_MODULE = "probe_module_issue24"  # importing it would write PROBE_MARK next to it


@pytest.fixture
def games():
    return GameStore(max_games=8, per_client=4)


@pytest.fixture
def client(games):
    return web_client(create_app(db=None, games=games))


@pytest.fixture(scope="module", autouse=True)
def _page_warmed(tmp_path_factory):
    """The page's own first work done once in this process: the engine's compiled rules loaded
    (a first table; numba imports modules of its own then) and a good policy file checked (torch
    imports its device context then). A test's count of modules then sees only what the request
    itself imports, whatever ran before in the process (its file alone, an xdist worker)."""
    for variant in ("ghost", "classic"):
        Table(variant, seed_key(0), "game", {})
    folder = tmp_path_factory.mktemp("warm")
    write_policy(folder / "mine.pt")
    SpecGate([str(folder)]).check("ppo:mine.pt")


@pytest.fixture
def working_folder(tmp_path, monkeypatch):
    """A fresh, empty working folder for the test (the one whose listing a test compares): no
    other test's process (pytest-xdist runs several) writes into it meanwhile."""
    folder = tmp_path / "working"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def probe_module(tmp_path, monkeypatch):
    """A module on sys.path whose import (its top-level code) creates a file: (name, that file)."""
    mark = tmp_path / "imported"
    (tmp_path / f"{PROBE_MODULE}.py").write_text(
        f"open({str(mark)!r}, 'w').close()\nclass X:\n    def __init__(self, *a, **k):\n"
        f"        open({str(mark)!r}, 'a').write('called')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return PROBE_MODULE, mark


@pytest.fixture
def touched(monkeypatch):
    """Every path the process opens, stats or resolves while the test runs (a list)."""
    paths = []
    for module, name in ((os, "stat"), (os, "lstat"), (os.path, "realpath"), (os, "listdir")):
        real = getattr(module, name)

        def spy(path=".", *args, real=real, **kwargs):
            paths.append(os.fspath(path) if isinstance(path, (str, os.PathLike)) else path)
            return real(path, *args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    hook_paths = paths

    def audit(event, args):
        if event == "open" and hook_paths is paths and isinstance(args[0], str):
            paths.append(args[0])

    sys.addaudithook(audit)  # audit hooks stay for the process; this one records only here
    yield paths
    hook_paths = None


def folder_state(folder):
    """{relative path: (size, mtime_ns, sha256)} of every file under ``folder``."""
    state = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
            info = os.stat(path)
            state[os.path.relpath(path, folder)] = (info.st_size, info.st_mtime_ns, digest)
    return state


def new_game(client, **body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


# ------------------------------------------------------------ the allow-list
CODE_PROBES = [
    "this:X",
    "venv.__main__:X",
    "unittest.__main__:X",
    "subprocess:Popen",
    "os:system",
    "shutil:rmtree",
    "ghost_euchre.agents.human:HumanPolicy",
    "ghost_euchre.agents.random_policy:RandomPolicy",  # a harmless class is still not the client's choice
    f"{PROBE_MODULE}:X",
    f"composite[heuristic | {PROBE_MODULE}:X]",
    f"composite[composite[random | {PROBE_MODULE}:X] | heuristic]",
    f"pimc:rollout={PROBE_MODULE}:X",
    f"pimc:rollout=composite[heuristic | {PROBE_MODULE}:X]",
]
HUMAN_PROBES = [
    "human",
    "human:x=1",
    "composite[human | heuristic]",
    "composite[heuristic | composite[random | human]]",
    "pimc:rollout=human",
    "pimc:rollout=composite[heuristic | human],samples=2",
    "search:network=human",
]


def nested(depth, leaf="random"):
    """composite[composite[... leaf ... | random] | random], ``depth`` composites deep."""
    return leaf if depth == 0 else f"composite[{nested(depth - 1, leaf)} | random]"


WORK_PROBES = [
    ("pimc:samples=1000000", "samples"),
    ("pimc:samples=0", "samples"),
    ("pimc:max_games=1000000000", "max_games"),
    ("pimc:objective=greed", "objective"),
    ("pimc:rollout=pimc", "playout"),
    ("pimc:rollout=composite[pimc | heuristic]", "playout"),
    ("pimc:depth=3", "depth"),
    ("search:samples=129", "samples"),
    ("search:pool=5", "pool"),
    ("search:infer=oracle", "infer"),
    ("search:floor=1.5", "floor"),
    ("search:rollout=search", "playout"),
    ("search:network=pimc", "playout"),
    ("search:network=ppo:../../etc/passwd", "not a policy file"),
    ("heuristic:depth=3", "depth"),
    ("random:seed=4", "seed"),
    ("ppo:ghost_ppo.pt:temperature=9", "temperature"),
    (nested(4), "nest"),
    (nested(2, "pimc:rollout=composite[random | heuristic]"), "nest"),
    (nested(400), "200 characters"),
    ("pimc:rollout=" * 10 + "random", "playout"),
    ("x" * 5000, "200 characters"),
]


@pytest.mark.parametrize("spec", CODE_PROBES + HUMAN_PROBES + [w for w, _ in WORK_PROBES])
@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.usefixtures("working_folder")
def test_a_spec_outside_the_allow_list_is_refused_before_anything_is_imported_or_made(
    client, games, probe_module, spec, seat, tmp_path
):
    client.get("/api/options")  # the app's own lazy imports happen here, before the probe
    name, mark = probe_module
    modules, folder = set(sys.modules), sorted(os.listdir())
    bots = ["heuristic", spec] if seat else [spec, "heuristic"]
    message = assert_error(client.post("/api/games", json={"bots": bots}), 400, f"bots[{seat}]")
    assert len(message) <= MAX_ERROR_CHARS
    assert set(sys.modules) == modules and name not in sys.modules
    assert not mark.exists()  # the probe module's code never ran
    assert len(games) == 0 and sorted(os.listdir()) == folder


@pytest.mark.parametrize(("spec", "word"), WORK_PROBES)
def test_oversized_bot_work_is_refused_naming_the_bound(client, spec, word):
    assert_error(client.post("/api/games", json={"bots": [spec, "heuristic"]}), 400, word)


def test_human_is_refused_at_every_depth_with_a_reason(client):
    for spec in HUMAN_PROBES:
        response = client.post("/api/games", json={"bots": ["heuristic", spec]})
        assert_error(response, 400, "human")


def test_every_offered_spec_is_accepted_and_builds(client):
    offered = client.get("/api/options").json()["specs"]
    assert {"heuristic", "random", "pimc", "ppo:ghost", "ppo:classic"} <= set(offered)
    gate = SpecGate()
    for spec in offered:
        gate.check(spec)  # no ValueError
    game = new_game(client, seed=3, bots=["ppo:ghost_ppo.pt", "pimc:samples=2"], episode="deal")
    assert [s["name"] for s in game["view"]["seats"]] == [
        "you",
        "ppo:ghost_ppo.pt",
        "pimc:samples=2",
    ]
    searcher = "search:samples=2,pool=2,infer=mix,top=3,prior=0.5,network=ppo:ghost"
    game = new_game(client, seed=3, bots=[searcher, "search:samples=2"], episode="deal")
    assert game["view"]["seats"][1]["name"] == searcher
    path_spec = "composite[ppo:ghost_euchre/agents/pretrained/ghost_ppo.pt | pimc:rollout=ppo:ghost_ppo.pt,samples=2]"
    assert new_game(client, seed=3, bots=[path_spec, "random"], episode="deal")["view"]


# ------------------------------------------------------------- policy files
def test_policy_files_outside_the_directories_are_never_touched_and_answer_alike(
    client, touched, tmp_path
):
    outside = tmp_path / "secret.pt"
    outside.write_bytes(b"not yours")
    answers = {}
    for target in (
        "/etc/passwd",
        "/proc/self/environ",
        str(outside),
        str(tmp_path / "missing.pt"),
        "../../../../etc/passwd",
        "ghost_euchre/agents/pretrained/../../../README.md",
        os.path.join(PRETRAINED_DIR, "..", "..", "..", "README.md"),
    ):
        touched.clear()
        response = client.post("/api/games", json={"bots": [f"ppo:{target}", "heuristic"]})
        message = assert_error(response, 400, "not a policy file of this page")
        answers[target] = message.split(" is not", 1)[1]  # what follows the name
        lexical = os.path.abspath(target)
        assert not [p for p in touched if isinstance(p, str) and os.path.abspath(p) == lexical]
        assert not [p for p in touched if isinstance(p, str) and p.startswith(str(tmp_path))]
    assert len(set(answers.values())) == 1, answers  # existing and missing files answer alike


def test_policy_dir_offers_its_files_only_by_real_path(tmp_path):
    folder, elsewhere = tmp_path / "policies", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    shutil.copy(os.path.join(PRETRAINED_DIR, "ghost_ppo.pt"), folder / "mine.pt")
    shutil.copy(os.path.join(PRETRAINED_DIR, "ghost_ppo.pt"), elsewhere / "theirs.pt")
    (folder / "escape.pt").symlink_to(elsewhere / "theirs.pt")  # inside by name, outside really
    (folder / "notes.txt").write_text("not a policy")
    gate = SpecGate([str(folder)])
    assert gate.policy_files() == ["mine.pt"]
    assert gate.check("ppo:mine.pt") == f"ppo:{os.path.realpath(folder / 'mine.pt')}"
    assert gate.check(f"ppo:{folder / 'mine.pt'}:sample=true").endswith("mine.pt:sample=true")
    first = None
    for target in ("escape.pt", "notes.txt", "ghost_ppo.pt", str(elsewhere / "theirs.pt")):
        with pytest.raises(ValueError, match="not a policy file of this page") as refused:
            gate.check(f"ppo:{target}")
        message = str(refused.value).split(" is not", 1)[1]
        assert first in (None, message)
        first = message
    client = web_client(create_app(db=None, gate=gate))
    game = new_game(client, seed=1, bots=["ppo:mine.pt", "heuristic"], episode="deal")
    assert game["view"]["seats"][1]["name"] == "ppo:mine.pt"
    assert str(tmp_path) not in json.dumps(game)  # the server's folders are not told


def test_shipped_networks_are_offered_by_name_where_their_folder_is_offered(tmp_path):
    assert SpecGate().policy_names()[: len(NETWORKS)] == list(NETWORKS)
    assert SpecGate().check("ppo:ghost") == SpecGate().check("ppo:ghost_ppo.pt")
    folder = tmp_path / "policies"
    folder.mkdir()
    shutil.copy(os.path.join(PRETRAINED_DIR, "ghost_ppo.pt"), folder / "ghost_ppo.pt")
    gate = SpecGate([str(folder)])
    assert gate.policy_names() == ["ghost_ppo.pt"]  # a copy is not the shipped network
    with pytest.raises(ValueError, match="not a policy file of this page"):
        gate.check("ppo:ghost")


def test_the_operator_allows_a_class_by_name_exactly_as_written(probe_module):
    name, mark = probe_module
    gate = SpecGate(allowed=[f"{name}:X", "pimc:samples=1024"])
    assert gate.check(f"{name}:X") == f"{name}:X"
    assert gate.check(f"composite[{name}:X | pimc:samples=1024]")
    with pytest.raises(ValueError, match="not offered"):
        gate.check(f"{name}:X:depth=2")  # not as written
    assert not mark.exists() and name not in sys.modules  # checking builds nothing
    with pytest.raises(ValueError, match="human"):
        SpecGate(allowed=["composite[human | heuristic]"])


# ------------------------------------------------------- origin and host
def test_cross_origin_foreign_host_and_non_json_requests_are_refused(client, games):
    game = new_game(client, seed=2)
    url = f"/api/games/{game['id']}"
    before = client.get(url).json()
    evil = {"origin": "http://evil.example"}
    for response, status, word in (
        (client.post("/api/games", json={}, headers=evil), 403, "cross-origin"),
        (client.post("/api/games", json={}, headers={"origin": "null"}), 403, "cross-origin"),
        (client.post(url + "/actions", json={"action": 0}, headers=evil), 403, "cross-origin"),
        (client.delete(url, headers=evil), 403, "cross-origin"),
        (client.get(url, headers={"sec-fetch-site": "cross-site"}), 403, "cross-site"),
        (client.get("/api/options", headers={"host": "evil.example"}), 400, "Host"),
        (client.get(url, headers={"host": "rebound.example:8000"}), 400, "Host"),
        (
            client.post("/api/games", content="{}", headers={"content-type": "text/plain"}),
            415,
            "application/json",
        ),
        (
            client.post(
                "/api/games",
                content="a=1",
                headers={"content-type": "application/x-www-form-urlencoded"},
            ),
            415,
            "application/json",
        ),
    ):
        assert_error(response, status, word)
    assert len(games) == 1 and client.get(url).json() == before
    same = client.post("/api/games", json={"seed": 3}, headers={"origin": BASE})
    assert same.status_code == 201
    page = client.get("/play")
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"


def test_the_public_host_needs_the_flag_and_then_offers_built_ins_only(monkeypatch, capsys):
    ran = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: ran.append(sockets))
    assert evaluate.main(["serve", "--host", "0.0.0.0", "--port", "0"]) == 2
    out, err = capsys.readouterr()
    assert "--public" in err and len(err.strip().splitlines()) == 1 and "page:" not in out
    for extra in (["--allow-spec", "heuristic"], ["--policy-dir", "."]):
        assert evaluate.main(["serve", "--host", "0.0.0.0", "--public", *extra]) == 2
        assert "built-in bots only" in capsys.readouterr().err
    assert not ran
    assert evaluate.main(["serve", "--host", "0.0.0.0", "--port", "0", "--public"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("WARNING") and "page: http://0.0.0.0:" in out
    (sockets,) = ran
    for sock in sockets:
        sock.close()
    public = web_client(create_app(db=None, hosts={"myhost"}, any_ip=True))
    assert public.get("/api/options", headers={"host": "192.168.1.7:8000"}).status_code == 200
    assert public.get("/api/options", headers={"host": "myhost:8000"}).status_code == 200
    assert_error(public.get("/api/options", headers={"host": "evil.example:8000"}), 400, "Host")


def test_serve_prints_the_address_only_once_listening(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert evaluate.main(["serve", "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "cannot listen" in err
    with web_http.listen("127.0.0.1", 0) as sock:  # named TCP: asyncio then sets TCP_NODELAY
        assert sock.proto == socket.IPPROTO_TCP


# ------------------------------------------------------------ bounded work
def test_rules_seeds_and_records_are_bounded(client, games):
    for body, word in (
        ({"rules": {"renege_penalty": 10**20}}, "renege_penalty"),
        ({"rules": {"max_deals": 10**6}}, "max_deals"),
        ({"rules": {"target_score": 5000}}, "target_score"),
        ({"rules": {"auction": "x" * 100}}, "auction"),
        ({"rules": {f"k{i}": 1 for i in range(40)}}, "rules"),
        ({"seed": 2**64}, "seed"),
        ({"seed": 1.5}, "seed"),
    ):
        assert_error(client.post("/api/games", json=body), 400, word)
    assert len(games) == 0


def long_record(seed=0, target=10):
    """A records file of one whole classic game to ``target`` points (random play), and its actions."""
    table = Table("classic", seed, "game", {"target_score": target}, ["a", "b", "c", "d"])
    rng = np.random.default_rng(seed)
    while not table.over:
        table.apply(int(rng.choice(table.legal())))
    play = PlayGame(table, 0, seed, [], [], np.zeros((1, 4), np.int64))
    return game_record(play), [m["action"] for m in table.moves]


def test_long_replays_come_in_pages_that_add_up_to_the_whole(client):
    record, actions = long_record(3)
    assert len(actions) > REPLAY_PAGE  # more than one page
    first_page = client.post("/api/replays", json={"records": record}).json()
    assert first_page["positions"] == len(actions) + 1 and first_page["page"] == REPLAY_PAGE
    frames = []
    while len(frames) < first_page["positions"]:
        page = client.post("/api/replays", json={"records": record, "first": len(frames)}).json()
        assert page["first"] == len(frames) and 0 < len(page["frames"]) <= REPLAY_PAGE
        frames += page["frames"]
    key = int(record["games"][0]["key"], 16)
    whole = Table("classic", key, "game", {"target_score": 10}, ["a", "b", "c", "d"])
    assert frames == whole.replay(actions)["frames"]
    assert_error(
        client.post("/api/replays", json={"records": record, "first": 10**6}), 400, "first"
    )


def test_a_record_longer_than_any_page_game_is_refused_unplayed(client, monkeypatch):
    record, actions = long_record(4)
    (parsed,) = records_from_dict(record)
    monkeypatch.setattr(web, "check_records", lambda _: pytest.fail("the record was replayed"))
    repeats = MAX_RECORD_ACTIONS // len(actions) + 1
    big = records_to_dict([dataclasses.replace(parsed, actions=bytes(actions) * repeats)])
    assert_error(client.post("/api/replays", json={"records": big}), 413, str(MAX_RECORD_ACTIONS))
    renamed = records_to_dict([dataclasses.replace(parsed, names=("x" * 500,) * 4)])
    monkeypatch.undo()
    assert_error(client.post("/api/replays", json={"records": renamed}), 422, "name")


def test_one_client_gets_a_share_of_the_games_only(games):
    app = create_app(db=None, games=games)
    first, second = web_client(app), web_client(app, client=("10.0.0.2", 1))
    for seed in range(4):
        new_game(first, seed=seed)
    assert_error(first.post("/api/games", json={"seed": 9}), 503, "at most 4")
    assert new_game(second, seed=9)["view"]  # another client still plays
    assert len(games) == 5


def test_a_request_whose_client_left_stops_its_bots(monkeypatch):
    """uvicorn on 127.0.0.1: the client sends a new game and hangs up while the first bot thinks."""
    Gated.calls = 0
    Gated.release.clear()
    Gated.entered.clear()
    games = GameStore()
    app = create_app(db=None, games=games, gate=SpecGate(allowed=["web_helpers:Gated"]))
    with served(app) as (port, _):
        first = Table("ghost", seed_key(1)).to_act
        assert first is not None
        seat = (first - 1) % 3  # both bots move before the person
        body = json.dumps({"seat": seat, "bots": ["web_helpers:Gated"] * 2, "seed": 1}).encode()
        with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
            sock.sendall(
                b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            assert Gated.entered.wait(60)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("GET", "/api/options")  # served after the hang-up was seen
        assert connection.getresponse().status == 200
        Gated.release.set()
        while app.state.bot_threads.borrowed_tokens:  # the game's work returns
            Gated.entered.wait(0.05)
    assert Gated.calls == 1 and len(games) == 0  # no second decision, no game kept


def raw_response(sock):
    """One HTTP response read off ``sock`` (its head and Content-Length body), as text."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
    while len(body) < length:
        body += sock.recv(4096)
    return (head + b"\r\n\r\n" + body).decode()


def test_idle_and_slow_connections_are_closed_and_connections_capped():
    app = create_app(db=None)
    address = ("127.0.0.1",)
    limits = {"request_timeout_s": 2.0, "idle_timeout_s": 1.0, "max_connections": 3}
    with served(app, **limits) as (port, _):
        with contextlib.ExitStack() as stack:
            connect = lambda: stack.enter_context(  # noqa: E731
                socket.create_connection((*address, port), timeout=60)
            )
            idle = connect()
            slow = connect()
            slow.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0")  # and never the rest
            assert idle.recv(1) == b"" and slow.recv(1) == b""  # the deadlines closed both
            third = connect()
            third.sendall(b"GET /api/options HTTP/1.1\r\n")
            busy = [connect() for _ in range(2)]
            for sock in busy:  # served, kept alive: none of them is silent
                sock.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert raw_response(sock).startswith("HTTP/1.1 200")
            with socket.create_connection((*address, port), timeout=60) as over:
                over.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                answer = raw_response(over)
                assert over.recv(1) == b""  # the 503 closes its connection
            assert answer.startswith("HTTP/1.1 503") and '{"error":' in answer
            assert "content-security-policy" in answer.lower()
            third.sendall(b"NOT HTTP\r\n\r\n")
            answer = raw_response(third)
            assert answer.startswith("HTTP/1.1 400") and '{"error": "invalid HTTP request' in answer
            assert "x-content-type-options: nosniff" in answer.lower()
        with socket.create_connection((*address, port), timeout=60) as big:
            big.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"y" * 9000)
            assert raw_response(big).startswith("HTTP/1.1 400")  # over 8 kB of headers, unfinished


def test_at_the_cap_a_new_connection_closes_the_longest_silent_one():
    app = create_app(db=None)
    with served(app, max_connections=2) as (port, _), contextlib.ExitStack() as stack:
        silent = [
            stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=60))
            for _ in range(2)
        ]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("GET", "/api/options")
        assert connection.getresponse().status == 200  # served, not refused
        assert silent[0].recv(1) == b""  # the oldest silent one made room


# --------------------------------------------------------- hidden cards
def test_no_seed_or_dealing_key_leaves_the_server_before_the_game_ends(client, games):
    game = new_game(client, episode="deal", bots=["random", "random"])
    (held,) = games._games.values()
    secrets_ = {
        str(held.seed),
        str(held.table.key),
        f"{held.table.key:x}",
        f"{held.table.key:016x}",
    }
    rng = np.random.default_rng(0)
    while not game["view"]["over"]:
        assert "seed" not in game
        text = json.dumps(game)
        assert not [s for s in secrets_ if f": {s}," in text or f'"{s}"' in text], text[:200]
        assert_error(client.get(f"/api/games/{game['id']}/record"), 409, "not over")
        action = int(rng.choice(game["view"]["legal"]))
        game = client.post(f"/api/games/{game['id']}/actions", json={"action": action}).json()
    assert game["seed"] == str(held.seed)  # a string: past JavaScript's 53-bit numbers
    assert client.get(f"/api/games/{game['id']}/record").status_code == 200


# ------------------------------------------------------------- error shapes
@pytest.mark.parametrize(
    ("body", "status", "word"),
    [
        (b"[" * 100_000 + b"]" * 100_000, 400, "nests deeper"),
        (b"[" * 40 + b"]" * 40, 400, "nests deeper"),
        (b'{"seed": ' + b"9" * 5000 + b"}", 400, "digits"),
        (b'{"bots": ["\\ud800", "heuristic"]}', 400, "surrogate"),
        (b'{"seed": NaN}', 400, "NaN"),
        (b'{"seed": 1e400}', 400, "seed"),
        (b"\xff\xfe\x00{", 400, "JSON"),
        (b'{"rules": {"renege_penalty": ' + str(10**30).encode() + b"}}", 400, "31 digits"),
        (b" " * (2 << 20), 413, "bytes"),
    ],
)
def test_every_bad_body_is_one_short_json_line(client, games, body, status, word):
    assert_error(client.post("/api/games", content=body), status, word)
    assert len(games) == 0


def test_errors_of_every_route_are_one_short_json_line(client):
    long_spec = nested(40)
    for response, status in (
        (client.post("/api/games", json={"bots": [long_spec * 10, "random"]}), 400),
        (client.get("/nowhere" + "x" * 5000), 404),
        (client.get("/static/nothing.js"), 404),
        (client.put("/api/games", json={}), 405),
        (client.options("/api/games"), 405),
        (client.get("/api/games/" + "z" * 3000), 404),
        (client.get("/api/leaderboard?group=" + "9" * 5000), 400),
        (client.get("/api/store/matches/1/games/0/replay?first=-1"), 400),
        (client.post("/api/replays", json={"records": {"games": [[]] * 1000}}), 422),
        (client.post("/api/replays", json={"records": "x" * 100_000}), 422),
    ):
        assert_error(response, status)


def test_a_chunked_body_over_the_limit_is_refused(client, games):
    chunks = (b"[" + b" " * 65536 for _ in range(40))  # 2.6 MB, no Content-Length
    assert_error(client.post("/api/games", content=chunks), 413, "bytes")
    assert len(games) == 0


# ---------------------------------------------------------- league store
def test_the_league_store_is_read_in_one_transaction_cached_and_never_changed(
    league_db, tmp_path, monkeypatch
):
    db = str(tmp_path / "league.sqlite")
    shutil.copy(league_db, db)
    before = folder_state(tmp_path)
    fits = []
    real = web_league.leaderboard

    def counting(store, **group):
        fits.append(store.db.in_transaction)
        return real(store, **group)

    monkeypatch.setattr(web_league, "leaderboard", counting)
    client = web_client(create_app(db=db))
    first = client.get("/api/leaderboard").json()
    assert client.get("/api/leaderboard").json() == first
    assert client.get("/api/leaderboard/plot.png").status_code == 200
    assert fits == [True]  # fitted once, inside a read transaction
    matches = client.get("/api/store").json()["matches"]
    replay = client.get(f"/api/store/matches/{matches[0]['id']}/games/0/replay").json()
    assert replay["frames"]
    for probe in ("/api/leaderboard?group=9", "/api/store/matches/99/games"):
        assert client.get(probe).status_code in (400, 404)
    after = folder_state(tmp_path)
    assert after["league.sqlite"] == before["league.sqlite"]  # not a byte, not the mtime
    assert set(after) <= {"league.sqlite", "league.sqlite-wal", "league.sqlite-shm"}
    with Store(db) as writer:  # another connection commits: the board is fitted again
        writer.player_id(player_identity("random:new=1"))
    assert client.get("/api/leaderboard").json()["board"] == first["board"]
    assert fits == [True, True]


def test_the_page_shows_the_leaderboard_numbers_as_the_cli_prints_them(league_db):
    data = web_client(create_app(db=league_db)).get("/api/leaderboard").json()
    assert share_cell(0.625) == "62%" and share_cell(None) == "-"
    assert data["text"]["head_to_head"] == [
        [share_cell(s) for s in row] for row in data["board"]["head_to_head"]
    ]
    rates = [p["win_rate"] for p in data["board"]["players"]]
    assert [t["win_rate"] for t in data["text"]["players"]] == [f"{r:.1%}" for r in rates]


# ----------------------------------------------------------- watch frames
def engine_at(record, position):
    """The state of a fresh engine after the record's first ``position`` actions (no arena code)."""
    engine = GhostEuchre if record.variant == "ghost" else ClassicEuchre
    game = engine(episode=record.episode, **record.rules)
    state = game.init(np.array([record.key], np.uint64))
    for action in record.actions[:position]:
        game.step(state, np.array([action]))
    return state


@pytest.mark.parametrize("match", [0, 4])  # a ghost and a classic league match
def test_each_watch_frame_shows_only_the_tricks_completed_by_then(league_db, match):
    client = web_client(create_app(db=league_db))
    match_id = client.get("/api/store").json()["matches"][match]["id"]
    (record,) = Store(league_db).game_records(match_id, [0])
    frames = client.get(f"/api/store/matches/{match_id}/games/0/replay").json()["frames"]
    assert len(frames) == min(len(record.actions) + 1, REPLAY_PAGE)
    counts = set()
    for position, frame in enumerate(frames):
        state = engine_at(record, position)
        won = state.tricks_won[0].tolist()
        winners = [t["winner"] for t in frame["tricks"]]
        assert [winners.count(seat) for seat in range(len(won))] == won, position
        held = np.bitwise_or.reduce(state.hands[0])
        shown = [c["card"]["id"] for t in frame["tricks"] for c in t["cards"]]
        assert not [c for c in shown if int(held) >> c & 1], position  # no card still held
        counts.add(len(frame["tricks"]))
    assert counts >= {0, 1, 2}  # the frames do differ


def test_declarer_is_named_after_the_auction_only():
    table = Table("ghost", 5)
    rng = np.random.default_rng(1)
    phases = set()
    while not table.over and len(table.deals) < 6:
        view = table.view(range(3))
        roles = {r: s["seat"] for s in view["seats"] for r in s["roles"]}
        auction = view["phase"] == "auction"
        phases.add((auction, "declarer" in roles, "high bidder" in roles))
        if not auction:
            assert roles["declarer"] == table.state.maker[0]
        assert not (auction and "declarer" in roles)
        legal = table.legal()
        bids = [a for a in legal if a in (ghost.BID_3, ghost.BID_4)]
        table.apply(int(rng.choice(bids or legal)))
    assert {(True, False, True), (False, True, False)} <= phases


# ----------------------------------------------- what a policy file carries
def write_policy(path, learn="all", partner=None, **config):
    """A small Ghost Hand policy file at ``path`` (an MLP of 8 units; ``config``: model_config
    entries to set or, given as None, to leave out) recording ``learn`` and ``partner``."""
    model = ActorCritic(GhostEuchre().obs_size, GhostEuchre().num_actions, hidden_sizes=(8,))
    payload = policy_payload(model, learn, partner)
    for key, value in config.items():
        payload["model_config"][key] = value
    payload["model_config"] = {k: v for k, v in payload["model_config"].items() if v is not None}
    torch.save(payload, path)


@pytest.fixture
def policy_folder(tmp_path):
    """A policy folder with one good file (``mine.pt``, a bidder whose partner is heuristic)."""
    folder = tmp_path / "policies"
    folder.mkdir()
    write_policy(folder / "mine.pt", "auction", "heuristic")
    return folder


@contextlib.contextmanager
def nothing_done(games, *folders):
    """Asserts that the block imports no module, holds no new game and changes no file of
    ``folders`` or of the working folder."""
    modules, here = set(sys.modules), sorted(os.listdir())
    states = [folder_state(folder) for folder in folders]
    yield
    assert set(sys.modules) == modules
    assert len(games) == 0 and sorted(os.listdir()) == here
    assert [folder_state(folder) for folder in folders] == states


RECORDED_PROBES = [
    (f"{PROBE_MODULE}:X", "not offered"),
    (f"composite[heuristic | {PROBE_MODULE}:X]", "not offered"),
    (f"pimc:rollout={PROBE_MODULE}:X", "playout"),
    ("pimc:samples=100000", "samples"),
    ("pimc:max_games=1000000000", "max_games"),
    ("pimc:rollout=pimc", "playout"),
    ("human", "human"),
    ("ppo:/etc/passwd", "not a policy file"),
    ("ppo:../outside.pt", "not a policy file"),
    (nested(4), "nest"),
    ("ppo:loop.pt", "nest"),  # a file whose partner is itself
    ("x" * 300, "200 characters"),
]


@pytest.mark.parametrize(("partner", "word"), RECORDED_PROBES)
@pytest.mark.usefixtures("working_folder")
def test_a_partner_recorded_in_a_policy_file_goes_through_the_gate(
    policy_folder, probe_module, games, touched, partner, word
):
    name, mark = probe_module
    outside = policy_folder.parent / "outside.pt"
    write_policy(outside, "all")
    write_policy(policy_folder / "bad.pt", "auction", partner)
    write_policy(policy_folder / "loop.pt", "play", "ppo:loop.pt")
    client = web_client(create_app(db=None, games=games, gate=SpecGate([str(policy_folder)])))
    client.get("/api/options")
    with nothing_done(games, policy_folder.parent):
        touched.clear()
        response = client.post("/api/games", json={"bots": ["ppo:bad.pt", "heuristic"]})
        seen = list(touched)
        named = "ppo:loop.pt" if partner == "ppo:loop.pt" else "ppo:bad.pt"
        message = assert_error(response, 400, "bots[0]", named, "recorded", word)
    assert not mark.exists() and name not in sys.modules  # nothing imported, nothing called
    assert str(policy_folder) not in message
    assert not [p for p in seen if isinstance(p, str) and p in ("/etc/passwd", str(outside))]


@pytest.mark.parametrize(
    ("config", "word"),
    [
        ({"model": f"{PROBE_MODULE}:X", "model_options": {}}, "class to import"),
        ({"hidden_sizes": [100_000, 100_000]}, "does not match the weights"),
        ({"hidden_sizes": [8] * 1000}, "layers"),
        ({"activation": "exec"}, "does not build"),
        ({"hidden_sizes": None, "obs_size": "x"}, "does not build"),
    ],
)
@pytest.mark.usefixtures("working_folder")
def test_a_policy_file_naming_code_or_a_bigger_network_is_refused_unbuilt(
    policy_folder, probe_module, games, monkeypatch, config, word
):
    name, mark = probe_module
    write_policy(policy_folder / "bad.pt", **config)
    monkeypatch.setattr(ppo, "playing_network", lambda *a, **k: pytest.fail("a network was built"))
    client = web_client(create_app(db=None, games=games, gate=SpecGate([str(policy_folder)])))
    with nothing_done(games, policy_folder.parent):
        response = client.post("/api/games", json={"bots": ["heuristic", "ppo:bad.pt"]})
        assert_error(response, 400, "bots[1]", word)
    assert not mark.exists() and name not in sys.modules


def test_a_checked_policy_file_is_opened_once_and_built_from_what_was_read(policy_folder, games):
    gate = SpecGate([str(policy_folder)])
    client = web_client(create_app(db=None, games=games, gate=gate))
    path = os.path.realpath(policy_folder / "mine.pt")
    opened = []
    sys.addaudithook(lambda event, args: event == "open" and args[0] == path and opened.append(1))
    game = new_game(client, seed=1, episode="deal", bots=["ppo:mine.pt", "heuristic"])
    assert game["view"]["seats"][1]["name"] == "ppo:mine.pt"
    assert len(opened) == 1  # opened once (the audit hook's "open" events), by the gate
    (held,) = games._games.values()
    bot = held.policies[0]  # the file's network bids, its recorded partner plays the cards
    assert (type(bot.auction).__name__, bot.play.name) == ("PPOPolicy", "heuristic")
    new_game(client, seed=2, episode="deal", bots=["ppo:mine.pt", "heuristic"])
    assert len(opened) == 2  # each request opens and checks it again


def test_a_policy_file_swapped_for_a_symlink_after_the_check_is_not_read(
    policy_folder, games, monkeypatch
):
    """The race of a file replaced by a symlink between the check and the open, made certain."""
    secret = policy_folder.parent / "secret.pt"
    write_policy(secret, "all", hidden_sizes=[5])  # sizes the answer must not tell
    gate = SpecGate([str(policy_folder)])
    checked = gate.policy_path

    def swapped(target):
        path = checked(target)  # the check passes on the real file, then the name is swapped
        os.remove(path)
        os.symlink(secret, path)
        return path

    monkeypatch.setattr(gate, "policy_path", swapped)
    loads = []
    monkeypatch.setattr(torch, "load", lambda *a, **k: loads.append(a) or pytest.fail("read"))
    client = web_client(create_app(db=None, games=games, gate=gate))
    before = secret.read_bytes()
    response = client.post("/api/games", json={"bots": ["ppo:mine.pt", "heuristic"]})
    message = assert_error(response, 400, "ppo:mine.pt", "not a policy file of this page")
    assert not loads and "5" not in message.split("offers")[0] and "secret" not in message
    assert len(games) == 0 and secret.read_bytes() == before


# ---------------------------------------------------- the allow-list's reach
@pytest.mark.usefixtures("working_folder")
def test_an_allowed_spec_lifts_no_rule_of_the_gate(probe_module, games, monkeypatch):
    gate = SpecGate(allowed=["pimc:samples=1", "pimc:samples=1024", f"{PROBE_MODULE}:X"])
    monkeypatch.setattr(web, "build_players", lambda *a: pytest.fail("a bot was built"))
    client = web_client(create_app(db=None, games=games, gate=gate))
    for spec, word in (
        ("pimc:samples=16,max_games=256,rollout=pimc:samples=1", "playout"),
        ("pimc:rollout=composite[heuristic | pimc:samples=1024]", "playout"),
        (f"pimc:rollout={PROBE_MODULE}:X", "playout"),
        (nested(4, "pimc:samples=1"), "nest"),
        ("composite[pimc:samples=1024 | composite[human | random]]", "human"),
        ("ppo:/etc/passwd", "not a policy file"),
    ):
        with nothing_done(games):
            assert_error(client.post("/api/games", json={"bots": [spec, "random"]}), 400, word)
    assert not probe_module[1].exists()
    assert gate.check("composite[pimc:samples=1024 | random]")  # as a bot, still allowed
    for spec in ("pimc:rollout=pimc", "composite[human | random]", nested(4)):
        with pytest.raises(ValueError, match="--allow-spec"):
            SpecGate(allowed=[spec])
    assert evaluate.main(["serve", "--port", "0", "--allow-spec", "pimc:rollout=pimc"]) == 2


# --------------------------------------------------------------- seeds
def test_seeds_the_server_picks_have_63_bits_and_a_chosen_one_is_the_players_secret(client, games):
    seeds = []
    for _ in range(8):
        game = new_game(client, episode="deal")
        seeds.append(games._games[game["id"]].seed)
        client.delete(f"/api/games/{game['id']}")
    assert all(0 <= s < 2**63 for s in seeds) and max(seeds) >= 2**56  # 2**-56 to fail by chance
    assert web.SEED_BITS >= 63
    big = new_game(client, episode="deal", seed=str(2**63 - 1))  # the page sends its digits
    assert games._games[big["id"]].seed == 2**63 - 1
    for seed in ("²", "-1", str(2**63), "1e3", "١٢"):
        assert_error(client.post("/api/games", json={"seed": seed}), 400, "seed")
    page = client.get("/play").text
    assert "63" in page and "secret" in page
    with open(os.path.join(os.path.dirname(__file__), "..", "docs", "web.md")) as docs:
        text = docs.read()
    assert "63 bits" in text and "secret" in text


# ------------------------------------------------------- hardening gaps
def test_every_response_carries_the_security_headers(client):
    for response in (
        client.get("/play"),
        client.get("/api/options"),
        client.get("/static/style.css"),
        client.get("/api/options", headers={"host": "evil.example"}),
        client.post("/api/games", json={}, headers={"origin": "http://evil.example"}),
        client.post("/api/games", content="{}", headers={"content-type": "text/plain"}),
        client.get("/nowhere"),
        client.put("/api/games", json={}),
        client.post("/api/games", content=b"{"),
    ):
        assert response.headers["x-content-type-options"] == "nosniff", response.url
        assert response.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def test_an_internal_error_carries_the_security_headers_too(monkeypatch):
    app = create_app(db=None)
    monkeypatch.setattr(app.state.gate, "offered", lambda: 1 / 0)
    response = web_client(app, raise_server_exceptions=False).get("/api/options")
    assert_error(response, 500, "ZeroDivisionError")
    assert response.headers["content-security-policy"] == web_http.CSP


@pytest.mark.parametrize(
    "url",
    [
        "/api/leaderboard?group=²",
        "/api/leaderboard?group=١",
        "/api/leaderboard/plot.png?group=𝟙",
        "/api/store/matches/1/games/0/replay?first=²",
        "/api/store/matches/9223372036854775808/games",
        "/api/store/matches/99999999999999999999999/games",
        "/api/store/matches/1/games/9223372036854775808/replay",
        "/api/store/matches/9223372036854775808/games/0/replay",
    ],
)
def test_query_and_path_integers_are_ascii_and_below_2_63(league_db, tmp_path, url):
    db = str(tmp_path / "league.sqlite")
    shutil.copy(league_db, db)
    before = folder_state(tmp_path)
    assert_error(web_client(create_app(db=db)).get(url), 400)
    assert folder_state(tmp_path)["league.sqlite"] == before["league.sqlite"]


def raw_exchange(port, request):
    """(the response to the raw bytes ``request``, whether the server then closed the connection)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(request)
        answer = raw_response(sock)
        return answer, sock.recv(1) == b""


def json_body(answer):
    """The JSON body of a raw response; asserts the one-line error shape and the headers."""
    head, _, body = answer.partition("\r\n\r\n")
    assert "content-security-policy:" in head.lower() and "nosniff" in head.lower()
    value = json.loads(body)
    assert list(value) == ["error"] and "\n" not in value["error"]
    return value["error"]


def test_a_websocket_upgrade_gets_the_origin_check_and_a_json_error(games):
    upgrade = (
        b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n"
        b"Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    )
    with served(create_app(db=None, games=games)) as (port, _):
        answer, closed = raw_exchange(port, upgrade + b"Origin: http://evil.example\r\n\r\n")
        assert answer.startswith("HTTP/1.1 403") and "cross-origin" in json_body(answer)
        answer, closed = raw_exchange(port, upgrade + b"\r\n")
        assert answer.startswith("HTTP/1.1 400") and "WebSocket" in json_body(answer) and closed
    client = web_client(create_app(db=None, games=games))
    for origin, status, word in (
        ("http://evil.example", 403, "cross-origin"),
        (BASE, 400, "WebSocket"),
    ):
        headers = {"origin": origin, "host": "127.0.0.1:8000"}
        with pytest.raises(WebSocketDenialResponse) as denied:  # ASGI's denial response
            client.websocket_connect("/api/options", headers=headers).__enter__()
        assert_error(denied.value, status, word)
    assert len(games) == 0


@pytest.mark.parametrize(
    "framing",
    [
        b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n",
        b"Transfer-Encoding: chunked\r\nContent-Length: 2\r\n",
        b"Content-Length: 2\r\nContent-Length: 40\r\n",
        b"Content-Length: 2, 40\r\n",
    ],
)
def test_a_request_with_two_lengths_is_refused_and_its_connection_closed(games, framing):
    smuggled = b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    body = b"2\r\n{}\r\n0\r\n\r\n" + smuggled + b"Content-Length: 2\r\n\r\n{}"
    request = smuggled + framing + b"\r\n" + body
    with served(create_app(db=None, games=games)) as (port, _):
        answer, closed = raw_exchange(port, request)
    assert answer.startswith("HTTP/1.1 400") and closed
    json_body(answer)
    assert answer.count("HTTP/1.1") == 1 and len(games) == 0  # the request behind is never read


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:8000@evil.example",
        "127.0.0.1:evil.example",
        "[::1].evil.example:8000",
        "127.0.0.1:8000:80",
        "localhost.:8000 evil",
        "[::1]:8000@evil",
        "127.0.0.1:",
        "",
    ],
)
@pytest.mark.usefixtures("working_folder")
def test_hosts_no_browser_sends_are_refused(client, games, host):
    with nothing_done(games):
        assert_error(client.post("/api/games", json={}, headers={"host": host}), 400, "Host")


def test_x_forwarded_for_is_believed_only_behind_a_named_proxy():
    def rotate(port):
        statuses = []
        for k in range(3):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            headers = {"content-type": "application/json", "x-forwarded-for": f"10.0.0.{k}"}
            connection.request("POST", "/api/games", body=b'{"episode": "deal"}', headers=headers)
            statuses.append(connection.getresponse().status)
        return statuses

    games = GameStore(max_games=8, per_client=2)
    with served(create_app(db=None, games=games)) as (port, _):
        assert rotate(port) == [201, 201, 503]  # one client, whatever the header says
    assert {g.client for g in games._games.values()} == {"127.0.0.1"}
    games = GameStore(max_games=8, per_client=2)
    with served(create_app(db=None, games=games), proxy="127.0.0.1") as (port, _):
        assert rotate(port) == [201, 201, 201]  # the operator's proxy names the clients
    with pytest.raises(ValueError, match="per_client"):
        GameStore(max_games=8, per_client=8)


def test_reading_the_leaderboard_of_an_empty_or_foreign_db_writes_nothing(tmp_path):
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    bare = tmp_path / "bare.sqlite"
    with contextlib.closing(sqlite3.connect(bare)) as connection:
        connection.execute("PRAGMA user_version = 7")  # a database of no table
    before = folder_state(tmp_path)
    for path, status in ((empty, 404), (bare, 503)):
        client = web_client(create_app(db=str(path)))
        assert_error(client.get("/api/leaderboard"), status)
        assert_error(client.get("/api/leaderboard/plot.png"), status)
        assert client.get("/api/store").status_code in (200, status)
    assert folder_state(tmp_path) == before and sorted(os.listdir(tmp_path)) == sorted(before)


def test_replay_pages_check_and_play_a_record_once(client, monkeypatch):
    record, actions = long_record(5, 40)
    checks, applied = [], []
    real_check, real_apply = web.check_records, Table.apply
    monkeypatch.setattr(web, "check_records", lambda r: checks.append(1) or real_check(r))
    monkeypatch.setattr(Table, "apply", lambda self, a: applied.append(a) or real_apply(self, a))
    frames, pages, page = [], 0, {}
    while len(frames) < len(actions) + 1:
        page = client.post("/api/replays", json={"records": record, "first": len(frames)}).json()
        frames += page["frames"]
        pages += 1
    assert pages > 2 and len(checks) == 1
    assert len(applied) < len(actions) + pages * REPLAY_PAGE  # not len(actions) per page
    key = int(record["games"][0]["key"], 16)
    whole = Table("classic", key, "game", {"target_score": 40}, ["a", "b", "c", "d"])
    assert frames == whole.replay(actions)["frames"]
    assert page["moves"] == whole.moves and page["deals"] == whole.deals


def test_a_refused_policy_name_does_not_tell_install_paths(tmp_path, games):
    folder = tmp_path / "policies"
    folder.mkdir()
    shutil.copy(os.path.join(PRETRAINED_DIR, "classic_ppo.pt"), folder / "classic.pt")
    client = web_client(create_app(db=None, games=games, gate=SpecGate([str(folder)])))
    install = os.path.dirname(os.path.dirname(PRETRAINED_DIR))
    for spec, status in (("ppo:ghost", 400), ("ppo:ghost-bidder", 400), ("ppo:classic.pt", 400)):
        message = assert_error(client.post("/api/games", json={"bots": [spec, "random"]}), status)
        assert install not in message and str(tmp_path) not in message, message
        assert spec in message or "classic" in message
    assert len(games) == 0


FD_SERVER = """
import resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
import uvicorn
from ghost_euchre.arena.web import create_app
from ghost_euchre.arena.web.guard import listen, serve_config
sock = listen("127.0.0.1", 0)
print(sock.getsockname()[1], flush=True)
config = serve_config(create_app(db=None), request_timeout_s=600, idle_timeout_s=600)
uvicorn.Server(config).run(sockets=[sock])
"""


@pytest.mark.parametrize(("limit", "sockets"), [(64, 150), (47, 107), (40, 107)])
def test_idle_sockets_cannot_starve_a_server_of_descriptors(limit, sockets):
    """A server limited to ``limit`` descriptors (deadlines of 10 minutes: none of them helps),
    ``sockets`` sockets that never send a byte, then requests: each served while idle sockets are
    still open, and at most one line logged. (An accept that meets an exhausted limit stops
    asyncio's accepting for a second each time, and logs: issue 70 saw 8 s at 47.)"""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    server = subprocess.Popen(
        [sys.executable, "-c", FD_SERVER, str(limit)],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        with contextlib.ExitStack() as stack:
            idle = [
                stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=60))
                for _ in range(sockets)
            ]
            for _ in range(3):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                connection.request("GET", "/api/options")
                response = connection.getresponse()
                assert response.status == 200 and response.read().startswith(b'{"variants"')
                connection.close()
            assert idle[0].recv(1) == b""  # the oldest silent socket made room
            idle[-1].setblocking(False)
            with pytest.raises(BlockingIOError):  # the newest is still open: no deadline passed
                idle[-1].recv(1)
    finally:
        server.terminate()
        _, err = server.communicate(timeout=60)
    assert len(err.splitlines()) <= 1, err  # the refusal said once, not per socket


def test_the_documented_caps_leave_room_for_other_clients():
    store = GameStore()
    assert 0 < store.per_client < store.max_games
    with open(os.path.join(os.path.dirname(__file__), "..", "docs", "web.md")) as docs:
        text = docs.read()
    assert f"{store.per_client} games in play per client" in text
    assert f"{store.max_games} in all" in text and "X-Forwarded-For" in text
