"""Ranking history: the demo backfill of dated snapshots.

    backfill.py  dated variants of the bundled payloads, scored day by day -> snapshots/

The race built from the snapshots is ``builder.charts.race`` (data) and
``builder.render.pages.race`` (page); ``modelboards backfill`` is in ``builder.cli.site``.
"""
