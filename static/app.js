// storefront dashboard behaviour that HTML alone cannot give. Loaded as a file: the
// Content-Security-Policy allows no inline script.
(function () {
  "use strict";
  // Copy buttons: <button data-copy="text">.
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-copy]");
    if (!btn) return;
    ev.preventDefault();
    var text = btn.getAttribute("data-copy");
    var done = function () {
      var old = btn.textContent;
      btn.textContent = "Copied";
      btn.setAttribute("aria-live", "polite");
      setTimeout(function () { btn.textContent = old; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done);
    } else {
      var ta = document.createElement("textarea");
      ta.value = text;
      ta.setAttribute("readonly", "");
      ta.className = "sr-only";
      document.body.appendChild(ta);
      ta.select();
      try { document.execCommand("copy"); done(); } finally { ta.remove(); }
    }
  });

  // Reactivate form (<form data-what-base>): the sentence saying what will happen and
  // the confirmation question follow the Send to address and the Refulfill box as
  // they are edited. The same sentence as ReactivatePanel.WhatHappens in templates/.
  function describeReactivation(form) {
    var base = form.getAttribute("data-what-base");
    var input = form.querySelector("input[name=customer_email]");
    var box = form.querySelector("input[name=refulfill]");
    var to = (input && input.value.trim()) || form.getAttribute("data-default-to") || "";
    var s = to
      ? base + " and an e-mail with the download links and product keys goes to " + to + "."
      : base.replace(/,$/, "") + ". Enter a Send to address for the e-mail with the download links and product keys.";
    s += box && box.checked
      ? " Refulfill: missing product keys are generated."
      : " Product keys stay as they are; tick Refulfill to generate missing ones.";
    var what = form.querySelector("#reactivate-what");
    if (what) what.textContent = s;
    form.setAttribute("hx-confirm", form.getAttribute("data-confirm-prefix") + " " + s);
  }
  ["input", "change"].forEach(function (type) {
    document.addEventListener(type, function (ev) {
      var form = ev.target.closest && ev.target.closest("form[data-what-base]");
      if (form) describeReactivation(form);
    });
  });
})();
