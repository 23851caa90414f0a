"""Helpers shared by the engine tests of both variants."""

import numpy as np


def step_live_games(game, state, rng):
    """Step every game that is not over by one uniformly random legal action (in place).

    Returns (live int[M]: the games stepped, seats int8[M]: who acted, phases
    int8[M]: in which phase, actions int64[M], result: the StepResult of the M games).
    """
    live = np.flatnonzero(state.player >= 0)
    sub = state.take(live)
    mask = game.legal_mask(sub)
    actions = (rng.random(mask.shape) * mask).argmax(axis=1)
    seats, phases = sub.player.copy(), sub.phase.copy()
    result = game.step(sub, actions)
    state.put(live, sub)
    return live, seats, phases, actions, result
