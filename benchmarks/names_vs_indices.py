"""CPU time of a bot that reads the observation by name against the same bot written with indices.

The bot is ``ghost_euchre/examples/rule_bots.py``'s ``GhostBowers`` (``variant.view(obs)``,
``variant.actions``); its peer here is the same rules written the way a bot was
written before the views: observation columns and action ids by number. Both
act on the same recorded batches of real positions (the heuristic's games, all
phases mixed), must choose the same actions, and are timed in turns in the same
process (CPU seconds per decision; the figure is the ratio, names / indices).

Usage: ``python benchmarks/names_vs_indices.py [--batch 1024] [--rounds 30]``
"""

import argparse
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "ghost_euchre", "examples")]

import numpy as np  # noqa: E402
from rule_bots import GhostBowers  # noqa: E402  # pyright: ignore[reportMissingImports]

from ghost_euchre.agents import Policy, make_policy  # noqa: E402
from ghost_euchre_env import variants  # noqa: E402
from ghost_euchre_env.cards import EFFECTIVE_SUIT, STRENGTH  # noqa: E402

RIGHT = np.array([8, 9, 10, 11])  # jacks of C, D, H, S
LEFT = np.array([11, 10, 9, 8])
SUIT_CARDS = np.arange(24).reshape(6, 4).T  # [suit, rank]: card rank * 4 + suit


class GhostBowersByIndex(Policy):
    """GhostBowers' rules with the observation's columns and the action ids written as numbers."""

    name = "ghost-bowers-by-index"

    def act(self, obs, mask):
        n = len(obs)
        rows = np.arange(n)
        hand = obs[:, 0:24] > 0.5
        bowers = hand[:, RIGHT] & hand[:, LEFT]
        lengths = hand[:, SUIT_CARDS].sum(axis=2) + hand[:, LEFT]
        best = np.where(bowers.any(axis=1), bowers.argmax(axis=1), lengths.argmax(axis=1))
        trump_bits = obs[:, 376:380] > 0.5
        trump = np.where(trump_bits.any(axis=1), trump_bits.argmax(axis=1), 0)
        trick = (obs[:, 264:336] > 0.5).reshape(n, 3, 24)
        leader_bits = obs[:, 345:348] > 0.5
        led = trick[rows, leader_bits.argmax(axis=1)]
        led_card = np.where(led.any(axis=1), led.argmax(axis=1), -1)
        suit = EFFECTIVE_SUIT[trump]  # [N, 24]
        led_suit = np.where(led_card >= 0, suit[rows, np.maximum(led_card, 0)], -1)
        own_strength = STRENGTH[trump[:, None], suit, np.arange(24)]  # each card as if led
        strength = np.where(
            (led_suit >= 0)[:, None], STRENGTH[trump, np.maximum(led_suit, 0)][:, :24], own_strength
        )
        on_table = trick.any(axis=1)
        winner = np.where(on_table, strength, -1).argmax(axis=1)
        to_beat = np.where(on_table.any(axis=1), strength[rows, winner], -1)
        unplayed = ~(obs[:, 48:120] > 0.5).reshape(n, 3, 24).any(axis=1)
        rank = np.where(unplayed, own_strength, -1)
        top = np.stack([np.where(suit == s, rank, -1).max(axis=1) for s in range(4)], 1)
        best_left = (rank >= 0) & (rank == np.take_along_axis(top, suit.astype(np.intp), 1))
        legal = mask[:, :24]
        trumps, bosses = legal & (suit == trump[:, None]), legal & best_left
        takers = legal & (strength > to_beat[:, None])
        leading = led_suit < 0
        play = np.select(
            [
                leading & trumps.any(axis=1),
                leading & bosses.any(axis=1),
                ~leading & takers.any(axis=1),
            ],
            [
                np.where(trumps, strength, -1).argmax(axis=1),
                bosses.argmax(axis=1),
                np.where(takers, strength, 99).argmin(axis=1),
            ],
            np.where(legal, strength, 99).argmin(axis=1),
        )
        return np.select(
            [
                mask[:, 30] & bowers.any(axis=1),
                mask[:, 24],
                mask[:, 25:29].any(axis=1),
                legal.any(axis=1),
            ],
            [30, 24, 25 + best, play],
            mask.argmax(axis=1),
        ).astype(np.int64)


def record_batches(game, batch, count, warmup=40, seed=0):
    """``count`` (obs, mask) batches of ``batch`` games, from heuristic play after ``warmup`` steps."""
    env = game.variant.vector_env(batch, seed=seed)
    player = make_policy("heuristic", game, seed=seed)
    obs, mask, _ = env.reset()
    batches = []
    for step in range(warmup + count):
        if step >= warmup:
            batches.append((obs, mask))
        obs, mask, *_ = env.step(player.act(obs, mask))
    return batches


def cpu_seconds(policy, batches):
    start = time.process_time()
    for obs, mask in batches:
        policy.act(obs, mask)
    return time.process_time() - start


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--batch", type=int, default=1024, help="games per act() call")
    parser.add_argument("--rounds", type=int, default=30, help="timed turns of each bot")
    args = parser.parse_args()
    game = variants.make("ghost").make_game()
    batches = record_batches(game, args.batch, 20)
    by_name, by_index = GhostBowers(game), GhostBowersByIndex(game)
    for obs, mask in batches:
        assert (by_name.act(obs, mask) == by_index.act(obs, mask)).all(), "the two bots differ"
    times = {by_name.name: [], by_index.name: []}
    for _ in range(args.rounds):  # in turns, so that the machine's load falls on both
        for bot in (by_name, by_index):
            times[bot.name].append(cpu_seconds(bot, batches))
    decisions = sum(len(obs) for obs, _ in batches)
    best = {name: min(t) / decisions * 1e6 for name, t in times.items()}
    median = {name: float(np.median(t)) / decisions * 1e6 for name, t in times.items()}
    for name in times:
        print(
            f"{name:24s} {best[name]:.3f} us CPU per decision (best of {args.rounds}), median {median[name]:.3f}"
        )
    print(
        f"names / indices: {best[by_name.name] / best[by_index.name]:.2f}x (best), "
        f"{median[by_name.name] / median[by_index.name]:.2f}x (median); batch {args.batch}, {decisions} decisions a round"
    )


if __name__ == "__main__":
    main()
