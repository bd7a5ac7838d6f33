"""Griffe extension: Sphinx cross-reference roles in the docstrings, rendered for MkDocs.

The docstrings follow numpydoc and use Sphinx roles (``:func:`answer_correctness```), which
mkdocstrings would print as literal text. Before rendering, this rewrites each role: a target that
is a public name of the package becomes a link to its entry on the API page (autorefs resolves
``[text][polarscore.name]``); any other target (a Polars class, a private helper) becomes inline
code.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|mod|data|exc|obj|const):`(~?)([^`]+)`")


def _public_names(pkg: griffe.Module) -> set[str]:
    exported = pkg.exports
    return set(exported) if exported else set()


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx roles into autorefs links (public names) or inline code (the rest)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:  # noqa: D102
        public = _public_names(pkg)

        def replace(match: re.Match[str]) -> str:
            tilde, target = match.groups()
            target = target.strip().removesuffix("()")
            name = target.rsplit(".", 1)[-1]
            shown = name if tilde else target
            ours = target.startswith(pkg.name + ".") or "." not in target
            if ours and name in public:
                return f"[`{shown}`][{pkg.name}.{name}]"
            return f"`{shown}`"

        def walk(obj: griffe.Object | griffe.Alias) -> None:
            if isinstance(obj, griffe.Alias):
                return
            if obj.docstring is not None:
                obj.docstring.value = _ROLE.sub(replace, obj.docstring.value)
            for member in obj.members.values():
                walk(member)

        walk(pkg)
