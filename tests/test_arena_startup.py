"""What ``modelboards arena fit`` loads before it reads a battles file: only the commands it
runs (the command table is lazy), no pydantic site configuration (its reader settings come
from ``arena.reader`` alone), no scipy, pyarrow, numba or ``numpy.ma``; and the reader
settings it takes that way are the ones the full configuration check gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from builder.cli import COMMANDS, main
from builder.cli.context import Context
from builder.cli.reader import MEMORY_LIMIT_PATTERN, _validated, reader_settings_for
from builder.config import PACKAGE_DATA, ArenaReaderConfig, load_config
from builder.errors import UserError
from builder.pairwise.scan import ReaderSettings

ROOT = Path(__file__).resolve().parents[1]
DEMO = PACKAGE_DATA / "demo" / "battles" / "clean_battle_demo.jsonl"
HEAVY = ("pydantic", "scipy", "pyarrow", "numba", "jinja2", "numpy.ma", "builder.config", "builder.snapshot",
         "builder.evals", "builder.render", "builder.pipeline", "builder.api", "builder.mcp", "builder.cli.site",
         "builder.cli.evals", "builder.cli.mcp", "builder.cli.diff", "mcp", "PIL")

_PROBE = """
import json, sys
from builder.cli import main
main(sys.argv[1:], standalone_mode=False)
print(json.dumps(sorted(m for m in HEAVY if m in sys.modules)))
"""


@pytest.fixture(scope="module")
def demo_parquet(tmp_path_factory) -> Path:
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
    path = tmp_path_factory.mktemp("startup") / "demo.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _loaded_after(args: list[str], cwd: Path) -> list[str]:
    code = _PROBE.replace("HEAVY", repr(HEAVY))
    res = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, check=False,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    loaded: list[str] = json.loads(res.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_arena_fit_loads_no_site_configuration_no_scipy_and_no_other_command(tmp_path, demo_parquet, fmt):
    src = demo_parquet if fmt == "parquet" else DEMO
    out = tmp_path / "r.json"
    # from the repository root, where site.yml (and its arena.reader section) is read
    assert _loaded_after(["arena", "fit", "--input", str(src), "--bootstrap", "20", "--output", str(out)],
                         ROOT) == []
    rows = json.loads(out.read_text())
    assert len(rows) > 10 and all(r["lower"] <= r["rating"] <= r["upper"] for r in rows)


def test_the_command_table_names_every_command_and_each_loads():
    assert sorted(main.list_commands(click.Context(main))) == sorted(COMMANDS)
    for name in COMMANDS:
        assert name in main.commands
        command = main.commands[name]
        assert isinstance(command, click.Command) and command.name == name
    res = CliRunner().invoke(main, ["--help"])
    assert res.exit_code == 0
    listed = [line.split()[0] for line in res.output.split("Commands:")[1].splitlines() if line.strip()]
    assert listed == sorted(COMMANDS)
    assert "nope" not in main.commands
    res = CliRunner().invoke(main, ["nope"])
    assert res.exit_code == 2 and "No such command 'nope'" in res.output


def test_memory_limit_rule_is_the_site_configurations():
    assert ArenaReaderConfig.model_json_schema()["properties"]["memory_limit"]["pattern"] == MEMORY_LIMIT_PATTERN


def _site_with_reader(tmp_path: Path, reader: str) -> Path:
    site = (ROOT / "site.yml").read_text(encoding="utf-8")
    start = site.index("\n  reader:")
    end = site.index("\n", site.index("memory_limit:", start))
    cfg = tmp_path / "site.yml"
    cfg.write_text(site[:start] + reader + site[end:], encoding="utf-8")
    return cfg


def _settings(cfg: Path, *options) -> ReaderSettings:
    with click.Context(main, obj=Context(str(cfg), 0)):
        return reader_settings_for(*options)


def _full(cfg: Path, *options) -> ReaderSettings:
    given = {k: v for k, v in zip(("memory_limit", "temp_directory", "threads"), options, strict=True)
             if v is not None}
    return _validated(given, Context(str(cfg), 0))


@pytest.mark.parametrize("reader", [
    "",
    "\n  reader:\n    memory_limit: 300MB",
    "\n  reader:\n    memory_limit: ' 2 GiB '\n    threads: 1",
    "\n  reader:\n    memory_limit: 1.5GB\n    temp_directory: spill/here\n    threads: 3",
    "\n  reader:\n    temp_directory: ''",
])
@pytest.mark.parametrize("options", [(None, None, None), ("200MB", None, 2), (None, "/tmp/x", None)])
def test_reader_settings_from_arena_reader_alone_equal_the_full_check(tmp_path, reader, options):
    cfg = _site_with_reader(tmp_path, reader)
    assert _settings(cfg, *options) == _full(cfg, *options)


@pytest.mark.parametrize("reader", [
    "\n  reader:\n    memory_limit: lots",
    "\n  reader:\n    memory_limit: 512",
    "\n  reader:\n    threads: 0",
    "\n  reader:\n    threads: two",
    "\n  reader:\n    spill: /tmp",
    "\n  reader: 5",
    "\n  reader:",
])
def test_a_bad_reader_section_gets_the_site_configurations_error(tmp_path, reader):
    cfg = _site_with_reader(tmp_path, reader)
    with pytest.raises(UserError) as full:
        load_config(cfg)
    with pytest.raises(UserError) as ours:
        _settings(cfg, None, None, None)
    assert str(ours.value) == str(full.value)
    assert str(ours.value).startswith(f"{cfg}: ") and "arena.reader" in str(ours.value)


def test_bad_yaml_and_a_bad_option_get_the_same_errors_as_before(tmp_path):
    cfg = tmp_path / "site.yml"
    cfg.write_text("arena:\n  reader: [unclosed\n", encoding="utf-8")
    with pytest.raises(UserError) as full:
        load_config(cfg)
    with pytest.raises(UserError) as ours:
        _settings(cfg, None, None, None)
    assert str(ours.value) == str(full.value) and "invalid YAML" in str(ours.value)
    with pytest.raises(UserError, match=r"^--memory-limit 'lots': String should match pattern"):
        _settings(ROOT / "site.yml", "lots", None, None)


def test_arena_fit_reads_arena_reader_only(tmp_path):
    """A site.yml whose other sections do not validate no longer stops ``arena fit``: it
    takes its reader settings from ``arena.reader`` and nothing else (a site build still
    rejects the file)."""
    site = (ROOT / "site.yml").read_text(encoding="utf-8")
    cfg = tmp_path / "site.yml"
    cfg.write_text(site + "\nno_such_section: 1\n", encoding="utf-8")
    with pytest.raises(UserError, match="no_such_section"):
        load_config(cfg)
    out = tmp_path / "r.json"
    res = CliRunner().invoke(main, ["--config", str(cfg), "arena", "fit", "--input", str(DEMO), "--output", str(out)])
    assert res.exit_code == 0, res.output
    assert json.loads(out.read_text())


def test_a_parquet_scan_keeps_no_database_file_and_counts_exactly(tmp_path, demo_parquet):
    from builder.pairwise.scan import count_battles, scan_battles

    spill = tmp_path / "spill"
    settings = ReaderSettings(memory_limit="32MB", temp_directory=spill, threads=1)
    with scan_battles(demo_parquet, settings=settings) as scan:
        counts = scan.pair_counts()
        (folder,) = spill.iterdir()  # the private spill folder, with no database file in it
        assert not list(folder.glob("*.duckdb*"))
    assert not list(spill.iterdir())
    ref, _ = count_battles(DEMO)  # the same battles as JSON Lines, read into a database file
    assert counts.models == ref.models
    for col in ("i", "j", "wins_i", "wins_j", "ties"):
        assert (getattr(counts, col) == getattr(ref, col)).all(), col
