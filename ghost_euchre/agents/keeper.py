"""The keeper of a program bot on Linux: the program's parent, which stops all it started at the end.

:class:`ghost_euchre.agents.program.Program` starts this file as a script
(``python -I -S keeper.py STATUS_FD PATH``), its standard input and output the
program's pipes, with two flags set by the process that starts it: the Linux
*child subreaper* flag (``PR_SET_CHILD_SUBREAPER``: a process the program starts
and leaves, even one that detaches with ``setsid``, becomes the keeper's child
instead of init's) and the parent-death signal (SIGTERM when the match's process
dies, killed or not).

The keeper starts the program (``posix_spawn``, the pipes handed over: it keeps
no end of them), writes the program's pid (or ``error ERRNO`` when it does not
start) on STATUS_FD and closes it, then waits. When the program exits, or on
SIGTERM, SIGHUP or SIGINT, it kills every process it has below it (read from
``/proc``, until none is left) and exits as the program did (the same exit code,
or killed by the same signal). Only the standard library's ``contextlib``, ``os``,
``signal``, ``sys`` and ``time``: it starts in a few milliseconds. A keeper killed by
SIGKILL cannot stop anything; the page ``docs/protocol.md`` says so.
"""

import contextlib
import os
import signal
import sys
import time

STOPS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
KILL_WITHIN_S = 2.0  # the keeper gives up on processes that outlive this many seconds of SIGKILLs


class _Stop(Exception):
    """A signal asked the keeper to stop the program and everything below it."""


def _on_signal(number, frame):
    del frame
    raise _Stop(number)


def descendants(root):
    """The pids of the live (not zombie) processes below ``root``, read from /proc."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rpartition(b")")[2].split()
        except OSError:  # it ended meanwhile
            continue
        children.setdefault(int(fields[1]), []).append((int(name), fields[0] != b"Z"))
    found, todo = [], [root]
    while todo:
        for pid, live in children.get(todo.pop(), ()):
            todo.append(pid)
            if live:
                found.append(pid)
    return found


def _reap(statuses):
    """Collect every child that has ended ({pid: wait status} into ``statuses``)."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        statuses[pid] = status


def stop_all(statuses):
    """SIGKILL every process below the keeper until none is left (or KILL_WITHIN_S has passed)."""
    end = time.monotonic() + KILL_WITHIN_S
    while True:
        _reap(statuses)
        left = descendants(os.getpid())
        if not left or time.monotonic() > end:
            return
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):  # it ended meanwhile
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.002)


def main(argv):
    status_fd, path = int(argv[1]), argv[2]
    signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)  # until the program's pid is known
    for number in STOPS:
        signal.signal(number, _on_signal)
    try:
        program = os.posix_spawn(
            path,
            [path],
            os.environ,
            setsigmask=(),
            setsigdef=(*STOPS, signal.SIGPIPE, signal.SIGXFSZ),  # the program's own defaults
        )
    except OSError as error:
        os.write(status_fd, f"error {error.errno or 0}\n".encode())
        return 127
    os.write(status_fd, f"{program}\n".encode())
    os.close(status_fd)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # the pipes are the program's alone: its exit closes them
    os.dup2(null, 1)
    statuses = {}
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
        while program not in statuses:
            pid, status = os.waitpid(-1, 0)
            statuses[pid] = status
    except (_Stop, ChildProcessError):
        pass
    signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)  # a second signal does not stop the stopping
    stop_all(statuses)
    status = statuses.get(program)
    if status is None or os.WIFSIGNALED(status):
        number = signal.SIGKILL if status is None else os.WTERMSIG(status)
        if number != signal.SIGKILL:
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, (number,))
        os.kill(os.getpid(), number)
    return os.waitstatus_to_exitcode(status) if status is not None else 137


if __name__ == "__main__":
    sys.exit(main(sys.argv))
