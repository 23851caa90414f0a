"""The local web page: play against the bots, watch recorded games, see the leaderboard.

One module per concern: :mod:`ghost_euchre.arena.web.app` (the Starlette app, its JSON API and
``serve``), :mod:`ghost_euchre.arena.web.games` (a person's games and replay pages),
:mod:`ghost_euchre.arena.web.guard` (what a request must be before any route runs),
:mod:`ghost_euchre.arena.web.gate` (which bots a request may have built),
:mod:`ghost_euchre.arena.web.table` (one game move by move, and what a seat may see of it),
:mod:`ghost_euchre.arena.web.league` (the leaderboard and stored games, read from the store)
and ``static/`` (the page: plain HTML, CSS and JavaScript, no build step).
"""

from .app import create_app, serve

__all__ = ["create_app", "serve"]
