"""Load test of the web page's API: many people playing whole games at once.

Starts ``python evaluate.py serve`` on a free local port (its own process), then
``--games`` client threads each play one game to the end through the HTTP API
(``POST /api/games``, then ``POST /api/games/{id}/actions`` with a uniformly
random legal move, seeded, until the game is over), all at once. Every request
is timed from send to the end of the response. At the end each game's record
(``GET /api/games/{id}/record``) is replayed through the engine
(``ghost_euchre_env.records.check_records``) and its final scores compared with
the ones the server showed. A game is *lost* if any of its requests failed or its scores
differ. Prints the counts and the median / 95th percentile / max response time;
``--json FILE`` writes them. Traffic goes to 127.0.0.1 only; every loop is
bounded (``--max-requests`` per game, ``--timeout`` per request).

The peer, measured in the same run on the same server just before: the same
kind of games played one at a time (``--peer-games``, seeds after the loaded
ones), so the response time of a lone request is printed beside the loaded one.

Usage: ``python benchmarks/web_load.py [--games 50] [--episode game|deal] [--bots heuristic,heuristic] [--json FILE]``
"""

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ghost_euchre.plumbing.files import write_atomic  # noqa: E402
from ghost_euchre_env import variants  # noqa: E402
from ghost_euchre_env.records import check_records, records_from_dict  # noqa: E402


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(port, ready_s=60.0):
    """``evaluate.py serve`` on ``port`` in a new process, once it answers; returns the process."""
    process = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "evaluate.py"), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
    )
    deadline = time.monotonic() + ready_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with code {process.returncode}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/api/options")
            if connection.getresponse().status == 200:
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the server did not answer within {ready_s} s")


def play_one(port, body, seed, timeout, max_requests):
    """Play one game to the end; returns {"times": [s per request], "error": str or None, "over": bool}."""
    times = []
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

    def call(method, path, payload=None):
        data = None if payload is None else json.dumps(payload)
        headers = {} if data is None else {"Content-Type": "application/json"}
        start = time.perf_counter()
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        text = response.read()
        times.append(time.perf_counter() - start)
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: HTTP {response.status} {text[:200]!r}")
        return json.loads(text)

    rng = np.random.default_rng(seed)
    try:
        game = call("POST", "/api/games", dict(body, seed=seed))
        while not game["view"]["over"]:
            if len(times) >= max_requests:
                raise RuntimeError(f"game not over after {max_requests} requests")
            view = game["view"]
            action = int(rng.choice(view["legal"]))
            game = call(
                "POST",
                f"/api/games/{game['id']}/actions",
                {"action": action, "step": view["step"]},
            )
        records = records_from_dict(call("GET", f"/api/games/{game['id']}/record"))
        match = check_records(records)[0].tolist() == game["view"]["scores"]
        return {"times": times, "error": None if match else "scores differ", "over": True}
    except (OSError, RuntimeError, ValueError) as error:  # RecordError included
        return {"times": times, "error": str(error), "over": False}
    finally:
        connection.close()


def run_load(port, games, body, seed=0, timeout=60.0, max_requests=5000):
    """Play ``games`` games at once against the server on ``port``; returns the summary dict."""
    results = [None] * games

    def worker(index):
        results[index] = play_one(port, body, seed + index, timeout, max_requests)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(games)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    times = [t for r in results for t in r["times"]]
    errors = [r["error"] for r in results if r["error"]]
    return {
        "games": games,
        "finished": sum(r["over"] and not r["error"] for r in results),
        "lost": len(errors),
        "errors": errors[:5],
        "requests": len(times),
        "wall_s": round(wall, 2),
        "requests_per_s": round(len(times) / wall, 1),
        "median_ms": round(float(np.median(times)) * 1e3, 1),
        "p95_ms": round(float(np.percentile(times, 95)) * 1e3, 1),
        "max_ms": round(float(max(times)) * 1e3, 1),
        "body": body,
        "times": times,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Load test of the web page's API: many people playing whole games at once."
    )
    parser.add_argument("--games", type=int, default=50, help="games played at once")
    parser.add_argument("--variant", choices=variants.available(), default="ghost")
    parser.add_argument("--episode", choices=("game", "deal"), default="game")
    parser.add_argument("--bots", default="heuristic,heuristic", help="bot specs, comma-separated")
    parser.add_argument("--seed", type=int, default=0, help="game i uses seed + i")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    parser.add_argument("--max-requests", type=int, default=5000, help="per game")
    parser.add_argument(
        "--peer-games", type=int, default=3, help="games played one at a time first (the peer)"
    )
    parser.add_argument("--json", metavar="FILE", help="write the summary as JSON")
    args = parser.parse_args(argv)
    body = {"variant": args.variant, "episode": args.episode, "bots": args.bots.split(",")}
    port = free_port()
    server = start_server(port)
    try:
        peer = [
            run_load(port, 1, body, args.seed + args.games + k, args.timeout, args.max_requests)
            for k in range(args.peer_games)
        ]
        summary = run_load(port, args.games, body, args.seed, args.timeout, args.max_requests)
    finally:
        server.terminate()
        server.wait(30)
    if peer:
        times = [t for p in peer for t in p["times"]]
        summary["peer"] = {
            "games": len(peer),
            "lost": sum(p["lost"] for p in peer),
            "requests": len(times),
            "median_ms": round(float(np.median(times)) * 1e3, 1),
            "p95_ms": round(float(np.percentile(times, 95)) * 1e3, 1),
        }
        print(
            f"peer: {len(peer)} games one at a time: {summary['peer']['lost']} lost; "
            f"{len(times)} requests, response time median {summary['peer']['median_ms']} ms, "
            f"p95 {summary['peer']['p95_ms']} ms"
        )
    print(
        f"{summary['games']} games at once ({args.variant}, episode={args.episode}, "
        f"bots {args.bots}): {summary['finished']} finished, {summary['lost']} lost; "
        f"{summary['requests']} requests in {summary['wall_s']} s ({summary['requests_per_s']}/s); "
        f"response time median {summary['median_ms']} ms, p95 {summary['p95_ms']} ms, "
        f"max {summary['max_ms']} ms"
    )
    for error in summary["errors"]:
        print(f"  error: {error}")
    if args.json:
        summary.pop("times")
        write_atomic(args.json, lambda handle: json.dump(summary, handle, indent=2))
    return 0 if summary["lost"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
