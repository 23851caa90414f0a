"""A command started as a terminal starts it: SIGINT unblocked and at Python's own handler.

A test runner started in the background by a shell inherits SIGINT ignored (and an earlier test may
leave it blocked); a Python started so keeps it ignored, and Ctrl-C would never reach the command.
"""

_AS_AT_A_TERMINAL = (
    "import runpy, signal, sys; "
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
    "signal.signal(signal.SIGINT, signal.default_int_handler); "
)


def module_at_a_terminal(module):
    """The ``python -c`` code that runs ``python -m MODULE`` (its arguments follow the code)."""
    return _AS_AT_A_TERMINAL + (
        f"sys.argv[0] = {module!r}; runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"
    )


def script_at_a_terminal(path):
    """The ``python -c`` code that runs ``python PATH`` (its arguments follow the code)."""
    return (
        _AS_AT_A_TERMINAL + f"sys.argv[0] = {path!r}; runpy.run_path({path!r}, run_name='__main__')"
    )
