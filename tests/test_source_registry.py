"""The registry of source kinds: every kind declared once, asked by every stage; a source's
name is only a name (renaming every source leaves every column of every page filled)."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from builder import sources
from builder.config import SiteConfig, load_config
from builder.errors import UserError
from builder.pipeline import build
from builder.sources import registry

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime.fromisoformat("2026-11-30T06:00:00+00:00")


def test_no_kind_is_loaded_by_its_module_name():
    found = subprocess.run(["grep", "-rn", 'import_module(f"builder.sources', str(ROOT / "builder")],
                           capture_output=True, text=True)
    assert found.stdout == ""


def test_no_code_compares_a_builtin_kind_to_a_string_outside_the_registry():
    kinds = [k.name for k in registry.BUILTIN_KINDS]
    pattern = re.compile(r"(kind|source)\s*(==|!=|in)\s*\(?\s*[\"'](" + "|".join(kinds) + r")[\"']")
    hits = []
    for path in (ROOT / "builder").rglob("*.py"):
        if "data/demo" in path.as_posix():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert hits == []


def test_every_builtin_kind_is_declared_once_and_parses():
    names = [k.name for k in registry.BUILTIN_KINDS]
    assert len(names) == len(set(names))
    cfg, _ = load_config(ROOT / "site.yml")
    assert {s.kind for s in cfg.sources} <= set(names)
    for spec in registry.BUILTIN_KINDS:
        assert callable(spec.parse) and spec.yields and spec.origin == "builtin"
        assert spec.fetch.shape != "index" or spec.fetch.pick is not None


def test_an_unknown_kind_is_one_line_naming_the_field(tmp_path):
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    data["sources"][2]["kind"] = "epochh"
    (tmp_path / "site.yml").write_text(yaml.safe_dump(data))
    with pytest.raises(UserError) as exc:
        load_config(tmp_path / "site.yml")
    msg = str(exc.value)
    assert "\n" not in msg and "sources.2.kind" in msg and "unknown kind 'epochh'" in msg and "epoch" in msg


# --------------------------------------------------------------------------- renaming


def renamed_config(data: dict, prefix: str) -> tuple[dict, dict[str, str]]:
    """``data`` with every source renamed ``prefix + name`` and every feed that names one."""
    names = {s["name"]: prefix + s["name"] for s in data["sources"]}

    def feed(f: str) -> str:
        src, _, rest = f.partition("/")
        return f"{names.get(src, src)}/{rest}"

    out = json.loads(json.dumps(data, default=str))
    for s in out["sources"]:
        s["name"] = names[s["name"]]
    for fam in out["families"].values():
        fam["feeds"] = [feed(f) for f in fam["feeds"]]
    index = out.setdefault("index", {})
    boards = index.get("boards") or [b.model_dump() for b in SiteConfig.model_fields["index"].default_factory().boards]
    index["boards"] = [{**b, "feed": feed(b["feed"])} for b in boards]
    return out, names


def _lean(data: dict) -> dict:
    """The demo configuration without the parts no source column depends on (faster builds)."""
    data = json.loads(json.dumps(data, default=str))
    data["arena"] = {**data.get("arena", {}), "enabled": False}
    data["evals"] = []
    data["uncertainty"] = {"rounds": 0, "seed": 42}
    return data


def _build(tmp: Path, data: dict) -> Path:
    tmp.mkdir()
    (tmp / "site.yml").write_text(yaml.safe_dump(data, sort_keys=False))
    cfg, base = load_config(tmp / "site.yml")
    build(cfg, base, out=tmp / "site", now=NOW, snapshots_dir=tmp / "snapshots")
    return tmp / "site"


def _table(path: Path, names: dict[str, str]) -> list[dict[str, str]]:
    """A CSV download's rows with the renamed source names put back (so both builds compare)."""
    back = {new: old for old, new in names.items()}
    pattern = re.compile("|".join(sorted((re.escape(n) for n in back), key=len, reverse=True)))
    rows = []
    for row in csv.DictReader(path.read_text(encoding="utf-8").splitlines()):
        out = {k: pattern.sub(lambda m: back[m[0]], v or "") for k, v in row.items()}
        for column in ("evaluators", "loo_ranks", "depends_on"):  # sorted by evaluator id, which
            if column in out:  # defaults to the (renamed) source name
                out[column] = ";".join(sorted(out[column].split(";")))
        rows.append(out)
    return rows


