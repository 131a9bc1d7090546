"""The static API ``api/v1`` of a built site: schemas, the board rows, explain, history, the page.

Checked on the site of the newest shipped snapshot (``bundled_site``) and on the hostile
fixture snapshot: every file validates against its published JSON Schema (``jsonschema``),
every board document's rows are the board download's rows, every explain block is
``modelboards explain``'s arithmetic.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from builder.api.build import api_settings, compute_api, compute_schemas, endpoint_paths, methodology_markdown
from builder.api.models import SCHEMAS, BoardRow
from builder.api.page import ApiExample, api_example
from builder.config import load_config
from builder.evidence.explain import explain_model, format_explain
from builder.render.exports import UNCERTAINTY_COLUMNS, board_csv_columns, board_download
from builder.render.site import render_site
from builder.snapshot import list_snapshots, load_snapshot, validate_snapshot
from builder.util.text import model_slug

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def snapshot() -> dict:
    """The newest shipped snapshot in its JSON form (the names the API and the downloads publish)."""
    return load_snapshot(list_snapshots(ROOT / "snapshots")[-1]).model_dump(mode="json")


def _validators(site: Path) -> dict[str, Draft202012Validator]:
    out = {}
    for stem in SCHEMAS:
        schema = _json(site / "api" / "v1" / "schema" / f"{stem}.json")
        Draft202012Validator.check_schema(schema)
        out[stem] = Draft202012Validator(schema)
    return out


def _errors(validator: Draft202012Validator, doc) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)][:5]


def test_every_api_file_validates_against_its_published_schema(bundled_site, snapshot):
    api = bundled_site / "api" / "v1"
    v = _validators(bundled_site)
    index = _json(api / "index.json")
    assert _errors(v["index"], index) == []
    boards = sorted(api.glob("boards/*.json"))
    models = sorted(api.glob("models/*.json"))
    assert [p.stem for p in boards] == sorted(b["id"] for b in snapshot["boards"])
    assert len(models) == len(index["models"]) >= len(snapshot["models"])
    for p in boards:
        assert _errors(v["board"], _json(p)) == [], p.name
    for p in models:
        assert _errors(v["model"], _json(p)) == [], p.name
    # a document that breaks its schema is caught (the check can fail)
    broken = _json(boards[0])
    broken["rows"][0]["score"] = "high"
    assert _errors(v["board"], broken)


def test_schemas_are_the_pydantic_models_schemas(bundled_site):
    base = _json(bundled_site / "api" / "v1" / "index.json")["site"]["url"]
    for stem, schema in compute_schemas(base).items():
        assert _json(bundled_site / "api" / "v1" / "schema" / f"{stem}.json") == schema
        assert schema["$schema"].endswith("2020-12/schema")
        assert schema["$id"] == f"{base}api/v1/schema/{stem}.json"


def test_board_rows_are_the_download_rows_field_for_field(bundled_site, snapshot):
    for b in snapshot["boards"]:
        doc = _json(bundled_site / "api" / "v1" / "boards" / f"{b['id']}.json")
        download = _json(bundled_site / "data" / "boards" / f"{b['id']}.json")
        assert doc["rows"] == download["rows"] and doc["new"] == download["new"], b["id"]
        assert doc["board"] == download["board"]
        assert [r["identity"] for r in doc["rows"]] == [r["identity"] for r in b["rows"]]
        assert set(doc["provenance"]) == {r["identity"] for r in doc["rows"] + doc["new"]}
    # the typed row has the download's columns, in the download's order: the CSV's (but the
    # strip), then families (one CSV column each)
    assert list(BoardRow.model_fields) == [c for c, _, _ in board_csv_columns()[1:]] + ["families"]
    assert all(set(UNCERTAINTY_COLUMNS) <= set(r) for r in doc["rows"])


def test_provenance_names_the_url_of_every_number(bundled_site, snapshot):
    doc = _json(bundled_site / "api" / "v1" / "boards" / "orchestrator.json")
    obs = snapshot["observations"]
    families = snapshot["families"]
    for row in doc["rows"][:10]:
        prov = doc["provenance"][row["identity"]]
        for fam in row["families"]:
            want = {o["url"] for o in obs if o["identity"] == row["identity"] and o["calibrated"] is not None
                    and o["feed"] in families[fam]["feeds"]}
            assert set(prov[fam]) == want and want, (row["identity"], fam)
        if row["token_price"] is not None:
            assert prov["token_price"] == [next(s["url"] for s in snapshot["sources"] if s["kind"] == "litellm")]


def test_explain_in_model_documents_is_modelboards_explain(bundled_site):
    typed = load_snapshot(list_snapshots(ROOT / "snapshots")[-1])
    checked = 0
    for p in sorted((bundled_site / "api" / "v1" / "models").glob("*.json"))[:20]:
        doc = _json(p)
        for placement in doc["boards"]:
            got = dict(placement["explain"])
            text = got.pop("text")
            urls = [s.pop("url") for s in got["sources"]]
            want = explain_model(typed, doc["identity"], placement["board"])
            assert got == json.loads(json.dumps(want)), (doc["identity"], placement["board"])
            assert text == format_explain(want)
            assert all(u and u.startswith("https://") for u in urls)
            checked += 1
    assert checked > 20


def test_model_history_matches_the_saved_snapshots(bundled_site):
    doc = _json(bundled_site / "api" / "v1" / "models" / "gpt-6.json")
    index = _json(bundled_site / "api" / "v1" / "index.json")
    saved = {p.name[:10]: p for p in list_snapshots(ROOT / "snapshots")}
    assert index["snapshots"] == sorted(saved)
    points = doc["history"]["orchestrator"]
    assert [p["date"] for p in points] == sorted(p["date"] for p in points)
    for point in points:
        board = load_snapshot(saved[point["date"]]).board("orchestrator")
        assert board is not None
        row = next(r for r in (*board.rows, *board.new) if r.identity == "gpt-6")
        assert (point["rank"], point["score"], point["r"]) == (row.rank, row.score, row.r)
        assert point["download"].endswith(f"data/snapshots/{point['date']}.json")
        assert (bundled_site / "data" / "snapshots" / f"{point['date']}.json").is_file()


def test_index_lists_boards_models_endpoints_and_links_that_exist(bundled_site, snapshot):
    index = _json(bundled_site / "api" / "v1" / "index.json")
    base = index["site"]["url"]
    assert index["snapshot"]["date"] == snapshot["date"] and index["snapshot"]["method_id"] == snapshot["method_id"]
    assert [b["id"] for b in index["boards"]] == [b["id"] for b in snapshot["boards"]]
    for b in index["boards"]:
        for key in ("api", "download", "page"):
            rel = b[key].removeprefix(base)
            assert (bundled_site / rel / ("index.html" if rel.endswith("/") else "")).is_file(), b[key]
    for m in index["models"]:
        assert m["slug"] == model_slug(m["identity"])
        assert (bundled_site / "models" / m["slug"] / "index.html").is_file()
        assert (bundled_site / "api" / "v1" / "models" / f"{m['slug']}.json").is_file()
    assert [e["path"] for e in index["endpoints"]] == [p for _, p, _ in endpoint_paths()]
    for e in index["endpoints"]:
        if "{" not in e["path"]:
            assert (bundled_site / e["path"]).is_file(), e["path"]
    rtx = next(m for m in index["machines"] if m["id"] == "rtx-3090")
    assert rtx["limit_gb"] == 19.2 and "80% of 24 GB" in rtx["rule"]
    # the snapshot's rows, with the (empty) bootstrap object spread into the board rows' flat fields
    want = next(m for m in snapshot["machines"] if m["id"] == "rtx-3090")["rows"]
    assert all(r["uncertainty"] is None for r in want)
    assert rtx["rows"] == [{**{k: v for k, v in r.items() if k != "uncertainty"}, **dict.fromkeys(UNCERTAINTY_COLUMNS)}
                           for r in want]


def test_methodology_markdown_is_the_page_with_absolute_links(bundled_site):
    text = (bundled_site / "api" / "v1" / "methodology.md").read_text(encoding="utf-8")
    base = _json(bundled_site / "api" / "v1" / "index.json")["site"]["url"]
    assert text.startswith("# How the boards are scored")
    assert "[[" not in text and "](/" not in text
    assert f"]({base}excluded/)" in text and f"]({base}api/)" in text
    assert methodology_markdown("See [x](/data/).\n\n[[role-weights]]\n", "https://h/")
    assert methodology_markdown(None, "https://h/").startswith("# Methodology")


def test_api_page_lists_tools_endpoints_curl_and_a_client_configuration(bundled_site):
    html = (bundled_site / "api" / "index.html").read_text(encoding="utf-8")
    index = _json(bundled_site / "api" / "v1" / "index.json")
    base = index["site"]["url"]
    for tool in ("list_boards", "get_board", "explain_model", "compare_models", "pick_model", "search_models",
                 "model_history", "sources"):
        assert f'id="tool-{tool}"' in html
    assert f"curl -s {base}api/v1/boards/orchestrator.json" in html
    assert 'href="../api/v1/index.json"' in html and 'href="../api/v1/schema/model.json"' in html
    blocks = re.findall(r"<pre tabindex=\"0\"><code>(.*?)</code></pre>", html, re.S)
    configs = [json.loads(b.replace("&#34;", '"').replace("&quot;", '"')) for b in blocks if b.startswith("{")]
    entry = configs[0]["mcpServers"]["modelboards"]
    assert entry == {"command": "modelboards", "args": ["mcp", "--site", base]}
    # linked from every page's footer and from the end of the method page
    for page in ("index.html", "boards/orchestrator/index.html", "data/index.html"):
        assert "API and MCP server</a>" in (bundled_site / page).read_text(encoding="utf-8")
    assert 'href="../api/">API and MCP server</a>' in (bundled_site / "methodology" / "index.html").read_text()


@pytest.mark.parametrize("case", ["shipped", "hostile", "first board unranked", "no board ranked"])
def test_the_api_page_names_the_board_and_model_the_index_starts_with(case, snapshot):
    """The page's examples (found without the API documents, which a render builds in its
    forked copy) are the index's first board, its top model, else the index's first model."""
    snap = validate_snapshot(snapshot if case != "hostile" else _json(FIXTURES / "xss_snapshot.json"))
    cfg, _ = load_config(ROOT / "site.yml")
    downloads = {b.id: board_download(b, snap, "attribution") for b in snap.boards}
    unranked = {"first board unranked": 1, "no board ranked": len(downloads)}.get(case, 0)
    for doc in list(downloads.values())[:unranked]:  # their ranked rows moved to the new strip
        doc["new"], doc["rows"] = [*doc["rows"], *doc["new"]], []
    index = compute_api(snap, [], downloads=downloads, slug=model_slug,
                        settings=api_settings(cfg, "https://h.example/", "licence", "attribution", None)).index
    top = index.boards[0].top
    model = next(m.slug for m in index.models if m.identity == top) if top else index.models[0].slug
    assert api_example(snap, downloads, model_slug) == ApiExample(index.boards[0].id, model, index.snapshot.date)
    assert (top is None) == (unranked > 0)


def test_hostile_and_empty_snapshots(tmp_path):
    cfg, _ = load_config(FIXTURES / "site.yml")
    now = datetime(2026, 11, 30, 12, tzinfo=UTC)
    xss = validate_snapshot(_json(FIXTURES / "xss_snapshot.json"))
    render_site(xss, [], cfg, ROOT, tmp_path / "xss", now=now, base_url="https://h.example/x/")
    api = tmp_path / "xss" / "api" / "v1"
    v = _validators(tmp_path / "xss")
    assert _errors(v["index"], _json(api / "index.json")) == []
    for p in api.rglob("*.json"):
        assert p.resolve().is_relative_to(api.resolve())
        assert re.fullmatch(r"[a-z0-9][a-z0-9._-]*\.json", p.name), p.name
    for p in (api / "models").glob("*.json"):
        assert _errors(v["model"], _json(p)) == []
    # no snapshot: the page says so, and no API file is written
    render_site(None, [], cfg, ROOT, tmp_path / "none", now=now, base_url="https://h.example/x/")
    assert not (tmp_path / "none" / "api" / "v1").exists()
    assert "publishes no API files yet" in (tmp_path / "none" / "api" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(("branches", "merged", "valid", "invalid"), [
    ([{"type": "integer"}, {"type": "string"}, {"type": "null"}], {"type": ["integer", "string", "null"]},
     [1, "new", None], [1.5, [], {}]),
    ([{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
     {"type": ["array", "null"], "items": {"type": "string"}}, [None, [], ["a"]], [[1], "a"]),
    ([{"type": "object", "additionalProperties": {"type": "number"}}, {"type": "null"}],
     {"type": ["object", "null"], "additionalProperties": {"type": "number"}}, [None, {"a": 1.5}], [{"a": "x"}, 1]),
    # kept as an anyOf: an enum (or const) constrains every type, a $ref is another schema, two
    # branches with keywords of their own, the same type twice
    ([{"enum": ["ranked", "new"], "type": "string"}, {"type": "null"}], None, [None, "new"], ["other"]),
    ([{"$ref": "#/$defs/X"}, {"type": "null"}], None, [], []),
    ([{"type": "array", "items": {"type": "string"}}, {"type": "object", "required": ["a"]}], None, [], []),
    ([{"type": "number", "minimum": 0}, {"type": "number", "maximum": -5}], None, [-6, 1], [-1]),
])
def test_nullable_unions_merge_into_a_type_list_only_when_that_means_the_same(branches, merged, valid, invalid):
    from builder.api.models import _merged_branches

    assert _merged_branches(branches) == merged
    for schema in ({"anyOf": branches}, merged or {"anyOf": branches}):
        check = Draft202012Validator(schema)
        assert all(check.is_valid(v) for v in valid) and not any(check.is_valid(v) for v in invalid)


def test_published_schemas_write_nullable_fields_as_type_lists():
    row = BoardRow.model_json_schema()
    assert "anyOf" not in json.dumps(row)
    assert row["properties"]["movement"]["type"] == ["integer", "string", "null"]
    assert row["properties"]["partial_reasons"] == {"description": "Why the row is partial.", "title":
                                                    "Partial Reasons", "type": "array",
                                                    "items": {"type": "string"}}
    assert row["properties"]["r_lo"]["type"] == ["number", "null"]
