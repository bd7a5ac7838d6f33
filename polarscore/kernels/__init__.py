"""Array-in, array-out kernels with no Polars dependency.

Each kernel works on whole columns (Python lists of ``str`` or NumPy arrays) and is wrapped by a
scorer as one elementwise batch map, so it runs unchanged eagerly, lazily, in the streaming engine
and on Arrow batches. Their slow pure-Python counterparts live in the tests. The native kernels
(a Rust crate, called as Polars expression plugins) are reached through
:mod:`polarscore.kernels._plugin`.
"""

from __future__ import annotations

__all__: list[str] = []
