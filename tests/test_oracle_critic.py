"""The oracle critics (critic: oracle, critic: solver): the engines' hidden cards, their suit renaming, the
solved value, and the trainer's run."""

import os

import numpy as np
import pytest
import torch
from test_suits import VARIANTS, played_positions, positions
from test_train import TINY, straight_and_resumed

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.networks import ActorCritic
from ghost_euchre.trainer.config import make_config
from ghost_euchre.trainer.critic import SOLVED_SIZE, OracleCritic
from ghost_euchre_env import GhostEuchre, ghost, solver
from ghost_euchre_env.cards import NUM_CARDS


@VARIANTS
def test_hidden_cards_are_the_other_seats_hands_in_relative_order(variant):
    game, state = played_positions(1, variant)
    players = game.num_players
    hand = slice(*variant.OBS_OFFSETS["hand"])
    for seat in range(players):
        seats = np.full(len(state.player), seat)
        hidden = game.hidden_cards(state, seats)
        assert hidden.shape == (len(seats), variant.HIDDEN_SIZE) and hidden.dtype == np.float32
        for rel in range(1, players):
            other = game.observe(state, (seats + rel) % players)[:, hand]
            assert np.array_equal(hidden[:, (rel - 1) * NUM_CARDS : rel * NUM_CARDS], other)
        own = game.observe(state, seats)[:, hand]
        blocks = np.concatenate([own, hidden], axis=1).reshape(len(seats), -1, NUM_CARDS)
        assert blocks.sum(axis=1).max() == 1  # no card in two places
        if variant is ghost:  # with the ghost hand: every card not yet played, until a swap
            played = game.observe(state, seats)[:, slice(*ghost.OBS_OFFSETS["played_by"])]
            played = played.reshape(len(seats), players, NUM_CARDS).sum(axis=1)
            assert hidden[:, ghost.HIDDEN_OFFSETS["ghost"][0] :].sum(axis=1).min() == 6
            unswapped = state.swapper < 0
            assert unswapped.any() and (~unswapped).any()
            everything = blocks.sum(axis=1) + played
            assert np.array_equal(everything[unswapped], np.ones_like(played[unswapped]))


def test_hidden_cards_reject_a_seat_out_of_range():
    game, state = played_positions(2, ghost, count=4)
    with pytest.raises(ValueError, match="seat"):
        game.hidden_cards(state, np.full(len(state.player), 3))


@VARIANTS
def test_hidden_cards_are_renamed_as_the_observation_is(variant):
    """rename_cards on a block of cards renames it as the observation's own hand is renamed."""
    obs, mask = positions(3, variant)
    suits = ActorCritic(obs.shape[1], mask.shape[1], (8,), canonical_suits=True).suits
    assert suits is not None
    obs_t = torch.from_numpy(obs)
    hand = slice(*variant.OBS_OFFSETS["hand"])
    two_blocks = torch.cat([obs_t[:, hand], obs_t[:, hand].flip(0)], dim=1)
    renamed = suits.rename_cards(two_blocks, obs_t)
    seen = suits(obs_t)[0]
    assert torch.equal(renamed[:, :NUM_CARDS], seen[:, hand])
    assert torch.equal(renamed[:, NUM_CARDS:].sum(1), obs_t[:, hand].flip(0).sum(1))
    assert not torch.equal(renamed, two_blocks)  # some positions are renamed


@VARIANTS
def test_the_solver_critic_sees_the_solved_value_at_card_decisions_and_a_zero_flag_in_the_auction(
    variant,
):
    game, state = played_positions(6, variant)
    seats = (state.player + np.arange(len(state.player))) % game.num_players  # not only the mover
    critic = OracleCritic(variant.OBS_SIZE, variant.HIDDEN_SIZE, (8,), "relu", None, solved=True)
    extra = critic.extra(game, state, seats)
    assert (
        extra.shape == (len(seats), variant.HIDDEN_SIZE + SOLVED_SIZE) and extra.dtype == np.float32
    )
    assert np.array_equal(extra[:, : variant.HIDDEN_SIZE], game.hidden_cards(state, seats))
    value, defined = extra[:, -2], extra[:, -1]
    playing = np.flatnonzero(solver.in_play(game, state))
    assert 0 < len(playing) < len(seats)  # card decisions and auction ones
    solved = solver.position_value(game, state, playing, "relative", seats[playing])
    assert np.array_equal(value[playing], solved) and (defined[playing] == 1).all()
    auction = np.setdiff1d(np.arange(len(seats)), playing)
    assert (value[auction] == 0).all() and (defined[auction] == 0).all()


