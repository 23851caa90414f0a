"""Classic Euchre deals as OpenSpiel ``euchre`` states: for playing against OpenSpiel's bots.

OpenSpiel (``pip install open_spiel``) deals by chance nodes: the first picks
the dealer, the next 20 deal card k of the deck to seat ``(dealer + k) % 4``, the
21st turns the upcard. :func:`openspiel_state` applies those so that the state
holds the deal of one row of :class:`~ghost_euchre_env.classic.ClassicEuchre`;
from there both engines take the same actions (same seat to act, same legal
action ids: ``tests/test_classic_openspiel.py``). OpenSpiel's return of a seat at
the end is its team's points minus the other team's.
"""

import dataclasses

from .cards import mask_to_cards
from .classic import NUM_PLAYERS


def openspiel_game(rules):
    """OpenSpiel's ``euchre`` with the rules of ``rules`` (a ClassicRules; only the two both have)."""
    import pyspiel  # optional: open_spiel

    options = dataclasses.asdict(rules)
    params = {key: options[key] for key in ("allow_lone_defender", "stick_the_dealer")}
    return pyspiel.load_game("euchre", params)


def openspiel_state(game, dealer, hands, upcard):
    """A new state of OpenSpiel ``game`` dealt as our deal: dealer int, hands uint32[4], upcard id."""
    state = game.new_initial_state()
    state.apply_action(int(dealer))
    to_deal = [mask_to_cards(hand) for hand in hands]
    for k in range(NUM_PLAYERS * 5):
        state.apply_action(to_deal[(dealer + k) % NUM_PLAYERS].pop())
    state.apply_action(int(upcard))
    return state
