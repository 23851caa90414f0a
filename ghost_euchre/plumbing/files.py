"""Atomic file writes: the one way this project replaces a file's contents."""

import os
import tempfile
import threading

_UMASK_LOCK = threading.Lock()


def current_umask():
    """The process's file-mode creation mask (e.g. 0o022), read without changing it for long."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:  # elsewhere the mask can only be read by setting it
        mask = os.umask(0o077)
        os.umask(mask)
    return mask


def check_writable(path, what="file"):
    """Raise ValueError (one line naming ``what`` and ``path``) unless :func:`write_atomic` could write it now.

    Checks without changing anything lasting: ``path`` must not be a directory,
    and its nearest existing ancestor must be a directory where a file can be
    created (probed with a temporary file, removed at once; missing directories
    below it would be created by the write). For checking output paths before
    long work, so that the work is not lost to a bad path. Returns that nearest
    existing directory (absolute): the file's own directory unless the write
    would create directories.
    """
    target = os.path.abspath(os.fspath(path))
    if os.path.isdir(target):
        raise ValueError(f"cannot write {what} {os.fspath(path)!r}: it is a directory")
    ancestor = os.path.dirname(target)
    while not os.path.exists(ancestor):
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor):
        raise ValueError(
            f"cannot write {what} {os.fspath(path)!r}: {ancestor!r} is not a directory"
        )
    try:
        fd, probe = tempfile.mkstemp(dir=ancestor, prefix=".tmp-probe-")
    except OSError as error:
        reason = error.strerror or str(error)
        raise ValueError(
            f"cannot write {what} {os.fspath(path)!r}: {reason} ({ancestor!r})"
        ) from None
    os.close(fd)
    os.unlink(probe)
    return ancestor


def check_writable_in_place(path, what="file"):
    """:func:`check_writable`, and ValueError (one line) when ``path`` exists and cannot be written in
    place (a league store: SQLite changes the file, it does not replace it). Nothing is opened, so a
    read-only store is refused before anything (``-wal``, ``-shm``) is made beside it."""
    folder = check_writable(path, what)
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise ValueError(f"cannot write {what} {os.fspath(path)!r}: the file is read-only")
    return folder


def write_atomic(path, write, binary=False):
    """Replace ``path`` all at once with what ``write(handle)`` writes.

    ``write`` is called with a file object open on a temporary file beside
    ``path`` (binary if ``binary``, else UTF-8 text); the file is flushed and
    fsynced, given the usual mode of a new file (0o666 & ~umask, not the 0o600
    of a temporary file) and renamed over ``path``. Readers see the old file or
    the new one, never a part. If ``write`` raises, ``path`` is untouched and the
    temporary file is removed. Missing parent directories are created. Returns
    ``path``.
    """
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix="-" + os.path.basename(path))
    try:
        mode = "wb" if binary else "w"
        encoding = None if binary else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding) as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o666 & ~current_umask())
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable (POSIX)
        dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return path
