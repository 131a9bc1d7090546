"""Renderer unit tests: safe links, escaping, sort keys, base-URL links, guards, determinism."""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from fixtures.make_snapshot import XSS_NAME, make_snapshot, with_worked_example

from builder.config import load_config
from builder.errors import UserError
from builder.render import exports, writer
from builder.render.formatting import fmt_usd, fmt_usd_exact, movement_key, movement_text, num_key
from builder.render.markdown import render_markdown
from builder.render.site import render_site, write_site_atomically
from builder.render.writer import fill_slots, make_env
from builder.snapshot import validate_snapshot
from builder.util.text import CSP, model_slug, safe_url

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
BASE_URL = "https://user.github.io/modelboards/"


@pytest.fixture(scope="module")
def cfg():
    return load_config(FIXTURES / "site.yml")[0]


@pytest.fixture(scope="module")
def golden_snapshot() -> dict:
    return json.loads((FIXTURES / "golden_snapshot.json").read_text(encoding="utf-8"))


def typed(snapshot):
    """A snapshot's JSON (as the tests edit it) validated into what the renderer takes."""
    return validate_snapshot(snapshot) if isinstance(snapshot, dict) else snapshot


def render(cfg, snapshot, out: Path, *, history=(), now=NOW, base_url=BASE_URL) -> list[str]:
    return render_site(typed(snapshot), [typed(h) for h in history], cfg, ROOT, out, now=now, base_url=base_url)


@pytest.fixture(scope="module")
def site(cfg, golden_snapshot, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    earlier = make_snapshot(20, seed=3, day="2026-11-28", method_id="boards-zfit-v1-older0000001")
    earlier["roles"]["orchestrator"]["weights"]["reasoning"] = 0.4
    render(cfg, golden_snapshot, out, history=[earlier])
    return out


def html_files(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


# --------------------------------------------------------------------------- safe_url / slugs


@pytest.mark.parametrize("url", ["https://example.org/a?b=1#c", "http://127.0.0.1:8000/", "HTTPS://EXAMPLE.ORG/"])
def test_safe_url_accepts_http_and_https(url):
    assert safe_url(url) == url


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
    "java\nscript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)",
    "//evil.example/x", "/relative/path", "mailto:a@b.c", "ftp://example.org/", "http:/no-host", "https://",
    "", None, 42, "https://exa mple.org/",
])
def test_safe_url_rejects_everything_else(url):
    assert safe_url(url) is None


def test_model_slug_is_stable_safe_and_distinct():
    assert model_slug("claude-opus-5.5") == "claude-opus-5.5"
    hostile = [XSS_NAME, "../../etc/passwd", "..", ".hidden", "a/b", "A", "a b", "ünï", "x" * 200, ""]
    slugs = [model_slug(h) for h in hostile]
    for s in slugs:
        assert re.fullmatch(r"[a-z0-9][a-z0-9._-]*", s), s
        assert ".." not in s and "/" not in s and len(s) <= 80
    assert len(set(slugs)) == len(slugs)
    assert model_slug("a/b") == model_slug("a/b")
    assert model_slug("A") != model_slug("a")


# --------------------------------------------------------------------------- sort keys


def test_sort_keys_are_numbers_not_text():
    assert num_key(1509.956986086938) == "1509.956986086938"
    assert num_key(10) == "10" and num_key(2.0) == "2"
    assert [num_key(v) for v in (None, True, float("nan"), float("inf"), "x")] == ["", "", "", "", ""]
    keys = [num_key(v) for v in (10, 9, 100, 1.5)]
    assert sorted(keys, key=float) == ["1.5", "9", "10", "100"]
    assert movement_key(3) == "3" and movement_key(-2) == "-2"
    assert movement_key("new") == "" and movement_key(None) == "" and movement_key(True) == ""
    assert [movement_text(m) for m in (3, -2, 0, "new", None)] == ["▲ 3", "▼ 2", "=", "new", "–"]


