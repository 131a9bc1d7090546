"""The evidence export: recompute.py rebuilds every number of the bundled build with the
standard library alone, names every miss, and the build refuses to publish a miss."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from builder.config import load_config
from builder.errors import CheckFailed
from builder.pipeline import build

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _cfg(tmp: Path):
    cfg, base = load_config(ROOT / "site.yml")
    cfg = cfg.model_copy(update={"fetch": cfg.fetch.model_copy(update={"store": str(tmp / "store")})})
    return cfg, base


@pytest.fixture(scope="module")
def built(demo_build) -> Path:
    """The site of the bundled demo build (the session's ``demo_build``; read-only)."""
    return demo_build.site


def _recompute(data_dir: Path) -> subprocess.CompletedProcess:
    # -I -S: isolated, no site-packages: proves the script needs only the standard library.
    return subprocess.run([sys.executable, "-I", "-S", str(data_dir / "recompute.py"), str(data_dir)],
                          capture_output=True, text=True, timeout=300)


def test_bundled_build_rebuilds_everything(built):
    proc = _recompute(built / "data")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "everything rebuilt" in proc.stdout
    counts = {line.split("  ")[0].strip(): line for line in proc.stdout.splitlines() if "reproduced" in line}
    for kind in ("index score", "index family score", "index fused score", "index board order",
                 "board calibration", "board calibrated value", "board R", "board rank", "board order"):
        assert kind in counts, kind
        ok, total = [int(x) for x in counts[kind].split("reproduced")[0].split()[-3::2]]
        assert ok == total > 0, counts[kind]


def _copy(built: Path, tmp_path: Path) -> Path:
    data = tmp_path / "data"
    shutil.copytree(built / "data", data)
    return data


def test_an_edited_index_score_is_reported(built, tmp_path):
    data = _copy(built, tmp_path)
    ev = json.loads((data / "evidence.json").read_text())
    victim = next(m for m in ev["models"] if m["basis"] == "measured")
    victim["score"] = round(victim["score"] + 0.5, 1)
    (data / "evidence.json").write_text(json.dumps(ev))
    proc = _recompute(data)
    assert proc.returncode == 1
    assert f"MISS index score: {victim['identityKey']}" in proc.stdout


def test_an_edited_board_r_is_reported(built, tmp_path):
    data = _copy(built, tmp_path)
    be = json.loads((data / "boards-evidence.json").read_text())
    row = be["boards"][0]["rows"][3]
    row["r"] += 1e-6  # well above float noise, far below any displayed digit
    (data / "boards-evidence.json").write_text(json.dumps(be))
    proc = _recompute(data)
    assert proc.returncode == 1
    assert f"MISS board R: {be['boards'][0]['id']} {row['identity']}" in proc.stdout


def test_a_swapped_board_position_is_reported(built, tmp_path):
    data = _copy(built, tmp_path)
    be = json.loads((data / "boards-evidence.json").read_text())
    rows = be["boards"][0]["rows"]
    rows[0], rows[1] = rows[1], rows[0]
    (data / "boards-evidence.json").write_text(json.dumps(be))
    proc = _recompute(data)
    assert proc.returncode == 1
    assert "MISS board order" in proc.stdout and rows[0]["identity"] in proc.stdout


def test_styled_budgets_are_refitted_and_a_tampered_one_fails_verify(built, tmp_path):
    """The demo's style-controlled flip budgets are refitted from their battles download
    (styled-battles-arena.csv.gz) with the standard library; a budget one vote short of its
    list, or a moved gapAfter, is named, and ``verify`` fails on it."""
    from builder.evidence.verify import verify_site

    data = built / "data"
    ev = json.loads((data / "arena-flips.json").read_text())
    styled = [b for b in ev["boards"] if b["fit"] == "style"]
    assert styled and styled[0]["id"] == "arena" and (data / styled[0]["battles"]).is_file()
    n = sum(1 for f in styled[0]["flips"] if f["flipped"])
    assert n >= 9
    proc = _recompute(data)
    for kind in ("styled flip (reverses)", "styled flip gap after", "styled fit rating"):
        assert f"{kind:<28}" in proc.stdout, proc.stdout
    assert f"{'styled flip (reverses)':<28} {n:>6} of {n:<6} reproduced" in proc.stdout
    assert "MISS" not in proc.stdout
    page = (built / "evidence" / "index.html").read_text()
    assert "styled-battles-arena.csv.gz" in page and "style-controlled fit in file order" in page
    assert "| styled-battles-<board>.csv.gz |" in (data / "README.md").read_text()
    copy = _copy(built, tmp_path)
    ev = json.loads((copy / "arena-flips.json").read_text())
    flips = next(b for b in ev["boards"] if b["fit"] == "style")["flips"]
    moved = flips[0]
    moved["gapAfter"] = round(moved["gapAfter"] + 0.01, 4)
    short = max(flips[1:], key=lambda f: f["votes"] or 0)
    assert short["minimal"] and short["votes"] >= 2
    short["removed"][-1]["count"] -= 1
    short["removed"] = [v for v in short["removed"] if v["count"] > 0]
    held = next(f for f in flips if f is not moved and f is not short)
    held["flipped"] = False  # published as keeping its order, but its votes do reverse it
    (copy / "arena-flips.json").write_text(json.dumps(ev))
    proc = _recompute(copy)
    assert proc.returncode == 1
    assert f"MISS styled flip gap after: arena: {moved['lower']} above {moved['higher']}" in proc.stdout
    assert f"MISS styled flip (reverses): arena: {short['lower']} above {short['higher']}" in proc.stdout
    assert f"MISS styled flip (no reversal): arena: {held['lower']} above {held['higher']}" in proc.stdout
    result = verify_site(tmp_path)
    assert not result.ok and "MISS styled flip (reverses)" in result.output


def test_notebook_holds_the_same_code(built):
    nb = json.loads((built / "data" / "recompute.ipynb").read_text())
    code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    script = (built / "data" / "recompute.py").read_text()
    assert "def recompute_index" in code and "def recompute_boards" in code
    for line in ("def fit_calibration", "def family_scores", "BASIS_ORDER = "):
        assert line in code and line in script


def test_pages_exist_and_link_downloads(built):
    index = (built / "capability-index" / "index.html").read_text()
    assert "Current versions" in index and "All versions" in index
    assert 'href="../data/index-current.csv"' in index
    evidence = (built / "evidence" / "index.html").read_text()
    assert "recompute.py" in evidence and "step by step" in evidence


def test_build_refuses_to_publish_numbers_that_do_not_rebuild(tmp_path, monkeypatch):
    cfg, base = _cfg(tmp_path)
    out = tmp_path / "site"
    build(cfg, base, out=out, now=NOW, snapshots_dir=tmp_path / "snapshots")
    before = (out / "data" / "boards-evidence.json").read_bytes()

    from builder.evidence import export

    real = export.compute_boards_evidence

    def corrupt(snapshot, site_url):
        be = real(snapshot, site_url)
        be["boards"][0]["rows"][0]["r"] += 0.5
        return be

    monkeypatch.setattr(export, "compute_boards_evidence", corrupt)
    with pytest.raises(CheckFailed, match="do not rebuild"):
        build(cfg, base, out=out, now=NOW, snapshots_dir=tmp_path / "snapshots")
    assert (out / "data" / "boards-evidence.json").read_bytes() == before  # previous site kept
    assert not list(tmp_path.glob(".site.new-*"))


def test_recompute_reads_the_site_url(built):
    """A reader can point the script at the published site instead of local files."""
    from conftest import serve_directory

    with serve_directory(built) as origin:
        proc = subprocess.run([sys.executable, "-I", "-S", str(built / "data" / "recompute.py"), f"{origin}/data/"],
                              capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "everything rebuilt" in proc.stdout


def test_recompute_command_line(tmp_path):
    script = ROOT / "builder" / "evidence" / "recompute.py"

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-I", "-S", str(script), *args], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path)

    helped = run("--help")
    assert helped.returncode == 0 and helped.stdout.startswith("usage: recompute.py [-h] [location]")
    assert "standard library" in helped.stdout and "Exit code" in helped.stdout
    missing = run(str(tmp_path / "no-such-folder"))
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.count("\n") == 1 and "no-such-folder: no such folder" in missing.stderr
    a_file = tmp_path / "boards-evidence.json"
    a_file.write_text("{not json")
    given_file = run(str(a_file))
    assert given_file.returncode == 2 and given_file.stderr.count("\n") == 1
    assert "a file, not a folder" in given_file.stderr and str(tmp_path) in given_file.stderr
    bad_json = run(str(tmp_path))
    assert bad_json.returncode == 2 and bad_json.stderr.count("\n") == 1
    assert "boards-evidence.json: line 1: invalid JSON" in bad_json.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    none = run(str(empty))
    assert none.returncode == 2 and "no boards-evidence.json in this folder" in none.stderr
    assert "Traceback" not in none.stderr + bad_json.stderr + given_file.stderr + missing.stderr
