/* ModelBoards tables: sort by any column, search, filters, state kept in the URL query; a
   header that stays in view on long tables. Optional: every table is plain HTML and readable
   without this script (see templates/STYLE.md, "The table pattern").
   A table of more than ten rows that the template did not make sortable is made so here:
   columns keyed by their header text, numeric where the cells are (td.num), its state under
   "t<N>." (N = its place among such tables on the page).
   Query parameters per table (prefix "<data-state>." unless data-state is empty):
     sort=<column key>  dir=asc|desc  q=<search text>  open=1  nopartial=1
     maxtoken=<USD per million tokens>  maxbuild=<USD per build>  (rows with data-token /
     data-build above the bound, or without that price, are hidden)                    */
(function () {
  "use strict";

  function params() { return new URLSearchParams(window.location.search); }

  function saveParams(p) {
    var qs = p.toString();
    var url = window.location.pathname + (qs ? "?" + qs : "") + window.location.hash;
    window.history.replaceState(null, "", url);
  }

  function cellKey(cell, numeric) {
    if (!cell) { return null; }
    var v = cell.getAttribute("data-sort");
    if (v === null) { v = cell.textContent.trim(); }
    if (numeric) {
      if (v === "") { return null; }
      var f = parseFloat(v);
      return isNaN(f) ? null : f;
    }
    return v === "" ? null : v.toLocaleLowerCase();
  }

  function setup(table) {
    var prefix = table.getAttribute("data-state") || "";
    if (prefix) { prefix += "."; }
    var tbody = table.tBodies[0];
    if (!tbody) { return; }
    var rows = Array.prototype.slice.call(tbody.rows);
    rows.forEach(function (r, i) { r.setAttribute("data-index", String(i)); });
    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    var tools = document.querySelector('.table-tools[data-table="' + table.id + '"]');
    var search = tools ? tools.querySelector('[data-role="search"]') : null;
    var filters = tools ? Array.prototype.slice.call(tools.querySelectorAll('[data-role="filter"]')) : [];
    var count = tools ? tools.querySelector('[data-role="count"]') : null;
    var maxes = tools ? Array.prototype.slice.call(tools.querySelectorAll('[data-role="maxprice"]')) : [];
    function bound(input) {
      var v = input.value.trim();
      var f = v === "" ? NaN : parseFloat(v);
      return isFinite(f) && f >= 0 ? f : null;
    }
    var state = { sort: null, dir: "asc" };

    function sortBy(key, dir) {
      var col = -1;
      heads.forEach(function (th, i) {
        if (th.getAttribute("data-key") === key) { col = i; }
        th.removeAttribute("aria-sort");
      });
      if (col < 0) { return false; }
      heads.forEach(function (h) {
        var arrow = h.querySelector(".arrow");
        if (arrow) { arrow.textContent = ""; }
      });
      var th = heads[col];
      var numeric = th.getAttribute("data-type") === "num";
      var sign = dir === "desc" ? -1 : 1;
      var keyed = rows.map(function (r) {
        return { row: r, key: cellKey(r.cells[col], numeric), index: +r.getAttribute("data-index") };
      });
      keyed.sort(function (a, b) {
        if (a.key === null && b.key === null) { return a.index - b.index; }
        if (a.key === null) { return 1; }   /* absent values last, whatever the direction */
        if (b.key === null) { return -1; }
        if (a.key < b.key) { return -sign; }
        if (a.key > b.key) { return sign; }
        return a.index - b.index;
      });
      var frag = document.createDocumentFragment();
      keyed.forEach(function (k) { frag.appendChild(k.row); });
      tbody.appendChild(frag);
      th.setAttribute("aria-sort", dir === "desc" ? "descending" : "ascending");
      var mark = th.querySelector(".arrow");
      if (mark) { mark.textContent = dir === "desc" ? " \u25BC" : " \u25B2"; }
      state.sort = key;
      state.dir = dir;
      table.dispatchEvent(new CustomEvent("mb-sorted"));
      return true;
    }

    function applyFilters() {
      var q = search ? search.value.trim().toLocaleLowerCase() : "";
      var active = {};
      filters.forEach(function (f) { active[f.getAttribute("data-filter")] = f.checked; });
      var shown = 0;
      rows.forEach(function (r) {
        var ok = true;
        if (q && r.textContent.toLocaleLowerCase().indexOf(q) < 0) { ok = false; }
        if (active.open && r.getAttribute("data-open") !== "1") { ok = false; }
        if (active.partial && r.getAttribute("data-partial") === "1") { ok = false; }
        maxes.forEach(function (m) {
          var b = bound(m);
          if (b === null) { return; }
          var v = r.getAttribute("data-" + m.getAttribute("data-price"));
          var price = v === null || v === "" ? NaN : parseFloat(v);
          if (!(isFinite(price) && price <= b)) { ok = false; }
        });
        r.hidden = !ok;
        if (ok) { shown += 1; }
      });
      if (count) { count.textContent = "Showing " + shown + " of " + rows.length + " rows"; }
    }

    function store() {
      var p = params();
      function put(name, value) {
        if (value) { p.set(prefix + name, value); } else { p.delete(prefix + name); }
      }
      put("sort", state.sort);
      put("dir", state.sort ? state.dir : "");
      put("q", search ? search.value.trim() : "");
      filters.forEach(function (f) {
        put(f.getAttribute("data-filter") === "partial" ? "nopartial" : f.getAttribute("data-filter"),
            f.checked ? "1" : "");
      });
      maxes.forEach(function (m) {
        var b = bound(m);
        put("max" + m.getAttribute("data-price"), b === null ? "" : String(b));
      });
      saveParams(p);
    }

    heads.forEach(function (th) {
      var key = th.getAttribute("data-key");
      if (!key) { return; }
      var button = document.createElement("button");
      button.type = "button";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      var arrow = document.createElement("span");
      arrow.className = "arrow";
      arrow.setAttribute("aria-hidden", "true");  /* aria-sort already says it; keep the name "Score" */
      button.appendChild(arrow);
      th.appendChild(button);
      button.addEventListener("click", function () {
        var dir;
        if (state.sort === key) { dir = state.dir === "asc" ? "desc" : "asc"; }
        else { dir = th.getAttribute("data-dir") || "asc"; }
        sortBy(key, dir);
        store();
      });
    });

    if (tools) {
      tools.hidden = false;
      if (search) { search.addEventListener("input", function () { applyFilters(); store(); }); }
      filters.forEach(function (f) { f.addEventListener("change", function () { applyFilters(); store(); }); });
      maxes.forEach(function (m) { m.addEventListener("input", function () { applyFilters(); store(); }); });
    }

    var p = params();
    if (search && p.get(prefix + "q")) { search.value = p.get(prefix + "q"); }
    filters.forEach(function (f) {
      var name = f.getAttribute("data-filter") === "partial" ? "nopartial" : f.getAttribute("data-filter");
      f.checked = p.get(prefix + name) === "1";
    });
    maxes.forEach(function (m) {
      var v = p.get(prefix + "max" + m.getAttribute("data-price"));
      if (v !== null && isFinite(parseFloat(v)) && parseFloat(v) >= 0) { m.value = v; }
    });
    if (p.get(prefix + "sort")) {
      sortBy(p.get(prefix + "sort"), p.get(prefix + "dir") === "desc" ? "desc" : "asc");
    }
    applyFilters();
  }

  /* Tables the templates left plain: sortable once they pass ten rows. Matrices (heatmaps,
     significance tables) and tables drawn by other scripts keep their order. */
  var MIN_ROWS = 10;
  function slugText(text) {
    return text.trim().toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "col";
  }
  function autoSortable() {
    var n = 0;
    Array.prototype.forEach.call(document.querySelectorAll("main table"), function (table) {
      if (table.classList.contains("sortable") || table.classList.contains("heatmap") ||
          table.classList.contains("sigmatrix") || table.hasAttribute("data-nosort")) { return; }
      if (!table.tHead || table.tHead.rows.length !== 1 || !table.tBodies[0]) { return; }
      var rows = table.tBodies[0].rows, heads = table.tHead.rows[0].cells;
      if (rows.length <= MIN_ROWS) { return; }
      for (var r = 0; r < rows.length; r += 1) { if (rows[r].cells.length !== heads.length) { return; } }
      n += 1;
      if (!table.id) { table.id = "table-" + n; }
      table.setAttribute("data-state", "t" + n);
      var used = {};
      Array.prototype.forEach.call(heads, function (th, i) {
        if (th.tagName !== "TH") { return; }
        var key = slugText(th.textContent);
        if (used[key]) { key += "-" + i; }
        used[key] = true;
        th.setAttribute("data-key", key);
        var nums = 0, filled = 0;
        Array.prototype.forEach.call(rows, function (row) {
          var c = row.cells[i];
          if (c.textContent.trim() !== "") { filled += 1; if (c.classList.contains("num")) { nums += 1; } }
        });
        if (filled && nums * 2 >= filled) { th.setAttribute("data-type", "num"); }
      });
      table.classList.add("sortable");
    });
  }

  /* The sticky header. A table in a .scroll box (overflow-x: auto) cannot use position: sticky
     against the page, so a copy of its header (aria-hidden; its buttons forward clicks to the
     real ones) is fixed to the top of the window while the table's own header is above it,
     clipped to the box and scrolled sideways with it. Column widths are measured from the
     real header. Tables shown as lists (narrow screens, display: block) need none. */
  function stickyHead(table) {
    var box = table.parentElement;
    if (!box || !box.classList.contains("scroll") || !table.tHead) { return; }
    var holder = document.createElement("div");
    holder.className = "sticky-head";
    holder.setAttribute("aria-hidden", "true");
    holder.hidden = true;
    var inner = document.createElement("div");
    inner.className = "sticky-head-inner";
    var clone = document.createElement("table");
    holder.appendChild(inner);
    inner.appendChild(clone);
    document.body.appendChild(holder);
    var pending = false;

    function build() {
      clone.className = table.className.replace(/\bsortable\b/, "") + " sticky-clone";
      clone.textContent = "";
      var head = table.tHead.cloneNode(true);
      var real = table.tHead.rows[0].cells, copy = head.rows[0].cells;
      Array.prototype.forEach.call(copy, function (th, i) {
        th.removeAttribute("id");
        var w = real[i].getBoundingClientRect().width + "px";
        th.style.width = w; th.style.minWidth = w; th.style.maxWidth = w;
        var b = th.querySelector("button");
        if (b) {
          b.tabIndex = -1;
          b.addEventListener("click", function () {
            var target = real[i].querySelector("button");
            if (target) { target.click(); }
          });
        }
      });
      clone.appendChild(head);
      clone.style.width = table.getBoundingClientRect().width + "px";
    }
    function sync() {
      pending = false;
      var listed = window.getComputedStyle(table).display !== "table";
      var t = table.getBoundingClientRect(), h = table.tHead.getBoundingClientRect();
      var show = !listed && h.top < 0 && t.bottom > h.height * 2;
      if (show !== !holder.hidden) {
        if (show) { build(); }
        holder.hidden = !show;
      }
      if (!show) { return; }
      var b = box.getBoundingClientRect();
      holder.style.left = b.left + "px";
      holder.style.width = box.clientWidth + "px";
      inner.scrollLeft = box.scrollLeft;
    }
    function later() { if (!pending) { pending = true; window.requestAnimationFrame(sync); } }
    window.addEventListener("scroll", later, { passive: true });
    window.addEventListener("resize", function () { if (!holder.hidden) { build(); } later(); });
    box.addEventListener("scroll", later, { passive: true });
    table.addEventListener("mb-sorted", function () { if (!holder.hidden) { build(); later(); } });
    later();
  }

  function init() {
    autoSortable();
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable[id]"), setup);
    Array.prototype.forEach.call(document.querySelectorAll("main table"), function (table) {
      if (table.tBodies[0] && table.tBodies[0].rows.length > MIN_ROWS) { stickyHead(table); }
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
}());
