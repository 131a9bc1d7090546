/* ModelBoards: compare/?m=a,b,c — two to five models side by side.
   Reads data/compare/index.json and data/compare/<slug>.json (same origin), keeps the chosen
   slugs in the URL (m=comma-separated), draws the tables and offers CSV/JSON downloads.
   Arena: P(a beats b) = 1 / (1 + base^((rating_b - rating_a) / scale)), best-rated spelling
   of each, same connected component only. */
(function () {
  "use strict";

  var root, index, box, chosen = [], cache = {};

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function fmt(x, digits) {
    if (x === null || x === undefined) { return "\u2013"; }
    if (typeof x === "number") { return digits === undefined ? String(x) : x.toFixed(digits); }
    return String(x);
  }

  function slugsFromUrl() {
    var v = new URLSearchParams(window.location.search).get("m") || "";
    var seen = {};
    return v.split(",").map(function (s) { return s.trim(); }).filter(function (s) {
      if (!s || seen[s]) { return false; }
      seen[s] = true;
      return true;
    });
  }
  function saveUrl() {
    var p = new URLSearchParams(window.location.search);
    if (chosen.length) { p.set("m", chosen.join(",")); } else { p.delete("m"); }
    var qs = p.toString().replace(/%2C/g, ",");
    window.history.replaceState(null, "", window.location.pathname + (qs ? "?" + qs : "") + window.location.hash);
  }
  function known(slug) { return index.models.some(function (m) { return m.slug === slug; }); }
  function nameOf(slug) {
    var m = index.models.filter(function (x) { return x.slug === slug; })[0];
    return m ? m.name : slug;
  }
  function load(slug) {
    if (!cache[slug]) {
      cache[slug] = fetch(root + "data/compare/" + encodeURIComponent(slug) + ".json").then(function (r) {
        if (!r.ok) { throw new Error("HTTP " + r.status); }
        return r.json();
      });
    }
    return cache[slug];
  }

  function message(text) { box.querySelector('[data-role="message"]').textContent = text; }

  function drawChosen() {
    var ul = box.querySelector('[data-role="chosen"]');
    ul.textContent = "";
    chosen.forEach(function (slug) {
      var li = el("li");
      li.appendChild(el("a", { href: root + "models/" + slug + "/" }, nameOf(slug)));
      var b = el("button", { type: "button", "aria-label": "Remove " + nameOf(slug) }, "Remove");
      b.addEventListener("click", function () {
        chosen = chosen.filter(function (s) { return s !== slug; });
        saveUrl();
        refresh();
      });
      li.appendChild(document.createTextNode(" "));
      li.appendChild(b);
      ul.appendChild(li);
    });
  }

  function table(caption, head, rows) {
    var wrap = el("div", { "class": "scroll", role: "region", "aria-label": caption, tabindex: "0" });
    var t = el("table", { "class": "compare-table" });
    t.appendChild(el("caption", {}, caption));
    var thead = el("thead"), tr = el("tr");
    head.forEach(function (h, i) { tr.appendChild(el("th", { scope: "col" }, h)); });
    thead.appendChild(tr);
    t.appendChild(thead);
    var tb = el("tbody");
    rows.forEach(function (r) {
      var row = el("tr");
      r.forEach(function (c, i) { row.appendChild(el(i === 0 ? "th" : "td", i === 0 ? { scope: "row" } : {}, c)); });
      tb.appendChild(row);
    });
    t.appendChild(tb);
    wrap.appendChild(t);
    return wrap;
  }

  function config(details) {
    var keys = Object.keys(details || {}).sort();
    return keys.map(function (k) { return k + " " + (typeof details[k] === "object" ? JSON.stringify(details[k]) : details[k]); }).join("; ");
  }

  function predicted(a, b) {
    if (!index.arena || !a.arena.length || !b.arena.length) { return null; }
    var x = a.arena[0], y = b.arena[0];
    if (x.component !== y.component) { return null; }
    return 1 / (1 + Math.pow(index.arena.base, (y.rating - x.rating) / index.arena.scale));
  }
  function observed(a, b) {
    for (var i = 0; i < a.arena.length; i += 1) {
      var recs = a.arena[i].records || {};
      for (var j = 0; j < b.arena.length; j += 1) {
        if (recs[b.arena[j].model]) { return { a: a.arena[i].model, b: b.arena[j].model, rec: recs[b.arena[j].model] }; }
      }
    }
    return null;
  }

  /* The comparison as rows of (section, item, value per model): the tables, the CSV and the JSON. */
  function rowsOf(ms) {
    var out = [];
    function add(section, item, values) { out.push({ section: section, item: item, values: values }); }
    add("facts", "maker", ms.map(function (m) { return m.facts.maker; }));
    add("facts", "licence", ms.map(function (m) { return m.facts.licence; }));
    add("facts", "open weights", ms.map(function (m) { return m.facts.open_weight === null || m.facts.open_weight === undefined ? null : (m.facts.open_weight ? "yes" : "no"); }));
    add("facts", "parameters (B)", ms.map(function (m) { return m.facts.params_b; }));
    add("facts", "context window (tokens)", ms.map(function (m) { return m.facts.context_window; }));
    add("facts", "release date", ms.map(function (m) { return m.facts.release_date; }));
    add("prices", "token price (USD per million tokens, chosen)", ms.map(function (m) {
      var t = m.prices.token.filter(function (p) { return p.used; })[0];
      return t ? t.blended : null;
    }));
    add("prices", "build price (USD per build)", ms.map(function (m) { return m.prices.build ? m.prices.build.price : null; }));
    var feeds = {};
    ms.forEach(function (m) { m.sources.forEach(function (s) { feeds[s.feed] = true; }); });
    Object.keys(feeds).sort().forEach(function (feed) {
      var pick = function (m) { return m.sources.filter(function (s) { return s.feed === feed; })[0] || null; };
      add("source " + feed, "raw value", ms.map(function (m) { var s = pick(m); return s ? s.raw : null; }));
      add("source " + feed, "configuration", ms.map(function (m) {
        var s = pick(m);
        if (!s) { return null; }
        var c = config(s.details);
        return s.spelling + (c ? " (" + c + ")" : "");
      }));
      add("source " + feed, "date", ms.map(function (m) { var s = pick(m); return s ? s.date : null; }));
      add("source " + feed, "calibrated (Arena scale)", ms.map(function (m) { var s = pick(m); return s ? s.calibrated : null; }));
    });
    Object.keys(index.families).forEach(function (f) {
      if (ms.some(function (m) { return m.families[f] !== undefined; })) {
        add("family means", index.families[f], ms.map(function (m) { return m.families[f] === undefined ? null : m.families[f]; }));
      }
    });
    index.boards.forEach(function (b) {
      var at = function (m) { return m.boards.filter(function (x) { return x.board === b.id; })[0] || null; };
      if (!ms.some(at)) { return; }
      add("board " + b.title, "rank", ms.map(function (m) { var x = at(m); return x ? (x.strip === "new" ? "new, not ranked" : x.rank) : null; }));
      add("board " + b.title, "score", ms.map(function (m) { var x = at(m); return x ? x.score : null; }));
      add("board " + b.title, "R (unrounded)", ms.map(function (m) { var x = at(m); return x ? x.r : null; }));
    });
    add("arena", "rating (best-rated spelling)", ms.map(function (m) { return m.arena.length ? m.arena[0].rating : null; }));
    add("arena", "95% interval", ms.map(function (m) {
      var a = m.arena[0];
      return a && a.lower !== null && a.upper !== null ? a.lower + " to " + a.upper : null;
    }));
    return out;
  }

  function pairs(ms) {
    var out = [];
    for (var i = 0; i < ms.length; i += 1) {
      for (var j = i + 1; j < ms.length; j += 1) {
        var p = predicted(ms[i], ms[j]), o = observed(ms[i], ms[j]);
        out.push({ a: ms[i].name, b: ms[j].name, predicted: p,
                   observed_share: o ? o.rec.share : null, battles: o ? o.rec.battles : null,
                   spellings: o ? o.a + " vs " + o.b : null });
      }
    }
    return out;
  }

  function csvCell(v) {
    if (v === null || v === undefined) { return ""; }
    var s = String(v);
    if (/^[=+\-@]/.test(s) && typeof v !== "number") { s = "'" + s; }
    return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  function downloads(ms, rows, prs) {
    var names = ms.map(function (m) { return m.name; });
    var lines = [["section", "item"].concat(names).map(csvCell).join(",")];
    rows.forEach(function (r) { lines.push([r.section, r.item].concat(r.values).map(csvCell).join(",")); });
    prs.forEach(function (p) {
      lines.push(["arena head-to-head", p.a + " vs " + p.b + ": predicted P(first wins)", p.predicted].map(csvCell).join(","));
      lines.push(["arena head-to-head", p.a + " vs " + p.b + ": observed share (battles)", p.observed_share === null ? "" : p.observed_share + " (" + p.battles + ")"].map(csvCell).join(","));
    });
    var doc = { date: index.date, method_id: index.method_id, licence: index.licence, models: ms.map(function (m) { return m.slug; }),
                names: names, rows: rows, arena_pairs: prs };
    var csv = box.querySelector('[data-role="csv"]'), json = box.querySelector('[data-role="json"]');
    [csv, json].forEach(function (a) { if (a.href.indexOf("blob:") === 0) { URL.revokeObjectURL(a.href); } });
    csv.href = URL.createObjectURL(new Blob([lines.join("\n") + "\n"], { type: "text/csv" }));
    json.href = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2) + "\n"], { type: "application/json" }));
    box.querySelector('[data-role="downloads"]').hidden = false;
  }

  function draw(ms) {
    var holder = box.querySelector('[data-role="tables"]');
    holder.textContent = "";
    var rows = rowsOf(ms), prs = pairs(ms);
    var sections = [];
    rows.forEach(function (r) { if (sections.indexOf(r.section) < 0) { sections.push(r.section); } });
    var head = [""].concat(ms.map(function (m) { return m.name; }));
    sections.forEach(function (sec) {
      var h = el("h2", {}, sec.charAt(0).toUpperCase() + sec.slice(1));
      holder.appendChild(h);
      holder.appendChild(table(sec, head, rows.filter(function (r) { return r.section === sec; }).map(function (r) {
        return [r.item].concat(r.values.map(function (v) { return typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : fmt(v); }));
      })));
    });
    holder.appendChild(el("h2", {}, "Arena head-to-head"));
    holder.appendChild(table("Arena head-to-head", ["Pair", "Predicted P(first wins)", "Observed share of the first", "Battles", "Spellings"],
      prs.map(function (p) {
        return [p.a + " vs " + p.b, p.predicted === null ? "not both in one Arena fit" : p.predicted.toFixed(3),
                p.observed_share === null ? "not in the win-rate matrix" : fmt(p.observed_share, 3), fmt(p.battles), fmt(p.spellings)];
      })));
    downloads(ms, rows, prs);
    box.setAttribute("data-ready", chosen.join(","));
  }

  function refresh() {
    drawChosen();
    var suggest = box.querySelector('[data-role="suggest"]');
    if (suggest) { suggest.hidden = chosen.length > 0; }
    var holder = box.querySelector('[data-role="tables"]');
    if (chosen.length < index.min) {
      holder.textContent = "";
      box.querySelector('[data-role="downloads"]').hidden = true;
      message("Choose at least " + index.min + " models (" + chosen.length + " chosen).");
      box.setAttribute("data-ready", chosen.join(","));
      return;
    }
    message("Comparing " + chosen.length + " models.");
    Promise.all(chosen.map(load)).then(draw, function (e) { message("Could not load the comparison data: " + e.message); });
  }

  function add(slug) {
    if (!known(slug)) { message("No model named " + slug + " in this snapshot."); return; }
    if (chosen.indexOf(slug) >= 0) { message(nameOf(slug) + " is already compared."); return; }
    if (chosen.length >= index.max) { message("At most " + index.max + " models; remove one first."); return; }
    chosen.push(slug);
    saveUrl();
    refresh();
  }

  function init() {
    box = document.getElementById("compare");
    if (!box) { return; }
    root = box.getAttribute("data-root");
    fetch(box.getAttribute("data-index")).then(function (r) { return r.json(); }).then(function (doc) {
      index = doc;
      box.hidden = false;
      var wanted = slugsFromUrl();
      var unknown = wanted.filter(function (s) { return !known(s); });
      chosen = wanted.filter(known).slice(0, index.max);
      if (unknown.length || wanted.filter(known).length > index.max) { saveUrl(); }
      var form = box.querySelector('[data-role="picker"]');
      var input = form.querySelector("input");
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        var v = input.value.trim().toLowerCase();
        var hit = index.models.filter(function (m) { return m.name.toLowerCase() === v || m.slug === v; })[0]
          || index.models.filter(function (m) { return m.name.toLowerCase().indexOf(v) >= 0; })[0];
        if (v && hit) { add(hit.slug); input.value = ""; } else { message("No model matches \u201c" + input.value + "\u201d."); }
      });
      refresh();
      if (unknown.length) { message("Not in this snapshot: " + unknown.join(", ") + ". " + box.querySelector('[data-role="message"]').textContent); }
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
}());
