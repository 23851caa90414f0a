"""Does the forward pass without torch choose what torch chooses? Counted by phase, per network.

Positions are the decisions of the players to act in deals played by the
heuristic with 30% random moves (every phase, from many kinds of positions),
collected until every phase has ``--positions`` of them. For each shipped network
(or ``--networks``), torch's greedy action (``mask_logits(...).argmax``) and the
compiled kernel's (:mod:`ghost_euchre.agents.forward`) are compared: the
decisions that differ, and for each the gap between the two actions' logits
(a near-tie is a gap about float32 rounding, 1e-6 of the logits). Needs torch::

    python benchmarks/forward_agreement.py [--positions 100000] [--networks ghost classic ...]
"""

import argparse

import numpy as np
import torch

from ghost_euchre.agents.networks import load_model, mask_logits
from ghost_euchre.agents.ppo import load_policy
from ghost_euchre.agents.pretrained import NETWORKS, network_path
from ghost_euchre.agents.specs import make_policy
from ghost_euchre_env import variants


def positions_by_phase(variant, per_phase, seed=0):
    """{phase name: (obs, mask)}: the first ``per_phase`` positions of each phase met."""
    venv = variants.make(variant).vector_env(1024, seed=seed, episode="deal")
    describe = variants.make(variant)
    heuristic = make_policy("heuristic", venv.game, seed=seed)
    rng = np.random.default_rng(seed)
    obs, mask, _ = venv.reset()
    found, counts = {}, {}
    while not counts or min(counts.values()) < per_phase:
        phase = describe.view(obs).phase
        for code in np.unique(phase):
            name = describe.phases[code]
            if counts.get(name, 0) < per_phase:  # kept only while the phase needs more
                rows = phase == code
                found.setdefault(name, []).append((obs[rows], mask[rows]))
                counts[name] = counts.get(name, 0) + int(rows.sum())
        random_move = (rng.random(mask.shape) * mask).argmax(axis=1)
        chosen = heuristic.act(obs, mask)
        obs, mask, *_ = venv.step(np.where(rng.random(len(mask)) < 0.3, random_move, chosen))
    return {
        name: tuple(np.concatenate(part)[:per_phase] for part in zip(*parts, strict=True))
        for name, parts in found.items()
    }


def compare(name, per_phase):
    """Print, by phase, the positions, those with a choice, and the decisions that differ."""
    path = network_path(name)
    model = load_model(path)
    variant = variants.by_sizes(model.config["obs_size"], model.config["num_actions"])
    assert variant is not None, f"{name}: a network of neither variant"
    policy = load_policy(path, variant.make_game())[0]
    for phase, (obs, mask) in positions_by_phase(variant.name, per_phase).items():
        differ, gaps, worst = 0, [], 0.0
        for start in range(0, len(obs), 8192):
            o, m = obs[start : start + 8192], mask[start : start + 8192]
            with torch.no_grad():
                logits = model.act_logits(torch.from_numpy(o))
                theirs = mask_logits(logits, torch.from_numpy(m)).argmax(-1).numpy()
            logits = logits.numpy()
            mine = policy.act(o, m)
            worst = max(worst, float(np.abs(policy.network.logits(o) - logits).max()))
            rows = np.flatnonzero(mine != theirs)
            differ += len(rows)
            gaps += list(np.abs(logits[rows, mine[rows]] - logits[rows, theirs[rows]]))
        choice = int((mask.sum(axis=1) > 1).sum())
        gap = f", logit gaps {max(gaps):.2g} at most" if gaps else ""
        print(
            f"{name:14} {phase:8} {len(obs):7,} positions, {choice:7,} with a choice: "
            f"{differ} differ{gap}; largest logit difference {worst:.2g}"
        )


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--positions", type=int, default=100_000, help="per phase")
    parser.add_argument("--networks", nargs="+", default=sorted(NETWORKS), choices=sorted(NETWORKS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    for name in args.networks:
        compare(name, args.positions)


if __name__ == "__main__":
    main()
