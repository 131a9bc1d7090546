"""The Archive (every saved snapshot with its downloads) and the method changelog.

Also writes each snapshot's JSON download (``data/snapshots/<date>.json``) and the board
downloads of every earlier day (``data/archive/<date>/<board>.csv|.json``). An earlier day's
downloads are a function of that snapshot's content and the site's attribution line alone, so
they are kept in a memo (``builder.util.memo``, ``.modelboards/archive-downloads/``) keyed by
both (the content by the digest of the text the snapshot was loaded from) and the code: each
day after the first, only the newest earlier day is written afresh. They are files only, so a
forked copy of the render writes them while the pages are written (``Page.beside``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from builder.render import exports
from builder.render.writer import SiteWriter, Snap
from builder.snapshot.load import source_sha256, source_text
from builder.snapshot.models import Family, Role
from builder.snapshot.store import dump_snapshot
from builder.util.memo import Memo, memo_key

ARCHIVE_MEMO = "archive-downloads"
"The memo (``builder.util.memo``) of every earlier day's downloads."


def all_snapshots(w: SiteWriter) -> list[Snap]:
    """The current snapshot first, then the earlier ones, newest first."""
    return ([w.snap] if w.snap else []) + list(reversed(w.history))


def snapshot_download(snap: Snap) -> str:
    """``data/snapshots/<date>.json``: the saved file, byte for byte (the text the snapshot was
    loaded from, when it loaded as it is), else the snapshot as a build saves it
    (``builder.snapshot.store.dump_snapshot``: an older schema's file, migrated on load; the
    build's own new snapshot, which it saved in that form). Anyone can compare the download
    with the repository's file by its SHA-256."""
    text = source_text(snap)
    return text if text is not None else dump_snapshot(snap)


def render_archived_downloads(w: SiteWriter) -> None:
    """Every snapshot's download and every earlier day's board downloads (those from the memo
    where it holds them): files only (``Page.beside``), the whole of ``data/snapshots/`` at once."""
    if w.saved:  # the snapshot as saved, not as the pages show it
        w.file(f"data/snapshots/{w.saved.date}.json", snapshot_download(w.saved))
    memo = Memo(w.base, ARCHIVE_MEMO)
    for old in w.history:
        _render_archived_downloads(w, old, memo)
    memo.prune()


def render_archive(w: SiteWriter) -> None:
    snap = w.snap
    snapshots = all_snapshots(w)
    w.page("archive/index.html", "archive.html", title="Archive", section="archive",
           description="Every saved snapshot with its boards and downloads.",
           entries=[_archive_entry(s, s is snap) for s in snapshots])
    w.page("changelog/index.html", "changelog.html", title="Method changelog", section="changelog",
           description="Every scoring method id seen across the snapshots and what changed.",
           methods=method_changelog(list(reversed(snapshots))))


def _render_archived_downloads(w: SiteWriter, snap: Snap, memo: Memo) -> None:
    saved = source_text(snap)
    if saved is not None:  # the saved file itself: written as it is, never kept twice in the memo
        w.file(f"data/snapshots/{snap.date}.json", saved)
    # the day's content: the digest of the text it was loaded from (the code is in every key),
    # else the snapshot itself as JSON
    digest = source_sha256(snap)
    content = ("text", digest) if digest else ("model", snap.model_dump_json())
    key = memo_key(ARCHIVE_MEMO, w.attribution, *content)
    files = memo.get_texts(key)
    if files is None:
        files = archived_downloads(snap, w.attribution, with_snapshot=saved is None)
        memo.put_texts(key, files)
    for rel, text in files.items():
        w.file(rel, text)


def archived_downloads(snap: Snap, attribution: str, *, with_snapshot: bool = True) -> dict[str, str]:
    """An earlier day's downloads (path in the site -> text): its snapshot (unless not
    ``with_snapshot``) and each board's CSV, JSON and, with a bootstrap, pairwise CSV."""
    day = snap.date
    files = {f"data/snapshots/{day}.json": snapshot_download(snap)} if with_snapshot else {}
    for b in snap.boards:
        files[f"data/archive/{day}/{b.id}.csv"] = exports.render_board_csv(b)
        files[f"data/archive/{day}/{b.id}.json"] = exports.render_board_json(b, snap, attribution)
        pairwise = exports.render_pairwise_csv(b)
        if pairwise is not None:
            files[f"data/archive/{day}/{b.id}-pairwise.csv"] = pairwise
    return files


def _archive_entry(s: Snap, is_current: bool) -> dict[str, Any]:
    day = s.date
    boards = []
    for b in s.boards:
        rows = b.rows
        prefix = "data/boards/" if is_current else f"data/archive/{day}/"
        boards.append({"id": b.id, "title": b.title or b.id, "n": len(rows),
                       "top": rows[0].model if rows else None,
                       "top_identity": rows[0].identity if rows else None,
                       "csv": f"{prefix}{b.id}.csv", "json": f"{prefix}{b.id}.json"})
    return {"date": day, "created_at": s.created_at, "method_id": s.method_id,
            "as_of": s.as_of, "stale": s.stale, "demo": s.demo,
            "current": is_current, "boards": boards, "snapshot": f"data/snapshots/{day}.json"}


def method_changelog(snapshots_oldest_first: Sequence[Snap]) -> list[dict[str, Any]]:
    """One entry per method id (in order of first use) with the dates and what changed."""
    entries: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    prev: Snap | None = None
    for s in snapshots_oldest_first:
        mid = s.method_id or "unknown"
        e = by_id.get(mid)
        if e is None:
            e = {"method_id": mid, "first": s.date, "last": s.date, "count": 0,
                 "changes": method_changes(prev, s) if prev is not None else ["first method on record"]}
            by_id[mid] = e
            entries.append(e)
        e["last"] = s.date
        e["count"] += 1
        if prev is not None:
            e["changes"] = [*e["changes"], *_bootstrap_changes(prev, s)]
        prev = s
    return list(reversed(entries))


RESIDUAL_DRAWS = {
    "source": "one residual quantile per model and round, shared by its calibrated scores as much as different "
              "publishers' residuals agree, and by one publisher's scores as much as its categories' agree",
    "model": "one residual quantile per model and round, shared by all its calibrated scores",
    None: "one residual per calibrated score, drawn independently",
}


def _bootstrap_changes(a: Snap, b: Snap) -> list[str]:
    """A change in how the board bootstrap draws (intervals, rank ranges and ties; R and ranks unchanged)."""
    ua, ub = a.uncertainty, b.uncertainty
    if ua is None or ub is None or not ua.rounds or not ub.rounds or ua.residual_draws == ub.residual_draws:
        return []
    return [f"{b.date}: board intervals, rank ranges and ties now draw {RESIDUAL_DRAWS.get(ub.residual_draws)} "
            f"(was {RESIDUAL_DRAWS.get(ua.residual_draws)}); scores and ranks unchanged. Measured coverage before "
            "and after: Methodology, Measured coverage"]


def method_changes(a: Snap, b: Snap) -> list[str]:
    """Human-readable differences in sources, families and role weights between two snapshots."""
    out = _source_changes(a, b) + _family_changes(a.families, b.families)
    out += _weight_changes(a.roles, b.roles)
    if not out:
        out.append("configuration outside sources, families and weights "
                   "(folding, aliases, price rules or flagship rule)")
    return out


def _source_changes(a: Snap, b: Snap) -> list[str]:
    sa = {s.name for s in a.sources}
    sb = {s.name for s in b.sources}
    return ([f"source added: {n}" for n in sorted(x for x in sb - sa if x)]
            + [f"source removed: {n}" for n in sorted(x for x in sa - sb if x)])


def _family_changes(fa: Mapping[str, Family], fb: Mapping[str, Family]) -> list[str]:
    out: list[str] = []
    for f in sorted(set(fa) | set(fb)):
        feeds_a = set(fa[f].feeds) if f in fa else set()
        feeds_b = set(fb[f].feeds) if f in fb else set()
        if f not in fa:
            out.append(f"family added: {f} ({', '.join(sorted(feeds_b))})")
        elif f not in fb:
            out.append(f"family removed: {f}")
        elif feeds_a != feeds_b:
            added, removed = sorted(feeds_b - feeds_a), sorted(feeds_a - feeds_b)
            parts = ([f"+{', +'.join(added)}"] if added else []) + ([f"-{', -'.join(removed)}"] if removed else [])
            out.append(f"family {f} feeds: {'; '.join(parts)}")
    return out


def _weight_changes(ra: Mapping[str, Role], rb: Mapping[str, Role]) -> list[str]:
    out: list[str] = []
    for r in sorted(set(ra) | set(rb)):
        if r not in ra:
            out.append(f"role added: {r}")
        elif r not in rb:
            out.append(f"role removed: {r}")
        else:
            wa, wb = ra[r].weights, rb[r].weights
            for f in sorted(set(wa) | set(wb)):
                if wa.get(f) != wb.get(f):
                    out.append(f"role {r} weight {f}: {wa.get(f, 0)} -> {wb.get(f, 0)}")
    return out
