"""The package's extras: which optional dependency comes with which, and the line a missing one gets.

The plain install (``pip install ghost-euchre``) holds what the environments and every shipped
bot need, the networks included (they play without torch, :mod:`ghost_euchre.agents.forward`).
The trainer, ``exploit`` and network classes of your own need ``[train]`` (torch,
tensorboard), the web page ``[web]``, plots ``[plot]``; ``[all]`` is all of them
(pyproject.toml).
"""

import contextlib
import importlib.util

OPTIONAL = {  # top-level module -> the extra that installs it
    "torch": "train",
    "tensorboard": "train",
    "matplotlib": "plot",
    "starlette": "web",
    "uvicorn": "web",
    "h11": "web",
    "anyio": "web",
}


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message names the extra that installs it."""


def missing_extra(error):
    """:class:`MissingExtra` for an ``ImportError`` of an optional dependency (a MissingExtra is
    itself), else None."""
    if isinstance(error, MissingExtra):
        return error
    top = (getattr(error, "name", None) or "").split(".")[0]
    return _missing(top) if top in OPTIONAL else None


@contextlib.contextmanager
def extra_named(what):
    """Within it, an optional dependency that is not installed is :class:`MissingExtra`, its line
    after ``what`` (e.g. "policy spec 'ppo:ghost'"): Python is told what the commands print."""
    try:
        yield
    except ImportError as error:
        missing = missing_extra(error)
        if missing is None:
            raise
        raise MissingExtra(f"{what}: {missing}") from None


def require(module):
    """Raise :class:`MissingExtra` now, before any work, when the optional ``module`` (a key of
    :data:`OPTIONAL`) is not installed."""
    if importlib.util.find_spec(module) is None:
        raise _missing(module)


def _missing(module):
    extra = OPTIONAL[module]
    return MissingExtra(
        f"this needs {module}, which comes with the {extra!r} extra: "
        f"pip install 'ghost-euchre[{extra}]' (or [all] for everything)"
    )
