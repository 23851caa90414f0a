"""Where bots meet: matches, statistics, reports and atomic files.

- :mod:`arena.match`: duplicate-deal matches on the batched engine (``run_match``,
  ``MatchResult``); who sits where is :mod:`arena.seatings`, what each player did
  :mod:`arena.player_stats`, games at the terminal :mod:`arena.interactive`.
- :mod:`arena.league`, :mod:`arena.store`: leagues of matches kept in an SQLite store;
  :mod:`arena.bidding`, :mod:`arena.regret`: bidding matches and bid regret.
- :mod:`arena.stats`: Wilson and clustered win-rate intervals, ratings (OpenSkill game by
  game in a match, a Plackett-Luce fit over a league's stored matches).
- :mod:`arena.parallel`: a job's independent tasks (deal-sequence ranges, whole matches) on
  worker processes or a Ray cluster, one progress bar (``Workers``, ``ProgressBar``).
- :mod:`arena.report`: a match as a text table, JSON, CSV and a PNG.
- :mod:`arena.files`: ``write_atomic``, the one atomic file write of the project.
- :mod:`arena.web`: the local web page (play, watch, leaderboard) over
  :mod:`arena.web.table`, one game stepped move by move and what a page shows of it;
  :mod:`arena.web.gate` decides which bots a request may have built,
  :mod:`arena.web.guard` what a request must be before any route runs.

:mod:`arena.cli` (``ghost-euchre-evaluate``, ``python -m arena``, ``evaluate.py`` in a clone) is the command line over these modules.
"""
