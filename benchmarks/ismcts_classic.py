"""Points per deal of a classic Euchre team against OpenSpiel's IS-MCTS, on duplicate single deals.

An outside search bot as the peer: OpenSpiel's information-set MCTS
(``pyspiel.ISMCTSBot``, random-rollout evaluator, UCT c = 2, final move by
visit count) plays one team, the SPEC (any policy spec, one object for both
seats) the other. Each of ``--pairs`` deals (dealt from ``--seed``) is played
twice with the teams swapped, so both teams hold the same cards; our engine and
an OpenSpiel state of the same deal (:mod:`ghost_euchre_env.openspiel`) take
every action, checked to agree on the seat to act and its legal actions.
Printed: SPEC's points per deal, IS-MCTS's, and their difference paired by
deal with a 95% interval (mean +- 1.96 sd / sqrt(pairs)), and the seconds.

Usage: ``python benchmarks/ismcts_classic.py [SPEC] [--pairs 700] [--simulations 1000] [--seed 0]``
(needs ``pip install open_spiel``)
"""

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
import pyspiel

from ghost_euchre.agents.specs import make_policy
from ghost_euchre_env import dealing
from ghost_euchre_env.classic import ClassicEuchre
from ghost_euchre_env.openspiel import openspiel_game, openspiel_state

UCT_C = 2.0


def play_pairs(spec, pairs, simulations, seed):
    """float[pairs, 2]: per deal, SPEC's team's points and IS-MCTS's, each the mean of its two seatings."""
    game = ClassicEuchre(episode="deal")
    policy = make_policy(spec, game, seed=seed)
    spiel_game = openspiel_game(game.rules)
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.ISMCTSBot(seed, evaluator, UCT_C, simulations)
    keys = np.repeat(
        dealing.stream_keys(seed, pairs), 2
    )  # row 2k: SPEC at seats 0 and 2; 2k+1: 1, 3
    spec_team = np.arange(2 * pairs) % 2
    state = game.init(keys)
    spiel = [
        openspiel_state(spiel_game, state.dealer[i], state.hands[i], state.upcard[i])
        for i in range(2 * pairs)
    ]
    points = np.zeros((2 * pairs, 2))  # team 0 (seats 0, 2), team 1
    rows = np.arange(2 * pairs)  # the rows of ``state``, as indices of keys
    while len(rows):
        player = state.player.astype(np.int64)
        mask = game.legal_mask(state)
        actions = np.zeros(len(rows), np.int64)
        ours = player % 2 == spec_team[rows]
        if ours.any():
            obs = game.observe(state, player)
            actions[ours] = policy.act(obs[ours], mask[ours])
        for i in np.flatnonzero(~ours):
            searched = spiel[rows[i]]
            assert searched.current_player() == player[i]
            actions[i] = bot.step(searched)
        for i, row in enumerate(rows):
            assert spiel[row].legal_actions() == np.flatnonzero(mask[i]).tolist()
            spiel[row].apply_action(int(actions[i]))
        result = game.step(state, actions)
        points[rows] += result.rewards[:, :2]
        done = result.terminated | result.truncated
        state, rows = state.take(~done), rows[~done]
    spec_points = points[np.arange(2 * pairs), spec_team].reshape(pairs, 2).mean(axis=1)
    bot_points = points[np.arange(2 * pairs), 1 - spec_team].reshape(pairs, 2).mean(axis=1)
    return np.stack([spec_points, bot_points], axis=1)


def main():
    parser = argparse.ArgumentParser(description=str(__doc__).split("\n\n")[0])
    parser.add_argument("spec", nargs="?", default="ppo:classic")
    parser.add_argument("--pairs", type=int, default=700, help="deals, each played both ways")
    parser.add_argument("--simulations", type=int, default=1000, help="IS-MCTS simulations a move")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    points = play_pairs(args.spec, args.pairs, args.simulations, args.seed)
    difference = points[:, 0] - points[:, 1]
    half = 1.96 * difference.std(ddof=1) / np.sqrt(len(difference))
    print(
        f"{args.spec} against IS-MCTS ({args.simulations} simulations), {args.pairs} deals x 2 "
        f"seatings, seed {args.seed}: {points[:, 0].mean():+.3f} against {points[:, 1].mean():+.3f} "
        f"points a deal; difference {difference.mean():+.3f} [{difference.mean() - half:+.3f}, "
        f"{difference.mean() + half:+.3f}] ({time.perf_counter() - start:.0f} s)"
    )


if __name__ == "__main__":
    main()
