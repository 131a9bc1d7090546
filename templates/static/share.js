/* ModelBoards: the "Copy link" control. Copies the address of the current view (the URL with
   its query: sort, filters, weights, compared models) to the clipboard; where the clipboard is
   not available, shows the address selected in a text field to copy by hand. */
(function () {
  "use strict";

  function setup(box) {
    var button = box.querySelector("button");
    var status = box.querySelector('[data-role="status"]');
    var field = box.querySelector("input");
    box.hidden = false;
    button.addEventListener("click", function () {
      var url = window.location.href;
      box.setAttribute("data-copied", url);
      function manual() {
        field.hidden = false;
        field.value = url;
        field.select();
        status.textContent = "Select and copy the address above.";
      }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(url).then(function () {
          status.textContent = "Link copied.";
        }, manual);
      } else {
        manual();
      }
    });
  }

  function init() { Array.prototype.forEach.call(document.querySelectorAll(".copy-link"), setup); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
}());
