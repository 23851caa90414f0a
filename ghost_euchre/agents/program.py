"""A bot that is a program in any language (spec ``proc:PATH``), spoken to in lines of JSON.

:class:`ProgramPolicy` is a :class:`agents.Policy` like any other: a match, a
league, ``--card-play``, a bidding match or the trainer calls its ``act`` with a
batch of games, and it sends the program one decision message for the batch
and reads one answer line (the messages: :mod:`ghost_euchre.agents.protocol`; the reference
page: ``docs/protocol.md``). Life of a program:

- it is started at its first decision (so once per match, and once per worker
  process of a match split over workers; building the policy starts nothing), in
  a process group of its own, its standard error appended to a log file
  (``runs/proc/NAME.log`` under the current folder, or the ``log`` option);
- it gets the hello message and answers its name, then decision messages (each
  answered), the end of each game and of the match (not answered);
- at the end of the match (:meth:`ProgramPolicy.end_match`, called by the
  match, on an error and on Ctrl-C too) its input is closed; a program that has
  not exited :data:`STOP_GRACE_S` seconds later is killed, and so is whatever
  it started. On Linux the program runs under a keeper
  (:mod:`ghost_euchre.agents.keeper`, the child-subreaper flag), which kills
  every process the program started, detached ones (``setsid``) included, when
  the program exits, when it is stopped, and when the process that started it
  dies (SIGTERM, SIGKILL); elsewhere its process group is killed. A policy
  dropped without ``end_match`` (the trainer's opponents) stops when it is
  garbage collected or the interpreter exits.

A program that exits, does not answer within ``timeout`` seconds, writes a line
longer than :func:`line_limit` or that is not JSON, or answers a name that is not an action or not legal is
stopped and named in one line (:class:`ProgramError`, a
:class:`ghost_euchre.agents.checked.PlugInError`) with the game and the log file. POSIX only
(Linux, macOS): the pipes are read and written without blocking, with ``poll``.
"""

import contextlib
import datetime
import os
import select
import signal
import subprocess
import sys
import time
import weakref

import numpy as np

from .base import Policy
from .checked import PlugInError, shown_games
from .protocol import AnswerError, Messages

DEFAULT_TIMEOUT = 30.0
"""seconds a program may take to answer one message (hello, or the decision of a batch)"""
STOP_GRACE_S = 2.0
"""seconds a program has to exit once its input is closed, before it is killed"""
LOG_FOLDER = os.path.join("runs", "proc")
"""where a program's standard error goes, under the current folder: ``NAME.log`` (NAME: the file's name)"""
MAX_TIMEOUT = 86400.0
"""the longest ``timeout`` (a day): an answer's time limit is a number of seconds in (0, MAX_TIMEOUT]"""
LINE_BYTES = 1 << 16
"""the longest answer to hello, and the bytes an answer to a decision may hold besides its names"""
LINE_BYTES_PER_GAME = 64
"""the bytes an answer to a decision may hold for each game of the batch"""
KEEPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keeper.py")
_CHUNK = 1 << 16


def line_limit(games):
    """The longest answer line (bytes, the newline not counted) to a decision of ``games`` games,
    or to hello (``games`` 0): :data:`LINE_BYTES` + :data:`LINE_BYTES_PER_GAME` per game. A longer
    line is refused as soon as that many bytes have come without a newline, before any parsing."""
    return LINE_BYTES + LINE_BYTES_PER_GAME * games


class ProgramError(PlugInError):
    """A program bot failed: it exited, did not answer in time, or answered what the protocol does
    not allow (one line naming the program, what it did, the game and its log file)."""


