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
})();