def test_a_price_compared_with_a_cap_keeps_all_its_digits():
    # Cents would show the value stack's blended $0.29925 as the $0.30 it must be below.
    assert fmt_usd(0.29925) == "$0.30"
    assert [fmt_usd_exact(v) for v in (0.29925, 3.4375, 1e-7)] == ["$0.29925", "$3.4375", "$0.0000001"]
    assert [fmt_usd_exact(v) for v in (0.3, 5, 1234.5, 0)] == ["$0.30", "$5.00", "$1,234.50", "$0.00"]
    assert [fmt_usd_exact(v) for v in (None, True)] == ["–", "–"]


def test_board_cells_carry_unrounded_sort_keys(site, golden_snapshot):
    html = (site / "boards" / "orchestrator" / "index.html").read_text(encoding="utf-8")
    for row in golden_snapshot["boards"][0]["rows"]:
        assert f'data-sort="{row["r"]!r}"' in html


# --------------------------------------------------------------------------- escaping and safety


@pytest.fixture(scope="module")
def xss_site(cfg, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("xss")
    snap = json.loads((FIXTURES / "xss_snapshot.json").read_text(encoding="utf-8"))
    render(cfg, snap, out)
    return out


class LinkCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, str]] = []  # (tag, attr, value)
        self.inline_scripts = 0
        self.style_attrs = 0
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        d = dict(attrs)
        if "style" in d:
            self.style_attrs += 1
        if tag == "script" and "src" not in d:
            self.inline_scripts += 1
        for attr in ("href", "src", "action", "formaction"):
            if attr in d and d[attr] is not None:
                self.links.append((tag, attr, d[attr]))
        for k in d:
            assert not k.startswith("on"), f"event handler attribute {k} on <{tag}>"


def parse(path: Path) -> LinkCollector:
    p = LinkCollector()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_hostile_strings_are_escaped_and_links_dropped(xss_site):
    texts = {p: p.read_text(encoding="utf-8") for p in html_files(xss_site)}
    for path, text in texts.items():
        assert "<img src=x" not in text, path
        assert "<script>alert" not in text and "<svg onload" not in text and "<b onmouseover" not in text, path
        collected = parse(path)
        for _tag, _attr, value in collected.links:
            assert not value.strip().lower().startswith(("javascript:", "data:", "vbscript:")), (path, value)
    victim_pages = [t for t in texts.values() if "&lt;img src=x onerror=alert(1)&gt;" in t]
    assert len(victim_pages) >= 5  # board, model page, models, excluded, methodology, front page ...
    csv_text = (xss_site / "data" / "boards" / "orchestrator.csv").read_text(encoding="utf-8")
    assert XSS_NAME in csv_text  # downloads keep the data as published; only HTML escapes it


def test_every_page_has_csp_and_no_inline_script_style_or_foreign_resources(site):
    pages = html_files(site)
    assert len(pages) > 30
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert '<meta http-equiv="Content-Security-Policy"' in text, path
        collected = parse(path)
        assert collected.inline_scripts == 0 and collected.style_attrs == 0, path
        for tag, _attr, value in collected.links:
            if tag in ("script", "img", "link") and not (tag == "link" and "canonical" in text):
                assert not urlsplit(value).scheme, (path, tag, value)
    assert "default-src 'self'" in CSP and "'unsafe-inline'" not in CSP


def test_markdown_disables_html_and_rewrites_links():
    html = render_markdown(
        "<script>alert(1)</script>\n\n[m](/methodology/) [x](javascript:alert(1)) [d](data:text/html,x) "
        "[e](https://example.org/) [p](//evil.example/) [h](/)", "../")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="../methodology/"' in html and 'href="https://example.org/"' in html
    assert 'href="../"' in html
    assert 'href="javascript' not in html and 'href="data' not in html and 'href="//evil' not in html
    assert fill_slots("<p>[[a]]</p>\n<p>[[zz]]</p>", {"a": "<b>A</b>", "c": "C"}, append_missing=True) == \
        "<b>A</b><p>[[zz]]</p>C"


