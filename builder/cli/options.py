"""Options several commands share, declared once: ``@out_option()``, ``@now_option(...)``, ...

Each is a function returning the click decorator, so a command can say what its default
means for it (``--out`` of ``serve`` defaults elsewhere than ``--out`` of ``build``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def live_option(what: str) -> Callable[[F], F]:
    """``--live``: ask the real upstream URLs (a flag; None when not given)."""
    return click.option("--live", is_flag=True, default=None, help=what)


def out_option(default: str = "site/ beside site.yml") -> Callable[[F], F]:
    """``--out DIR``: the output folder (a ``Path``, or None for the command's default)."""
    return click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help=f"Output folder [default: {default}].")


def now_option(what: str = "Pretend the build runs at this ISO date/time (UTC).") -> Callable[[F], F]:
    """``--now ISO``: the time the command judges freshness at (text; each command parses it)."""
    return click.option("--now", default=None, help=what)


def base_url_option(default: str = "site.url") -> Callable[[F], F]:
    """``--base-url URL``: the public base URL of the site."""
    return click.option("--base-url", default=None,
                        help=f"Public base URL, e.g. https://user.github.io/repo/ [default: {default}].")


def snapshots_dir_option() -> Callable[[F], F]:
    """``--snapshots-dir DIR``: where the dated snapshots live."""
    return click.option("--snapshots-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help="Where dated snapshots live [default: snapshots_dir of site.yml].")


def strict_option() -> Callable[[F], F]:
    """``--strict``: any warning fails the command (exit 1) and the previous site stays."""
    return click.option("--strict", is_flag=True, default=None,
                        help="Fail (exit 1) on any warning; the previous site stays.")


def top_heatmap_option() -> Callable[[F], F]:
    """``--top-heatmap N``: models in the Arena win-rate heatmaps (overrides ``arena.top_heatmap``)."""
    return click.option("--top-heatmap", type=click.IntRange(2), default=None,
                        help="Models in the Arena win-rate heatmaps and winrate.json [default: arena.top_heatmap "
                             "of site.yml, 30].")


def with_top_heatmap(cfg: Any, n: int | None) -> Any:
    """``cfg`` (a ``SiteConfig``) with ``arena.top_heatmap`` set to ``n`` when given."""
    if n is None:
        return cfg
    return cfg.model_copy(update={"arena": cfg.arena.model_copy(update={"top_heatmap": n})})
