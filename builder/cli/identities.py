"""``modelboards identities``: review how model spellings fold across sources.

Lists, per rating source, the spellings whose identity no other source names, with the
closest identities of other sources (rapidfuzz), and writes what the operator accepts into
the site's registry (``identities.yml`` beside ``site.yml``), which adds to the shipped one.
"""

from __future__ import annotations

import datetime as dt
import json
import sys

import click

from builder.cli.context import Context, pass_ctx
from builder.errors import UserError


def _accepted(pairs: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        spelling, sep, ident = pair.rpartition("=")
        if not sep or not spelling.strip() or not ident.strip():
            raise UserError(f"--accept {pair!r}: expected SPELLING=ID, e.g. --accept 'Kimi K2=kimi-k2'")
        out[spelling.strip()] = ident.strip()
    return out


@click.command("identities")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format (json for scripts).")
@click.option("--source", "only", multiple=True, help="Only this source (repeatable).")
@click.option("--limit", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Candidates shown per spelling.")
@click.option("--accept", "accept", multiple=True, metavar="SPELLING=ID",
              help="Write this spelling into the site's identities.yml under ID (repeatable).")
@click.option("--reason", default=None, help="Reason recorded with accepted spellings.")
@pass_ctx
def identities_cmd(obj: Context, fmt: str, only: tuple[str, ...], limit: int, accept: tuple[str, ...],
                   reason: str | None) -> None:
    """List the spellings no other source matched, with their closest candidates, or accept
    some into the site's identity registry (--accept SPELLING=ID).

    Reads the payload store (run `modelboards fetch` first). Folding uses the shipped
    registry, the site's identities.yml and site.yml's aliases, exactly as a build does.
    """
    cfg, base = obj.load()
    from builder.identity import SITE_REGISTRY, accept_into_registry, unmatched_spellings
    from builder.pipeline import parse_stored
    from builder.scoring.select import select_observations, spellings

    if accept:
        path = base / SITE_REGISTRY
        why = reason or f"accepted by the operator with `modelboards identities` on {dt.date.today().isoformat()}"
        n = accept_into_registry(path, _accepted(accept), why)
        click.echo(f"wrote {n} spelling(s) to {path}")
        return
    parsed = parse_stored(cfg, base)
    obs = parsed.result.observations
    rows = select_observations(obs, cfg, spellings(obs))
    maps: dict[str, dict[str, str]] = {}
    for o in rows:
        if o.identity:
            maps.setdefault(o.source, {})[o.model] = o.identity
    unknown = sorted(set(only) - set(maps))
    if unknown:
        raise UserError(f"--source {unknown[0]!r}: no stored observations (sources: {', '.join(sorted(maps))})")
    found = unmatched_spellings(maps, limit=limit)
    shown = [s for s in sorted(maps) if not only or s in only]
    if fmt == "json":
        doc = {"registry": str(base / SITE_REGISTRY), "sources": [
            {"source": s, "spellings": len(maps[s]), "identities": len(set(maps[s].values())),
             "unmatched": [{"spelling": u.spelling, "identity": u.identity,
                            "candidates": [{"identity": c.identity, "score": c.score, "sources": list(c.sources)}
                                           for c in u.candidates]} for u in found[s]]}
            for s in shown]}
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    for s in shown:
        click.echo(f"{s}: {len(found[s])} of {len(maps[s])} spellings match no other source")
        for u in found[s]:
            cands = ", ".join(f"{c.identity} ({c.score:.0f}; {'/'.join(c.sources)})" for c in u.candidates) or "none"
            click.echo(f"  {u.spelling}  ->  {u.identity}    closest: {cands}")
    click.echo(f"accept one with: modelboards identities --accept 'SPELLING=ID' (writes {base / SITE_REGISTRY})")
