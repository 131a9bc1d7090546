"""Score validation shared by every parser (the same rule for every source's scores).

Numeric scores must be finite and cannot be booleans; percentage scores must lie in
[0, 100] inclusive. A value that breaks a rule is kept as an excluded observation with the
reason this function returns.
"""

from __future__ import annotations

import math
from typing import Any


def check_score(value: Any, *, percent: bool) -> tuple[float | None, str | None]:
    """Return ``(score, None)`` for a valid score, else ``(score_or_None, reason)``.

    Numeric strings (as CSV cells arrive) are accepted; empty cells are "missing".
    """
    if isinstance(value, bool):
        return None, f"score is a boolean ({value!r})"
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, "score is missing"
    if isinstance(value, (int, float)):
        x = float(value)
    elif isinstance(value, str):
        try:
            x = float(value.strip())
        except ValueError:
            return None, f"score is not a number ({value!r})"
    else:
        return None, f"score is not a number ({value!r})"
    if not math.isfinite(x):
        return x, f"score is not finite ({value!r})"
    if percent and not 0.0 <= x <= 100.0:
        return x, f"percentage score out of [0, 100] ({x!r})"
    return x, None
