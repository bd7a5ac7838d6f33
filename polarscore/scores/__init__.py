"""Public scorers, one module per metric family."""
