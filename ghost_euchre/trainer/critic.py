"""The oracle critics (``critic: oracle`` and ``critic: solver``): value networks that see what the policy cannot.

Perfect-information training, imperfect-information execution (as PerfectDou did
for DouDizhu): PPO's value estimate of a learner's decision also sees every card
hidden from the deciding seat (the engine's ``hidden_cards``: the other hands and
the face-down ones), so the advantages carry less of the deal's luck; the policy
network still sees only the seat's observation, and only it is shipped.

``critic: solver`` also hands it the exact solver's value of the position
(:func:`ghost_euchre_env.solver.position_value`, concept "relative": the deciding
seat's points minus the mean of its opponents', the margin the trainer's
``reward: margin`` pays; classic: its team's minus the other team's) at every
card decision, where the rest of the deal is a game of perfect information.
"""

import numpy as np
import torch
from torch import nn

from ghost_euchre.agents.networks import layer, linear_layers, mlp
from ghost_euchre_env import solver

SOLVED_SIZE = 2
"""How many columns the solver critic (``critic: solver``) adds after the hidden cards: the solved
value (deal points; 0 when undefined) and 1 where it is defined (the card play: trump set and,
in Ghost Hand, the swap done), 0 in the auction"""


def solved_columns(engine, state, seats):
    """float32[N, SOLVED_SIZE]: the solver's value of each game of ``state`` for ``seats`` (int[N]) and whether
    it is defined (see :data:`SOLVED_SIZE`); one alpha-beta search per game in its card play."""
    columns = np.zeros((state.num_games, SOLVED_SIZE), np.float32)
    playing = np.flatnonzero(solver.in_play(engine, state))
    if len(playing):
        columns[playing, 0] = solver.position_value(
            engine, state, playing, "relative", seats[playing]
        )
        columns[playing, 1] = 1.0
    return columns


class OracleCritic(nn.Module):
    """An MLP value of (observation float32[B, obs_size], extra float32[B, extra_size]) -> float32[B].

    The extra columns (:meth:`extra`): the hidden cards (hidden_size columns), and with
    ``solved`` the :data:`SOLVED_SIZE` solver columns. ``suits``: the policy network's
    :class:`ghost_euchre.agents.networks.CanonicalSuits` (or None): the observation and the
    hidden cards are renamed as the policy sees the observation, so both networks see one
    canonical suit order.
    """

    def __init__(self, obs_size, hidden_size, hidden_sizes, activation, suits, solved=False):
        super().__init__()
        self.suits = suits
        self.hidden_size = hidden_size
        self.solved = solved
        self.extra_size = hidden_size + (SOLVED_SIZE if solved else 0)
        self.trunk, width = mlp(obs_size + self.extra_size, hidden_sizes, activation)
        self.head = layer(width, 1, 1.0)

    def extra(self, engine, state, seats):
        """float32[N, extra_size]: what this critic sees beside the observation of each game of ``state`` by
        ``seats`` (int[N]): the cards hidden from the seat, then (``solved``) the solver's columns."""
        hidden = engine.hidden_cards(state, seats)
        if not self.solved:
            return hidden
        return np.concatenate([hidden, solved_columns(engine, state, seats)], axis=1)

    def start_from(self, model):
        """Start as ``model``'s own value (an :class:`ghost_euchre.agents.networks.ActorCritic` of the same hidden_sizes and
        activation): its trunk and value head, the extra columns' weights zero. A fine-tune (init_from)
        then starts from a critic that knows the game rather than from noise."""
        mine, theirs = linear_layers(self.trunk), linear_layers(model.trunk)
        with torch.no_grad():
            mine[0].weight.zero_()
            mine[0].weight[:, : theirs[0].in_features] = theirs[0].weight
            mine[0].bias.copy_(theirs[0].bias)
        for layer_, source in zip(mine[1:], theirs[1:], strict=True):
            layer_.load_state_dict(source.state_dict())
        self.head.load_state_dict(model.critic.state_dict())

    def see(self, obs, extra):
        """float32[B, obs_size + extra_size]: what the trunk sees (no parameters involved)."""
        if self.suits is not None:
            hidden = self.suits.rename_cards(extra[:, : self.hidden_size], obs)
            obs, extra = (
                self.suits(obs)[0],
                torch.cat([hidden, extra[:, self.hidden_size :]], dim=1),
            )
        return torch.cat([obs, extra], dim=1)

    def from_seen(self, seen):
        """float32[B]: the value of :meth:`see`'s output."""
        return self.head(self.trunk(seen)).squeeze(1)

    def forward(self, obs, extra):
        return self.from_seen(self.see(obs, extra))
