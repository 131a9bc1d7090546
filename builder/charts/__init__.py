"""Charts: price against quality, rating history, rank evolution, rating spread and the race.

``data`` turns snapshots into the chart documents (written as JSON and CSV under
``data/charts/``), ``race`` into the bar-chart race's frames, ``pareto`` holds the
frontier, and ``svg`` draws the build-time SVG every chart page shows without JavaScript.
The pages themselves are ``builder.render.pages.charts`` and ``builder.render.pages.race``.
"""
