"""A seeded Ghost Hand game printed decision by decision (the golden playthrough).

``python -m ghost_euchre_env.playthrough --seed 7`` prints one full game played
by uniformly random legal actions (NumPy generator seeded with the same seed).
Any change of the engine's behaviour shows up as a readable diff of this text.
"""

import argparse

import numpy as np

from .cards import card_name, mask_to_cards
from .dealing import stream_keys
from .ghost import OVER, PHASE_NAMES, GhostEuchre, action_name


def _hand(mask):
    return " ".join(card_name(c) for c in mask_to_cards(mask)) or "-"


def playthrough(seed, **rules):
    """Text of one full game (episode="game") from ``seed``; rules as GhostEuchre."""
    game = GhostEuchre(**rules)
    state = game.init(stream_keys(seed, 1))
    rng = np.random.default_rng(seed)
    lines = [f"seed {seed}, rules {game.rules}"]
    deal_shown = 0
    while state.phase[0] != OVER:
        if state.deal_number[0] != deal_shown:
            deal_shown = state.deal_number[0]
            lines.append(
                f"deal {deal_shown}: dealer {state.dealer[0]}, scores {state.scores[0].tolist()}"
            )
            lines.extend(f"  seat {seat}: {_hand(state.hands[0, seat])}" for seat in range(3))
            lines.append(f"  ghost: {_hand(state.ghost[0])}")
        legal = np.flatnonzero(game.legal_mask(state)[0])
        action = int(rng.choice(legal))
        seat, phase = state.player[0], PHASE_NAMES[state.phase[0]]
        lines.append(
            f"  {phase:7} seat {seat}: {action_name(action):8} legal [{' '.join(action_name(a) for a in legal)}]"
        )
        result = game.step(state, np.array([action]))
        deals = result.deals
        for row in range(len(deals.game)):
            if deals.thrown_in[row]:
                lines.append("  all passed: thrown in")
            else:
                lines.append(
                    f"  deal over: declarer {deals.maker[row]} bid {deals.bid[row]} trump "
                    f"{action_name(25 + int(deals.trump[row]))[-1]} tricks {deals.tricks[row].tolist()} "
                    f"points {deals.points[row].tolist()} scores {deals.scores[row].tolist()}"
                )
        if result.terminated[0] or result.truncated[0]:
            how = "terminated" if result.terminated[0] else "truncated"
            lines.append(
                f"game {how}: scores {state.scores[0].tolist()} rewards {result.rewards[0].tolist()}"
            )
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    print(playthrough(parser.parse_args().seed), end="")


if __name__ == "__main__":
    main()
