"""The oracle critic (``critic: oracle``): a value network that sees what the policy cannot.

Perfect-information training, imperfect-information execution (as PerfectDou did
for DouDizhu): PPO's value estimate of a learner's decision also sees every card
hidden from the deciding seat (the engine's ``hidden_cards``: the other hands and
the face-down ones), so the advantages carry less of the deal's luck; the policy
network still sees only the seat's observation, and only it is shipped.
"""

import torch
from torch import nn

from ghost_euchre.agents.networks import layer
from ghost_euchre.agents.ppo import linear_layers, mlp


class OracleCritic(nn.Module):
    """An MLP value of (observation float32[B, obs_size], hidden cards float32[B, hidden_size]) -> float32[B].

    ``suits``: the policy network's :class:`ghost_euchre.agents.networks.CanonicalSuits` (or
    None): the observation and the hidden cards are renamed as the policy sees
    the observation, so both networks see one canonical suit order.
    """

    def __init__(self, obs_size, hidden_size, hidden_sizes, activation, suits):
        super().__init__()
        self.suits = suits
        self.hidden_size = hidden_size
        self.trunk, width = mlp(obs_size + hidden_size, hidden_sizes, activation)
        self.head = layer(width, 1, 1.0)

    def start_from(self, model):
        """Start as ``model``'s own value (an :class:`ghost_euchre.agents.ppo.ActorCritic` of the same hidden_sizes and
        activation): its trunk and value head, the hidden cards' weights zero. A fine-tune (init_from)
        then starts from a critic that knows the game rather than from noise."""
        mine, theirs = linear_layers(self.trunk), linear_layers(model.trunk)
        with torch.no_grad():
            mine[0].weight.zero_()
            mine[0].weight[:, : theirs[0].in_features] = theirs[0].weight
            mine[0].bias.copy_(theirs[0].bias)
        for layer_, source in zip(mine[1:], theirs[1:], strict=True):
            layer_.load_state_dict(source.state_dict())
        self.head.load_state_dict(model.critic.state_dict())

    def see(self, obs, hidden):
        """float32[B, obs_size + hidden_size]: what the trunk sees (no parameters involved)."""
        if self.suits is not None:
            obs, hidden = self.suits(obs)[0], self.suits.rename_cards(hidden, obs)
        return torch.cat([obs, hidden], dim=1)

    def from_seen(self, seen):
        """float32[B]: the value of :meth:`see`'s output."""
        return self.head(self.trunk(seen)).squeeze(1)

    def forward(self, obs, hidden):
        return self.from_seen(self.see(obs, hidden))
