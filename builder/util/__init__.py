"""Helpers every layer may use: safe text for downloads and pages, published format names, file I/O.

    text     safe_url, model_slug, csv_cell and the pages' Content-Security-Policy
    formats  names and column orders of the published files (licences, table columns, schema tags)
"""
