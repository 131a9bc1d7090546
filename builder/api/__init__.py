"""The versioned static API of the site (``api/v1/``): typed documents built from a snapshot.

``models`` describes every document (and publishes its JSON Schema), ``build`` computes them
from a snapshot, ``catalogue`` lists the MCP tools that answer from them (for the server and
the "API and MCP" page). Imports nothing from ``builder.render``: render passes in what it
owns (the board downloads, the page slugs).
"""
