"""``modelboards sources``: the source kinds this installation knows, and where each comes from."""

from __future__ import annotations

import click


@click.command("sources")
def sources_cmd() -> None:
    """List the source kinds: built in, or from a plugin (its distribution's name).

    A plugin that could not be loaded is one warning line on stderr (logged when the kinds
    are loaded); the listing goes on without it.
    """
    from builder.sources.registry import load_kinds

    kinds = load_kinds()
    rows = [("kind", "from", "yields", "fetch", "what it reads")]
    rows += [(k.name, k.origin, ",".join(sorted(k.yields)), k.fetch.shape, k.summary) for k in kinds.values()]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=True)) + "  " + r[4])
