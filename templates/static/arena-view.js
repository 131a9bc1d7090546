/* Arena page: show one view (default or style control) at a time, state in the URL (?view=).
   Optional: without this script both tables are on the page, one after the other. */
(function () {
  "use strict";
  var nav = document.querySelector(".view-switch");
  if (!nav) { return; }
  var views = { plain: document.getElementById("view-plain"), style: document.getElementById("view-style") };
  if (!views.plain || !views.style) { return; }
  var fallback = nav.getAttribute("data-default-view") === "style" ? "style" : "plain";

  function current() {
    var v = new URLSearchParams(window.location.search).get("view");
    return v === "style" || v === "plain" ? v : fallback;
  }

  function show(view) {
    Object.keys(views).forEach(function (k) { views[k].hidden = k !== view; });
    nav.querySelectorAll("a[data-view]").forEach(function (a) {
      if (a.getAttribute("data-view") === view) { a.setAttribute("aria-current", "true"); }
      else { a.removeAttribute("aria-current"); }
    });
  }

  nav.querySelectorAll("a[data-view]").forEach(function (a) {
    a.addEventListener("click", function (ev) {
      ev.preventDefault();
      var view = a.getAttribute("data-view");
      var p = new URLSearchParams(window.location.search);
      p.set("view", view);
      window.history.replaceState(null, "", window.location.pathname + "?" + p.toString());
      show(view);
    });
  });
  var note = nav.querySelector(".nojs-note");
  if (note) { note.hidden = true; }
  show(current());
})();
