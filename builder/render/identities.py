"""The identity map download: ``data/identities.csv`` and ``data/identities.json``.

One row per identity and source spelling, so others can reuse the matching::

    identity, source, spelling, openrouter_id, litellm_key, aliases

- ``identity``: the identity key the spelling folds to (the model page is ``models/<identity>/``);
- ``source``: the source that published the spelling (``site.yml`` name; ``arena-battles`` for a
  spelling of the Arena battles file);
- ``spelling``: the spelling exactly as that source published it;
- ``openrouter_id`` / ``litellm_key``: the identity's OpenRouter model id and LiteLLM price key
  (the chosen entry when there are several, else the first), empty when there is none;
- ``aliases``: every other spelling the snapshot knows for the identity (any source), sorted.

Rows are sorted by identity, source, spelling; duplicates are written once. Upstream text is
written unchanged in the JSON and formula-safe in the CSV (``builder.util.text.csv_cell``).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass

from builder.snapshot.models import Snapshot, sources_playing
from builder.util.formats import RATING_LICENCE
from builder.util.text import csv_cell

IDENTITY_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("identity", "text", "identity key the spelling folds to; the model page is models/<identity>/"),
    ("source", "text", "source that published the spelling (site.yml name; arena-battles: the battles file)"),
    ("spelling", "text", "the spelling exactly as the source published it"),
    ("openrouter_id", "text", "the identity's OpenRouter model id (the chosen price entry first); empty: none"),
    ("litellm_key", "text", "the identity's LiteLLM price key (the chosen price entry first); empty: none"),
    ("aliases", "list", "every other spelling known for the identity, sorted (';'-separated in the CSV)"),
)
BATTLES_SOURCE = "arena-battles"


@dataclass(frozen=True)
class IdentityRow:
    identity: str
    source: str
    spelling: str
    openrouter_id: str | None
    litellm_key: str | None
    aliases: tuple[str, ...]


def _price_keys(snap: Snapshot, sources: list[str]) -> dict[str, str]:
    """identity -> the price key of its chosen token-price entry among ``sources``, else its
    first one (input order), in one pass over the token prices."""
    wanted = set(sources)
    first: dict[str, str] = {}
    chosen: dict[str, str] = {}
    for p in snap.prices.token:
        if p.source not in wanted:
            continue
        first.setdefault(p.identity, p.key)
        if p.used:
            chosen.setdefault(p.identity, p.key)
    return first | chosen


def compute_identity_rows(snap: Snapshot) -> list[IdentityRow]:
    """Every (identity, source, spelling) the snapshot records, with the identity's price keys."""
    pairs: set[tuple[str, str, str]] = set()
    for o in snap.observations:
        if o.identity:
            pairs.add((o.identity, o.source, o.model))
    for t in snap.prices.token:
        pairs.add((t.identity, t.source, t.key))
    build_source = next(iter(sources_playing(snap.sources, "build_checks")), "")
    for b in snap.prices.build:
        pairs.add((b.identity, build_source, b.model))
    if snap.arena is not None:
        known = {s: ident for ident, facts in snap.models.items() for s in facts.spellings} | {
            ident: ident for ident in snap.models}
        for m in snap.arena.models:
            if m.model in known:
                pairs.add((known[m.model], BATTLES_SOURCE, m.model))
    spellings: dict[str, set[str]] = {}
    for identity, _, spelling in pairs:
        spellings.setdefault(identity, set()).add(spelling)
    market_keys = _price_keys(snap, sources_playing(snap.sources, "market_prices"))
    listed_keys = _price_keys(snap, sources_playing(snap.sources, "list_prices"))
    rows = []
    for identity, source, spelling in sorted(pairs):
        keys = (market_keys.get(identity), listed_keys.get(identity))
        facts = snap.models.get(identity)
        known_spellings = (set(facts.spellings) if facts is not None else set()) | spellings[identity]
        aliases = tuple(sorted(known_spellings - {spelling}))
        rows.append(IdentityRow(identity, source, spelling, keys[0], keys[1], aliases))
    return rows


def render_identities_csv(rows: list[IdentityRow]) -> str:
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow([c[0] for c in IDENTITY_COLUMNS])
    for r in rows:
        out.writerow([csv_cell(getattr(r, c[0])) for c in IDENTITY_COLUMNS])
    return buf.getvalue()


def render_identities_json(rows: list[IdentityRow], snap: Snapshot, attribution: str) -> str:
    doc = {
        "date": snap.date, "method_id": snap.method_id, "licence": RATING_LICENCE, "attribution": attribution,
        "columns": [{"name": n, "type": t, "meaning": m} for n, t, m in IDENTITY_COLUMNS],
        "rows": [{**asdict(r), "aliases": list(r.aliases)} for r in rows],
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
