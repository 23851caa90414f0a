"""ghost_euchre.arena.web.table: what each seat's view of a game shows, card by card."""

import json

from ghost_euchre.arena.web.table import Table, seed_key
from ghost_euchre_env import ghost
from ghost_euchre_env.cards import mask_to_cards


def shown_cards(view):
    """Every card id a view shows anywhere (each card is a dict with an "id")."""
    found = set()

    def walk(value):
        if isinstance(value, dict):
            if "id" in value and "rank" in value:
                found.add(value["id"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads(json.dumps(view)))
    return found


def test_after_a_swap_only_the_swapper_sees_the_cards_it_took_or_left():
    """The swapper's new hand (the ghost cards it took) and its dead hand (its old hand) are
    hidden cards: no other seat's view shows any of them, anywhere; the swapper sees both."""
    table = Table("ghost", seed_key(2))
    swapper = table.to_act
    assert swapper is not None
    table.apply(ghost.SWAP)
    state = table.state
    took = set(mask_to_cards(int(state.hands[0, swapper])))
    left = set(mask_to_cards(int(state.ghost[0])))
    assert len(took) == len(left) == 6
    for seat in range(3):
        seen = shown_cards(table.view({seat}))
        own = set(mask_to_cards(int(state.hands[0, seat])))
        if seat == swapper:
            assert took | left <= seen
        else:
            assert seen == own  # its own hand, nothing of the swapper's
    assert took | left <= shown_cards(table.view(range(3)))  # a replay shows every card
