"""CPU time of a benchmark's own process and its finished children, for the benchmarks that compare it."""

import resource


def children_seconds():
    """CPU seconds (user + system) used so far by this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_seconds():
    """CPU seconds (user + system) of this process and its finished children (workers, runs)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime + children_seconds()