# --------------------------------------------------------------------------- links under a base URL


def site_target(site: Path, page: Path, href: str, base_path: str) -> Path | None:
    """The file an internal link points at (None for external / fragment-only links)."""
    parts = urlsplit(href)
    if parts.scheme or href.startswith("#"):
        return None
    page_url = "/" + page.relative_to(site).as_posix()
    url = urljoin(base_path.rstrip("/") + page_url if not href.startswith("/") else "", href)
    path = urlsplit(url).path
    assert path.startswith(base_path), (page, href, path)
    rel = path[len(base_path):]
    target = site / rel
    return target / "index.html" if rel == "" or rel.endswith("/") else target


def test_every_internal_link_resolves_under_the_sub_path(site):
    base_path = urlsplit(BASE_URL).path
    checked = 0
    for page in html_files(site):
        for tag, _attr, value in parse(page).links:
            if tag == "link" and value.startswith(BASE_URL):
                continue  # canonical
            target = site_target(site, page, value, base_path)
            if target is None:
                continue
            assert target.is_file(), f"{page.relative_to(site)}: {value} -> {target}"
            checked += 1
    assert checked > 500
    text404 = (site / "404.html").read_text(encoding="utf-8")
    assert 'href="/modelboards/static/site.css"' in text404  # served at any depth: absolute base path
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert f"<loc>{BASE_URL}boards/orchestrator/</loc>" in sitemap and "404" not in sitemap
    assert f"Sitemap: {BASE_URL}sitemap.xml" in (site / "robots.txt").read_text(encoding="utf-8")


def test_canonical_links_follow_the_base_url(cfg, golden_snapshot, tmp_path):
    render(cfg, golden_snapshot, tmp_path, base_url="https://other.example/sub/path")
    text = (tmp_path / "boards" / "rote" / "index.html").read_text(encoding="utf-8")
    assert '<link rel="canonical" href="https://other.example/sub/path/boards/rote/">' in text
    with pytest.raises(ValueError):
        render(cfg, golden_snapshot, tmp_path / "x", base_url="javascript:alert(1)")


# --------------------------------------------------------------------------- guards


FALLBACK_MARK = "The live boards are not shown on this page"


@pytest.mark.parametrize("case", ["fresh", "two-days", "too-old", "future", "empty", "missing"])
def test_guards_choose_the_front_page(cfg, golden_snapshot, tmp_path, case):
    snap = copy.deepcopy(golden_snapshot)
    now = NOW
    if case == "two-days":
        now = datetime(2026, 12, 2, 23, 59, tzinfo=UTC)
    elif case == "too-old":
        now = datetime(2026, 12, 3, 0, 1, tzinfo=UTC)
    elif case == "future":
        now = datetime(2026, 11, 29, 23, 0, tzinfo=UTC)
    elif case == "empty":
        for b in snap["boards"]:
            b["rows"] = []
        for m in snap["machines"]:
            m["rows"] = []
        snap["stacks"]["best"], snap["worked_example"] = [], None
    elif case == "missing":
        snap = None
    warnings = render(cfg, snap, tmp_path, now=now)
    front = (tmp_path / "index.html").read_text(encoding="utf-8")
    refused = case not in ("fresh", "two-days")
    assert (FALLBACK_MARK in front) is refused
    assert ('class="cards"' in front) is (not refused)
    for page in html_files(tmp_path):
        assert ("<strong>Preview.</strong>" in page.read_text(encoding="utf-8")) is refused, page
    assert any(w.startswith("live boards refused") for w in warnings) is refused
    if case != "missing":
        assert (tmp_path / "boards" / "orchestrator" / "index.html").is_file()  # still previewable


def test_an_invalid_date_never_reaches_the_renderer(golden_snapshot):
    """The guards' old "invalid date" case: the snapshot schema refuses it on load."""
    with pytest.raises(UserError, match=r"^<snapshot>: date: "):
        validate_snapshot({**golden_snapshot, "date": "2026-13-45"})


