"""What a bot hands back, checked: the one way code outside the engine asks a policy for actions.

Every decision a policy (or a user's network) hands a match or the trainer is
checked where it is used: :func:`checked_act` names the bot when its ``act``
raises (:class:`PolicyRaised`, keeping the bot's traceback as text) or returns
anything but one legal integer action per game (:class:`PlugInError`).
:class:`CheckedPolicy` puts a policy behind it for code that calls ``act``.
"""

import importlib
import traceback

from ghost_euchre_env.core import check_actions

from .extras import missing_extra
from .human import HumanQuit
from .renamed import current_module
from .streams import act_keyed


class PlugInError(ValueError):
    """A bot or a user's network returned something unusable (one line naming which and what)."""


class PolicyRaised(RuntimeError):
    """A bot's or a user's network's own code raised.

    ``str()`` is one line naming which one raised, what and where; ``trace`` is
    its traceback as text (kept through pickling, so a worker's failure shows it too).
    """

    def __init__(self, message, trace=""):
        super().__init__(message, trace)
        self.message, self.trace = message, trace

    def __str__(self):
        return self.message

    def located(self, where):
        """The same failure with ``where`` (e.g. 'update 3') in front of its line."""
        return PolicyRaised(f"{where}: {self.message}", self.trace)


def raised(what, error, doing):
    """:class:`PolicyRaised` for ``error``, raised by ``what`` (e.g. "player 'x'") while ``doing``."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return PolicyRaised(
        f"{what} raised {type(error).__name__}{f': {first}' if first else ''} {doing} "
        "(its traceback follows)",
        "".join(traceback.format_exception(error)),
    )


def find_module(name, what):
    """The module ``name`` imported (a 0.1 name read as today's, :mod:`.renamed`), or None when no
    module of that name exists. A module that
    exists but fails to import (a syntax error, a NUL byte, a missing dependency, an exception or
    ``sys.exit`` at import, a package whose ``__init__`` raises) is user code that raised:
    :class:`PolicyRaised` whose line names ``what`` (e.g. "policy spec 'm:Bot'") and
    the module, with the traceback kept (exit status 1 in every command)."""
    name = current_module(name)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and (name == error.name or name.startswith(error.name + ".")):
            return None
        if (missing := missing_extra(error)) is not None:  # an extra not installed: its line
            raise missing from None
        failure = error
    except (Exception, SystemExit) as error:  # noqa: BLE001 (user code at import: named, then shown)
        failure = error
    raise raised(what, failure, f"while importing module {name!r}") from None


def shown_games(games):
    """'game 3' or 'games 3, 5, 8, ... (12 games)' of int[M] game ids."""
    games = [int(g) for g in games]
    if len(games) == 1:
        return f"game {games[0]}"
    more = f", ... ({len(games)} games)" if len(games) > 3 else ""
    return f"games {', '.join(map(str, games[:3]))}{more}"


def checked_act(policy, what, obs, mask, keys=None, games=None):
    """``policy``'s actions int64[N] for obs float32[N, D] and mask bool[N, A] (``keys``: as
    :func:`ghost_euchre.agents.streams.act_keyed`), checked: :class:`PolicyRaised` when its ``act`` raises,
    :class:`PlugInError` unless it returns N legal integer actions; both name ``what``
    (e.g. "player 'x'") and the game (games: int[N] the rows' game ids, given to a policy whose
    ``act`` takes ``games``; None: row numbers). A :class:`PlugInError` the policy raises itself (a
    program bot's failure, :mod:`ghost_euchre.agents.program`) is its one line, after ``what``."""
    try:
        chosen = act_keyed(policy, obs, mask, keys, games)
    except HumanQuit:  # the person at the terminal stopped: not a failure
        raise
    except PlugInError as error:  # a bot that tells its own failure in one line (proc:PATH)
        raise PlugInError(f"{what}: {error}") from None
    except Exception as error:  # a bot's own code: named, its traceback kept
        doing = f"in {len(mask)} decisions" if games is None else f"in {shown_games(games)}"
        raise raised(what, error, doing) from error
    try:
        return check_actions(chosen, mask, games)
    except ValueError as error:
        raise PlugInError(f"{what} returned a bad action: {error}") from None


class CheckedPolicy:
    """``policy`` behind :func:`checked_act` (named ``what``): every batch of actions it returns is
    checked; everything else (``name``, ``reset``, ``rng``, its options) is the policy's."""

    def __init__(self, policy, what):
        self.policy, self.what = policy, what
        self.name = getattr(policy, "name", what)

    def act(self, obs, mask, keys=None):
        return checked_act(self.policy, self.what, obs, mask, keys)

    def reset(self, games):
        self.policy.reset(games)

    def __getattr__(self, name):  # only for what this class does not have
        if name == "policy":  # (not set yet: while unpickling)
            raise AttributeError(name)
        return getattr(self.policy, name)
