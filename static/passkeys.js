// Passkeys: "Add a passkey" on the Security page and "Sign in with a passkey" on the
// sign-in pages, through navigator.credentials (WebAuthn). Source of static/passkeys.js
// (npm run build); loaded as a file, since the Content-Security-Policy allows no inline
// script. The server keeps each challenge and accepts its answer once.
(function () {
  "use strict";
  var supported = !!(window.PublicKeyCredential && navigator.credentials && window.fetch);

  function toBytes(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function toText(buf) {
    var b = new Uint8Array(buf), bin = "";
    for (var i = 0; i < b.length; i++) bin += String.fromCharCode(b[i]);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function ids(list) {
    return (list || []).map(function (c) { return Object.assign({}, c, { id: toBytes(c.id) }); });
  }
  // The server's options (JSON, binary fields in base64url) as the browser takes them.
  function creationOptions(pk) {
    pk.challenge = toBytes(pk.challenge);
    pk.user.id = toBytes(pk.user.id);
    pk.excludeCredentials = ids(pk.excludeCredentials);
    return pk;
  }
  function requestOptions(pk) {
    pk.challenge = toBytes(pk.challenge);
    if (pk.allowCredentials) pk.allowCredentials = ids(pk.allowCredentials);
    return pk;
  }
  // The authenticator's answer as JSON, binary fields in base64url.
  function answer(cred) {
    var r = cred.response;
    var out = {
      id: cred.id, rawId: toText(cred.rawId), type: cred.type, response: { clientDataJSON: toText(r.clientDataJSON) },
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {}
    };
    if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
    if (r.attestationObject) {
      out.response.attestationObject = toText(r.attestationObject);
      if (r.getTransports) out.response.transports = r.getTransports();
    } else {
      out.response.authenticatorData = toText(r.authenticatorData);
      out.response.signature = toText(r.signature);
      if (r.userHandle) out.response.userHandle = toText(r.userHandle);
    }
    return out;
  }
  // post sends body and reads the JSON answer; a refusal throws the server's message.
  function post(url, body, type) {
    return fetch(url, {
      method: "POST", credentials: "same-origin", body: body,
      headers: { "Content-Type": type, "Accept": "application/json" }
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (!res.ok) throw new Error(data.error || "The server refused the passkey (" + res.status + "). Try again.");
        return data;
      });
    });
  }
  function message(e) {
    if (e && e.name === "NotAllowedError") return "No passkey was used (it was cancelled or timed out). Try again.";
    if (e && e.name === "InvalidStateError") return "This device already holds a passkey of yours for this site.";
    if (e && e.name === "SecurityError") return "Passkeys cannot be used at this address; ask your administrator about the passkey settings.";
    return (e && e.message) || String(e);
  }
  function say(el, text) { if (el) el.textContent = text; }
  // atHome refuses, saying where to go, when this page is not at the passkeys' site
  // (rpId): the dashboard opened at 127.0.0.1 keeps its passkeys at localhost, and the
  // browser would only say "SecurityError".
  function atHome(rpId) {
    var h = location.hostname;
    if (!rpId || h === rpId || h.slice(-rpId.length - 1) === "." + rpId) return;
    throw new Error("Passkeys of this dashboard are kept at " + rpId + ": open it at " +
      location.protocol + "//" + rpId + (location.port ? ":" + location.port : "") + " to use one.");
  }

  function init() {
    document.querySelectorAll("[data-passkey-supported]").forEach(function (el) { el.hidden = !supported; });
    document.querySelectorAll("[data-passkey-unsupported]").forEach(function (el) { el.hidden = supported; });
    document.querySelectorAll("form[data-passkey-add]").forEach(function (el) { el.hidden = !supported; });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();

  // Add a passkey: <form data-passkey-add data-options=URL action=URL> with its name.
  document.addEventListener("submit", function (ev) {
    var form = ev.target.closest && ev.target.closest("form[data-passkey-add]");
    if (!form || !supported) return;
    ev.preventDefault();
    var err = form.querySelector("[data-passkey-error]"), btn = form.querySelector("button[type=submit]");
    say(err, "");
    btn.disabled = true;
    post(form.getAttribute("data-options"), new URLSearchParams(new FormData(form)).toString(), "application/x-www-form-urlencoded")
      .then(function (opts) { atHome(opts.publicKey.rp && opts.publicKey.rp.id); return navigator.credentials.create({ publicKey: creationOptions(opts.publicKey) }); })
      .then(function (cred) { return post(form.getAttribute("action"), JSON.stringify(answer(cred)), "application/json"); })
      .then(function (data) { location.assign(data.redirect); })
      .catch(function (e) { say(err, message(e)); btn.disabled = false; });
  });

  // Sign in with a passkey: <button data-passkey-signin data-options=URL data-finish=URL>.
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest && ev.target.closest("[data-passkey-signin]");
    if (!btn || !supported) return;
    ev.preventDefault();
    var err = btn.parentNode.querySelector("[data-passkey-error]");
    say(err, "");
    btn.disabled = true;
    post(btn.getAttribute("data-options"), "", "application/x-www-form-urlencoded")
      .then(function (opts) { atHome(opts.publicKey.rpId); return navigator.credentials.get({ publicKey: requestOptions(opts.publicKey) }); })
      .then(function (cred) { return post(btn.getAttribute("data-finish"), JSON.stringify(answer(cred)), "application/json"); })
      .then(function (data) { location.assign(data.redirect); })
      .catch(function (e) { say(err, message(e)); btn.disabled = false; });
  });
})();
