"""Array-in, array-out kernels with no Polars dependency, used by the scorers over whole columns."""
