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

  // Reactivate form (<form data-what-to>): the sentence saying what will happen and
  // the confirmation question follow the Send to address and the Refulfill box as
  // they are edited. The server writes the sentence for every state of the form
  // (data-what-to, data-what-no-to, each also -refulfill; the address stands as
  // data-what-address); this picks the one that fits.
  function describeReactivation(form) {
    var input = form.querySelector("input[name=customer_email]");
    var box = form.querySelector("input[name=refulfill]");
    var to = (input && input.value.trim()) || form.getAttribute("data-default-to") || "";
    var which = "data-what-" + (to ? "to" : "no-to") + (box && box.checked ? "-refulfill" : "");
    var s = (form.getAttribute(which) || "").split(form.getAttribute("data-what-address")).join(to);
    var what = form.querySelector("#reactivate-what");
    if (what) what.textContent = s;
    form.setAttribute("hx-confirm", form.getAttribute("data-confirm-prefix") + " " + s);
  }
  ["input", "change"].forEach(function (type) {
    document.addEventListener(type, function (ev) {
      var form = ev.target.closest && ev.target.closest("form[data-what-to]");
      if (form) describeReactivation(form);
    });
  });

  // Filter forms (<form data-filters hx-sync="this:queue last">) show the results of
  // the filters as they are now. A request is not aborted when the filters change
  // under it (htmx reports every abort as an error, htmx:sendAbort): it finishes, and
  // its answer is dropped unless the form still holds the filters it asked for; the
  // request queued after it asks for the newest ones. Leaving a field after typing
  // (its change event) does not ask again for the results already on the page.
  function filtersOf(form) {
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-filters")) return null;
    var p = new URLSearchParams(new FormData(form));
    p.sort();
    return p.toString();
  }
  var shown = new WeakMap(); // form -> the filters of the results on the page
  var asked = new WeakMap(); // request (XMLHttpRequest) -> [form, the filters it asked for]
  document.addEventListener("htmx:load", function (ev) {
    var root = ev.detail.elt;
    if (!root.querySelectorAll) return;
    var forms = Array.prototype.slice.call(root.querySelectorAll("form[data-filters]"));
    if (root.matches && root.matches("form[data-filters]")) forms.push(root);
    forms.forEach(function (form) { shown.set(form, filtersOf(form)); });
  });
  document.addEventListener("htmx:confirm", function (ev) {
    var form = ev.detail.elt, f = filtersOf(form);
    var trigger = ev.detail.triggeringEvent;
    if (f !== null && f === shown.get(form) && !(trigger && trigger.type === "submit")) ev.preventDefault();
  });
  document.addEventListener("htmx:beforeRequest", function (ev) {
    var f = filtersOf(ev.detail.elt);
    if (f !== null) asked.set(ev.detail.xhr, [ev.detail.elt, f]);
  });
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var a = asked.get(ev.detail.xhr);
    if (!a) return;
    if (filtersOf(a[0]) !== a[1]) ev.preventDefault();
    else if (ev.detail.shouldSwap) shown.set(a[0], a[1]);
  });

  // Bulk selection (<form data-bulk>): each purchase has a row box (name=id, form=the
  // form's id) in the phone list and another in the desktop table, and both are one
  // selection: ticking either ticks the other. "Select all N matching" (name=all)
  // ticks every row box; unticking a row box leaves select-all.
  document.addEventListener("change", function (ev) {
    var box = ev.target;
    var form = box instanceof HTMLInputElement && box.type === "checkbox" && box.form;
    if (!form || !form.hasAttribute("data-bulk")) return;
    var rows = Array.prototype.filter.call(form.elements, function (el) { return el.name === "id"; });
    if (box.name === "all") {
      rows.forEach(function (el) { el.checked = box.checked; });
    } else if (box.name === "id") {
      rows.forEach(function (el) { if (el.value === box.value) el.checked = box.checked; });
      var all = form.elements.namedItem("all");
      if (!box.checked && all) all.checked = false;
    }
  });

  // Save view (<form data-save-view>) keeps the filters as they are now: htmx may have
  // changed them since the page was drawn. Without script the form holds the page's.
  // Forms with data-confirm ask before they are sent (deleting a saved view).
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement)) return;
    var ask = form.getAttribute("data-confirm");
    if (ask && !window.confirm(ask)) {
      ev.preventDefault();
      return;
    }
    if (form.hasAttribute("data-save-view")) {
      // The search box holds the whole query (the fields' part too).
      var filters = document.getElementById("search") || document.getElementById("filters");
      if (filters) form.elements.query.value = new URLSearchParams(new FormData(filters)).toString();
    }
  });
  // Search box suggestions (<input role=combobox aria-controls=LISTBOX>): the server
  // sends the listbox as the user types; the arrow keys move through its options
  // (aria-activedescendant), Enter or a click chooses one (the box takes its
  // data-value and searches, or the page of its data-href opens), Escape closes the
  // list.
  function comboOf(el) {
    return el && el.matches && el.matches("input[role=combobox][aria-controls]") ? el : null;
  }
  function listOf(input) { return document.getElementById(input.getAttribute("aria-controls")); }
  function options(input) {
    var list = listOf(input);
    return list && !list.hidden ? Array.prototype.slice.call(list.querySelectorAll("[role=option]")) : [];
  }
  function activate(input, opt) {
    options(input).forEach(function (o) { o.setAttribute("aria-selected", o === opt ? "true" : "false"); });
    if (opt) {
      input.setAttribute("aria-activedescendant", opt.id);
      opt.scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }
  function closeList(input) {
    var list = listOf(input);
    if (list) list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    activate(input, null);
  }
  function choose(input, opt) {
    // An option that is a record (the header's Find box) opens its page.
    if (opt.hasAttribute("data-href")) {
      closeList(input);
      input.setAttribute("data-opening", "");
      window.location.assign(opt.getAttribute("data-href"));
      return;
    }
    input.value = opt.getAttribute("data-value");
    closeList(input);
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }
  document.addEventListener("keydown", function (ev) {
    var input = comboOf(ev.target);
    if (!input) return;
    var opts = options(input);
    var current = document.getElementById(input.getAttribute("aria-activedescendant") || "");
    var i = opts.indexOf(current);
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      if (!opts.length) return;
      ev.preventDefault();
      var next = ev.key === "ArrowDown" ? (i + 1) % opts.length : (i <= 0 ? opts.length - 1 : i - 1);
      activate(input, opts[next]);
    } else if (ev.key === "Enter" && i >= 0) {
      ev.preventDefault();
      choose(input, opts[i]);
    } else if (ev.key === "Escape" && opts.length) {
      ev.preventDefault();
      closeList(input);
    }
  });
  // The Enter that opened an option's page does not also submit the box's form (a
  // key's separate character event may still reach it).
  document.addEventListener("submit", function (ev) {
    if (ev.target.querySelector && ev.target.querySelector("input[role=combobox][data-opening]")) ev.preventDefault();
  });
  // Back to this page (the browser's page cache): the box searches again.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("input[data-opening]").forEach(function (input) { input.removeAttribute("data-opening"); });
  });
  // "/" outside a field goes to the header's Find box, as in mail and code hosts.
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
    var t = ev.target;
    if (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) return;
    var find = document.getElementById("find-q");
    if (!find) return;
    ev.preventDefault();
    find.focus();
    find.select();
  });
  document.addEventListener("click", function (ev) {
    var opt = ev.target.closest && ev.target.closest("[role=option][data-value], [role=option][data-href]");
    var list = opt && opt.closest("[role=listbox]");
    var input = list && document.querySelector('input[role=combobox][aria-controls="' + list.id + '"]');
    if (input) choose(input, opt);
  });
  document.addEventListener("focusout", function (ev) {
    var input = comboOf(ev.target);
    // A click on an option blurs the box first: let the click choose.
    if (input && !(ev.relatedTarget && listOf(input) && listOf(input).contains(ev.relatedTarget))) {
      setTimeout(function () { if (document.activeElement !== input) closeList(input); }, 150);
    }
  });
  // A new listbox, or a new box or message: the box says whether the list is open and
  // whether its query was read.
  document.addEventListener("htmx:load", function (ev) {
    var root = ev.detail.elt;
    if (!root.id) return;
    document.querySelectorAll("input[role=combobox][aria-controls]").forEach(function (input) {
      if (root.id === input.getAttribute("aria-controls")) {
        var open = options(input).length > 0 && document.activeElement === input;
        if (!open) closeList(input);
        else input.setAttribute("aria-expanded", "true");
      }
    });
    if (root.id === "q-error") {
      var box = document.getElementById("f-q");
      if (box) {
        if (root.textContent.trim()) box.setAttribute("aria-invalid", "true");
        else box.removeAttribute("aria-invalid");
      }
    }
  });
})();
