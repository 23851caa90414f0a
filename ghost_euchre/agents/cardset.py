"""``ghost_euchre.agents.cardset:CardSetNet``: a network that sees the cards as a set (the plug-in interface's worked example).

Train it with ``ghost-euchre-train --model ghost_euchre.agents.cardset:CardSetNet`` (options:
``--model_options "{embed_size: 32, pooling: attention}"``); it plays as
``ppo:PATH`` like the MLP (:mod:`ghost_euchre.agents.networks`).

Each of the 24 cards is one token: the card's column of every card-indexed
block of the observation (Ghost Hand: own hand, dead hand, played by each seat,
played in each trick, in the current trick by each seat: 14 bits; classic: 16,
the variant's card fields, ``Variant.card_columns``) goes through a layer shared by all cards, plus a learned
embedding of the card's identity. ``pooling: mean`` averages the tokens (a
DeepSets encoder); ``attention`` first lets every card attend to every other
(one multi-head self-attention layer with a residual and a shared feed-forward
layer), then averages. The pooled cards and the observation's other values
(seats, bids, contract, scores: 54 values, classic 80) feed an MLP trunk. A card
action's logit comes from that card's own token and the trunk (one layer shared
by the cards), every other action's and the value from the trunk, so the card
play is scored card by card with the same weights.
"""

import numpy as np
import torch
from torch import nn

from ghost_euchre_env import variants
from ghost_euchre_env.cards import NUM_CARDS

from .networks import layer

POOLINGS = ("mean", "attention")


class CardSetNet(nn.Module):
    """obs float32[B, obs_size] -> (logits float32[B, num_actions], value float32[B]); see the module docstring.

    embed_size: width of a card token; hidden_size: width of the trunk's two
    layers; pooling: 'mean' or 'attention'; heads: attention heads (attention only).
    """

    card_index: torch.Tensor
    rest_index: torch.Tensor

    def __init__(
        self, obs_size, num_actions, embed_size=32, hidden_size=256, pooling="mean", heads=4
    ):
        super().__init__()
        variant = variants.by_sizes(obs_size, num_actions)
        if variant is None:
            raise ValueError(
                f"CardSetNet reads Ghost Hand or classic observations, got obs_size={obs_size}, "
                f"num_actions={num_actions}"
            )
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {list(POOLINGS)}, got {pooling!r}")
        for name, value in (("embed_size", embed_size), ("hidden_size", hidden_size)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if pooling == "attention" and (
            not isinstance(heads, int) or heads < 1 or embed_size % heads
        ):
            raise ValueError(f"heads must be a positive int dividing embed_size, got {heads!r}")
        cards, rest = variant.card_columns()
        # token features [B, 24, blocks] are gathered as obs[:, card_index].view(B, 24, blocks)
        self.register_buffer("card_index", torch.from_numpy(cards.T.reshape(-1)), persistent=False)
        self.register_buffer("rest_index", torch.from_numpy(rest), persistent=False)
        self.blocks = len(cards)
        self.card_features = layer(len(cards), embed_size, np.sqrt(2))
        self.card_identity = nn.Parameter(torch.zeros(NUM_CARDS, embed_size))
        nn.init.normal_(self.card_identity, std=0.1)
        self.card_mix = layer(embed_size, embed_size, np.sqrt(2))
        self.attention = (
            nn.MultiheadAttention(embed_size, heads, batch_first=True)
            if pooling == "attention"
            else None
        )
        self.trunk = nn.Sequential(
            layer(embed_size + len(rest), hidden_size, np.sqrt(2)),
            nn.ReLU(),
            layer(hidden_size, hidden_size, np.sqrt(2)),
            nn.ReLU(),
        )
        self.card_logit_token = layer(embed_size, 1, 0.01)
        self.card_logit_trunk = layer(hidden_size, NUM_CARDS, 0.01)
        self.other_logits = layer(hidden_size, num_actions - NUM_CARDS, 0.01)
        self.critic = layer(hidden_size, 1, 1.0)

    def forward(self, obs):
        batch = len(obs)
        features = obs[:, self.card_index].view(batch, NUM_CARDS, self.blocks)
        tokens = torch.relu(self.card_features(features) + self.card_identity)  # [B, 24, E]
        if self.attention is not None:
            attended, _ = self.attention(tokens, tokens, tokens, need_weights=False)
            tokens = tokens + attended
        tokens = torch.relu(self.card_mix(tokens)) + tokens
        hidden = self.trunk(torch.cat([tokens.mean(1), obs[:, self.rest_index]], 1))
        card_logits = self.card_logit_token(tokens).squeeze(-1) + self.card_logit_trunk(hidden)
        logits = torch.cat([card_logits, self.other_logits(hidden)], 1)
        return logits, self.critic(hidden).squeeze(-1)
