"""Which game a network file plays, read without torch: a wrong variant is told at once.

A policy file or training checkpoint (``torch.save``: a zip archive) keeps
its plain contents, ``model_config`` included, in one small pickle
(``*/data.pkl``, about 1 kB for a policy file); the tensors are separate
entries. :func:`network_sizes` reads that pickle with an unpickler that resolves
no global name (tensors, storages and any other object become inert
placeholders, nothing of the file is run), so the network's observation and
action sizes are known in milliseconds, before torch is imported (seconds, tens
of seconds from a cold disk). Files it cannot read this way (not a zip, another
layout) give None: their sizes are checked after torch loads them.
"""

import collections
import pickle
import zipfile

from ghost_euchre_env import variants


class _Inert:
    """Stands for every object the pickle names (tensors, storages, ...); keeps nothing."""

    def __new__(cls, *args, **kwargs):
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass

    def __setitem__(self, key, value):
        pass

    def append(self, item):
        pass

    def extend(self, items):
        pass


class _PlainUnpickler(pickle.Unpickler):
    """Builds only plain containers; every global (but OrderedDict) and persistent id is an _Inert."""

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        return _Inert

    def persistent_load(self, pid):
        return _Inert()


def network_sizes(path):
    """(obs_size, num_actions) of the network in the torch file at ``path``, or None if not readable so."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if n.count("/") == 1 and n.endswith("/data.pkl")]
            if len(names) != 1:
                return None
            with archive.open(names[0]) as handle:
                payload = _PlainUnpickler(handle).load()
    except Exception:  # noqa: BLE001 (not a zip, a corrupt one, an odd pickle: torch decides later)
        return None
    config = payload.get("model_config") if isinstance(payload, dict) else None
    sizes = (
        [config.get(key) for key in ("obs_size", "num_actions")] if isinstance(config, dict) else []
    )
    if len(sizes) != 2 or not all(type(size) is int for size in sizes):
        return None
    return sizes[0], sizes[1]


def fit_error(obs_size, num_actions, game):
    """One line saying why a network of these sizes cannot play ``game``, or None when it can.

    A network of the other variant is named as such, with the ``--variant`` to give.
    """
    if (obs_size, num_actions) == (game.obs_size, game.num_actions):
        return None
    network_variant = variants.by_sizes(obs_size, num_actions)
    game_variant = variants.by_sizes(game.obs_size, game.num_actions)
    if network_variant and game_variant:
        return (
            f"a {network_variant.title} network (obs_size={obs_size}, num_actions={num_actions}) "
            f"cannot play {game_variant.title} (obs_size={game.obs_size}, "
            f"num_actions={game.num_actions}): play it with --variant {network_variant.name}"
        )
    return (
        f"network expects obs_size={obs_size}, num_actions={num_actions}; "
        f"this variant has obs_size={game.obs_size}, num_actions={game.num_actions}"
    )
