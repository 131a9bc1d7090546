"""site.yml validation: the shipped config validates; every error is reported at once."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from builder.config import load_config
from builder.errors import UserError

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_config_validates():
    cfg, base = load_config(ROOT / "site.yml")
    assert base == ROOT
    assert {b.id for b in cfg.boards} >= {"orchestrator", "open-weight", "mid-tier", "rote", "build-prices"}
    assert cfg.roles["orchestrator"].weights == {"reasoning": 0.5, "human_preference": 0.3, "terminal_work": 0.2}
    for s in cfg.sources:
        assert s.url is None or s.url.startswith("https://")
        path = s.recorded_path(base)
        assert path is not None and path.exists(), f"{s.name}: recorded payload {path} missing"


def _write(tmp_path: Path, data) -> Path:
    p = tmp_path / "site.yml"
    p.write_text(yaml.safe_dump(data) if not isinstance(data, str) else data)
    return p


def _base() -> dict:
    return yaml.safe_load((ROOT / "site.yml").read_text())


def test_every_error_reported_at_once_with_field_paths(tmp_path):
    data = _base()
    data["sources"][0]["kind"] = "nonsense"
    data["sources"][1]["url"] = "javascript:alert(1)"
    data["machines"][0]["memory_gb"] = -1
    data["site"]["colour"] = "red"
    with pytest.raises(UserError) as exc:
        load_config(_write(tmp_path, data))
    msg = str(exc.value)
    assert "\n" not in msg
    assert "sources.0.kind" in msg
    assert "sources.1.url" in msg and "http(s)" in msg
    assert "machines.0.memory_gb" in msg
    assert "site.colour" in msg
    assert msg.startswith(str(tmp_path / "site.yml"))


def test_cross_references_checked(tmp_path):
    data = _base()
    data["roles"]["orchestrator"]["weights"]["vibes"] = 0.1
    data["boards"][0]["role"] = "nobody"
    data["families"]["coding"]["feeds"].append("nowhere/feed")
    with pytest.raises(UserError) as exc:
        load_config(_write(tmp_path, data))
    msg = str(exc.value)
    assert "roles.orchestrator.weights.vibes: unknown family" in msg
    assert "boards.0.role: unknown role 'nobody'" in msg
    assert "'nowhere/feed' names no configured source" in msg


def test_yaml_errors_name_line(tmp_path):
    p = _write(tmp_path, "site:\n  title: [unclosed\n")
    with pytest.raises(UserError) as exc:
        load_config(p)
    assert "line" in str(exc.value) and "invalid YAML" in str(exc.value)


def test_yaml_is_safe_loaded(tmp_path):
    p = _write(tmp_path, "!!python/object/apply:os.system ['echo pwned']\n")
    with pytest.raises(UserError):
        load_config(p)


def test_missing_config(tmp_path):
    with pytest.raises(UserError, match="not found"):
        load_config(tmp_path / "nope.yml")


def test_method_id_changes_with_weights(tmp_path):
    cfg, _ = load_config(ROOT / "site.yml")
    data = _base()
    data["roles"]["orchestrator"]["weights"]["reasoning"] = 0.6
    cfg2, _ = load_config(_write(tmp_path, data))
    assert cfg.method_id() != cfg2.method_id()
    assert cfg.method_id() == load_config(ROOT / "site.yml")[0].method_id()
