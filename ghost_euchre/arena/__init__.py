"""Where bots meet: matches, statistics, reports and atomic files.

- :mod:`ghost_euchre.arena.match`: duplicate-deal matches on the batched engine (``run_match``,
  ``MatchResult``); who sits where is :mod:`ghost_euchre.arena.seatings`, what each player did
  :mod:`ghost_euchre.arena.player_stats`, games at the terminal :mod:`ghost_euchre.arena.interactive`.
- :mod:`ghost_euchre.arena.league`, :mod:`ghost_euchre.arena.store`: leagues of matches kept in an SQLite store;
  :mod:`ghost_euchre.arena.bidding`, :mod:`ghost_euchre.arena.regret`: bidding matches and bid regret.
- :mod:`ghost_euchre.arena.stats`: Wilson and clustered win-rate intervals, ratings (OpenSkill game by
  game in a match, a Plackett-Luce fit over a league's stored matches).
- :mod:`ghost_euchre.plumbing.workers`: a job's independent tasks (deal-sequence ranges, whole matches) on
  worker processes or a Ray cluster, one progress bar (``Workers``, ``ProgressBar``).
- :mod:`ghost_euchre.arena.report`: a match as a text table, JSON, CSV and a PNG.
- :mod:`ghost_euchre.plumbing.files`: ``write_atomic``, the one atomic file write of the project.
- :mod:`ghost_euchre.arena.web`: the local web page (play, watch, leaderboard) over
  :mod:`ghost_euchre.arena.web.table`, one game stepped move by move and what a page shows of it;
  :mod:`ghost_euchre.arena.web.gate` decides which bots a request may have built,
  :mod:`ghost_euchre.arena.web.guard` what a request must be before any route runs.

:mod:`ghost_euchre.arena.cli` (``ghost-euchre-evaluate``, ``python -m ghost_euchre.arena``, ``evaluate.py`` in a clone) is the command line over these modules.
"""
