"""A variant declared in tests/ alone (:mod:`echo_variant`) gets every door and plays a match.

docs/design.md lists what a new variant takes; this is that list walked: a declaration
registered, then each door generated from it (AEC, Parallel, Gymnasium single and vector, the
auction view's vector and Gymnasium envs) and a match through the arena with random bots.
"""

import pytest
from echo_variant import DECLARATION, EchoEuchre
from pettingzoo.test import api_test, parallel_api_test

from ghost_euchre.agents.random_policy import RandomPolicy
from ghost_euchre.arena.match import run_match
from ghost_euchre_env import variants


@pytest.fixture(scope="module", autouse=True)
def echo():
    """The variant registered for this file's tests, and out of the registry after them (the
    other files' tests cover the registered variants: they see the shipped ones only)."""
    registry = variants._REGISTRY  # the one way out of the registry, for tests
    variant = variants.register(DECLARATION)
    yield variant
    del registry[variant.name]


def test_it_is_registered_under_its_name(echo):
    assert variants.make("echo") is echo and "echo" in variants.available()
    assert variants.of(EchoEuchre()) is echo and EchoEuchre().variant is echo


def test_it_gets_the_pettingzoo_doors(echo):
    api_test(echo.aec(), num_cycles=30)
    parallel_api_test(echo.door("parallel")(), num_cycles=30)
    env = echo.door("auction_aec")(card_play="random")  # no heuristic of its own
    env.reset(seed=1)
    assert env.agents


def test_it_gets_the_gymnasium_and_vector_doors(echo):
    obs, _ = echo.door("gym")().reset(seed=2)
    assert obs.shape == (echo.obs_size,)
    obs, mask, _ = echo.vector_env(4, seed=3).reset()
    assert obs.shape == (4, echo.obs_size) and mask.shape == (4, echo.num_actions)
    obs, _ = echo.door("gym_vector")(num_envs=2).reset(seed=4)
    assert len(obs) == 2
    card_play = RandomPolicy(EchoEuchre(), seed=5)  # no heuristic of its own
    obs, _, _ = echo.bidding_vec(3, card_play, seed=5).reset()
    assert len(obs) == 3
    obs, _ = echo.door("auction_gym")(card_play="random", opponents="random").reset(seed=6)
    assert obs.shape == (echo.obs_size,)


def test_a_bot_it_has_none_of_says_so(echo):
    with pytest.raises(ValueError, match="no heuristic plays the variant 'echo'"):
        run_match(["heuristic", "random", "random"], variant=echo, games=6)


def test_it_plays_a_match_in_the_arena():
    result = run_match(["random", "random", "random"], variant="echo", games=6, seed=7)
    assert result.variant == "echo" and len(result.sequence) == 6
    assert result.final_scores.shape == (6, 3)