def test_renaming_every_source_leaves_every_column_filled(tmp_path):
    """Two builds of the demo (20-60 s: the test is the whole pipeline, once per naming): as shipped
    and with every source renamed. Every board download (scores, families, evaluators, token
    and build prices, pass marks), the identity map (price keys), the model facts and the
    Arena-scale calibration are the same value for value, source names put back."""
    data = _lean(yaml.safe_load((ROOT / "site.yml").read_text()))
    renamed, names = renamed_config(data, "renamed-")
    plain_site = _build(tmp_path / "plain", data)
    renamed_site = _build(tmp_path / "renamed", renamed)
    same = {n: n for n in names}
    boards = sorted(p.name for p in (plain_site / "data" / "boards").glob("*.csv"))
    assert {"orchestrator.csv", "mid-tier.csv", "rote.csv", "build-prices.csv", "open-weight.csv"} <= set(boards)
    for name in boards:
        plain = _table(plain_site / "data" / "boards" / name, same)
        other = _table(renamed_site / "data" / "boards" / name, names)
        assert plain == other, name
    mid = _table(plain_site / "data" / "boards" / "mid-tier.csv", same)
    for column in ("token_price", "build_price", "build_passed", "evaluators", "family_coding"):
        assert any(r[column] for r in mid), column  # the columns compared are filled at all
    plain_ids = _table(plain_site / "data" / "identities.csv", same)
    assert any(r["openrouter_id"] for r in plain_ids) and any(r["litellm_key"] for r in plain_ids)
    assert any(r["source"] == "piratebench" for r in plain_ids)
    assert plain_ids == _table(renamed_site / "data" / "identities.csv", names)
    snaps = [json.loads(next((site.parent / "snapshots").glob("*.json")).read_text())
             for site in (plain_site, renamed_site)]
    assert snaps[0]["models"] == json.loads(json.dumps(snaps[1]["models"]).replace('"renamed-', '"'))
    assert [(c["feed"].split("/", 1)[1], c.get("a"), c.get("b")) for c in snaps[0]["calibration"]] == [
        (c["feed"].split("/", 1)[1], c.get("a"), c.get("b")) for c in snaps[1]["calibration"]]
    assert [s["roles"] for s in snaps[0]["sources"]] == [s["roles"] for s in snaps[1]["sources"]]
    assert snaps[0]["stacks"] == json.loads(json.dumps(snaps[1]["stacks"]).replace('"renamed-', '"'))


def test_a_stored_source_whose_kind_went_missing_fails_alone(tmp_path, monkeypatch):
    """A payload stored while a plugin worked, scored after it stopped loading: that source is
    failed with the reason, every other source scores."""
    from builder.fetch import fetch_all
    from builder.pipeline import parse_stored

    shutil.copy(ROOT / "site.yml", tmp_path / "site.yml")
    cfg, base = load_config(tmp_path / "site.yml")
    fetch_all(cfg, base, live=False, progress=False)
    kinds = dict(registry.load_kinds())
    del kinds["epoch"]
    monkeypatch.setattr(registry._CATALOG, "kinds", kinds)
    monkeypatch.setattr(sources, "_PARSED", type(sources._PARSED)())  # a later process: nothing parsed yet
    monkeypatch.setattr(registry._CATALOG, "broken", {"epoch": "source kind plugin 'epoch' (x:SPEC) not loaded"})
    parsed = parse_stored(cfg, base)
    assert not parsed.statuses["epoch"].ok and "not loaded" in parsed.statuses["epoch"].error
    assert parsed.statuses["aider"].ok and any(o.source == "aider" for o in parsed.result.observations)
    assert not any(o.source == "epoch" for o in parsed.result.observations)
    assert registry.check_kind("epoch") is None and "unknown kind" in (registry.check_kind("nope") or "")
