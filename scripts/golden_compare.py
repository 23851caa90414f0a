"""python scripts/golden_compare.py BEFORE AFTER: compare two folders of ``scripts/golden`` outputs.

Equal means equal apart from what a run cannot repeat: wall-clock times, dates, the code's
version and the bots' version fingerprints (a changed module is a new version) and the keys
made from them. Prints one line per file and exits 1 when any differs.
"""

import json
import pathlib
import re
import sqlite3
import sys

UNREPEATABLE = re.compile(
    r"time|seconds|wall|elapsed|created|path|version|fingerprint|content_hash|match_key", re.I
)
TIMED_LINE = re.compile(r" s\b|wall|s/|seconds|ms\b|wrote")


def strip(value):
    """A JSON value without the keys named by UNREPEATABLE."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if not UNREPEATABLE.search(k)}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def cell(value):
    """A store's cell, JSON text compared without its unrepeatable keys."""
    if isinstance(value, str) and value.startswith("{"):
        try:
            return json.dumps(strip(json.loads(value)), sort_keys=True)
        except ValueError:
            return value
    return value


def tables(path):
    """{table: sorted rows} of an SQLite file, without the unrepeatable columns."""
    db = sqlite3.connect(path)
    out = {}
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
        kept = [i for i, name in enumerate(columns) if not UNREPEATABLE.search(name)]
        rows = db.execute(f"SELECT * FROM {table}")
        out[table] = sorted(tuple(cell(row[i]) for i in kept) for row in rows)
    return out


def same(before, after):
    if before.suffix == ".json":
        return strip(json.loads(before.read_text())) == strip(json.loads(after.read_text()))
    if before.suffix == ".sqlite":
        return tables(before) == tables(after)
    lines = [
        [line for line in p.read_text().splitlines() if not TIMED_LINE.search(line)]
        for p in (before, after)
    ]
    if before.name.startswith("train_"):  # the evaluation table's rows only
        lines = [[line for line in part if "%" in line and "[" in line] for part in lines]
    return lines[0] == lines[1]


def main(before, after):
    differ = 0
    for path in sorted(p for p in pathlib.Path(before).iterdir() if p.is_file()):
        other = pathlib.Path(after) / path.name
        equal = other.exists() and same(path, other)
        print(("same  " if equal else "DIFFERS ") + path.name)
        differ += not equal
    print("all the same" if not differ else f"{differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
