/* ModelBoards ranking race: an animated bar chart of the race frames (data/race/*.json), drawn
   with D3 v7 served from this site (static/vendor/d3.min.js). No inline script, no other origin.

   A frame lists every ranked model of one date. Between two frames KEYFRAMES steps interpolate
   each model's value linearly and re-sort by the interpolated value (ties by name), so a
   change of rank is two bars crossing. Bars are keyed by identity; a model outside the top N
   sits just below the visible area, so it enters and leaves from the bottom.

   With prefers-reduced-motion the race starts paused on the newest date with the table shown,
   and Play steps whole dates without transitions. The table of the shown date is always one
   click away ("Show as table"). State for tests and scripts: #race[data-state] is
   "playing" | "paused", #race[data-frame] the index of the date shown.                     */
(function () {
  "use strict";

  var KEYFRAMES = 10;      /* interpolation steps per interval between two dates */
  var STEP_MS = 250;       /* one step at 1x speed: 2.5 s per date */
  var REDUCED_STEP_MS = 1200; /* one whole date per step with reduced motion, at 1x */
  var BAR = 30;            /* px per bar row */
  var MARGIN = { top: 28, right: 64, bottom: 8, left: 200 };
  var FALLBACK = ["#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933", "#AA4499"];

  var root = document.getElementById("race");
  if (!root) { return; }
  var $ = function (id) { return document.getElementById(id); };
  var el = {
    controls: root.querySelector(".race-controls"),
    figure: root.querySelector(".race-figure"),
    board: $("race-board"), play: $("race-play"), pause: $("race-pause"), reset: $("race-reset"),
    speed: $("race-speed"), top: $("race-top"), scrub: $("race-scrub"), toggle: $("race-table-toggle"),
    date: $("race-date"), note: $("race-note"), title: $("race-board-title"), unit: $("race-unit"),
    svg: $("race-chart"), wrap: $("race-table-wrap"), table: $("race-table"), caption: $("race-table-caption")
  };
  var d3 = window.d3;
  if (!d3) { return; }   /* no D3 in this build: the server-rendered table stays */

  var media = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
  var reduced = !!(media && media.matches);

  var state = {
    docs: {}, doc: null, frames: [], pos: 0, shownFrame: -1,
    playing: false, timer: null, top: +el.top.value || 12, speed: +el.speed.value || 1,
    table: reduced, width: 0
  };

  /* ------------------------------------------------------------------ data */

  function load(url) {
    return fetch(url, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) { throw new Error(url + ": HTTP " + r.status); }
      return r.json();
    });
  }

  function boardDoc(id) {
    if (id === "arena") {
      if (!state.docs.arena) {
        state.docs.arena = load(root.getAttribute("data-arena"));
      }
      return state.docs.arena;
    }
    if (id.indexOf("arena-") === 0 || id.indexOf("arenas-") === 0) {   /* a category board or another arena: its own file */
      if (!state.docs[id]) {
        state.docs[id] = load(root.getAttribute("data-race-dir") + id + ".json");
      }
      return state.docs[id];
    }
    if (!state.docs.boards) {
      state.docs.boards = load(root.getAttribute("data-boards"));
    }
    return state.docs.boards.then(function (doc) {
      var found = doc.boards.filter(function (b) { return b.id === id; })[0];
      if (!found) { throw new Error("no race data for board " + id); }
      return Object.assign({ colours: doc.colours || {} }, found);
    });
  }

  /* The same model keeps its palette index in both themes: Tol's "muted" on light, "light" on dark. */
  var DARK = ["#FFAABB", "#77AADD", "#EEDD88", "#44BB99", "#99DDFF", "#EE8866", "#BBCC33", "#AAAA00", "#DDDDDD"];
  function darkTheme() {
    var forced = document.documentElement.getAttribute("data-theme");
    if (forced) { return forced === "dark"; }
    return !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  }
  function themed(hex) {
    if (!darkTheme()) { return hex; }
    var i = FALLBACK.indexOf(String(hex).toUpperCase());
    return i < 0 ? hex : DARK[i];
  }
  function colour(identity) {
    var known = state.doc && state.doc.colours ? state.doc.colours[identity] : null;
    if (known) { return themed(known); }
    var h = 0;
    for (var i = 0; i < identity.length; i += 1) { h = (h * 31 + identity.charCodeAt(i)) >>> 0; }
    return themed(FALLBACK[h % FALLBACK.length]);
  }

  /* ------------------------------------------------------------------ keyframes */

  function lastPos() { return Math.max(0, (state.frames.length - 1) * KEYFRAMES); }

  function byValue(a, b) {
    return (b.value - a.value) || (a.name.toLowerCase() < b.name.toLowerCase() ? -1 :
      a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0);
  }

  /* The models at step pos: {frame, t, date, list (sorted, each with .pos)} */
  function keyframe(pos) {
    var i = Math.floor(pos / KEYFRAMES);
    var t = (pos % KEYFRAMES) / KEYFRAMES;
    var a = state.frames[i];
    var list;
    if (t === 0 || i + 1 >= state.frames.length) {
      list = a.models.map(function (m) {
        return { identity: m.identity, name: m.name, value: m.value, score: m.score, partial: m.partial, exact: true,
                 matches: m.matches };
      });
    } else {
      var b = state.frames[i + 1];
      var next = {};
      b.models.forEach(function (m) { next[m.identity] = m; });
      /* a model only in one of the two frames rises from (or sinks to) just below both
         frames' lowest value, so it crosses the ranks below its true position smoothly */
      var floor = (d3.min(a.models.concat(b.models), function (m) { return m.value; }) || 0) - 1;
      var seen = {};
      list = a.models.map(function (m) {
        seen[m.identity] = true;
        var n = next[m.identity];
        var to = n ? n.value : floor;
        return { identity: m.identity, name: (n || m).name, value: m.value + (to - m.value) * t,
                 partial: (n || m).partial, exact: false, matches: m.matches };
      });
      b.models.forEach(function (m) {
        if (!seen[m.identity]) {
          list.push({ identity: m.identity, name: m.name, value: floor + (m.value - floor) * t,
                      partial: m.partial, exact: false, matches: m.matches });
        }
      });
    }
    list.sort(byValue);
    list.forEach(function (d, k) { d.pos = k; });
    return { frame: i, t: t, date: a.date, list: list };
  }

  /* ------------------------------------------------------------------ drawing */

  var svg = d3.select(el.svg);
  var gAxis = svg.append("g").attr("class", "race-axis");
  var gBars = svg.append("g").attr("class", "race-bars");
  function repaint() { gBars.selectAll("g.bar rect").attr("fill", function (d) { return colour(d.identity); }); }
  document.addEventListener("mb-theme", repaint);
  if (window.matchMedia) {
    var scheme = window.matchMedia("(prefers-color-scheme: dark)");
    if (scheme.addEventListener) { scheme.addEventListener("change", repaint); }
  }
  var bigDate = svg.append("text").attr("class", "race-bigdate").attr("aria-hidden", "true")
    .attr("text-anchor", "end");

  function size() {
    var w = Math.max(320, Math.min(960, el.figure.clientWidth || root.clientWidth || 800));
    var h = MARGIN.top + state.top * BAR + MARGIN.bottom;
    state.width = w;
    svg.attr("width", w).attr("height", h).attr("viewBox", "0 0 " + w + " " + h);
    bigDate.attr("x", w - MARGIN.right).attr("y", h - MARGIN.bottom - 10);
    return { w: w, h: h };
  }

  function y(pos) { return MARGIN.top + pos * BAR; }
  function offscreen() { return MARGIN.top + (state.top + 1) * BAR + MARGIN.bottom; }  /* below the view */

  /* Model names arrive as bidi isolates, FSI + name + PDI (builder/charts/script_json.py), so a
     right-to-left or hostile name never reorders the dagger or numbers drawn next to it; a long
     name is cut inside the marks, so the closing PDI stays. */
  var FSI = "\u2068", PDI = "\u2069";
  function label(d) {
    var body = d.name.replace(/[\u2066-\u2069]/g, "");
    var n = body.length > 26 ? FSI + body.slice(0, 25) + "\u2026" + PDI : d.name;
    return n + (d.partial ? " \u2020" : "");
  }

  function render(duration) {
    if (!state.frames.length) { return; }
    var dims = size();
    var k = keyframe(state.pos);
    var shown = k.list.slice(0, state.top);
    var hi = d3.max(shown, function (d) { return d.value; });
    var lo = d3.min(shown, function (d) { return d.value; });
    if (hi === undefined) { hi = 1; lo = 0; }
    var span = Math.max(hi - lo, 1);
    var x = d3.scaleLinear().domain([lo - span * 0.12 - 1, hi]).range([MARGIN.left, dims.w - MARGIN.right]);
    var tr = svg.transition().duration(duration).ease(d3.easeLinear);

    gAxis.attr("transform", "translate(0," + (MARGIN.top - 6) + ")")
      .transition(tr)
      .call(d3.axisTop(x).ticks(Math.max(2, Math.floor((dims.w - MARGIN.left) / 110))).tickSizeOuter(0)
        .tickSize(-(state.top * BAR)));

    var bars = gBars.selectAll("g.bar").data(shown, function (d) { return d.identity; });
    var entering = bars.enter().append("g").attr("class", "bar")
      .attr("transform", "translate(0," + offscreen() + ")");
    entering.append("rect").attr("x", MARGIN.left).attr("height", BAR - 6).attr("y", 0).attr("width", 0);
    entering.append("text").attr("class", "name").attr("x", MARGIN.left - 8).attr("y", (BAR - 6) / 2)
      .attr("dy", "0.35em").attr("text-anchor", "end");
    entering.append("text").attr("class", "value").attr("y", (BAR - 6) / 2).attr("dy", "0.35em")
      .attr("x", MARGIN.left + 6);
    bars.exit().attr("data-leaving", "1").transition(tr)
      .attr("transform", "translate(0," + offscreen() + ")").remove();

    var all = entering.merge(bars).attr("data-id", function (d) { return d.identity; })
      .attr("data-rank", function (d) { return d.pos + 1; }).attr("data-leaving", null);
    all.select("rect").attr("fill", function (d) { return colour(d.identity); });
    all.select("text.name").text(label);
    /* Arena frames carry each model's battles so far: "1234 (560 matches)" */
    all.select("text.value").text(function (d) {
      var v = d.exact ? d.score : Math.round(d.value);
      return d.matches == null ? String(v) : v + " (" + d.matches + " matches)";
    });
    all.transition(tr).attr("transform", function (d) { return "translate(0," + y(d.pos) + ")"; });
    all.select("rect").transition(tr).attr("width", function (d) { return Math.max(1, x(d.value) - MARGIN.left); });
    all.select("text.value").transition(tr).attr("x", function (d) { return x(d.value) + 6; });

    bigDate.text(k.date);
    if (k.frame !== state.shownFrame || k.t === 0) { showFrame(k.frame); }
  }

  /* ------------------------------------------------------------------ date, table, labels */

  function movementText(m) {
    if (m === "new") { return "new"; }
    if (typeof m === "number") { return m > 0 ? "\u25B2 " + m : m < 0 ? "\u25BC " + (-m) : "="; }
    return "\u2013";
  }

  function showFrame(i) {
    var f = state.frames[i];
    var changed = i !== state.shownFrame;
    state.shownFrame = i;
    root.setAttribute("data-frame", String(i));
    if (!changed) { return; }
    el.date.textContent = f.date;
    el.date.setAttribute("datetime", f.date);
    el.scrub.value = String(i);
    el.scrub.setAttribute("aria-valuetext", f.date + " (" + (i + 1) + " of " + state.frames.length + ")");
    var top = f.models.slice(0, state.top).map(function (m) { return m.rank + ". " + m.name + " " + m.score; });
    el.svg.setAttribute("aria-label", "Bar chart of " + state.doc.title + " on " + f.date + ": " + top.join(", "));
    el.caption.textContent = state.doc.title + " on " + f.date;
    var tbody = el.table.tBodies[0];
    var rows = f.models.map(function (m) {
      var tr = document.createElement("tr");
      var cells = [
        [String(m.rank), "num"], [m.name, ""], [String(m.score), "num"],
        [m.value.toFixed(2), "num"], [movementText(m.movement), "num"]
      ];
      cells.forEach(function (c) {
        var td = document.createElement("td");
        td.textContent = c[0];
        if (c[1]) { td.className = c[1]; }
        tr.appendChild(td);
      });
      var lab = document.createElement("td");
      if (m.partial) {
        var badge = document.createElement("span");
        badge.className = "badge";
        badge.textContent = "partial";
        lab.appendChild(badge);
      }
      tr.appendChild(lab);
      return tr;
    });
    tbody.replaceChildren.apply(tbody, rows);
  }

  function setTable(on) {
    state.table = on;
    el.wrap.hidden = !on;
    el.toggle.setAttribute("aria-pressed", on ? "true" : "false");
    el.toggle.textContent = on ? "Hide table" : "Show as table";
  }

  function syncButtons() {
    var single = state.frames.length < 2;
    root.setAttribute("data-state", state.playing ? "playing" : "paused");
    el.play.disabled = single || state.playing;
    el.pause.disabled = !state.playing;
    el.scrub.disabled = single;
    el.note.textContent = single ? "(only one date so far: nothing to animate yet)" : "";
  }

  /* ------------------------------------------------------------------ playback */

  function stepMs() { return (reduced ? REDUCED_STEP_MS : STEP_MS) / state.speed; }

  function tick() {
    state.timer = null;
    if (!state.playing) { return; }
    if (state.pos >= lastPos()) { stop(); return; }
    state.pos = Math.min(lastPos(), state.pos + (reduced ? KEYFRAMES : 1));
    render(reduced ? 0 : stepMs());
    state.timer = window.setTimeout(tick, stepMs());
  }

  function play() {
    if (state.frames.length < 2 || state.playing) { return; }
    if (state.pos >= lastPos()) { state.pos = 0; render(0); }
    state.playing = true;
    syncButtons();
    state.timer = window.setTimeout(tick, reduced ? stepMs() : 0);
  }

  function stop() {
    state.playing = false;
    if (state.timer !== null) { window.clearTimeout(state.timer); state.timer = null; }
    svg.selectAll("*").interrupt();
    gBars.selectAll("g.bar[data-leaving]").remove();
    render(0);   /* settle exactly on the step reached */
    syncButtons();
  }

  function jump(frame) {
    var wasPlaying = state.playing;
    state.playing = false;
    if (state.timer !== null) { window.clearTimeout(state.timer); state.timer = null; }
    svg.selectAll("*").interrupt();
    gBars.selectAll("g.bar[data-leaving]").remove();
    state.pos = Math.max(0, Math.min(state.frames.length - 1, frame)) * KEYFRAMES;
    render(reduced || !wasPlaying ? 0 : 200);
    syncButtons();
  }

  function useBoard(id, keepDate) {
    var date = keepDate && state.frames.length ? state.frames[state.shownFrame].date : null;
    return boardDoc(id).then(function (doc) {
      state.doc = doc;
      state.frames = doc.frames || [];
      state.shownFrame = -1;
      el.scrub.max = String(Math.max(0, state.frames.length - 1));
      el.title.textContent = doc.title;
      if (el.unit) { el.unit.textContent = doc.unit || "value"; }
      var frame = state.frames.length - 1;
      if (date) {
        frame = 0;
        state.frames.forEach(function (f, i) { if (f.date <= date) { frame = i; } });
      }
      gBars.selectAll("g.bar").remove();
      jump(frame);
      var url = new URL(window.location.href);
      url.searchParams.set("board", id);
      window.history.replaceState(null, "", url.pathname + url.search + url.hash);
    });
  }

  /* ------------------------------------------------------------------ wiring */

  el.play.addEventListener("click", play);
  el.pause.addEventListener("click", stop);
  el.reset.addEventListener("click", function () { jump(0); });
  el.scrub.addEventListener("input", function () { jump(+el.scrub.value); });
  el.speed.addEventListener("change", function () { state.speed = +el.speed.value || 1; });
  el.top.addEventListener("change", function () {
    state.top = +el.top.value || 12;
    state.shownFrame = -1;
    render(0);
  });
  el.toggle.addEventListener("click", function () { setTable(!state.table); });
  el.board.addEventListener("change", function () {
    var was = state.playing;
    stop();
    useBoard(el.board.value, true).then(function () { if (was) { play(); } }, fail);
  });
  var resizeTimer = null;
  window.addEventListener("resize", function () {
    if (resizeTimer) { window.clearTimeout(resizeTimer); }
    resizeTimer = window.setTimeout(function () {
      if (Math.abs((el.figure.clientWidth || 0) - state.width) > 8 && !state.playing) { render(0); }
    }, 150);
  });
  if (media && media.addEventListener) {
    media.addEventListener("change", function (e) {
      reduced = e.matches;
      if (reduced) { stop(); setTable(true); }
    });
  }

  function fail(err) {
    el.note.textContent = "(the animation could not load its data: " + err.message + "; the table shows the newest date)";
    el.figure.hidden = true;
    setTable(true);
    root.setAttribute("data-state", "error");
  }

  var wanted = new URLSearchParams(window.location.search).get("board");
  var options = Array.prototype.map.call(el.board.options, function (o) { return o.value; });
  var first = wanted && options.indexOf(wanted) >= 0 ? wanted : root.getAttribute("data-default");
  el.board.value = first;
  el.controls.hidden = false;
  el.figure.hidden = false;
  setTable(reduced);
  useBoard(first, false).then(function () {
    if (!reduced && state.frames.length > 1) {
      jump(0);
      state.timer = window.setTimeout(play, 600);   /* show the first date briefly, then run */
    }
  }, fail);
})();
