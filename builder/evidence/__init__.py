"""The evidence export and its stdlib-only recompute script."""
