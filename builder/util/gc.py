"""Pausing the cyclic garbage collector around work that allocates much and keeps it.

A stage that builds many objects living until it ends (a render's indexes and page
contexts, the board bootstrap's per-row summaries) otherwise has its objects promoted by the
young collections until a full collection walks everything alive again, the whole snapshot
included: time that grows faster than the work (a quarter more CPU for a render at 2,500
models; 75 ms of a 0.43 s score stage at 500 models). Reference counting still frees every
object that is not in a cycle; the few cycles are collected once the collector is back on.

Also the exit of a one-shot command: ``freeze_at_exit`` (the exit's collections skip what is
alive) and ``keep_until_exit`` / ``quick_exit`` (nothing freed at all, on the command line).
"""

from __future__ import annotations

import atexit
import functools
import gc
import os
import sys
from collections.abc import Callable
from typing import NoReturn, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")


def gc_paused(fn: Callable[P, T]) -> Callable[P, T]:
    """``fn`` with the cyclic collector paused while it runs (left as it was when the caller
    had paused it already, and left paused once a command kept what it built for a quick exit:
    the first collection after it would walk all of that for nothing, about 0.05 s of a render)."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if not _KEPT:  # else the process leaves without freeing anything (``quick_exit``): no collection
                gc.enable()

    return run


_FREEZE_AT_EXIT: list[bool] = []


def freeze_at_exit() -> None:
    """At the interpreter's exit, move every object still alive out of the collector's reach
    (``gc.freeze``), once per process: a command that kept what it built until it ended (a
    render's snapshots, indexes and pages) otherwise has the last collections of the exit walk
    all of it again to free nothing (about 0.05 s of a render). Reference counting still frees
    every object that is not in a cycle; a cycle left at exit is left to the end of the process,
    as Python allows."""
    if not _FREEZE_AT_EXIT:
        _FREEZE_AT_EXIT.append(True)
        atexit.register(gc.freeze)


# A one-shot command run from the command line may leave without freeing what it built: the
# console script (``builder.cli.run``) allows it, the command (``render``, ``build``: never one
# that renders again and again, as ``serve`` does) hands over what it keeps to the end, and the
# process then ends with ``os._exit`` once the exit handlers have run and the standard
# streams are flushed. Freeing a render's snapshots object by object, and the collection
# after it, took 0.1 of a demo render's 0.88 CPU s. In any other process (the tests'
# in-process runs) nothing is kept.
_QUICK_EXIT: dict[str, bool] = {"allowed": False}
_KEPT: list[object] = []


def allow_quick_exit() -> None:
    """This process is the command line's: a command may keep what it built for the exit."""
    _QUICK_EXIT["allowed"] = True


def keep_until_exit(*objects: object) -> None:
    """Hold ``objects`` until a quick exit, where the command line allows one; else nothing."""
    if _QUICK_EXIT["allowed"]:
        _KEPT.extend(objects)


def quick_exit_code(code: object) -> int | None:
    """The exit status a quick exit would end with (``SystemExit.code`` as ``sys.exit`` reads it),
    or None for a normal exit: nothing was kept, or the code is a message to print."""
    if not _KEPT:
        return None
    if code is None:
        return 0
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def quick_exit(status: int) -> NoReturn:
    """End the process now: the exit handlers run (``atexit``: logging's flush, temporary
    folders' removal, ``freeze_at_exit``) and the standard streams are flushed, but no object
    is freed and no module torn down."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be written
            pass
    os._exit(status)
