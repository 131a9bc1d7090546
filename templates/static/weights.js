/* ModelBoards: the reader's own family weights on a role board.
   Recomputes, in the browser, by the published formula:
     R = sum(w_f * mean_f for present f) / sum(w_f for present f)   (families with w_f > 0 only)
     score = R rounded half to even;  rank = 1 + number of rows with a strictly greater R
   Row order: descending R, ties in ascending model spelling. Weights in the URL: w.<family>=<value>.
   Every row gets data-r-browser (the R this script computed), also with the published weights.
   The bootstrap's columns (95% interval, Rank (UB)) and the Movement column (the published rank
   against the previous snapshot's) belong to the published weights: with the reader's own
   weights they show a dash, and sort as empty, until the published weights are back. */
(function () {
  "use strict";

  function roundHalfEven(x) {
    var f = Math.floor(x), d = x - f;
    if (d > 0.5) { return f + 1; }
    if (d < 0.5) { return f; }
    return f % 2 === 0 ? f : f + 1;
  }

  function computeR(means, weights) {
    var num = 0, den = 0, present = 0;
    weights.forEach(function (fw) {
      var f = fw[0], w = fw[1];
      if (w > 0 && Object.prototype.hasOwnProperty.call(means, f)) {
        num += w * means[f];
        den += w;
        present += 1;
      }
    });
    return present && den > 0 ? num / den : null;
  }

  function setup(table) {
    var panel = document.getElementById("own-weights");
    var form = panel ? panel.querySelector('[data-role="weights"]') : null;
    if (!form) { return; }
    var published = JSON.parse(table.getAttribute("data-weights"));
    var inputs = Array.prototype.slice.call(form.querySelectorAll("input[data-family]"));
    var note = panel.querySelector('[data-role="custom-note"]');
    var tbody = table.tBodies[0];
    var rows = Array.prototype.slice.call(tbody.rows);
    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    function col(key) {
      for (var i = 0; i < heads.length; i += 1) { if (heads[i].getAttribute("data-key") === key) { return i; } }
      return -1;
    }
    var rankCol = col("rank"), scoreCol = col("score");
    var publishedCols = [col("interval"), col("rank_ub"), col("move"), col("loo")].filter(function (i) { return i >= 0; });
    rows.forEach(function (r) {
      var rank = r.cells[rankCol], score = r.cells[scoreCol];
      r._published = { rankHTML: rank.innerHTML, rankSort: rank.getAttribute("data-sort"),
                       scoreHTML: score.innerHTML, scoreSort: score.getAttribute("data-sort"),
                       own: publishedCols.map(function (i) {
                         return [r.cells[i].innerHTML, r.cells[i].getAttribute("data-sort")];
                       }) };
      r._means = JSON.parse(r.getAttribute("data-families") || "{}");
    });

    function current() {
      return inputs.map(function (inp) {
        var v = parseFloat(inp.value);
        return [inp.getAttribute("data-family"), isFinite(v) && v >= 0 ? v : 0];
      });
    }
    function isPublished(ws) {
      return ws.every(function (fw, i) { return fw[1] === published[i][1]; });
    }

    function apply(store) {
      var ws = current();
      var custom = !isPublished(ws);
      var scored = rows.map(function (r) {
        var R = computeR(r._means, custom ? ws : published);
        r.setAttribute("data-r-browser", R === null ? "" : String(R));
        return { row: r, r: R, model: r.getAttribute("data-model") || "" };
      });
      if (custom) {
        var ranked = scored.slice().sort(function (a, b) {
          if (a.r === null || b.r === null) { return (a.r === null) - (b.r === null); }
          if (a.r !== b.r) { return b.r - a.r; }
          return a.model < b.model ? -1 : (a.model > b.model ? 1 : 0);
        });
        var frag = document.createDocumentFragment();
        ranked.forEach(function (s, i) {
          var rank = 1;
          while (rank - 1 < i && ranked[rank - 1].r !== s.r) { rank += 1; }
          if (s.r === null) { rank = null; }
          var rc = s.row.cells[rankCol], sc = s.row.cells[scoreCol];
          rc.textContent = rank === null ? "\u2013" : String(rank);
          rc.setAttribute("data-sort", rank === null ? "" : String(rank));
          sc.innerHTML = "";
          var strong = document.createElement("strong");
          strong.textContent = s.r === null ? "\u2013" : String(roundHalfEven(s.r));
          sc.appendChild(strong);
          sc.setAttribute("data-sort", s.r === null ? "" : String(s.r));
          publishedCols.forEach(function (i) {
            s.row.cells[i].textContent = "\u2013";
            if (s.row.cells[i].hasAttribute("data-sort")) { s.row.cells[i].setAttribute("data-sort", ""); }
          });
          s.row.setAttribute("data-custom", "1");
          frag.appendChild(s.row);
        });
        tbody.appendChild(frag);
      } else {
        rows.forEach(function (r) {
          var rc = r.cells[rankCol], sc = r.cells[scoreCol];
          rc.innerHTML = r._published.rankHTML;
          rc.setAttribute("data-sort", r._published.rankSort);
          publishedCols.forEach(function (i, k) {
            var kept = r._published.own[k];
            r.cells[i].innerHTML = kept[0];
            if (kept[1] !== null) { r.cells[i].setAttribute("data-sort", kept[1]); }
          });
          sc.innerHTML = r._published.scoreHTML;
          sc.setAttribute("data-sort", r._published.scoreSort);
          r.removeAttribute("data-custom");
        });
        var frag2 = document.createDocumentFragment();
        rows.slice().sort(function (a, b) { return (+a.getAttribute("data-index") || 0) - (+b.getAttribute("data-index") || 0); })
          .forEach(function (r) { frag2.appendChild(r); });
        tbody.appendChild(frag2);
      }
      table.setAttribute("data-custom-weights", custom ? "1" : "0");
      if (note) { note.hidden = !custom; }
      if (store) {
        var p = new URLSearchParams(window.location.search);
        ws.forEach(function (fw, i) {
          if (custom) { p.set("w." + fw[0], String(fw[1])); } else { p.delete("w." + fw[0]); }
        });
        var qs = p.toString();
        window.history.replaceState(null, "", window.location.pathname + (qs ? "?" + qs : "") + window.location.hash);
      }
    }

    var p = new URLSearchParams(window.location.search);
    var fromUrl = false;
    inputs.forEach(function (inp) {
      var v = p.get("w." + inp.getAttribute("data-family"));
      if (v !== null && isFinite(parseFloat(v)) && parseFloat(v) >= 0) { inp.value = v; fromUrl = true; }
    });
    panel.hidden = false;
    if (fromUrl) { panel.open = true; }
    inputs.forEach(function (inp) { inp.addEventListener("input", function () { apply(true); }); });
    form.querySelector('[data-role="reset"]').addEventListener("click", function () {
      inputs.forEach(function (inp) { inp.value = inp.getAttribute("data-published"); });
      apply(true);
    });
    // the weights under which another top-5 row would lead (the weight-robustness region)
    Array.prototype.forEach.call(panel.querySelectorAll('[data-role="try-weights"]'), function (btn) {
      btn.addEventListener("click", function () {
        var ws = JSON.parse(btn.getAttribute("data-weights"));
        inputs.forEach(function (inp) {
          var f = inp.getAttribute("data-family");
          inp.value = Object.prototype.hasOwnProperty.call(ws, f) ? String(ws[f]) : "0";
        });
        apply(true);
      });
    });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    apply(false);
    table.setAttribute("data-weights-ready", "1");
  }

  function init() {
    var t = document.querySelector("table#board-table[data-weights]");
    if (t) { setup(t); }
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
}());
