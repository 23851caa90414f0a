"""What the line protocol costs a decision: a C program bot (``proc:PATH``) against the same rule
written as a Python bot.

The program is ``ghost_euchre/examples/proc/simple_rule.c`` (built here with ``cc``); its peer is
:class:`SimpleRule` below, the same rule on ``variant.view(obs)``. Both act on the same
recorded batches of real positions (the heuristic's games, all phases mixed) and must choose
the same actions; they are timed in turns in this process (wall time per decision: the
program's includes writing the message, the pipe both ways, its own parsing and reading the
answer). Then both play the same 300-game match against ``heuristic`` and ``random`` (same
results required), and the difference in match time is divided by the bot's decisions.
The batch sizes are those a match hands a player: about a third of its games at a step.

Usage: ``python benchmarks/proc_overhead.py [--batches 1,16,100,1000,4096] [--rounds 20] [--games 300]``
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from ghost_euchre.agents import Policy, make_policy  # noqa: E402
from ghost_euchre.agents.protocol import Messages  # noqa: E402
from ghost_euchre.arena.match import run_match  # noqa: E402
from ghost_euchre_env import variants  # noqa: E402
from ghost_euchre_env.cards import CARD_RANK  # noqa: E402


class SimpleRule(Policy):
    """``ghost_euchre/examples/proc/simple_rule.c``'s rule, read by name: in the auction the lowest bid with four
    cards of a suit (else pass when it may, else its longest legal suit, else the first legal
    action); in the play the highest card leading, the lowest following."""

    name = "simple-rule.py"
    decisions = 0

    def act(self, obs, mask):
        SimpleRule.decisions += len(mask)
        view, actions = self.variant.view(obs), self.variant.actions
        first = mask.argmax(axis=1)
        by_suit = view.hand.reshape(len(mask), 6, 4).sum(axis=1)  # card c: rank c // 4, suit c % 4
        suits = np.array(actions.SUITS)
        held = np.where(mask[:, suits], by_suit, -1)
        longest_legal = suits[held.argmax(axis=1)]
        auction = np.where(mask[:, actions.PASS], actions.PASS, first)
        auction = np.where(
            (auction != actions.PASS) & mask[:, suits].any(axis=1), longest_legal, auction
        )
        bids = np.array(getattr(actions, "BIDS", ())[:3], np.int64)  # bid 3, 4, 5 (Ghost Hand)
        if len(bids):
            bid = mask[:, bids] & (by_suit.max(axis=1) >= 4)[:, None]
            auction = np.where(bid.any(axis=1), bids[bid.argmax(axis=1)], auction)
        legal = mask[:, :24]
        highest = np.where(legal, CARD_RANK * 24 + 23 - np.arange(24), -1).argmax(axis=1)
        leading = ~view.current_trick.any(axis=(1, 2))
        play = np.where(leading, highest, first)
        return np.where(view.phase == self.variant.phases.index("play"), play, auction)


def positions(count, seed=0):
    """(obs, mask) of ``count`` decisions from heuristic self-play, all phases."""
    game = variants.make("ghost").make_game()
    heuristic = make_policy("heuristic", game, seed=seed)
    state = game.init(np.arange(count // 40 + 1, dtype=np.uint64) + np.uint64(seed))
    obs_parts, mask_parts, total = [], [], 0
    while total < count:
        player = state.player.astype(np.int64)
        mask = game.legal_mask(state)
        obs = game.observe(state, player)
        obs_parts.append(obs)
        mask_parts.append(mask)
        total += len(obs)
        game.step(state, heuristic.act(obs, mask), auto_reset=True)  # games go on
    return np.concatenate(obs_parts)[:count], np.concatenate(mask_parts)[:count]


def build(folder):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        sys.exit(
            "proc_overhead: needs a C compiler (cc or gcc) to build ghost_euchre/examples/proc/simple_rule.c"
        )
    program = os.path.join(folder, "simple_rule")
    source = os.path.join(ROOT, "ghost_euchre", "examples", "proc", "simple_rule.c")
    subprocess.run([compiler, "-O2", "-o", program, source], check=True)
    return program


def per_decision(act, batches):
    """Wall seconds per decision of ``act`` over every (obs, mask) of ``batches``."""
    start = time.perf_counter()
    rows = 0
    for obs, mask in batches:
        act(obs, mask)
        rows += len(mask)
    return (time.perf_counter() - start) / rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--batches", default="1,16,100,1000,4096")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args(argv)
    sizes = [int(b) for b in args.batches.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        program = build(folder)
        game = variants.make("ghost").make_game()
        python = SimpleRule(game)
        proc = make_policy(f"proc:{program}:log={os.path.join(folder, 'log')}", game, seed=0)
        messages = Messages(game)
        print(
            f"{'batch':>6} {'python':>10} {'program':>10} {'overhead':>10} {'of it: message':>15}"
        )
        for size in sizes:
            obs, mask = positions(max(size * 8, 4096))
            batches = [(obs[k : k + size], mask[k : k + size]) for k in range(0, len(obs), size)]
            batches = batches[: max(8, 4096 // size)]
            for o, m in batches:  # the same actions, or the comparison means nothing
                assert (python.act(o, m) == proc.act(o, m)).all(), "the two bots disagree"
            times = {"python": [], "program": [], "message": []}
            for _ in range(args.rounds):  # in turns, so both see the same machine
                times["python"].append(per_decision(python.act, batches))
                times["program"].append(per_decision(proc.act, batches))
                times["message"].append(
                    per_decision(lambda o, m: messages.decide(o, m, None), batches)
                )
            best = {name: min(values) * 1e6 for name, values in times.items()}
            print(
                f"{size:>6} {best['python']:>8.2f}us {best['program']:>8.2f}us "
                f"{best['program'] - best['python']:>8.2f}us {best['message']:>13.2f}us"
            )
        proc.end_match()
        opponents = ["heuristic", "random"]
        seconds, decisions = {}, 0
        for name, player in (("python", SimpleRule(game)), ("program", f"proc:{program}")):
            SimpleRule.decisions = 0
            start = time.perf_counter()
            result = run_match([player, *opponents], games=args.games, seed=0)
            seconds[name] = (time.perf_counter() - start, result.players[0]["wins"])
            if name == "python":
                decisions = SimpleRule.decisions
        assert seconds["python"][1] == seconds["program"][1], "the two bots' matches differ"
        extra = (seconds["program"][0] - seconds["python"][0]) / decisions
        print(
            f"match of {args.games} games ({decisions} decisions by the bot): python "
            f"{seconds['python'][0]:.2f} s, program {seconds['program'][0]:.2f} s, "
            f"{extra * 1e6:.1f} us more a decision of the program"
        )


if __name__ == "__main__":
    main()
