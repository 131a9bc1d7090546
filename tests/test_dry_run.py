"""The store never keeps a payload a later stage cannot use: after the parser, the name
cleaning, the caps and the plausibility rule, every record of a new payload goes through the
snapshot's own models and their JSON encoding (the scoring stage's conversions) before the
payload is accepted (``builder.pipeline.dry_run``)."""

from __future__ import annotations

import json
import socket
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import QuietServer
from serving import serve_in_background

from builder.cli import main
from builder.config import LimitsConfig, load_config
from builder.fetch import check_payload, read_recorded
from builder.pipeline import dry_run
from builder.sources import parse_payload
from builder.sources.validate import check_result

ROOT = Path(__file__).resolve().parents[1]
DAY2 = "2026-11-30T12:00:00+00:00"
# A lone UTF-16 surrogate: JSON may spell it ("\ud800"), Python decodes it into the name,
# it is neither a control, bidi nor zero-width character, so cleaning keeps it, and the
# snapshot model holds it; but no UTF-8 file can: the day's snapshot would never be written.
POISON = "poison-\ud800-model"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def arena_server(shared_data: Path):
    """A 127.0.0.1 server for the LMArena leaderboard: the real file, or with the poisoned row."""
    real = (shared_data / "arena/lmarena/leaderboard-text.json").read_bytes()
    data = json.loads(real)
    data["full"][POISON] = {"rating": 1300.0, "rating_q975": 1305.0, "rating_q025": 1295.0}
    bodies = {"good": real, "poisoned": json.dumps(data).encode()}  # json.dumps writes "\ud800": pure ASCII
    state = {"serve": "good"}

    class H(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = bodies[state["serve"]]
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    httpd = QuietServer(("127.0.0.1", 0), H)
    serve_in_background(httpd)
    yield f"http://127.0.0.1:{httpd.server_address[1]}", state
    httpd.shutdown()
    httpd.server_close()


def test_a_payload_the_snapshot_cannot_hold_is_refused_and_the_last_good_one_kept(tmp_path, arena_server):
    base_url, state = arena_server
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    dead = f"http://127.0.0.1:{_closed_port()}"
    for s in data["sources"]:
        if s.get("url"):
            s["url"] = f"{dead}/{s['name']}.json"
        if "index_url" in s.get("options", {}):
            s["options"]["index_url"] = f"{dead}/index"
    arena = next(s for s in data["sources"] if s["kind"] == "lmarena")
    arena["url"] = f"{base_url}/leaderboard-text.json"
    data["arena"]["live_url"] = None
    data["fetch"] = {"store": str(tmp_path / "store"), "retries": 1, "backoff": 0.01}
    data["snapshots_dir"] = str(tmp_path / "snapshots")
    cfg = tmp_path / "site.yml"
    cfg.write_text(yaml.safe_dump(data))
    stored = tmp_path / "store" / arena["name"]

    # the last good payload (`fetch` dry-runs it too), then one build while upstream is poisoned
    first = CliRunner().invoke(main, ["--config", str(cfg), "fetch", "--live", "--no-progress"])
    assert first.exit_code == 0, first.output
    before = {p.relative_to(stored).as_posix(): p.read_bytes() for p in stored.rglob("*") if p.is_file()
              and p.name != "status.json"}
    assert before

    # the poisoned row passes the parser, the caps and the plausibility rule (test below)
    state["serve"] = "poisoned"
    second = CliRunner().invoke(main, ["--config", str(cfg), "build", "--live", "--now", DAY2,
                                       "--out", str(tmp_path / "site")])
    assert second.exit_code == 0, second.output
    assert "Traceback" not in second.output
    err = second.stderr
    line = next(ln for ln in err.splitlines() if f"source {arena['name']} failed" in ln)
    # one line naming the stage, the record and why
    assert "snapshot dry run: observation 'poison-\\ud800-model (arena/text)'" in line, line
    assert "surrogates not allowed" in line, line
    after = {p.relative_to(stored).as_posix(): p.read_bytes() for p in stored.rglob("*") if p.is_file()
             and p.name != "status.json"}
    assert after == before, sorted(after)  # the last good payload, byte for byte
    assert (tmp_path / "site" / "index.html").is_file()  # the site is published from what is kept


def test_the_poisoned_row_passes_the_parse_time_checks(shared_data: Path):
    """The case above is honest: parsing, cleaning and the caps all let the row through."""
    from builder.config import SourceConfig
    from builder.records import Payload

    data = json.loads((shared_data / "arena/lmarena/leaderboard-text.json").read_bytes())
    data["full"][POISON] = {"rating": 1300.0, "rating_q975": 1305.0, "rating_q025": 1295.0}
    source = SourceConfig(name="arena", kind="lmarena", evaluator="lmarena")
    payload = Payload(source="arena", files={"leaderboard-text.json": json.dumps(data).encode()},
                      fetched_at=datetime(2026, 11, 30, tzinfo=UTC), origin="test")
    result = parse_payload(payload, source)
    checked, problem = check_result(result, LimitsConfig(), datetime(2026, 11, 30).date())
    assert problem is None
    (row,) = [o for o in checked.observations if o.model == POISON]
    assert row.excluded is None and row.raw == 1300.0


def test_every_demo_payload_passes_the_dry_run():
    """The shipped demo sources' recorded payloads: each record converts and encodes."""
    cfg, base = load_config(ROOT / "site.yml")
    checked = 0
    for source in cfg.sources:
        if not source.enabled or source.recorded_path(base) is None:
            continue
        result = check_payload(read_recorded(source, base), source, cfg.limits)
        assert dry_run(result, source) is None, source.name
        checked += len(result.observations) + len(result.prices) + len(result.models)
    assert checked > 500  # 823 records in the shipped demo


@pytest.mark.parametrize("kind, path", [
    ("lmarena", "arena/lmarena/leaderboard-text.json"), ("litellm", "litellm/model_prices_and_context_window.json"),
    ("openrouter", "openrouter/openrouter_models.json"), ("epoch", "epoch/epoch_capabilities_index.csv"),
    ("aider", "aider/polyglot_leaderboard.yml"),
])
def test_the_real_upstream_files_pass_the_dry_run(shared_data: Path, kind: str, path: str):
    from builder.records import Payload

    cfg, _ = load_config(ROOT / "site.yml")
    source = next(s for s in cfg.sources if s.kind == kind)
    name = "models.json" if kind == "openrouter" else Path(path).name
    payload = Payload(source=source.name, files={name: (shared_data / path).read_bytes()},
                      fetched_at=datetime(2026, 11, 30, tzinfo=UTC), origin=path)
    assert dry_run(check_payload(payload, source, cfg.limits), source) is None
