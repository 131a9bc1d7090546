"""Charts: price against quality, rating history, rank evolution and rating spread.

``data`` turns snapshots into the chart documents (written as JSON and CSV under
``data/charts/``), ``pareto`` holds the frontier, ``svg`` draws the build-time SVG every
chart page shows without JavaScript, and ``pages`` registers the ``/charts/`` section.
"""
