"""What the web page's table shows of a variant beyond the table every variant shares.

One module a variant, as :mod:`ghost_euchre.agents.heuristic` is: Ghost Hand's bids, scores by
seat and ghost hand are :mod:`ghost_euchre.arena.web.shows.ghost`'s, classic Euchre's teams,
calls, upcard, discard and lone hands :mod:`ghost_euchre.arena.web.shows.classic`'s; each
declares ``VARIANT`` and its ``TableShows``, and :class:`ghost_euchre.arena.web.table.Table` asks
:func:`table_shows` by the descriptor's name. A ``TableShows`` has ``buttons`` (the action ids
that are not cards, in the order of the page's buttons) and four methods the table calls:
``before_move(state, action)``, ``new_deal()``, ``deal(summary)`` (adds to a deal's JSON
summary) and ``view(state, view, visible)`` (adds to a view).
"""

from ghost_euchre_env import variants

from . import classic, ghost
from .common import card, cards, seat_or_none

__all__ = ["TABLE_SHOWS", "card", "cards", "seat_or_none", "table_shows"]

TABLE_SHOWS = variants.by_name(ghost, classic, part="TableShows")
"""What the page shows of each variant, by the descriptor's name: the one place the table chooses."""


def table_shows(variant):
    """A new ``TableShows`` of ``variant`` (a name or a descriptor); ValueError for a variant
    the page cannot show."""
    return variants.own(TABLE_SHOWS, variant, "table on the web page")()
