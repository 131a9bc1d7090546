"""``modelboards warm``: compile ahead what a first build would otherwise compile on the way.

numba compiles a kernel the first time it is called with given argument types (about 5 s of
CPU for all of them) and keeps the machine code in its cache (``cache=True``): by default
``__pycache__`` beside the kernel's module, so in the checkout of an editable install or the
installed package's folder, or ``NUMBA_CACHE_DIR`` when that is set. The cache is keyed on
the module's source file (its time stamp and size), the argument types, the CPU and numba's
version, so an edited kernel is compiled again, never run stale. jinja2 keeps the compiled
templates in its bytecode cache (``builder.render.writer``), keyed on each template's source.

``make install`` runs this once, so the first build of a fresh clone loads every kernel
instead of compiling it. ``KERNELS`` names each kernel Python calls, with the argument types
its callers pass (a call with other types still works: numba compiles that specialisation
then); ``INNER`` the kernels only other kernels call (compiled into their callers).
``tests/test_warm.py`` checks both lists against the modules and against a demo build.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import click

INNER = {
    "builder.scoring.uncertainty": ("_poly", "_ppnd", "_ranks_of_round", "_percentile", "_rank_at"),
}
"Kernels only other kernels call, by module: numba compiles them into each caller."


def kernels() -> list[tuple[str, Any, tuple[Any, ...]]]:
    """Every kernel Python calls, as ``(name, dispatcher, argument types)``: the types the
    callers pass (C-contiguous arrays, int64 and float64 scalars)."""
    from numba import types as t

    from builder.pairwise import elo
    from builder.pairwise.battles import _time_order_check
    from builder.scoring import uncertainty as u

    i8, f8 = t.int64, t.float64
    f1, f2 = t.float64[::1], t.float64[:, ::1]
    i1, i2, i3 = t.int64[::1], t.int64[:, ::1], t.int64[:, :, ::1]
    code, outcome = t.uint32[::1], t.uint8[::1]
    return [
        ("scoring.uncertainty._normal_quantiles", u._normal_quantiles, (f1, f1)),
        ("scoring.uncertainty._draw_arena", u._draw_arena, (f2, f1, f1, f2)),
        ("scoring.uncertainty._refit", u._refit,
         (f2, i8, f1, i1, f1, f1, i8, i8, f2, f2, i1, i1, i1, f8, i1, i1, f8)),
        ("scoring.uncertainty._round_r", u._round_r, (f2, i3, f1, f2)),
        ("scoring.uncertainty._competition_ranks", u._competition_ranks, (f2, i2, i2)),
        ("scoring.uncertainty._summarise", u._summarise, (f2, f2, i2, i8, f8, f8, f1, f1, i1, i1, i1, i1, i1, i2)),
        ("pairwise.elo._elo_updates", elo._elo_updates, (code, code, outcome, f1, f1, f8, f8, i8, i8)),
        ("pairwise.elo._elo_tally", elo._elo_tally, (code, code, outcome, i8)),
        ("pairwise.battles._in_time_order", _time_order_check(), (f1,)),
    ]


def warm_kernels(say: Callable[[str], None] = lambda _: None) -> tuple[int, int]:
    """Compile (or load from numba's cache) every kernel of ``kernels()``; returns (compiled
    here, loaded from the cache)."""
    compiled = loaded = 0
    for name, dispatcher, args in kernels():
        t0 = time.perf_counter()
        misses = sum(dispatcher.stats.cache_misses.values())
        dispatcher.compile(args)
        fresh = sum(dispatcher.stats.cache_misses.values()) > misses
        compiled += fresh
        loaded += not fresh
        say(f"  {name:<42} {'compiled' if fresh else 'cached  '} {time.perf_counter() - t0:6.2f} s")
    return compiled, loaded


def warm_templates() -> int:
    """Compile the package's templates into jinja2's bytecode cache; returns how many."""
    from builder.render.writer import make_env
    from builder.util.dirs import layered_dirs

    env = make_env(layered_dirs(None, "templates"))
    names = [n for n in env.list_templates() if n.endswith((".html", ".xml")) and not n.startswith("static/")]
    for name in names:
        env.get_template(name)
    return len(names)


@click.command("warm")
@click.option("--each", is_flag=True, help="One line per kernel: compiled or cached, and its seconds.")
def warm_cmd(each: bool) -> None:
    """Compile the numba kernels and the page templates into their caches ahead of the first
    build (``make install`` runs it). Kernels already cached are loaded, not compiled again."""
    say: Callable[[str], None] = click.echo if each else (lambda _: None)
    t0 = time.perf_counter()
    compiled, loaded = warm_kernels(say)
    templates = warm_templates()
    click.echo(f"warm: {compiled} kernel(s) compiled, {loaded} already cached; "
               f"{templates} templates; {time.perf_counter() - t0:.1f} s")
