"""``modelboards mcp``: an MCP server (official SDK) that answers agents from the static API.

``data`` is the one data layer (the ``api/v1`` documents, from a snapshot or a published
site), ``tools`` what each tool computes from it, ``results`` the typed results, ``server``
the SDK wiring, ``client`` the ``--site`` HTTP client, ``commands`` the click command.
"""