# --------------------------------------------------------------------------- determinism, history


def test_rendering_twice_is_byte_identical(cfg, golden_snapshot, tmp_path):
    earlier = make_snapshot(20, seed=3, day="2026-11-28")
    render(cfg, golden_snapshot, tmp_path / "a", history=[earlier])
    render(cfg, copy.deepcopy(golden_snapshot), tmp_path / "b", history=[copy.deepcopy(earlier)])
    a = {p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*") if p.is_file()}
    b = {p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()}
    assert a.keys() == b.keys() and a == b


def test_later_snapshots_do_not_change_a_past_day(cfg, golden_snapshot, tmp_path):
    earlier = make_snapshot(20, seed=3, day="2026-11-28")
    later = make_snapshot(20, seed=5, day="2026-12-05")
    render(cfg, golden_snapshot, tmp_path / "a", history=[earlier])
    render(cfg, golden_snapshot, tmp_path / "b", history=[later, earlier])
    for p in (tmp_path / "a").rglob("*"):
        if p.is_file():
            assert p.read_bytes() == (tmp_path / "b" / p.relative_to(tmp_path / "a")).read_bytes(), p


def test_archive_changelog_and_downloads(site, golden_snapshot):
    archive = (site / "archive" / "index.html").read_text(encoding="utf-8")
    assert "2026-11-30 (current)" in archive and "2026-11-28" in archive
    assert (site / "data" / "snapshots" / "2026-11-28.json").is_file()
    assert (site / "data" / "archive" / "2026-11-28" / "orchestrator.csv").is_file()
    # the snapshot as saved, read through the schema (optional fields added since it was saved
    # appear with their defaults)
    saved = validate_snapshot(golden_snapshot).model_dump(mode="json")
    assert json.loads((site / "data" / "snapshots" / "2026-11-30.json").read_text()) == saved
    changelog = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    assert "boards-zfit-v1-older0000001" in changelog and golden_snapshot["method_id"] in changelog
    assert "role orchestrator weight reasoning: 0.4 -&gt; 0.5" in changelog
    for board in golden_snapshot["boards"]:
        rows = list(csv.DictReader(io.StringIO((site / "data" / "boards" / f"{board['id']}.csv").read_text())))
        assert len(rows) == len(board["rows"]) + len(board["new"])
        for got, want in zip(rows, board["rows"], strict=False):
            assert float(got["r"]) == want["r"] and int(got["score"]) == want["score"]
            assert got["identity"] == want["identity"] and got["strip"] == "ranked"
            for fam, mean in want["families"].items():
                assert float(got[f"family_{fam}"]) == mean
        doc = json.loads((site / "data" / "boards" / f"{board['id']}.json").read_text())
        assert doc["licence"] == exports.RATING_LICENCE and doc["rows"][0]["r"] == board["rows"][0]["r"]
        assert {s["name"] for s in doc["sources"]} == {s["name"] for s in golden_snapshot["sources"]}
    data_page = (site / "data" / "index.html").read_text(encoding="utf-8")
    for col, _, _ in exports.board_csv_columns():
        assert f"<code>{col}</code>" in data_page


def test_board_page_content(site, golden_snapshot):
    board = next(b for b in golden_snapshot["boards"] if b["id"] == "mid-tier")
    html = (site / "boards" / "mid-tier" / "index.html").read_text(encoding="utf-8")
    assert "Token price" in html and "Build check" in html
    assert "New, not enough ratings yet" in html and "Sources (9)" in html
    for s in golden_snapshot["sources"]:
        assert s["licence"].replace("'", "&#39;") in html
    assert f"As of <strong>{golden_snapshot['as_of']}</strong>" in html
    assert html.count("<tr data-open=") == len(board["rows"])
    orch = (site / "boards" / "orchestrator" / "index.html").read_text(encoding="utf-8")
    # prices on every role board; the build check only where the board's rule uses it
    assert "Token price" in orch and "Build price" in orch and "Build check" not in orch
    assert "▲" in orch and "new on this board" in orch


def test_stale_and_warning_banners(cfg, golden_snapshot, tmp_path):
    snap = copy.deepcopy(golden_snapshot)
    snap["stale"] = True
    snap["boards"][1]["warning"] = "Only 30% of this board's weight is available; missing: reasoning"
    warnings = render(cfg, snap, tmp_path)
    html = (tmp_path / "boards" / snap["boards"][1]["id"] / "index.html").read_text(encoding="utf-8")
    assert "<strong>Stale.</strong>" in html and "Only 30% of this board" in html
    assert any("stale" in w for w in warnings) and any("Only 30%" in w for w in warnings)
    assert "<strong>Stale.</strong>" in (tmp_path / "index.html").read_text(encoding="utf-8")


def test_stacks_page_states_the_caps_and_day_of_work_the_snapshot_was_made_with(cfg, golden_snapshot, tmp_path):
    def value_text(out: Path) -> str:
        page = (out / "stacks" / "index.html").read_text(encoding="utf-8")
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page[page.index("Value stack"):]))

    snap = copy.deepcopy(golden_snapshot)
    del snap["stacks"]["value"]["roles"]  # a snapshot from before they were recorded
    render(cfg, snap, tmp_path / "old")
    old = value_text(tmp_path / "old")
    assert "strictly below $5, $1 and $0.30 per million tokens" in old and "= 2 M orchestrator tokens" in old
    snap["stacks"]["value"]["roles"] = [{"role": "orchestrator", "below": 8.0, "tokens": 3.0},
                                        {"role": "mid_tier", "below": 1.5, "tokens": 12.5},
                                        {"role": "rote", "below": 0.25, "tokens": 40.0}]
    render(cfg, snap, tmp_path / "new")
    new = value_text(tmp_path / "new")
    titles = [snap["roles"][r]["title"] for r in ("orchestrator", "mid_tier", "rote")]
    assert f"cap ({titles[0]} $8.00, {titles[1]} $1.50, {titles[2]} $0.25 per million tokens)" in new
    assert f"= 3 M {titles[0]} tokens + 12.5 M {titles[1]} tokens + 40 M {titles[2]} tokens at these prices" in new
    assert "$5" not in new