@VARIANTS
def test_the_solver_columns_are_not_renamed_with_the_suits(variant):
    obs, mask = positions(7, variant)
    model = ActorCritic(obs.shape[1], mask.shape[1], (8,), canonical_suits=True)
    critic = OracleCritic(obs.shape[1], variant.HIDDEN_SIZE, (8,), "relu", model.suits, solved=True)
    extra = torch.rand(len(obs), variant.HIDDEN_SIZE + SOLVED_SIZE)
    seen = critic.see(torch.from_numpy(obs), extra)
    assert torch.equal(seen[:, -SOLVED_SIZE:], extra[:, -SOLVED_SIZE:])
    hidden = OracleCritic(obs.shape[1], variant.HIDDEN_SIZE, (8,), "relu", model.suits)
    oracle_seen = hidden.see(torch.from_numpy(obs), extra[:, : variant.HIDDEN_SIZE])
    assert torch.equal(seen[:, :-SOLVED_SIZE], oracle_seen)


@pytest.mark.parametrize(
    ("critic", "extra_size"),
    [("oracle", ghost.HIDDEN_SIZE), ("solver", ghost.HIDDEN_SIZE + SOLVED_SIZE)],
)
def test_an_oracle_critic_run_resumes_exactly_and_ships_the_policy_alone(
    tmp_path, torch_globals, critic, extra_size
):
    common = ["--critic", critic, "--total_steps", "512", "--checkpoint_every", "2"]
    common += ["--keep_checkpoints", "0", "--eval_every", "0", "--final_eval_games", "0", *TINY]
    a, b, straight, halfway = straight_and_resumed(tmp_path, common)
    assert a["config"]["critic"] == critic
    for part in ("model", "critic"):
        for key in a[part]:
            assert torch.equal(a[part][key], b[part][key]), (part, key)
    first = torch.load(halfway, weights_only=True)["critic"]
    assert any(not torch.equal(first[k], a["critic"][k]) for k in first)  # the critic trained
    width = a["critic"]["trunk.0.weight"].shape[1]
    assert width == ghost.OBS_SIZE + extra_size
    policy_file = os.path.join(straight, "policy.pt")
    assert "critic" not in torch.load(policy_file, weights_only=True)
    player = make_policy(f"ppo:{policy_file}", GhostEuchre(), seed=0)
    obs, mask = positions(4)
    assert mask[np.arange(len(mask)), player.act(obs, mask)].all()


def test_an_unknown_critic_is_one_line_naming_it():
    with pytest.raises(
        ValueError, match=r"critic must be 'shared', 'oracle' or 'solver', got 'perfect'"
    ):
        make_config({"critic": "perfect"}, "test")


@VARIANTS
@pytest.mark.parametrize("solved", [False, True])
def test_a_fine_tunes_oracle_critic_starts_as_the_networks_own_value(variant, solved):
    """start_from copies the trunk and value head and gives the extra columns zero weight."""
    torch.manual_seed(0)
    obs, mask = positions(5, variant)
    model = ActorCritic(obs.shape[1], mask.shape[1], (16, 8), canonical_suits=True)
    critic = OracleCritic(
        obs.shape[1], variant.HIDDEN_SIZE, (16, 8), "relu", model.suits, solved=solved
    )
    hidden = torch.from_numpy(np.random.default_rng(0).random((len(obs), critic.extra_size)))
    obs_t, hidden = torch.from_numpy(obs), hidden.float()
    with torch.no_grad():
        assert not torch.allclose(critic(obs_t, hidden), model.value(obs_t))
        critic.start_from(model)
        torch.testing.assert_close(critic(obs_t, hidden), model.value(obs_t))
