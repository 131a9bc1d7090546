"""What changed: ``changes/`` (every snapshot), ``changes/<DATE>/`` (one snapshot against the one
before) with its JSON download ``data/changes/<DATE>.json``, and the Atom feed ``feed.xml``.

The change documents are computed engine-side (``builder.history.diff.compute_change_log``)
by the command that renders and handed to the writer as ``w.changes``: JSON-able documents,
the same as ``modelboards diff --format json`` prints. Only documents dated up to the current
snapshot are shown, so a past day re-renders as it was. ``changelog/`` stays the log of
method changes; these pages are the log of data changes.

Feed: Atom 1.0 (RFC 4287), one entry per snapshot, newest first; entry id and link are the
absolute URL of its ``changes/<DATE>/`` page, ``updated`` the snapshot's ``created_at``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from builder.render.writer import SiteWriter, Snap, safe_day

FEED_PATH = "feed.xml"
MOVE_TITLES = {"rank": "Rank moves", "entered": "Entered the board", "left": "Left the board",
               "score": "Score moves"}


def shown_changes(w: SiteWriter) -> list[Mapping[str, Any]]:
    """The writer's change documents with a valid date up to the current snapshot's, oldest first."""
    day = safe_day(w.snap.date) if w.snap is not None else None
    docs = [d for d in w.changes if safe_day(d.get("date")) == d.get("date")]
    if day is not None:
        docs = [d for d in docs if str(d["date"]) <= day]
    return sorted(docs, key=lambda d: str(d["date"]))


def changes_available(snap: Snap | None, history: Sequence[Snap]) -> bool:
    return bool(snap) or bool(history)


def _grouped(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Moves per board (in the document's order), each board's moves per kind."""
    titles = doc.get("boards") or {}
    boards: dict[str, dict[str, list[Mapping[str, Any]]]] = {}
    for m in doc.get("moves") or []:
        boards.setdefault(str(m["board"]), {}).setdefault(str(m["kind"]), []).append(m)
    return [{"id": b, "title": titles.get(b, b),
             "kinds": [{"kind": k, "title": MOVE_TITLES.get(k, k), "moves": kinds[k]}
                       for k in MOVE_TITLES if k in kinds]}
            for b, kinds in boards.items()]


def render_changes(w: SiteWriter) -> None:
    docs = shown_changes(w)
    w.page("changes/index.html", "changes_index.html", title="What changed", section="changes",
           description="What changed from one snapshot to the next: models, ranks, scores, sources, prices.",
           docs=list(reversed(docs)), feed=FEED_PATH)
    for i, doc in enumerate(docs):
        day = str(doc["date"])
        w.file(f"data/changes/{day}.json", json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
        w.page(f"changes/{day}/index.html", "changes.html", title=f"What changed on {day}", section="changes",
               description=f"{day}: {doc.get('summary')}", doc=doc, boards=_grouped(doc),
               older=docs[i - 1]["date"] if i else None, newer=docs[i + 1]["date"] if i + 1 < len(docs) else None)
    base = str(w.common["base_url"])
    entries = [{"date": str(d["date"]), "url": f"{base}changes/{d['date']}/", "updated": d.get("created_at")
                or f"{d['date']}T00:00:00+00:00", "summary": d.get("summary") or ""}
               for d in reversed(docs)]
    w.file(FEED_PATH, w.env.get_template("feed.xml").render({
        **w.common, "entries": entries, "feed_url": base + FEED_PATH, "changes_url": base + "changes/",
        "updated": entries[0]["updated"] if entries else "1970-01-01T00:00:00+00:00",
    }))
