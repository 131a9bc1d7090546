/* ModelBoards charts: redraws the build-time SVG of the shown panel with D3 v7 (served from this
   site, static/vendor/d3.min.js), adds tooltips on hover and keyboard focus, a board selector,
   on the rating-history page a search box that adds and removes lines and zoom and pan of the
   time axis (d3-zoom: buttons, keyboard on the focused chart, drag and Ctrl + wheel), and on the
   spread page the histogram and box summary of the Arena ratings. No inline script,
   no other origin. The data is data/charts/<kind>.json (builder/charts/data.py), the geometry
   follows builder/charts/svg.py, so the picture is the same with and without JavaScript.

   State for tests and scripts: #charts[data-state] is "static" until the data is loaded,
   then "ready"; a drawn SVG has data-static="0" and each data point is one ".mark"; a zoomable
   history SVG says its zoom factor and visible dates in data-zoom, data-x0 and data-x1.    */
(function () {
  "use strict";

  var root = document.getElementById("charts");
  var d3 = window.d3;
  if (!root || !d3) { return; }   /* no D3 in this build: the static SVGs and tables stay */

  var W = 760;
  var kind = root.getAttribute("data-chart");
  var siteRoot = root.getAttribute("data-root") || "";
  var panels = Array.prototype.slice.call(root.querySelectorAll(".chart-panel"));
  var select = document.getElementById("chart-board");
  var controls = document.querySelector(".chart-controls");
  var jump = document.querySelector(".chart-jump");
  var series = {};      /* panel data by series id */
  var drawn = {};       /* series id -> true once drawn */
  var picked = {};      /* history: series id -> keys drawn */
  var zooms = {};       /* history: series id -> the zoom transform, kept when lines are added */
  var zoomers = {};     /* history: series id -> {svg, zoom} of the chart drawn now */
  var clipSeq = 0;

  /* ------------------------------------------------------------------ tooltip */

  var tip = document.createElement("div");
  tip.className = "chart-tooltip";
  tip.id = "chart-tooltip";
  tip.setAttribute("role", "tooltip");
  tip.hidden = true;
  document.body.appendChild(tip);

  function showTip(lines, target, event) {
    tip.textContent = "";
    lines.forEach(function (line, k) {
      var el = document.createElement(k === 0 ? "strong" : "span");
      el.textContent = line;
      tip.appendChild(el);
      if (k > 0 && k < lines.length - 1) { tip.appendChild(document.createElement("br")); }
    });
    tip.hidden = false;
    var box = target.getBoundingClientRect();
    var x = event && event.pageX !== undefined && event.type !== "focus" ? event.pageX : box.left + window.scrollX + box.width / 2;
    var y = event && event.pageY !== undefined && event.type !== "focus" ? event.pageY : box.top + window.scrollY;
    var tw = tip.offsetWidth;
    var left = Math.max(window.scrollX + 4, Math.min(x + 12, window.scrollX + document.documentElement.clientWidth - tw - 8));
    /* CSSOM writes: allowed by the page's style-src 'self' (only style attributes are not) */
    tip.style.left = left + "px";
    tip.style.top = (y - tip.offsetHeight - 10 < window.scrollY ? y + 16 : y - tip.offsetHeight - 10) + "px";
  }

  function hideTip() { tip.hidden = true; }

  /* hover and focus on a selection of marks; words(d) -> [title, line, line...] */
  function tooltips(sel, words) {
    sel.on("mouseenter", function (event, d) { showTip(words(d), this, event); })
      .on("mousemove", function (event, d) { showTip(words(d), this, event); })
      .on("mouseleave", hideTip)
      .on("focus", function (event, d) { showTip(words(d), this, event); })
      .on("blur", hideTip);
  }
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") { hideTip(); } });

  /* ------------------------------------------------------------------ helpers */

  function fmt1(v) { return d3.format(",.1f")(v); }
  function num(v) { return Math.abs(v - Math.round(v)) < 1e-9 ? d3.format(",.0f")(v) : d3.format(",.1f")(v); }
  function usd(v) { return v !== 0 && Math.abs(v) < 0.1 ? "$" + v.toFixed(4) : "$" + d3.format(",.2f")(v); }
  function usdTick(v) { var dec = Math.max(0, -Math.floor(Math.log10(v) + 1e-9)); return "$" + d3.format(",." + dec + "f")(v); }
  function short(s, n) { n = n || 26; return s.length <= n ? s : s.slice(0, n - 1) + "\u2026"; }
  function day(s) { var p = s.split("-"); return Date.UTC(+p[0], +p[1] - 1, +p[2]); }
  function href(h) { return h ? siteRoot + h : null; }
  function weights(ow) { return ow === true ? ["ow", "triangle", "open weights"] : ow === false ? ["pw", "circle", "proprietary"] : ["uw", "square", "weights unknown"]; }

  function linearTicks(lo, hi, n) {
    var raw = (hi - lo) / n, p = Math.pow(10, Math.floor(Math.log10(raw))), err = raw / p;
    var step = p * (err >= Math.sqrt(50) ? 10 : err >= Math.sqrt(10) ? 5 : err >= Math.sqrt(2) ? 2 : 1);
    var out = [];
    for (var k = Math.ceil(lo / step - 1e-9); k * step <= hi + 1e-9; k += 1) { out.push(+(k * step).toFixed(10)); }
    return out;
  }

  function logTicks(lo, hi) {
    var a = Math.floor(Math.log10(lo)), b = Math.ceil(Math.log10(hi)), dec = [], all = [];
    for (var k = a; k <= b; k += 1) {
      var v = Math.pow(10, k);
      if (v >= lo && v <= hi) { dec.push(v); }
      [1, 2, 5].forEach(function (m) { var u = m * Math.pow(10, k); if (u >= lo && u <= hi) { all.push(u); } });
    }
    return dec.length >= 3 ? dec : all;
  }

  /* at least `gap` px between date ticks, the last date always shown */
  function dateTicks(dates, x, gap) {
    var last = dates[dates.length - 1], out = [];
    dates.forEach(function (d) {
      var prev = out.length ? out[out.length - 1] : null;
      if ((prev === null || x(d) - x(prev) >= gap) && (d === last || x(last) - x(d) >= gap)) { out.push(d); }
    });
    if (out[out.length - 1] !== last) { out.push(last); }
    return out;
  }

  function spreadLabels(ys, gap, lo, hi) {
    var order = ys.map(function (_, k) { return k; }).sort(function (a, b) { return ys[a] - ys[b]; });
    var pos = order.map(function (k) { return ys[k]; });
    var k;
    for (k = 0; k < pos.length; k += 1) { pos[k] = Math.max(pos[k], k === 0 ? lo : pos[k - 1] + gap); }
    for (k = pos.length - 1; k >= 0; k -= 1) { pos[k] = Math.min(pos[k], k === pos.length - 1 ? hi : pos[k + 1] - gap); }
    var out = [];
    order.forEach(function (i, j) { out[i] = pos[j]; });
    return out;
  }

  function symbol(shape, x, y, s) {
    s = s || 6;
    if (shape === "triangle") { var h = s * 1.2; return "M" + x + "," + (y - h) + "L" + (x + h) + "," + (y + h * 0.8) + "L" + (x - h) + "," + (y + h * 0.8) + "Z"; }
    if (shape === "square") { return "M" + (x - s) + "," + (y - s) + "h" + 2 * s + "v" + 2 * s + "h" + -2 * s + "Z"; }
    return "M" + (x - s) + "," + y + "a" + s + "," + s + " 0 1,0 " + 2 * s + ",0a" + s + "," + s + " 0 1,0 " + -2 * s + ",0Z";
  }

  /* a fresh SVG in the panel's frame, replacing the build-time one */
  function canvas(panel, height, label, role, cls) {
    var frame = panel.querySelector(".chart-frame");
    d3.select(frame).selectAll("svg").remove();
    return d3.select(frame).append("svg")
      .attr("class", "chart-svg " + cls).attr("viewBox", "0 0 " + W + " " + height)
      .attr("width", W).attr("height", height).attr("role", role).attr("aria-label", label)
      .attr("data-static", "0");
  }

  function xAxis(svg, x, ticks, format, y, x0, x1, label) {
    var g = svg.append("g").attr("class", "axis axis-x").attr("aria-hidden", "true").attr("transform", "translate(0," + y + ")");
    g.call(d3.axisBottom(x).tickValues(ticks).tickFormat(format).tickSizeOuter(0));
    g.selectAll(".tick text").attr("class", "tick-label");
    g.append("text").attr("class", "axis-label").attr("x", (x0 + x1) / 2).attr("y", 40).attr("text-anchor", "middle").text(label);
  }

  function yAxis(svg, y, ticks, format, x, xEnd, y0, y1, label) {
    var g = svg.append("g").attr("class", "axis axis-y").attr("aria-hidden", "true").attr("transform", "translate(" + x + ",0)");
    g.call(d3.axisLeft(y).tickValues(ticks).tickFormat(format).tickSizeOuter(0).tickSizeInner(-(xEnd - x)));
    g.selectAll(".tick line").attr("class", "grid");
    g.selectAll(".tick text").attr("class", "tick-label");
    var mid = (y0 + y1) / 2;
    g.append("text").attr("class", "axis-label").attr("x", -48).attr("y", mid).attr("text-anchor", "middle")
      .attr("transform", "rotate(-90 -48 " + mid + ")").text(label);
  }

  function capital(s) { return s.charAt(0).toUpperCase() + s.slice(1); }

  /* ------------------------------------------------------------------ price against quality */

  function drawPriceQuality(panel, b) {
    var M = { top: 16, right: 24, bottom: 58, left: 72 }, H = 440, pts = b.points;
    if (!pts.length) { return; }
    var prices = pts.map(function (p) { return p.price; }), scores = [];
    /* the score axis also covers every error bar (the 95% interval of R) */
    pts.forEach(function (p) { [p.score, p.r_lo, p.r_hi].forEach(function (v) { if (v !== null && v !== undefined) { scores.push(v); } }); });
    var lo = d3.min(prices) / 1.6, hi = d3.max(prices) * 1.6;
    var pad = Math.max(5, (d3.max(scores) - d3.min(scores)) * 0.06);
    var s0 = d3.min(scores) - pad, s1 = d3.max(scores) + pad;
    var x = d3.scaleLog().domain([lo, hi]).range([M.left, W - M.right]);
    var y = d3.scaleLinear().domain([s0, s1]).range([H - M.bottom, M.top]);
    var svg = canvas(panel, H, b.title + ": score against blended token price, " + pts.length + " models", "group", "chart-price-quality");
    yAxis(svg, y, linearTicks(s0, s1, 5), num, M.left, W - M.right, H - M.bottom, M.top, "Score (Arena scale)");
    xAxis(svg, x, logTicks(lo, hi), usdTick, H - M.bottom, M.left, W - M.right,
      "Blended token price, USD per million tokens (log scale)");
    var front = pts.filter(function (p) { return p.frontier; }).sort(function (a, c) { return a.price - c.price || a.score - c.score; });
    if (front.length) {
      var d = "M" + x(front[0].price) + "," + y(front[0].score);
      for (var k = 1; k < front.length; k += 1) { d += "H" + x(front[k].price) + "V" + y(front[k].score); }
      svg.append("path").attr("class", "frontier").attr("d", d).attr("fill", "none").attr("stroke", "currentColor").attr("aria-hidden", "true");
    }
    var bars = pts.filter(function (p) { return p.r_lo !== null && p.r_lo !== undefined && p.r_hi !== null && p.r_hi !== undefined; });
    if (bars.length) {
      var eb = svg.append("g").attr("class", "error-bars").attr("aria-hidden", "true");
      bars.forEach(function (p) {
        var cx = x(p.price), y0 = y(p.r_lo), y1 = y(p.r_hi);
        eb.append("path").attr("class", "error-bar").attr("fill", "none").attr("stroke", "currentColor")
          .attr("d", "M" + cx + "," + y0 + "V" + y1 + "M" + (cx - 4) + "," + y0 + "h8M" + (cx - 4) + "," + y1 + "h8");
      });
    }
    var words = function (p) {
      var w = [p.name, "Score " + p.score + ", rank " + p.rank +
        (p.r_lo !== null && p.r_lo !== undefined ? ", 95% interval " + Math.round(p.r_lo) + " to " + Math.round(p.r_hi) : ""),
        usd(p.price) + " per million tokens (blended)",
        capital(weights(p.open_weight)[2]) + (p.partial ? ", partial row" : "")];
      if (p.frontier) { w.push("On the Pareto frontier"); }
      return w;
    };
    /* left to right (cheapest first), so Tab walks the points in the order the eye reads them */
    var order = pts.slice().sort(function (a, c) { return a.price - c.price || c.score - a.score || a.rank - c.rank; });
    var g = svg.append("g").attr("class", "marks");
    order.forEach(function (p) {
      var wc = weights(p.open_weight);
      var parent = p.href ? g.append("a").attr("class", "point-link").attr("href", href(p.href))
        .attr("aria-label", words(p).join(", ")) : g;
      var mark = parent.append("path").datum(p)
        .attr("class", "mark " + wc[0] + (p.partial ? " partial" : "") + (p.frontier ? " on-frontier" : ""))
        .attr("d", symbol(wc[1], x(p.price), y(p.score)))
        .attr("fill", p.partial ? "none" : "currentColor").attr("fill-opacity", p.partial ? null : 0.85)
        .attr("stroke", "currentColor").attr("stroke-width", 2);
      tooltips(p.href ? parent.datum(p) : mark, words);
    });
  }

  /* ------------------------------------------------------------------ history and ranks */

  var L = { top: 16, right: 190, bottom: 58, left: 72 };

  function dateScale(dates) {
    var x = d3.scaleUtc().domain([day(dates[0]), day(dates[dates.length - 1])]).range([L.left, W - L.right]);
    if (dates.length === 1 || dates[0] === dates[dates.length - 1]) {
      var mid = (L.left + W - L.right) / 2;
      return function () { return mid; };
    }
    return function (s) { return x(day(s)); };
  }

  function dateAxis(svg, dates, x, y, label) {
    var g = svg.append("g").attr("class", "axis axis-x").attr("aria-hidden", "true");
    g.append("line").attr("class", "domain").attr("x1", L.left).attr("x2", W - L.right).attr("y1", y).attr("y2", y).attr("stroke", "currentColor");
    (dates.length ? dateTicks(dates, x, 78) : []).forEach(function (d) {
      g.append("line").attr("class", "tick").attr("x1", x(d)).attr("x2", x(d)).attr("y1", y).attr("y2", y + 5).attr("stroke", "currentColor");
      g.append("text").attr("class", "tick-label").attr("x", x(d)).attr("y", y + 18).attr("text-anchor", "middle").text(d);
    });
    g.append("text").attr("class", "axis-label").attr("x", (L.left + W - L.right) / 2).attr("y", y + 40).attr("text-anchor", "middle").text(label);
    return g;
  }

  function endLabels(svg, models, last, yOf, top, bottom) {
    var ends = models.filter(function (m) { return m.points.length && m.points[m.points.length - 1].date === last; });
    var ys = spreadLabels(ends.map(yOf), 13, top + 4, bottom);
    svg.append("g").attr("class", "end-labels").selectAll("text").data(ends).join("text")
      .attr("class", function (m) { return "end-label s" + m.colour; })
      .attr("x", W - L.right + 8).attr("y", function (m, k) { return ys[k] + 4; })
      .text(function (m) { return short(m.name); });
  }

  function highlight(svg, key) {
    svg.selectAll(".line").classed("dimmed", function (m) { return key !== null && m.key !== key; })
      .classed("lit", function (m) { return m.key === key; });
  }

  function drawLines(panel, s, models, mode) {
    var H = mode === "ranks" ? L.top + L.bottom + Math.max(240, s.max_rank * 14) : 440;
    var bottom = H - L.bottom, dates = s.dates, x = dateScale(dates), y, label;
    var valueOf = mode === "ranks" ? function (p) { return p.rank; } : function (p) { return p.value; };
    if (mode === "ranks") {
      y = d3.scaleLinear().domain([0.5, s.max_rank + 0.5]).range([L.top, bottom]);
      label = s.title + ": ranks of the " + models.length + " models ever in the top 15, " + dates[0] + " to " +
        dates[dates.length - 1] + ", rank 1 at the top";
    } else {
      var vals = [];
      models.forEach(function (m) { m.points.forEach(function (p) { vals.push(p.value); if (p.lower !== undefined) { vals.push(p.lower, p.upper); } }); });
      var lo = vals.length ? d3.min(vals) : 0, hi = vals.length ? d3.max(vals) : 1, pad = Math.max(2, (hi - lo) * 0.05);
      y = d3.scaleLinear().domain([lo - pad, hi + pad]).range([bottom, L.top]);
      label = s.title + ": " + s.unit + " over time for " + models.length + " models, " + dates[0] + " to " + dates[dates.length - 1];
    }
    var svg = canvas(panel, H, label, "img", "chart-" + mode);
    var zoomable = mode === "history" && dates.length > 1 && dates[0] !== dates[dates.length - 1];
    if (mode === "ranks") {
      var step = s.max_rank <= 30 ? 5 : 10, ticks = [1];
      for (var t = step; t <= s.max_rank; t += step) { ticks.push(t); }
      if (s.max_rank - ticks[ticks.length - 1] >= 3) { ticks.push(s.max_rank); }
      yAxis(svg, y, ticks, String, L.left, W - L.right, bottom, L.top, "Rank (1 = best)");
    } else {
      yAxis(svg, y, linearTicks(y.domain()[0], y.domain()[1], 5), num, L.left, W - L.right, bottom, L.top, s.unit);
    }
    var axisX = dateAxis(svg, dates, x, bottom, capital(s.x));
    /* the plotted marks live in one group, clipped to the plot when the time axis can zoom */
    var plot = svg;
    if (zoomable) {
      clipSeq += 1;
      var clipId = "chart-clip-" + clipSeq;
      svg.append("clipPath").attr("id", clipId).append("rect")
        .attr("x", L.left - 5).attr("y", L.top - 5).attr("width", W - L.right - L.left + 10).attr("height", bottom - L.top + 10);
      plot = svg.append("g").attr("class", "plot").attr("clip-path", "url(#" + clipId + ")");
    }
    var bandPath = function (run) {
      if (run.length === 1) {
        var px = x(run[0].date);
        return "M" + (px - 3) + "," + y(run[0].upper) + "H" + (px + 3) + "V" + y(run[0].lower) + "H" + (px - 3) + "Z";
      }
      return d3.area().x(function (p) { return x(p.date); }).y0(function (p) { return y(p.lower); }).y1(function (p) { return y(p.upper); })(run);
    };
    var bandPaths = null;
    if (mode === "history") {
      var bands = plot.append("g").attr("class", "bands").attr("aria-hidden", "true");
      models.forEach(function (m) {
        var runs = [], cur = [];
        m.points.forEach(function (p) { if (p.lower !== undefined) { cur.push(p); } else if (cur.length) { runs.push(cur); cur = []; } });
        if (cur.length) { runs.push(cur); }
        runs.forEach(function (run) {
          bands.append("path").datum(run).attr("class", "band s" + m.colour).attr("d", bandPath(run))
            .attr("fill", "currentColor").attr("fill-opacity", 0.18);
        });
      });
      bandPaths = bands.selectAll("path");
    }
    var line = d3.line().x(function (p) { return x(p.date); }).y(function (p) { return y(valueOf(p)); });
    var lines = plot.append("g").attr("class", "lines").attr("aria-hidden", "true").selectAll("path").data(models).join("path")
      .attr("class", function (m) { return "line s" + m.colour; }).attr("d", function (m) { return line(m.points); })
      .attr("fill", "none").attr("stroke", "currentColor").attr("stroke-width", 2);
    var flat = [];
    models.forEach(function (m) { m.points.forEach(function (p) { flat.push({ m: m, p: p }); }); });
    var marks = plot.append("g").attr("class", "marks").selectAll("circle").data(flat).join("circle")
      .attr("class", function (d) { return "mark s" + d.m.colour; })
      .attr("cx", function (d) { return x(d.p.date); }).attr("cy", function (d) { return y(valueOf(d.p)); })
      .attr("r", 3.5).attr("fill", "currentColor");
    tooltips(marks, function (d) {
      if (mode === "ranks") { return [d.m.name, d.p.date + ": rank " + d.p.rank]; }
      var w = [d.m.name, d.p.date + ": " + fmt1(d.p.value) + " (score " + d.p.score + ", rank " + d.p.rank + ")"];
      if (d.p.lower !== undefined) { w.push("95% interval " + fmt1(d.p.lower) + " to " + fmt1(d.p.upper)); }
      return w;
    });
    marks.on("mouseenter.line", function (e, d) { highlight(svg, d.m.key); }).on("mouseleave.line", function () { highlight(svg, null); });
    endLabels(svg, models, dates[dates.length - 1], function (m) { return y(valueOf(m.points[m.points.length - 1])); }, L.top, bottom);
    if (zoomable) {
      /* move every mark to a new time scale; the date ticks show the dates in view */
      var place = function (xf, t0, t1) {
        x = xf;
        if (bandPaths) { bandPaths.attr("d", bandPath); }
        lines.attr("d", function (m) { return line(m.points); });
        marks.attr("cx", function (d) { return x(d.p.date); });
        axisX.remove();
        axisX = dateAxis(svg, dates.filter(function (d) { return day(d) >= t0 - 1 && day(d) <= t1 + 1; }), x, bottom, capital(s.x));
      };
      setupZoom(panel, s, svg, H, place);
    }
    return svg;
  }

  /* ------------------------------------------------------------------ history zoom (d3-zoom) */

  var ZOOM_STEP = 1.5, PAN_SHARE = 0.2, ZOOM_MAX = 24;

  function isoDay(t) { return new Date(t).toISOString().slice(0, 10); }

  function setupZoom(panel, s, svg, H, place) {
    var x0 = L.left, x1 = W - L.right;
    var base = d3.scaleUtc().domain([day(s.dates[0]), day(s.dates[s.dates.length - 1])]).range([x0, x1]);
    var status = panel.querySelector(".zoom-status");
    var zoom = d3.zoom().scaleExtent([1, ZOOM_MAX]).extent([[x0, 0], [x1, H]]).translateExtent([[x0, 0], [x1, H]])
      /* wheel zooms only with Ctrl (or Cmd), so scrolling the page past the chart keeps working */
      .filter(function (e) { return e.type === "wheel" ? (e.ctrlKey || e.metaKey) : (!e.ctrlKey && !e.button); })
      .on("zoom", function (e) {
        zooms[s.id] = e.transform;
        var xz = e.transform.rescaleX(base), dom = xz.domain(), t0 = +dom[0], t1 = +dom[1];
        place(function (d) { return xz(day(d)); }, t0, t1);
        var k = e.transform.k;
        svg.attr("data-zoom", k.toFixed(2)).attr("data-x0", isoDay(t0)).attr("data-x1", isoDay(t1));
        if (status) {
          status.textContent = k < 1.0001 ? "Showing every date, " + s.dates[0] + " to " + s.dates[s.dates.length - 1] + "."
            : "Showing " + isoDay(t0) + " to " + isoDay(t1) + " (zoom " + d3.format(".1f")(k) + "\u00d7).";
        }
      });
    svg.call(zoom).on("dblclick.zoom", null);
    zoomers[s.id] = { svg: svg, zoom: zoom, mid: [(x0 + x1) / 2, H / 2], width: x1 - x0 };
    svg.call(zoom.transform, zooms[s.id] || d3.zoomIdentity);
  }

  function zoomAction(id, what) {
    var z = zoomers[id];
    if (!z) { return; }
    var k = d3.zoomTransform(z.svg.node()).k;
    if (what === "in") { z.zoom.scaleBy(z.svg, ZOOM_STEP, z.mid); }
    else if (what === "out") { z.zoom.scaleBy(z.svg, 1 / ZOOM_STEP, z.mid); }
    else if (what === "earlier") { z.zoom.translateBy(z.svg, z.width * PAN_SHARE / k, 0); }
    else if (what === "later") { z.zoom.translateBy(z.svg, -z.width * PAN_SHARE / k, 0); }
    else if (what === "reset") { z.zoom.transform(z.svg, d3.zoomIdentity); }
  }

  function setupZoomControls(panel, s) {
    var box = panel.querySelector(".zoom-controls"), frame = panel.querySelector(".chart-frame");
    if (!box || !frame || s.dates.length < 2 || s.dates[0] === s.dates[s.dates.length - 1]) { return; }
    [["zoom-in", "in"], ["zoom-out", "out"], ["pan-earlier", "earlier"], ["pan-later", "later"], ["zoom-reset", "reset"]]
      .forEach(function (pair) {
        var b = box.querySelector("." + pair[0]);
        if (b) { b.addEventListener("click", function () { zoomAction(s.id, pair[1]); }); }
      });
    frame.classList.add("zoomable");
    frame.setAttribute("tabindex", "0");
    frame.setAttribute("role", "group");
    frame.setAttribute("aria-label", s.title + ": rating history chart. Plus and minus zoom the time axis, " +
      "left and right arrows pan, 0 resets.");
    frame.addEventListener("keydown", function (e) {
      var keys = { "+": "in", "=": "in", "-": "out", "_": "out", "ArrowLeft": "earlier", "ArrowRight": "later",
        "0": "reset", "Home": "reset" };
      var what = keys[e.key];
      if (!what || e.altKey || e.ctrlKey || e.metaKey) { return; }
      e.preventDefault();
      zoomAction(s.id, what);
    });
    box.hidden = false;
  }

  /* ------------------------------------------------------------------ history picker */

  function optionLabel(s, m) {
    var same = s.models.filter(function (o) { return o.name === m.name; }).length > 1;
    return same ? m.name + " (" + m.key + ")" : m.name;
  }

  function drawHistory(panel, s) {
    var keys = picked[s.id];
    var byKey = {};
    s.models.forEach(function (m) { byKey[m.key] = m; });
    drawLines(panel, s, keys.map(function (k) { return byKey[k]; }).filter(Boolean), "history");
    var chips = d3.select(panel).select(".picker-chips");
    chips.selectAll("li").remove();
    keys.forEach(function (k) {
      var m = byKey[k];
      if (!m) { return; }
      var li = chips.append("li").attr("class", "s" + m.colour);
      li.append("span").attr("class", "swatch").attr("aria-hidden", "true");
      li.append("span").attr("class", "chip-name").text(m.name);
      li.append("button").attr("type", "button").attr("class", "picker-remove").attr("data-key", k)
        .attr("aria-label", "Remove " + m.name).text("\u00d7");
    });
  }

  function setupPicker(panel, s) {
    var box = panel.querySelector(".series-picker");
    if (!box) { return; }
    var input = box.querySelector(".picker-input"), status = box.querySelector(".picker-status");
    var list = box.querySelector("datalist");
    s.models.forEach(function (m) {
      var o = document.createElement("option");
      o.value = optionLabel(s, m);
      list.appendChild(o);
    });
    function say(text) { status.textContent = text; }
    function add() {
      var q = input.value.trim().toLowerCase();
      if (!q) { say("Type a model's name to add its line."); return; }
      var m = s.models.filter(function (o) { return optionLabel(s, o).toLowerCase() === q; })[0] ||
        s.models.filter(function (o) { return o.name.toLowerCase() === q || o.key.toLowerCase() === q; })[0];
      if (!m) { say("No model called \u201c" + input.value.trim() + "\u201d on this chart."); return; }
      if (picked[s.id].indexOf(m.key) >= 0) { say(m.name + " is already drawn."); return; }
      picked[s.id].push(m.key);
      input.value = "";
      drawHistory(panel, s);
      say("Added " + m.name + ".");
    }
    box.querySelector(".picker-add").addEventListener("click", add);
    input.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); add(); } });
    box.querySelector(".picker-reset").addEventListener("click", function () {
      picked[s.id] = s["default"].slice();
      drawHistory(panel, s);
      say("Showing the top " + s["default"].length + " again.");
    });
    box.querySelector(".picker-chips").addEventListener("click", function (e) {
      var btn = e.target.closest ? e.target.closest(".picker-remove") : null;
      if (!btn) { return; }
      var key = btn.getAttribute("data-key"), at = picked[s.id].indexOf(key);
      var name = (s.models.filter(function (m) { return m.key === key; })[0] || { name: key }).name;
      if (at >= 0) { picked[s.id].splice(at, 1); }
      drawHistory(panel, s);
      say("Removed " + name + ".");
      var next = panel.querySelectorAll(".picker-remove")[Math.min(at, picked[s.id].length - 1)];
      (next || input).focus();
    });
    box.hidden = false;
  }

  /* ------------------------------------------------------------------ spread */

  function drawIntervals(panel, a) {
    var M = { top: 12, right: 24, bottom: 58, left: 200, row: 16 }, models = a.models;
    var H = M.top + M.bottom + Math.max(1, models.length) * M.row, bottom = H - M.bottom;
    var lo = d3.min(models, function (m) { return m.lower; }), hi = d3.max(models, function (m) { return m.upper; });
    var pad = Math.max(2, (hi - lo) * 0.04), ci = Math.round(a.ci * 100);
    var x = d3.scaleLinear().domain([lo - pad, hi + pad]).range([M.left, W - M.right]);
    var svg = canvas(panel, H, a.title + ": " + ci + "% intervals of " + models.length +
      " models, sorted by rating; overlapping bars are statistical ties", "group", "chart-intervals");
    var ticks = linearTicks(lo - pad, hi + pad, 6);
    svg.append("g").attr("class", "grid-x").attr("aria-hidden", "true").selectAll("line").data(ticks).join("line")
      .attr("class", "grid").attr("x1", x).attr("x2", x).attr("y1", M.top).attr("y2", bottom).attr("stroke", "currentColor");
    xAxis(svg, x, ticks, num, bottom, M.left, W - M.right, a.unit + "; bars: " + ci + "% bootstrap interval, dot: point estimate");
    var rowY = function (k) { return M.top + (k + 0.5) * M.row; };
    var words = function (m) {
      return [m.name, "Rating " + fmt1(m.rating) + ", rank " + m.rank, ci + "% interval " + fmt1(m.lower) + " to " + fmt1(m.upper)];
    };
    var rows = svg.append("g").attr("class", "marks").selectAll("g").data(models).join("g")
      .attr("class", function (m) { return "mark s" + m.colour; });
    rows.append("line").attr("class", "ci").attr("x1", function (m) { return x(m.lower); }).attr("x2", function (m) { return x(m.upper); })
      .attr("y1", function (m, k) { return rowY(k); }).attr("y2", function (m, k) { return rowY(k); })
      .attr("stroke", "currentColor").attr("stroke-width", 6).attr("stroke-opacity", 0.55);
    rows.append("circle").attr("class", "est").attr("cx", function (m) { return x(m.rating); }).attr("cy", function (m, k) { return rowY(k); })
      .attr("r", 4).attr("fill", "currentColor").attr("stroke", "currentColor");
    tooltips(rows, words);
    var labels = svg.append("g").attr("class", "row-labels");
    models.forEach(function (m, k) {
      var parent = m.href ? labels.append("a").attr("href", href(m.href)).attr("aria-label", words(m).join(", ")).datum(m) : labels;
      parent.append("text").attr("class", "row-label").attr("x", M.left - 8).attr("y", rowY(k) + 4).attr("text-anchor", "end")
        .text(m.rank + ". " + short(m.name));
      if (m.href) { tooltips(parent, words); }
    });
  }

  function drawDots(panel, b) {
    var M = { top: 12, right: 24, bottom: 58, left: 72 }, R = 5, pts = b.points, w = b.width;
    if (!pts.length) { return; }
    var levels = d3.max(pts, function (p) { return p.stack; }) + 1;
    var H = M.top + M.bottom + Math.max(120, levels * R * 2.2 + 12), bottom = H - M.bottom;
    var b0 = d3.min(pts, function (p) { return p.bin; }) * w - w, b1 = (d3.max(pts, function (p) { return p.bin; }) + 2) * w;
    var x = d3.scaleLinear().domain([b0, b1]).range([M.left, W - M.right]);
    var svg = canvas(panel, H, b.title + ": distribution of the " + pts.length + " displayed scores", "group", "chart-dotplot");
    xAxis(svg, x, linearTicks(b0, b1, 8), num, bottom, M.left, W - M.right,
      "Score (Arena scale), one dot per model, bins of " + num(w) + " points");
    svg.append("text").attr("class", "axis-label").attr("x", M.left - 10).attr("y", M.top + 10).attr("text-anchor", "end")
      .attr("aria-hidden", "true").text("models");
    var words = function (p) { return [p.name, "Score " + p.score + ", rank " + p.rank + (p.partial ? ", partial row" : "")]; };
    var g = svg.append("g").attr("class", "marks");
    pts.forEach(function (p) {
      var parent = p.href ? g.append("a").attr("href", href(p.href)).attr("aria-label", words(p).join(", ")).datum(p) : g;
      var c = parent.append("circle").datum(p).attr("class", "mark dot" + (p.partial ? " partial" : ""))
        .attr("cx", x((p.bin + 0.5) * w)).attr("cy", bottom - 6 - (p.stack + 0.5) * R * 2.2).attr("r", R)
        .attr("fill", p.partial ? "none" : "currentColor").attr("fill-opacity", p.partial ? null : 0.85)
        .attr("stroke", "currentColor").attr("stroke-width", 1.5);
      tooltips(p.href ? parent : c, words);
    });
  }

  /* the Arena ratings: bars per bin above a box summary on the same axis (charts/distribution.py) */
  function drawDistribution(panel, d) {
    var M = { top: 14, left: 72, right: 24, hist: 170, gap: 18, box: 34, bottom: 58 };
    var H = M.top + M.hist + M.gap + M.box + M.bottom, bins = d.bins, bx = d.box;
    var d0 = bins[0].lo, d1 = bins[bins.length - 1].hi, base = M.top + M.hist, axisY = H - M.bottom;
    var x = d3.scaleLinear().domain([d0, d1]).range([M.left, W - M.right]);
    var top = d3.max(bins, function (b) { return b.count; });
    var y = d3.scaleLinear().domain([0, top]).range([base, M.top]);
    var svg = canvas(panel, H, d.title + ": histogram of " + d.n + " ratings in bins of " + num(d.width) +
      " points, median " + fmt1(bx.median) + ", quartiles " + fmt1(bx.q1) + " to " + fmt1(bx.q3), "group", "chart-distribution");
    var counts = linearTicks(0, top, 4).filter(function (c) { return c === Math.round(c); });
    if (counts.indexOf(0) < 0) { counts.unshift(0); }
    yAxis(svg, y, counts, String, M.left, W - M.right, base, M.top, "Models");
    xAxis(svg, x, linearTicks(d0, d1, 8), num, axisY, M.left, W - M.right,
      d.unit + "; bars: models per bin of " + num(d.width) + " points; box: quartiles, median, mean");
    var words = function (b) {
      var names = b.models.slice(0, 6).join(", ") + (b.count > 6 ? " and " + (b.count - 6) + " more" : "");
      return [num(b.lo) + " to " + num(b.hi), b.count + " model" + (b.count === 1 ? "" : "s"), names];
    };
    var bars = svg.append("g").attr("class", "marks").selectAll("rect")
      .data(bins.filter(function (b) { return b.count > 0; })).join("rect")
      .attr("class", "mark bar").attr("x", function (b) { return x(b.lo) + 1; }).attr("y", function (b) { return y(b.count); })
      .attr("width", function (b) { return Math.max(1, x(b.hi) - x(b.lo) - 2); })
      .attr("height", function (b) { return base - y(b.count); })
      .attr("fill", "currentColor").attr("fill-opacity", 0.7);
    tooltips(bars, words);
    var cy = base + M.gap + M.box / 2, h = M.box / 2 - 4;
    var g = svg.append("g").attr("class", "box");
    g.append("line").attr("class", "whisker").attr("x1", x(bx.whisker_lo)).attr("x2", x(bx.q1)).attr("y1", cy).attr("y2", cy).attr("stroke", "currentColor");
    g.append("line").attr("class", "whisker").attr("x1", x(bx.q3)).attr("x2", x(bx.whisker_hi)).attr("y1", cy).attr("y2", cy).attr("stroke", "currentColor");
    [bx.whisker_lo, bx.whisker_hi].forEach(function (v) {
      g.append("line").attr("class", "whisker-cap").attr("x1", x(v)).attr("x2", x(v)).attr("y1", cy - h / 2).attr("y2", cy + h / 2).attr("stroke", "currentColor");
    });
    g.append("rect").attr("class", "iqr").attr("x", x(bx.q1)).attr("y", cy - h).attr("width", Math.max(1, x(bx.q3) - x(bx.q1)))
      .attr("height", 2 * h).attr("fill", "currentColor").attr("fill-opacity", 0.25).attr("stroke", "currentColor");
    g.append("line").attr("class", "median").attr("x1", x(bx.median)).attr("x2", x(bx.median)).attr("y1", cy - h).attr("y2", cy + h)
      .attr("stroke", "currentColor").attr("stroke-width", 3);
    g.append("path").attr("class", "mean").attr("d", "M" + x(bx.mean) + "," + (cy - 5) + "l5,5l-5,5l-5,-5Z").attr("fill", "currentColor");
    g.selectAll("circle.outlier").data(bx.outliers).join("circle").attr("class", "outlier")
      .attr("cx", function (o) { return x(o.rating); }).attr("cy", cy).attr("r", 3.5).attr("fill", "none").attr("stroke", "currentColor");
    tooltips(g, function () {
      return ["Box summary of " + bx.n + " ratings", "Median " + fmt1(bx.median) + ", quartiles " + fmt1(bx.q1) + " to " + fmt1(bx.q3),
        "Whiskers " + fmt1(bx.whisker_lo) + " to " + fmt1(bx.whisker_hi) + ", mean " + fmt1(bx.mean),
        bx.outliers.length + " outlier" + (bx.outliers.length === 1 ? "" : "s")];
    });
  }

  /* ------------------------------------------------------------------ panels */

  function draw(panel) {
    var id = panel.getAttribute("data-series"), s = series[id];
    if (!s || drawn[id]) { return; }
    drawn[id] = true;
    if (kind === "price-quality") { drawPriceQuality(panel, s); }
    else if (kind === "history") {
      if (!s.dates.length) { return; }
      picked[id] = s["default"].slice();
      setupPicker(panel, s);
      setupZoomControls(panel, s);
      drawHistory(panel, s);
    } else if (kind === "ranks") { if (s.dates.length && s.models.length) { drawLines(panel, s, s.models, "ranks"); } }
    else if (kind === "spread") {
      if (id === "arena" && s.ci !== undefined) { drawIntervals(panel, s); }
      else if (id === "arena-distribution" && s.box) { drawDistribution(panel, s); }
      else { drawDots(panel, s); }
    }
  }

  function show(anchor) {
    var found = panels.filter(function (p) { return p.id === anchor; })[0] || panels[0];
    if (!found) { return; }
    panels.forEach(function (p) { p.hidden = p !== found; });
    if (select) { select.value = found.id; }
    hideTip();
    draw(found);
  }

  fetch(root.getAttribute("data-src"), { credentials: "same-origin" }).then(function (r) {
    if (!r.ok) { throw new Error("chart data: HTTP " + r.status); }
    return r.json();
  }).then(function (doc) {
    if (kind === "spread") {
      if (doc.arena) { series.arena = doc.arena; }
      if (doc.distribution) { series[doc.distribution.id] = doc.distribution; }
      doc.boards.forEach(function (b) { series[b.id] = b; });
    } else {
      (doc.boards || doc.series).forEach(function (b) { series[b.id] = b; });
    }
    if (controls && select) {
      controls.hidden = false;
      if (jump) { jump.hidden = true; }
      select.addEventListener("change", function () {
        show(select.value);
        if (window.history && window.history.replaceState) { window.history.replaceState(null, "", "#" + select.value); }
      });
    }
    show(window.location.hash.slice(1));
    window.addEventListener("hashchange", function () { show(window.location.hash.slice(1)); });
    root.setAttribute("data-state", "ready");
  }).catch(function (err) {
    root.setAttribute("data-state", "static");
    if (window.console) { window.console.warn("charts: keeping the build-time pictures: " + err.message); }
  });
})();
