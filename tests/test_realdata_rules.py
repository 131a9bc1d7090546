"""The rules behind the real-data site, each on its own: the models.dev reader (the recorded
repository tarball and the api.json format), leader-anchored tie groups, live and demo
histories kept apart, and the display-name rule."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np
import pytest

from builder.config import SourceConfig
from builder.records import Payload
from builder.scoring.boards import display_spelling, is_route
from builder.scoring.uncertainty import TIE_THRESHOLD, compute_tie_leaders
from builder.snapshot import load_snapshot
from builder.snapshot.store import previous_snapshot, write_snapshot
from builder.sources import PayloadError, modelsdev

ROOT = Path(__file__).resolve().parents[1]
SOURCE = SourceConfig(name="modelsdev", kind="modelsdev")
AT = datetime(2026, 7, 3, tzinfo=UTC)


def _payload(name: str, blob: bytes) -> Payload:
    return Payload(source="modelsdev", files={name: blob}, fetched_at=AT, origin=name)


@pytest.fixture(scope="module")
def catalog(shared_data):
    tarball = next((shared_data / "modelsdev").glob("models.dev-*.tar.gz"))
    return {m.model: m for m in modelsdev.parse(_payload(tarball.name, tarball.read_bytes()), SOURCE).models}


def test_the_recorded_models_dev_tarball_gives_one_record_per_model_file(catalog):
    assert len(catalog) == 231  # models/<lab>/<model>.toml, never the 5,400 provider copies
    oss = catalog["gpt-oss-120b"]
    assert (oss.name, oss.maker, oss.open_weight, oss.release_date, oss.context_window) == (
        "GPT OSS 120B", "OpenAI", True, date(2025, 8, 5), 131072)
    assert oss.url == "https://huggingface.co/openai/gpt-oss-120b"
    assert catalog["claude-opus-4-5-20251101"].name == "Claude Opus 4.5"
    assert catalog["claude-opus-4-5-20251101"].open_weight is False
    # a month-only release date ("2025-04") is not a day: left out, never invented
    assert catalog["qwen3-32b"].release_date is None and catalog["qwen3-32b"].open_weight is True
    assert all(m.params_b is None for m in catalog.values())  # this commit states no parameter counts
    assert not any(is_route(m.model) for m in catalog.values())


def _tarball(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"models.dev-abc/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_parameters_and_bad_files_in_a_tarball():
    blob = _tarball({
        "models/acme/big-1.toml": 'name = "Big 1"\nrelease_date = "2026-01-02"\nopen_weights = true\n'
                                  "[parameters]\ntotal = 685_000_000_000\n",
        "models/acme/small-1.toml": 'name = "Small 1"\n[parameters]\ntotal = 7.5\n',
        "models/acme/broken.toml": "name = \n",
        "providers/acme/provider.toml": 'name = "Acme Labs"\n',
        "providers/reseller/models/acme/big-1.toml": 'name = "Reseller copy"\n',
    })
    got = {m.model: m for m in modelsdev.parse(_payload("dev", blob), SOURCE).models}
    assert set(got) == {"big-1", "small-1"}  # the broken file is skipped, the reseller copy is no model
    assert got["big-1"].params_b == 685.0 and got["small-1"].params_b == 7.5
    assert got["big-1"].maker == "Acme Labs" and got["big-1"].release_date == date(2026, 1, 2)


def test_the_api_json_format_and_unreadable_payloads():
    demo = ROOT / "builder" / "data" / "demo" / "modelsdev" / "api.json"
    got = {m.model: m for m in modelsdev.parse(_payload("api.json", demo.read_bytes()), SOURCE).models}
    assert got["deepseek-v4"].open_weight is True and got["deepseek-v4"].maker == "DeepSeek"
    routed = {"r": {"name": "Router", "models": {"acme/big": {"name": "x"}}}}
    with pytest.raises(PayloadError, match="no provider lists a model"):
        modelsdev.parse(_payload("api.json", json.dumps(routed).encode()), SOURCE)
    with pytest.raises(PayloadError, match="neither a gzip tarball nor JSON"):
        modelsdev.parse(_payload("x", b"<html>"), SOURCE)
    with pytest.raises(PayloadError, match="no models/<lab>/<model>.toml"):
        modelsdev.parse(_payload("x.tar.gz", _tarball({"README.md": "hi"})), SOURCE)


def test_tie_groups_are_anchored_on_their_leader_and_cannot_chain():
    """Forty rows half an interval apart: every row is tied with its neighbour, so groups
    chained row to row would span the board; anchored on the leader they stay short."""
    rng = np.random.default_rng(7)
    rounds, n = 1000, 40
    r = 1500 - 10.0 * np.arange(n) + rng.normal(0, 10, size=(rounds, n))
    leaders = compute_tie_leaders(r)
    chained = [j for j in range(1, n) if np.count_nonzero(r[:, j - 1] > r[:, j]) / rounds < TIE_THRESHOLD]
    assert len(chained) == n - 1  # the old rule: one group of all 40
    starts = [j for j, lead in enumerate(leaders) if lead is None]
    sizes = np.diff([*starts, n])
    assert len(starts) >= 5 and max(sizes) < n / 4
    for j, lead in enumerate(leaders):
        if lead is not None:
            k, p = lead
            assert leaders[k] is None and k < j and p < TIE_THRESHOLD
            assert p == np.count_nonzero(r[:, k] > r[:, j]) / rounds


def test_a_live_build_never_reads_the_demo_history(tmp_path):
    shipped = sorted((ROOT / "snapshots").glob("*.json"))[-2:]
    for p in shipped:
        shutil.copy(p, tmp_path / p.name)
    newest = load_snapshot(shipped[-1])
    assert newest.demo is True
    after = date.fromisoformat(newest.date).toordinal() + 1
    day = date.fromordinal(after)
    assert previous_snapshot(tmp_path, day, demo=True) is not None
    assert previous_snapshot(tmp_path, day, demo=False) is None
    # a live snapshot of a day the demo history holds replaces it rather than being kept out
    live = newest.model_copy(update={"demo": False})
    path, action = write_snapshot(live, tmp_path)
    assert action == "replaced" and load_snapshot(path).demo is False


def test_display_names_are_never_routes():
    assert display_spelling({"gpt-5": 2, "azure/eu/gpt-5": 1}, None, "gpt-5") == "gpt-5"
    assert display_spelling({"Qwen3 32B": 2, "qwen3-32b": 2}, "qwen3-32b", "qwen3-32b") == "qwen3-32b"
    assert display_spelling({"cloudflare/@cf/zai-org/glm-5.2": 1}, None, "glm-5.2") == "glm-5.2"
    assert not is_route(display_spelling({"a/b@c": 1}, None, "x"))


def test_the_publication_date_of_an_undated_file_is_its_upstream_commit(shared_data):
    """GitHub's commits API for the file's path (served from 127.0.0.1 with the pinned commit);
    a file the API does not know, or a source not on GitHub, has no date (never the fetch day)."""
    from realsite import serve_upstream

    from builder.config import FetchSettings
    from builder.fetch import fetch_commit_date, make_client, upstream_file

    raw = SourceConfig(name="aider", kind="aider",
                       url="https://raw.githubusercontent.com/Aider-AI/aider/main/aider/website/_data/polyglot_leaderboard.yml")
    assert upstream_file(raw) == ("Aider-AI/aider", "aider/website/_data/polyglot_leaderboard.yml")
    assert upstream_file(SourceConfig(name="x", kind="openrouter", url="https://openrouter.ai/api/v1/models")) is None
    with serve_upstream(shared_data) as origin:
        settings = FetchSettings(github_api=origin + "/api", retries=1)
        with make_client(settings) as client:
            assert fetch_commit_date(client, raw, settings) == date(2025, 10, 4)
            unknown = raw.model_copy(update={"upstream_file": "Aider-AI/aider:no/such/file.yml"})
            assert fetch_commit_date(client, unknown, settings) is None
            elsewhere = SourceConfig(name="x", kind="openrouter", url="https://openrouter.ai/api/v1/models")
            assert fetch_commit_date(client, elsewhere, settings) is None
