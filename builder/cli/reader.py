"""The DuckDB reader's settings for the ``arena`` commands that read a battles file.

The options given (``--memory-limit``, ``--temp-dir``, ``--threads``), else ``site.yml``'s
``arena.reader`` when the configuration file exists, else the defaults (512 MB, the system
temp folder, one thread per core).

Only ``arena.reader`` is taken from ``site.yml``, and when it (with the options) plainly
satisfies ``builder.config.ArenaReaderConfig`` (known keys; a memory limit like ``512MB``;
a folder name; a whole number of threads from 1) it is used as it is. Anything else goes
to the site configuration's own validation, which answers with the same settings or the
same one-line error as before. So ``arena fit`` on a Parquet dump does not import pydantic
and build every model of the site configuration, which costs more than the whole read.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

from builder.cli.context import Context
from builder.errors import UserError
from builder.pairwise.scan import ReaderSettings

MEMORY_LIMIT_PATTERN = r"^\s*\d+(\.\d+)?\s*([KMGT]i?B|B)\s*$"
"``ArenaReaderConfig.memory_limit``'s pattern (a test holds the two equal)."

_MEMORY_LIMIT = re.compile(MEMORY_LIMIT_PATTERN)
_FIELDS = frozenset({"memory_limit", "temp_directory", "threads"})
_DEFAULT = ReaderSettings()


def reader_settings_for(memory_limit: str | None, temp_dir: str | None, threads: int | None) -> ReaderSettings:
    """The reader settings of the running command (see the module docstring)."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_object(Context) if ctx is not None else None
    config = obj.config_path if obj is not None and obj.config_path.is_file() else None
    given = {k: v for k, v in (("memory_limit", memory_limit), ("temp_directory", temp_dir), ("threads", threads))
             if v is not None}
    section = {} if config is None else _reader_section(config)
    if section is not None and _plainly_valid({**section, **given}):
        merged = {**section, **given}
        temp = merged.get("temp_directory")
        return ReaderSettings(
            memory_limit=str(merged.get("memory_limit", _DEFAULT.memory_limit)).strip(),
            temp_directory=Path(temp) if temp else None,
            threads=merged.get("threads"),
        )
    return _validated(given, obj)


def _arena_section(config: Path) -> dict[str, Any] | None:
    """``arena`` of the configuration file ({} when absent), or None when the file does not
    read as a YAML mapping holding a mapping there (the full check says why)."""
    import yaml

    try:
        text = config.read_text(encoding="utf-8")
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml when present
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if not isinstance(data, dict):
        return None
    arena = data.get("arena", {})
    return arena if isinstance(arena, dict) else None


def _reader_section(config: Path) -> dict[str, Any] | None:
    """``arena.reader`` of the configuration file ({} when absent), or None when the file
    does not read as a YAML mapping holding mappings there (the full check says why)."""
    arena = _arena_section(config)
    if arena is None:
        return None
    reader = arena.get("reader", {})
    return reader if isinstance(reader, dict) else None


def _plainly_valid(values: dict[str, Any]) -> bool:
    if not set(values) <= _FIELDS:
        return False
    limit = values.get("memory_limit", _DEFAULT.memory_limit)
    temp = values.get("temp_directory")
    threads = values.get("threads")
    return (isinstance(limit, str) and _MEMORY_LIMIT.match(limit) is not None
            and (temp is None or isinstance(temp, str))
            and (threads is None or (type(threads) is int and threads >= 1)))


def _validated(given: dict[str, Any], obj: Context | None) -> ReaderSettings:
    """The full check: ``site.yml`` loaded and validated as a site build loads it, the
    options validated by ``ArenaReaderConfig``; errors as one line."""
    from pydantic import ValidationError

    from builder.config import ArenaReaderConfig
    from builder.pairwise.arena import reader_settings

    base = ArenaReaderConfig()
    if obj is not None and obj.config_path.is_file():
        base = obj.load()[0].arena.reader
    try:
        cfg = ArenaReaderConfig(**{**base.model_dump(), **given})
    except ValidationError as exc:
        err = exc.errors()[0]
        raise UserError(f"--{str(err['loc'][0]).replace('_', '-')} {err.get('input')!r}: {err['msg']}") from None
    return reader_settings(cfg)


def engine_for(engine: str | None, master: str | None) -> tuple[str, Any]:
    """The engine of ``arena fit`` and, for ``spark``, its ``SparkSettings``: the options given,
    else ``site.yml``'s ``arena.engine`` and ``arena.spark`` when the configuration file exists
    (validated as the site build validates them; one-line errors), else DuckDB."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_object(Context) if ctx is not None else None
    config = obj.config_path if obj is not None and obj.config_path.is_file() else None
    if engine is None and master is None:
        # the common case: no option and site.yml plainly on DuckDB (no pydantic, no site model)
        arena = {} if config is None else _arena_section(config)
        if arena is not None and arena.get("engine", "duckdb") == "duckdb":
            return "duckdb", None
    if engine == "duckdb" and master is None:
        return "duckdb", None
    from pydantic import ValidationError

    from builder.config import ArenaSparkConfig

    spark_cfg = ArenaSparkConfig()
    if config is not None and (engine is None or engine == "spark"):
        site_arena = obj.load()[0].arena  # type: ignore[union-attr]
        engine = engine or site_arena.engine
        spark_cfg = site_arena.spark
    engine = engine or "duckdb"
    if engine != "spark":
        if master is not None:
            raise UserError("--spark-master needs --engine spark (or arena.engine: spark in site.yml)")
        return engine, None
    from builder.pairwise.spark import SparkSettings

    try:
        cfg = ArenaSparkConfig(**{**spark_cfg.model_dump(), **({"master": master} if master is not None else {})})
    except ValidationError as exc:
        raise UserError(f"--spark-master {master!r}: {exc.errors()[0]['msg'].removeprefix('Value error, ')}") from None
    return engine, SparkSettings(cfg.master, {k: str(v) for k, v in cfg.config.items()})


__all__ = ["MEMORY_LIMIT_PATTERN", "engine_for", "reader_settings_for"]
