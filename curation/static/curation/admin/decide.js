// The observation page's one Decide form: show the fields of the chosen decision, offer the
// reason last given for the same kind of decision, and the keyboard shortcuts. No key saves a
// low-score candidate or retires by itself: the server asks for a confirmation first (`a`),
// and `x` only opens the retire confirmation.
(function () {
  "use strict";
  var form = document.getElementById("cr-decide");
  if (!form) { return; }
  var reasons = {};
  try { reasons = JSON.parse(form.dataset.reasons || "{}"); } catch (e) { reasons = {}; }
  var reason = document.getElementById("id_reason");
  var status = form.querySelector("select[name=status]");
  var saveNext = document.getElementById("cr-save-next");
  var skip = document.getElementById("cr-skip");
  var typed = reason.value !== "";  // a reason typed (or sent back with an error) is kept

  function chosen() {
    var radio = form.querySelector("input[name=action]:checked");
    return radio ? radio.value : "";
  }
  function kind() {
    var action = chosen();
    return action === "set_state" && status ? action + ":" + status.value : action;
  }
  function offerReason() {
    if (!typed) { reason.value = reasons[kind()] || ""; }
  }
  function show() {
    var action = chosen();
    form.querySelectorAll(".cr-fields").forEach(function (el) {
      el.hidden = el.dataset.for !== action;
    });
    offerReason();
  }
  function choose(action) {
    var radio = document.getElementById("cr-do-" + action);
    if (!radio) { return false; }
    radio.checked = true;
    show();
    return true;
  }
  function saveAndNext() {
    if (!reason.value.trim()) {
      reason.focus();
      reason.placeholder = "Why? Type a reason, then Enter (it is offered again next time)";
      return;
    }
    form.requestSubmit(saveNext);
  }

  function needReason(event) {
    if (reason.value.trim()) { return; }
    event.preventDefault();
    reason.focus();
    reason.placeholder = "Why? Type a reason, then Enter (it is offered again next time)";
  }
  // Any save needs a reason: ask for it here instead of a round trip that refuses it.
  form.addEventListener("submit", function (event) {
    if (event.submitter && event.submitter.name === "choice") { return; }
    needReason(event);
  });
  // Accepting another candidate than the top one is its own kind of decision (its own reason).
  document.querySelectorAll("button[name=candidate]").forEach(function (button) {
    button.addEventListener("click", function (event) {
      var top = form.querySelector("input[name=top_candidate]");
      var key = top && top.value === button.value ? "accept_candidate" : "accept_candidate:other";
      if (!typed) { reason.value = reasons[key] || ""; }
      needReason(event);
    });
  });

  form.addEventListener("change", function (event) {
    if (event.target.name === "action" || event.target === status) { show(); }
  });
  reason.addEventListener("input", function () { typed = reason.value !== ""; });
  if (status) {
    status.addEventListener("keydown", function (event) {
      if (event.key === "Enter") { event.preventDefault(); saveAndNext(); }
    });
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) { return; }
    var key = event.key;
    var focusOn = null;
    if (key === "a" && choose("accept_candidate")) { saveAndNext(); }
    else if (key === "n" && choose("no_canonical_record")) { saveAndNext(); }
    else if (key === "l" && choose("link")) { focusOn = form.querySelector("input[name=identifier]"); }
    else if (key === "s" && choose("set_state")) { focusOn = status; }
    else if (key === "c" && choose("correct")) { focusOn = form.querySelector("input[name=work_title]"); }
    else if (key === "r") { focusOn = reason; }
    // Retiring takes the reference out of the record: the key only opens its confirmation.
    else if (key === "x" && choose("retire")) { focusOn = document.getElementById("cr-retire-confirm"); }
    else if (key === "j" && skip) { window.location.href = skip.href; }
    else if (/^[1-9]$/.test(key) && status && status.options.length >= Number(key) && choose("set_state")) {
      status.selectedIndex = Number(key) - 1;
      show();
      saveAndNext();
    } else { return; }
    event.preventDefault();
    if (focusOn) { focusOn.focus(); }
  });
  show();
}());