def program_error(path):
    """Why ``path`` cannot be run as a program bot (one phrase), or '' when it can."""
    if not isinstance(path, str) or not path:
        return "proc needs a program's path, as in proc:./mybot"
    if os.name != "posix" or not hasattr(select, "poll"):
        return "proc:PATH runs programs on Linux and macOS only (POSIX pipes)"
    if not os.path.exists(path):
        return (
            f"no program file {path!r} (a path from the current folder {os.getcwd()}, "
            "as in proc:./mybot)"
        )
    if os.path.isdir(path):
        return f"{path!r} is a folder; expected an executable program file"
    if not os.access(path, os.X_OK):
        return f"program file {path!r} is not executable (chmod +x {path})"
    return ""


def _check_timeout(timeout):
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not 0 < timeout <= MAX_TIMEOUT
    ):
        raise ValueError(
            f"timeout must be a number of seconds > 0 and <= {MAX_TIMEOUT:g} (an answer's time "
            f"limit), got {timeout!r}"
        )
    return float(timeout)


class ProgramPolicy(Policy):
    """The program at ``path`` as a policy (see the module docstring).

    timeout: seconds it may take to answer one message (default
    :data:`DEFAULT_TIMEOUT`); log: the file its standard error is appended to
    (default ``runs/proc/NAME.log``). ``program_name``: the name it answered to
    hello (None before it started).
    """

    def __init__(self, game, seed=None, path="", timeout=DEFAULT_TIMEOUT, log=None):
        super().__init__(game, seed)
        reason = program_error(path)
        if reason:
            raise ValueError(reason)
        self.path = path
        self.timeout = _check_timeout(timeout)
        self.log = log or os.path.join(LOG_FOLDER, f"{os.path.basename(path)}.log")
        if not isinstance(self.log, str):
            raise ValueError(f"log must be a file path, got {log!r}")
        self.seed = seed
        self.name = f"proc:{path}"
        self.program_name = None
        self.messages = Messages(game)
        self._program = None
        self._stop = None

    def act(self, obs, mask, keys=None, games=None):
        """obs float32[N, D], mask bool[N, A], games int[N] (the match's ids, or None) -> int64[N]."""
        del keys  # a program draws its own random numbers (the hello message gives the seed)
        mask = np.asarray(mask, bool)
        doing = (
            f"the decision of {shown_games(games) if games is not None else f'{len(mask)} games'}"
        )
        try:
            program = self._running()
            line = program.ask(self.messages.decide(obs, mask, games), doing, len(mask))
            try:
                return self.messages.read_actions(line, mask, games)
            except AnswerError as error:
                raise program.failed(str(error)) from None
        except ProgramError:  # stopped already: a next decision starts it again
            self.end_match()
            raise

    def game_over(self, games, scores, won, truncated):
        """Tell the program these games ended: games int[M] ids, scores int[M, S] by relative seat
        (0: its own; classic: each seat's team score), won bool[M], truncated bool[M]. The message
        goes with the next one (one write, one wake-up of the program, instead of two)."""
        if self._program is not None:
            self._program.later(self.messages.game_over(games, scores, won, truncated))

    def end_match(self):
        """The match is over: the program is told, its input closed, and it is stopped (a next
        decision starts it again)."""
        if self._stop is not None:
            self._stop()
        self._program = self._stop = None

    def _running(self):
        """The running program, started (and greeted) if it is not."""
        if self._program is None:
            program = Program(self.path, self.log, self.timeout)
            self._stop = weakref.finalize(self, program.stop, self.messages.match_over())
            self._program = program
            line = program.ask(self.messages.hello(self.seed), "hello", 0)
            try:
                self.program_name = self.messages.read_name(line)
            except AnswerError as error:
                raise program.failed(str(error)) from None
            program.note(f"it is {self.program_name!r}")
        return self._program

    def __getstate__(self):  # copied to a worker process: it starts its own program there
        state = self.__dict__.copy()
        state.update(_program=None, _stop=None)
        return state


