"""Who and what a stored row is: players' versions, a match's and an exploit run's keys, the code's version."""

import dataclasses
import hashlib
import json
import os
import subprocess

from ghost_euchre.agents.specs import spec_tree, written
from ghost_euchre.agents.versions import fingerprint
from ghost_euchre_env import variants


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


def key_of(values):
    """A stored key: SHA-256 (hex) of the JSON text of the list ``values``."""
    return hashlib.sha256(json.dumps(values).encode()).hexdigest()


def keyed_rules(variant, rules):
    """The options of a rules dict that tell its results apart: those away from the variant's
    defaults (an option the variant no longer has stays). A key names these alone, so that an
    option added at its default leaves every stored key, and so every stored result, as it was."""
    defaults = dataclasses.asdict(variants.make(variant).rules_type())
    return {
        name: value
        for name, value in rules.items()
        if name not in defaults
        or type(value) is not type(defaults[name])
        or value != defaults[name]
    }


def keyed_rules_text(variant, text):
    """:func:`rules_text` of the :func:`keyed_rules` of a stored rules cell (JSON text), as the
    store's SQL compares rules (``keyed_rules(variant, rules)``); a cell that does not read is
    compared as it is (its damage is told where it is read)."""
    try:
        return rules_text(keyed_rules(variant, json.loads(text)))
    except (ValueError, TypeError, AttributeError):
        return text


def match_key(variant, episode, rules, seed, games, identities):
    """The identity of a match: SHA-256 (hex) of its variant, episode, rules (its
    :func:`keyed_rules`), seed, games (after rounding to whole deal sequences) and players in
    seat-plan order (their (spec, content_hash) identities). The code version is stored, not part
    of it."""
    return key_of(
        [
            variant,
            episode,
            rules_text(keyed_rules(variant, rules)),
            int(seed),
            int(games),
            [list(i) for i in identities],
        ]
    )


def exploit_key(variant, episode, rules, identity, budget, seed, games, init):
    """The identity of an exploit run: SHA-256 (hex) of its variant, episode, rules (its
    :func:`keyed_rules`), the exploited player's (spec, content_hash), the budget (decisions),
    seed, duplicate games and the warm start's (spec, content_hash) (('', '') from scratch)."""
    return key_of(
        [
            variant,
            episode,
            rules_text(keyed_rules(variant, rules)),
            list(identity),
            int(budget),
            int(seed),
            int(games),
            list(init),
        ]
    )


def card_key(suite, seed, variant, identity):
    """The identity of a benchmark report card: SHA-256 (hex) of the suite's name, its seed, the
    variant and the bot's (spec, content_hash): a bot whose code changed gets a new card."""
    return key_of([suite, int(seed), variant, list(identity)])


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
