/* ModelBoards theme: runs in <head> before the first paint, so a chosen theme never flashes.
   localStorage "mb-theme" = "light" | "dark" sets <html data-theme>; absent, the page follows
   prefers-color-scheme (site.css). The header's button cycles auto -> light -> dark -> auto
   and tells other scripts with a "mb-theme" event on document. */
(function () {
  "use strict";
  var KEY = "mb-theme", ORDER = ["auto", "light", "dark"];
  var root = document.documentElement;
  function stored() {
    try { var v = window.localStorage.getItem(KEY); return v === "light" || v === "dark" ? v : "auto"; }
    catch (e) { return "auto"; }
  }
  function apply(mode) {
    if (mode === "auto") { root.removeAttribute("data-theme"); } else { root.setAttribute("data-theme", mode); }
  }
  root.classList.add("js");
  apply(stored());

  function label(button, mode) {
    var name = mode === "auto" ? "Auto" : mode === "light" ? "Light" : "Dark";
    var text = button.querySelector("[data-role=theme-name]");
    if (text) { text.textContent = name; }
    /* the accessible name holds the visible word, so speech control can say it */
    button.setAttribute("aria-label", "Theme: " + name + (mode === "auto" ? " (as your system)" : "") +
                        ". Change theme");
  }
  function wire() {
    var button = document.querySelector("button.theme-toggle");
    if (!button) { return; }
    label(button, stored());
    button.addEventListener("click", function () {
      var next = ORDER[(ORDER.indexOf(stored()) + 1) % ORDER.length];
      try {
        if (next === "auto") { window.localStorage.removeItem(KEY); } else { window.localStorage.setItem(KEY, next); }
      } catch (e) { /* private mode: the choice lasts for this page only */ }
      apply(next);
      label(button, next);
      document.dispatchEvent(new CustomEvent("mb-theme", { detail: next }));
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", wire); } else { wire(); }
}());