class Program:
    """One running program: its process (a process group of its own), its pipes and its log.

    path: the executable; log: the file its standard error is appended to;
    timeout: seconds for each answer. Failures come back as :class:`ProgramError`
    (the program stopped first).
    """

    def __init__(self, path, log, timeout):
        self.path, self.timeout = path, timeout
        self.log = os.path.abspath(log)
        try:
            os.makedirs(os.path.dirname(self.log), exist_ok=True)
            self.log_file = open(self.log, "ab")  # noqa: SIM115 (kept open while the program runs)
        except OSError as error:
            raise ProgramError(
                f"program {path}: cannot open its log file {self.log}: {error.strerror or error}"
            ) from None
        self.pid = None
        self.note(f"starting {os.path.abspath(path)}")
        self._stopped = False
        flags = _keeper_flags()
        status = None
        try:
            if flags is None:  # not Linux: the program itself, in a process group of its own
                command, passed = [os.path.abspath(path)], ()
            else:  # the keeper, which starts the program and tells its pid on the status pipe
                status, status_in = os.pipe()
                command = [
                    sys.executable,
                    "-I",
                    "-S",
                    KEEPER,
                    str(status_in),
                    os.path.abspath(path),
                ]
                passed = (status_in,)
            try:
                self.process = subprocess.Popen(
                    command,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=self.log_file,
                    bufsize=0,
                    pass_fds=passed,
                    start_new_session=True,  # out of reach of the terminal's Ctrl-C
                    preexec_fn=flags,  # noqa: PLW1509 (libc calls, resolved before the fork)
                )
            finally:
                for fd in passed:
                    os.close(fd)
            self.pid = self.process.pid if status is None else self._started(status)
        except OSError as error:
            self.log_file.close()
            raise ProgramError(
                f"program {path} does not start: {error.strerror or error} (is it a program "
                "for this machine, or a script whose first line names its interpreter: #!...?)"
            ) from None
        finally:
            if status is not None:
                os.close(status)
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in, self._out = self.process.stdin.fileno(), self.process.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._buffer = bytearray()
        self._pending = []  # messages sent with the next one (game_over)

    def _started(self, status):
        """The program's pid, read from the keeper's status pipe; OSError if it did not start."""
        text = b""
        deadline = time.monotonic() + max(self.timeout, STOP_GRACE_S)
        while not text.endswith(b"\n") and self._wait(status, deadline, write=False):
            chunk = os.read(status, 64)
            if not chunk:
                break
            text += chunk
        word, _, number = text.decode(errors="replace").strip().partition(" ")
        if word.isdigit():
            return int(word)
        self._stopped = True
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            pipe.close()  # pyright: ignore[reportOptionalMemberAccess] (both are pipes)
        if word == "error" and number.isdigit():
            raise OSError(int(number), os.strerror(int(number)))
        raise OSError(f"its keeper ({KEEPER}) exited without starting it")

    # ------------------------------------------------------------------ talk
    def ask(self, text, doing, games):
        """Send ``text`` (one message) and read the answer line (bytes), within ``timeout`` seconds;
        games: the games the message asks about (0 for hello), which bound the line's length."""
        deadline = time.monotonic() + self.timeout
        limit = line_limit(games)
        try:
            self._send(text, deadline)
            return self._receive(deadline, limit)
        except _Late:
            raise self.failed(self._late(f"answer {doing}")) from None
        except _Gone:
            raise self.failed(self._exited(f"answering {doing}")) from None
        except _TooLong:
            raise self.failed(
                f"wrote more than {limit:,} bytes without a newline, answering {doing} (an answer "
                f"line holds at most {LINE_BYTES:,} bytes + {LINE_BYTES_PER_GAME} per game)"
            ) from None

    def later(self, text):
        """Send ``text`` (a message that is not answered) with the next message."""
        self._pending.append(text)

    def _send(self, text, deadline):
        data = memoryview("".join(f"{line}\n" for line in (*self._pending, text)).encode())
        self._pending.clear()
        while data:
            if not self._wait(self._in, deadline, write=True):
                raise _Late
            try:
                data = data[os.write(self._in, data[:_CHUNK]) :]
            except BlockingIOError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                raise _Gone from None

    def _receive(self, deadline, limit):
        while True:
            end = self._buffer.find(b"\n", 0, limit + 1)
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return line
            if len(self._buffer) > limit:
                raise _TooLong
            if not self._wait(self._out, deadline, write=False):
                raise _Late
            try:
                chunk = os.read(self._out, min(_CHUNK, limit + 1 - len(self._buffer)))
            except BlockingIOError:
                continue
            if not chunk:
                raise _Gone
            self._buffer += chunk

    @staticmethod
    def _wait(fd, deadline, write):
        """Whether ``fd`` is ready (to write, or to read; a closed end counts) before ``deadline``."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        poller = select.poll()  # not select.select: any descriptor number, however many are open
        poller.register(fd, select.POLLOUT if write else select.POLLIN)
        return bool(poller.poll(remaining * 1000))

    def _late(self, what):
        return f"did not {what} within {self.timeout:g} s (the option timeout=SECONDS)"

    def _exited(self, doing):
        try:
            code = self.process.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            return f"closed its output before {doing}"
        how = f"killed by signal {-code}" if code < 0 else f"with exit code {code}"
        return f"exited ({how}) before {doing}"

    # ------------------------------------------------------------- failures
    def failed(self, what):
        """:class:`ProgramError` of ``what`` (a phrase), the program stopped first."""
        self.note(f"failed: {what}")
        self.stop(None)
        return ProgramError(f"program {self.path} (pid {self.pid}) {what}; its stderr: {self.log}")

    def note(self, text):
        """A line of ours in the log (a program's own lines are its standard error)."""
        now = datetime.datetime.now().isoformat(timespec="seconds")
        pid = f" pid {self.pid}" if self.pid else ""
        with contextlib.suppress(OSError, ValueError):
            self.log_file.write(f"--- {now} proc:{self.path}{pid}: {text}\n".encode())
            self.log_file.flush()

    def stop(self, last=None):
        """Send ``last`` (a message, or None), close the program's input, give it STOP_GRACE_S
        seconds to exit, then kill its process group. Never raises; a second call does nothing."""
        if self._stopped:
            return
        self._stopped = True
        process = self.process
        if last is not None and process.poll() is None:
            with contextlib.suppress(_Late, _Gone):
                self._send(last, time.monotonic() + STOP_GRACE_S)
        for pipe in (process.stdin, process.stdout):
            with contextlib.suppress(OSError):
                pipe.close()  # pyright: ignore[reportOptionalMemberAccess] (both are pipes)
        try:
            code = process.wait(STOP_GRACE_S if last is not None else 0.05)
        except subprocess.TimeoutExpired:
            code = None
        if (
            code is None and process.pid != self.pid
        ):  # the keeper: it kills all below it, then exits
            with contextlib.suppress(OSError):
                process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(STOP_GRACE_S)
        _kill_group(process.pid)
        if code is None:
            code = process.wait()
            self.note(f"killed (exit code {code})")
        else:
            self.note(f"stopped (exit code {code})")
        with contextlib.suppress(OSError):
            self.log_file.close()


class _Late(Exception):
    """The deadline passed before the program read (or answered) a message."""


class _Gone(Exception):
    """The program's end of a pipe is closed (it exited)."""


class _TooLong(Exception):
    """An answer line longer than :func:`line_limit` allows."""


def _kill_group(pid):
    """SIGKILL to the process group ``pid`` leads (the program and what it started), if any is left."""
    if os.name != "posix":
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _keeper_flags():
    """On Linux, a preexec_fn setting the keeper's two flags (:mod:`ghost_euchre.agents.keeper`):
    SIGTERM when the thread that started it dies (the match's process killed), and the child
    subreaper (what the program leaves becomes the keeper's). None elsewhere: no keeper."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: only where a program starts

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def flags():
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        prctl(_PR_SET_CHILD_SUBREAPER, 1)

    return flags