def test_model_pages_and_excluded_page(site, golden_snapshot):
    obs = golden_snapshot["observations"]
    ident = golden_snapshot["boards"][0]["rows"][0]["identity"]
    html = (site / "models" / model_slug(ident) / "index.html").read_text(encoding="utf-8")
    mine = [o for o in obs if o["identity"] == ident]
    assert html.count('<td class="num" data-sort="') >= 2 * len(mine)
    for o in mine:
        assert f'href="{o["url"]}"' in html
    assert "Best orchestrator" in html and "Facts" in html
    excluded = (site / "excluded" / "index.html").read_text(encoding="utf-8")
    not_counted = [o for o in obs if o["excluded"] or not o["selected"] or o["calibrated"] is None]
    table = excluded.split('id="excluded-table"', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") - 1 == len(not_counted)  # minus the header row
    for o in not_counted:
        if o["excluded"]:
            assert o["excluded"] in excluded


def test_methodology_worked_example_matches_the_board(site, golden_snapshot):
    html = (site / "methodology" / "index.html").read_text(encoding="utf-8")
    top = golden_snapshot["boards"][0]["rows"][0]
    assert f"R = <strong>{top['r']!r}</strong>" in html
    assert f"round(R) = <strong>{top['score']}</strong>" in html
    assert "Check failed" not in html
    assert 'id="role-weights"' in html and "Mid-tier worker" in html and "Share" in html


def test_worked_example_reports_a_disagreement(cfg, golden_snapshot, tmp_path):
    snap = copy.deepcopy(golden_snapshot)
    snap["boards"][0]["rows"][0]["r"] += 0.5
    with pytest.raises(UserError, match=r"worked_example\.r: R .* is said to agree"):
        validate_snapshot(snap)  # a hand edit of the row: the stored example no longer agrees
    snap = with_worked_example(snap)  # scored like that, the example says so
    assert snap["worked_example"]["agrees"] is False
    warnings = render(cfg, snap, tmp_path)
    assert any("does not reproduce" in w for w in warnings)
    assert "Check failed" in (tmp_path / "methodology" / "index.html").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- atomic swap


def test_write_site_atomically_swaps_and_keeps_old_on_failure(tmp_path):
    target = tmp_path / "site"

    def good(version: str):
        def build(tmp: Path) -> str:
            (tmp / "index.html").write_text(version)
            return version
        return build

    assert write_site_atomically(target, good("one")) == "one"
    assert (target / "index.html").read_text() == "one"
    assert write_site_atomically(target, good("two")) == "two"
    assert (target / "index.html").read_text() == "two"

    def bad(tmp: Path) -> None:
        (tmp / "index.html").write_text("half")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_site_atomically(target, bad)
    assert (target / "index.html").read_text() == "two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no temp folders left behind


def test_one_environment_per_templates_folder_and_an_edited_template_is_compiled_again(tmp_path):
    page = tmp_path / "t.html"
    page.write_text("<p>{{ x }}</p>", encoding="utf-8")
    env = make_env(tmp_path)
    assert make_env(tmp_path / ".") is env and make_env(ROOT / "templates") is not env
    assert env.get_template("t.html").render(x="one") == "<p>one</p>"
    assert env.get_template("t.html") is env.get_template("t.html")  # compiled once, kept
    page.write_text("<div>{{ x }}</div>", encoding="utf-8")
    later = os.stat(page).st_mtime + 10
    os.utime(page, (later, later))
    assert make_env(tmp_path).get_template("t.html").render(x="two") == "<div>two</div>"


def test_compiled_templates_are_kept_across_environments_and_never_outlive_their_inputs(tmp_path, monkeypatch):
    page = tmp_path / "t.html"
    page.write_text("<p>{{ x | num_key }}</p>", encoding="utf-8")
    fresh = writer._env_for.__wrapped__  # a new environment, as a new process makes
    first = fresh(str(tmp_path))
    assert first.bytecode_cache is not None and first.get_template("t.html").render(x=1.5) == "<p>1.5</p>"
    bucket = first.bytecode_cache.get_bucket(first, "t.html", str(page), page.read_text(encoding="utf-8"))
    assert bucket.code is not None  # the compiled code is on disk for the next environment
    assert fresh(str(tmp_path)).get_template("t.html").render(x=2.5) == "<p>2.5</p>"
    page.write_text("<div>{{ x }}</div>", encoding="utf-8")  # a changed source is compiled again
    assert fresh(str(tmp_path)).get_template("t.html").render(x=3) == "<div>3</div>"
    # anything else the compiled code depends on gives other file names
    pattern = first.bytecode_cache.pattern
    monkeypatch.setitem(writer._ENV_OPTIONS, "trim_blocks", False)
    assert fresh(str(tmp_path)).bytecode_cache.pattern != pattern


def test_a_dict_key_reads_as_jinja2_reads_it(tmp_path):
    """``x.name`` on a dict: the key, unless ``dict`` has an attribute of that name (as jinja2 has it)."""
    import jinja2

    (tmp_path / "t.html").write_text("{{ d.title }}|{{ d.items() | list | length }}|{{ d.get('title') }}",
                                     encoding="utf-8")
    (tmp_path / "missing.html").write_text("{{ d.absent }}", encoding="utf-8")
    env = make_env(tmp_path)
    assert env.get_template("t.html").render(d={"title": "<b>", "items": "not the method"}) == "&lt;b&gt;|2|&lt;b&gt;"
    with pytest.raises(jinja2.UndefinedError, match="absent"):
        env.get_template("missing.html").render(d={"title": "x"})
