// Links to check: one key per decision, as on the observation page (decide.js).
// y confirms the link (submits the form), o opens the reference to overturn it, j skips.
(function () {
  "use strict";
  var form = document.getElementById("cr-confirm-form");
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) { return; }
    var open = document.getElementById("cr-open");
    var skip = document.getElementById("cr-skip");
    if (event.key === "y" && form) { form.requestSubmit(); }
    else if (event.key === "o" && open) { window.location.href = open.href; }
    else if (event.key === "j" && skip) { window.location.href = skip.href; }
    else { return; }
    event.preventDefault();
  });
}());
