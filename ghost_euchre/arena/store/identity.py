"""Who and what a stored row is: players' versions, a match's and an exploit run's keys, the code's version."""

import hashlib
import json
import os
import subprocess

from ghost_euchre.agents.specs import spec_tree, written
from ghost_euchre.agents.versions import fingerprint


def player_identity(spec):
    """(spec, content_hash) of a player spec (a string or its tree): content_hash is the version of
    its code (:func:`ghost_euchre.agents.versions.fingerprint`: a checkpoint file's SHA-256, or its
    modules' sources)."""
    tree = spec_tree(spec)
    return written(tree).strip(), fingerprint(tree)


def version_label(content_hash):
    """How a player's version is shown: its hash's first 8 digits, or 'unrecorded' (stored before
    schema 3 recorded the code's version, or nothing to read)."""
    return content_hash[:8] if content_hash else "unrecorded"


def rules_text(rules):
    """The canonical JSON text of a rules dict (sorted keys), as stored and compared."""
    return json.dumps(rules, sort_keys=True)


def match_key(variant, episode, rules, seed, games, identities):
    """The identity of a match: SHA-256 (hex) of its variant, episode, rules, seed,
    games (after rounding to whole deal sequences) and players in seat-plan order
    (their (spec, content_hash) identities). The code version is stored, not part of it."""
    text = json.dumps(
        [variant, episode, rules_text(rules), int(seed), int(games), [list(i) for i in identities]]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def exploit_key(variant, episode, rules, identity, budget, seed, games, init):
    """The identity of an exploit run: SHA-256 (hex) of its variant, episode, full rules dict, the
    exploited player's (spec, content_hash), the budget (decisions), seed, duplicate games and the
    warm start's (spec, content_hash) (('', '') from scratch)."""
    text = json.dumps(
        [
            variant,
            episode,
            rules_text(rules),
            list(identity),
            int(budget),
            int(seed),
            int(games),
            list(init),
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def card_key(suite, seed, variant, identity):
    """The identity of a benchmark report card: SHA-256 (hex) of the suite's name, its seed, the
    variant and the bot's (spec, content_hash): a bot whose code changed gets a new card."""
    text = json.dumps([suite, int(seed), variant, list(identity)])
    return hashlib.sha256(text.encode()).hexdigest()


def code_version():
    """The project's version and, in a git checkout, its commit ('0.1.0+3f2a1b9c', '+dirty' if edited)."""
    from ghost_euchre_env import __version__

    root = os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    )
    try:
        described = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=10"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return __version__
    return f"{__version__}+{described}"
