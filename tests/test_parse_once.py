"""A build parses each payload once: the fetch's plausibility check and the scoring of the
stored payload read the same bytes under the same configuration, and the second read
returns the first one's (frozen) records. Other bytes, another configuration, another
fetch time or origin parse anew."""

from __future__ import annotations

import dataclasses
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

import builder.sources as sources
from builder.config import load_config
from builder.fetch import fetch_all, load_payloads
from builder.pipeline import parse_stored
from builder.sources import registry

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def counted(monkeypatch):
    """source kind -> calls of its parser (the cache emptied first)."""
    monkeypatch.setattr(sources, "_PARSED", type(sources._PARSED)())
    calls: Counter[str] = Counter()
    cfg, _ = load_config(ROOT / "site.yml")
    kinds = registry.load_kinds()
    for kind in {s.kind for s in cfg.sources}:
        real = kinds[kind].parse

        def parse(payload, source, _real=real, _kind=kind):
            calls[_kind] += 1
            return _real(payload, source)

        monkeypatch.setitem(kinds, kind, dataclasses.replace(kinds[kind], parse=parse))
    return calls


def test_fetch_then_score_parses_each_payload_once(tmp_path, counted):
    shutil.copy(ROOT / "site.yml", tmp_path / "site.yml")
    cfg, _ = load_config(tmp_path / "site.yml")
    statuses = fetch_all(cfg, tmp_path, live=False, progress=False)
    ok = {s.source for s in statuses if s.ok}
    kinds = {s.kind for s in cfg.sources if s.enabled and s.name in ok}
    assert len(kinds) >= 8 and all(counted[k] == 1 for k in kinds), counted
    parsed = parse_stored(cfg, tmp_path)
    assert parsed.result.observations
    assert all(counted[k] == 1 for k in kinds), counted  # the stored payloads: the same records


def test_other_bytes_config_time_or_origin_parse_anew(tmp_path, counted):
    shutil.copy(ROOT / "site.yml", tmp_path / "site.yml")
    cfg, _ = load_config(tmp_path / "site.yml")
    fetch_all(cfg, tmp_path, live=False, progress=False)
    source = next(s for s in cfg.sources if s.kind == "lmarena")
    payload, _ = load_payloads(cfg, tmp_path)[source.name]
    before = counted["lmarena"]
    first = sources.parse_payload(payload, source)
    assert sources.parse_payload(payload, source) is first and counted["lmarena"] == before
    (name, data), *_ = payload.files.items()
    variants = [
        (replace(payload, files={**payload.files, name: data + b"\n"}), source),
        (replace(payload, origin=payload.origin + "?again"), source),
        (replace(payload, fetched_at=payload.fetched_at.replace(year=payload.fetched_at.year - 1)), source),
        (payload, source.model_copy(update={"title": (source.title or "") + " (renamed)"})),
    ]
    for k, (p, s) in enumerate(variants, start=1):
        sources.parse_payload(p, s)
        assert counted["lmarena"] == before + k
