"""Policy files and training checkpoints read without torch: which game a network plays, and
its weights as NumPy arrays.

A policy file or training checkpoint (``torch.save``: a zip archive) keeps
its plain contents, ``model_config`` included, in one small pickle
(``*/data.pkl``, about 1 kB for a policy file); the tensors are separate
entries (``*/data/KEY``: each storage's raw bytes). Both readers here resolve no
global name of the pickle but ``collections.OrderedDict`` and, in
:func:`read_network`, torch's tensor and storage names, which become NumPy arrays
of the stored bytes: nothing of the file is run, whatever it holds.

- :func:`network_sizes`: the network's observation and action sizes in
  milliseconds (tensors stay inert placeholders), so a wrong variant is told before
  anything is loaded; None for a file it cannot read this way.
- :func:`read_network`: the whole contents, tensors as read-only NumPy arrays (any
  other object an inert placeholder), what ``ppo:PATH`` plays from
  (:mod:`ghost_euchre.agents.forward`); ValueError, one line, for a file it cannot read.
"""

import collections
import os
import pickle
import zipfile

import numpy as np

from ghost_euchre_env import variants

POLICY_FORMAT = "ghost-euchre-ppo-v1"
"""the ``format`` a policy file of the trainer records"""
STORAGE_DTYPES = {
    f"{name}Storage": np.dtype(dtype)
    for name, dtype in (
        ("Float", "<f4"),
        ("Double", "<f8"),
        ("Half", "<f2"),
        ("Long", "<i8"),
        ("Int", "<i4"),
        ("Short", "<i2"),
        ("Char", "i1"),
        ("Byte", "u1"),
        ("Bool", "?"),
    )
}
"""torch's storage class names (``torch.FloatStorage``, ...) and the NumPy dtype of their bytes"""


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


class NotAnArchive(ValueError):
    """The file is not a zip archive: not torch.save's format since torch 1.6 (perhaps its legacy
    format, which only torch reads)."""


class _Storage:
    """One storage of the archive: its dtype and raw bytes (read when a tensor is built on it)."""

    def __init__(self, archive, prefix, dtype, key, numel):
        self.archive, self.name, self.dtype, self.numel = (
            archive,
            f"{prefix}/data/{key}",
            dtype,
            numel,
        )

    def array(self):
        """dtype[numel]: the storage's values (ValueError when the entry is missing or short)."""
        raw = self.archive.read(self.name)
        if len(raw) < self.numel * self.dtype.itemsize:
            raise ValueError(f"its entry {self.name!r} is shorter than its {self.numel} values")
        return np.frombuffer(raw, self.dtype, self.numel)


def _rebuild_tensor(storage, offset, size, stride, *rest):
    """torch._utils._rebuild_tensor_v2's arguments -> a NumPy array, a copy of the values (an
    _Inert for a storage of a dtype NumPy has no name for)."""
    if not isinstance(storage, _Storage):
        return _Inert()
    values = storage.array()
    itemsize = values.dtype.itemsize
    end = (
        offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) + 1 if all(size) else 0
    )
    if offset < 0 or any(s < 0 for s in stride) or end > len(values):
        raise ValueError(
            f"a tensor of shape {tuple(size)} reaches past its storage {storage.name!r}"
        )
    view = np.lib.stride_tricks.as_strided(
        values[offset:], tuple(size), tuple(s * itemsize for s in stride), writeable=False
    )
    return np.array(view)


class _TensorUnpickler(pickle.Unpickler):
    """As :class:`_PlainUnpickler`, with torch's tensors rebuilt as NumPy arrays from the archive."""

    def __init__(self, handle, archive, prefix):
        super().__init__(handle)
        self.archive, self.prefix = archive, prefix

    def find_class(self, module_name, global_name, /):
        if (module_name, global_name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor
        if module_name == "torch" and global_name in STORAGE_DTYPES:
            return STORAGE_DTYPES[global_name]
        return _PlainUnpickler.find_class(self, module_name, global_name)  # pyright: ignore[reportArgumentType]

    def persistent_load(self, pid):
        if isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage":
            dtype, key, _, numel = pid[1:]
            if isinstance(dtype, np.dtype) and isinstance(key, str) and isinstance(numel, int):
                return _Storage(self.archive, self.prefix, dtype, key, numel)
        return _Inert()


def _load_pickle(archive, unpickler):
    """The object of the archive's one ``*/data.pkl`` read by ``unpickler(handle, archive, prefix)``;
    ValueError when the archive has no such entry or more than one."""
    names = [n for n in archive.namelist() if n.count("/") == 1 and n.endswith("/data.pkl")]
    if len(names) != 1:
        raise ValueError("it is not an archive torch.save wrote (no single */data.pkl)")
    prefix = names[0].rpartition("/")[0]
    order = (
        archive.read(f"{prefix}/byteorder")
        if f"{prefix}/byteorder" in archive.namelist()
        else b"little"
    )
    if order.strip() != b"little":
        raise ValueError(f"its tensors are stored {order.strip().decode(errors='replace')}-endian")
    with archive.open(names[0]) as handle:
        return unpickler(handle, archive, prefix).load()


def read_network(path, what="policy file or training checkpoint"):
    """The dict in the policy file or training checkpoint at ``path``, its tensors as NumPy arrays,
    read without torch (module docstring); ValueError (one line naming ``path`` and ``what`` it
    should be) when it cannot be read so or lacks ``model`` and ``model_config``. ``path`` may
    also be an open binary file (named in messages by its ``name``)."""
    name = os.fspath(getattr(path, "name", path))  # an open file: its name
    try:
        with zipfile.ZipFile(path) as archive:
            payload = _load_pickle(archive, _TensorUnpickler)
    except OSError as error:
        raise file_error(error, name, what) from None
    except zipfile.BadZipFile:
        raise NotAnArchive(f"{name!r} is not a {what}: not an archive torch.save wrote") from None
    except Exception as error:  # noqa: BLE001 (a corrupt entry, an odd pickle: one line)
        reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise ValueError(f"{name!r} is not a {what}: {reason or type(error).__name__}") from None
    return checked_payload(payload, name, what)


def file_error(error, name, what):
    """The one-line ValueError for ``error`` (an OSError) reading the file ``name``, a ``what``."""
    if isinstance(error, FileNotFoundError):
        return ValueError(f"{what} {name!r} does not exist")
    if isinstance(error, IsADirectoryError):
        return ValueError(f"{what} {name!r} is a directory, not a file")
    return ValueError(f"cannot read {what} {name!r}: {error.strerror or error}")


def checked_payload(payload, name, what="policy file or training checkpoint"):
    """``payload`` (the object read from the file ``name``) when it is a dict holding ``model``
    and ``model_config``; ValueError naming the file otherwise."""
    if not isinstance(payload, dict) or "model" not in payload or "model_config" not in payload:
        raise ValueError(f"{name!r} is not a {what} (expected keys 'model' and 'model_config')")
    return payload


def _plain(handle, archive, prefix):
    return _PlainUnpickler(handle)


def network_sizes(path):
    """(obs_size, num_actions) of the network in the torch file at ``path``, or None if not readable so."""
    try:
        with zipfile.ZipFile(path) as archive:
            payload = _load_pickle(archive, _plain)
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
