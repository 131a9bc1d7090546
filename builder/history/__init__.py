"""Ranking history: the demo backfill of dated snapshots and the bar-chart race built from them.

    backfill.py  dated variants of the bundled payloads, scored day by day -> snapshots/
    race.py      snapshots -> race frames (JSON downloads) and the race page
    commands.py  ``modelboards backfill``
"""
