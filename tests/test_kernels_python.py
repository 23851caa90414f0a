"""The rules kernels run as plain Python (``NUMBA_DISABLE_JIT=1``): same games, same rule tests.

The kernels in ``ghost_euchre_env/kernels`` are Numba functions; with the JIT off they are
the Python they read as, so a researcher can step through them in a debugger. These tests
run in a subprocess with the JIT off: a few hand-traced rule tests of each variant, and a
random stream of both variants whose digest must equal the compiled engine's.
"""

import hashlib
import os
import subprocess
import sys

import numpy as np

from ghost_euchre_env import ClassicEuchre, GhostEuchre
from ghost_euchre_env.dealing import stream_keys

STREAM = """
import hashlib, sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_kernels_python import stream_digest
print(stream_digest())
"""


def stream_digest(steps=150, num_games=6):
    """SHA-256 of random legal play in both variants (rule options on): masks, observations,
    hidden cards, rewards, ends and deal summaries."""
    digest = hashlib.sha256()
    rng = np.random.default_rng(3)
    for engine in (
        GhostEuchre(allow_renege=True, auction="open"),
        ClassicEuchre(stick_the_dealer=False, allow_lone_defender=True),
    ):
        state = engine.init(stream_keys(7, num_games))
        for _ in range(steps):
            mask = engine.legal_mask(state)
            seats = state.player.astype(np.int64)
            digest.update(mask.tobytes())
            digest.update(engine.observe(state, seats).tobytes())
            digest.update(engine.hidden_cards(state, seats).tobytes())
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
            result = engine.step(state, actions, auto_reset=True)
            digest.update(result.rewards.tobytes() + result.terminated.tobytes())
            digest.update(result.deals.points.tobytes() + result.deals.game.tobytes())
    return digest.hexdigest()


def without_jit(*args):
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, check=False, timeout=600
    )


def test_kernels_as_python_play_the_same_games_as_compiled():
    tests = os.path.dirname(os.path.abspath(__file__))
    done = without_jit("-c", STREAM.format(tests=tests))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == stream_digest()


def test_rule_tests_pass_with_the_kernels_as_python():
    tests = os.path.dirname(os.path.abspath(__file__))
    chosen = [
        "test_ghost_engine.py::test_moon_deal_follow_suit_and_left_bower_play_out",
        "test_ghost_engine.py::test_swap_once_per_deal_before_bidding_then_bid_or_pass",
        "test_classic.py::test_lone_defender_when_allowed_and_two_seats_sitting_out",
    ]
    done = without_jit(
        "-m", "pytest", "-q", "-p", "no:cacheprovider", *(os.path.join(tests, t) for t in chosen)
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"{len(chosen)} passed" in done.stdout
