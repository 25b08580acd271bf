/* Uploads from the browser straight to storage (docs/dashboard.md, "Media"; docs/media.md,
 * "Uploads from the browser"): for each file chosen or dropped, at once:
 *   1. its type and size are checked against the limits the page carries (data-types: the core's
 *      catalog, rendered by the page; no table of its own here): a refused file sends nothing;
 *   2. an image's SHA-256 is computed here (crypto.subtle), so a file the library holds already
 *      is never uploaded again;
 *   3. POST {presign} (the session cookie, the page's CSRF token in X-CSRF-Token) answers an
 *      upload URL, or that the library holds the file;
 *   4. PUT to the upload URL with XMLHttpRequest, a <progress> labelled by the file's name;
 *   5. POST {confirm}: the core checks the bytes and makes the thumbnail.
 * Any failure is shown with its code, and an upload that did not go through is discarded
 * (POST {discard}: deletes the record only while it is pending); housekeeping removes whatever
 * that misses. The media's name is the file's name.
 *
 * Reusable: window.HeraldUpload
 *   HeraldUpload.attach(root, callbacks)  wires an element carrying data-presign, data-confirm,
 *       data-discard (URLs; "{media_id}" is replaced), data-csrf and data-types (JSON: MIME type →
 *       {kind, max_bytes}), and optionally data-sign-in (where a row's "Sign in again" leads when
 *       the session has ended; the endpoints' own page otherwise), with a file input, an optional
 *       [data-dropzone] and an optional ul.uploads for the progress rows. The media page's and
 *       compose's areas are templates/upload_area.html. Callbacks, all optional:
 *         onUploaded(answer, file)   answer: the confirm endpoint's JSON
 *                                    ({media_id, name, type, dimensions, status, item_html, duplicate})
 *         onDuplicate(answer, file)  answer: {media_id, duplicate: true, name, type, dimensions}
 *         onFailed(error, file)      error: {code, error}
 *       Returns {upload(file) → Promise of {state: "uploaded"|"duplicate"|"failed", ...}}.
 *   HeraldUpload.check(file, types)  → null, or {code, error} for a file refused before upload.
 * Elements with [data-media-upload] are attached on load; their data-list names the list (an id)
 * the uploaded media's item (item_html) is put first in.
 */
(function () {
  "use strict";

  var KINDS_HASHED = { image: true, gif: true };

  function formatBytes(n) {
    if (n >= 1e9) return (n / 1e9).toFixed(n % 1e9 ? 1 : 0) + " GB";
    if (n >= 1e6) return (n / 1e6).toFixed(n % 1e6 ? 1 : 0) + " MB";
    if (n >= 1e3) return Math.round(n / 1e3) + " KB";
    return n + " bytes";
  }

  function check(file, types) {
    var fact = types[(file.type || "").toLowerCase()];
    if (!fact) {
      return {
        code: "UNSUPPORTED_MEDIA_TYPE",
        error: (file.type || "This type of file") + " cannot go in the library: " + Object.keys(types).join(", ") + " can."
      };
    }
    if (file.size === 0) return { code: "VALIDATION_ERROR", error: "The file is empty." };
    if (file.size > fact.max_bytes) {
      return {
        code: "FILE_TOO_LARGE",
        error: fact.kind + " files are limited to " + formatBytes(fact.max_bytes) + "; this one is " + formatBytes(file.size) + "."
      };
    }
    return null;
  }

  function hex(buffer) {
    var bytes = new Uint8Array(buffer);
    var out = "";
    for (var i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    return out;
  }

  function sha256(file) {
    // crypto.subtle exists in secure contexts only (https, localhost): elsewhere confirm dedupes.
    if (!window.crypto || !window.crypto.subtle || !file.arrayBuffer) return Promise.resolve("");
    return file.arrayBuffer().then(function (data) {
      return window.crypto.subtle.digest("SHA-256", data);
    }).then(hex, function () { return ""; });
  }

  function postJSON(url, body, csrf) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body || {})
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        return { status: response.status, body: data };
      });
    }, function () {
      return { status: 0, body: { code: "NETWORK_ERROR", error: "Herald could not be reached." } };
    });
  }

  function put(url, file, type, onProgress) {
    return new Promise(function (resolve) {
      var xhr = new XMLHttpRequest();
      xhr.open("PUT", url);
      xhr.setRequestHeader("Content-Type", type);
      xhr.upload.addEventListener("progress", function (event) {
        if (event.lengthComputable) onProgress(event.loaded, event.total);
      });
      xhr.addEventListener("load", function () {
        var data = {};
        try { data = JSON.parse(xhr.responseText); } catch (e) { data = {}; }
        resolve({ status: xhr.status, body: data });
      });
      function failed(what) {
        return function () {
          resolve({ status: 0, body: { code: "UPLOAD_FAILED", error: "The upload to storage " + what + "." } });
        };
      }
      xhr.addEventListener("error", failed("failed (the connection was refused or dropped)"));
      xhr.addEventListener("abort", failed("was aborted"));
      xhr.addEventListener("timeout", failed("timed out"));
      xhr.send(file);
    });
  }

  var rowCount = 0;

  function progressRow(list, file) {
    if (!list) return null;
    var id = "upload-" + (++rowCount);
    var item = document.createElement("li");
    item.className = "upload";
    item.setAttribute("data-state", "checking");
    var name = document.createElement("span");
    name.className = "upload-name";
    name.id = id + "-name";
    name.textContent = file.name;
    var bar = document.createElement("progress");
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("aria-labelledby", id + "-name");
    var status = document.createElement("span");
    status.className = "upload-status";
    status.id = id + "-status";
    status.textContent = "Checking…";
    item.appendChild(name);
    item.appendChild(bar);
    item.appendChild(status);
    list.insertBefore(item, list.firstChild);
    return { item: item, bar: bar, status: status };
  }

  function show(row, state, text, code) {
    if (!row) return;
    row.item.setAttribute("data-state", state);
    row.status.textContent = text;
    if (code) row.status.setAttribute("data-code", code);
    else row.status.removeAttribute("data-code");
    if (state === "uploaded" || state === "duplicate") row.bar.value = 100;
  }

  function settingsOf(root) {
    return {
      types: JSON.parse(root.getAttribute("data-types") || "{}"),
      csrf: root.getAttribute("data-csrf") || "",
      presign: root.getAttribute("data-presign"),
      confirm: root.getAttribute("data-confirm"),
      discard: root.getAttribute("data-discard"),
      signIn: root.getAttribute("data-sign-in") || ""
    };
  }

  function attach(root, callbacks) {
    callbacks = callbacks || {};
    var settings = settingsOf(root);
    var list = root.querySelector("ul.uploads");
    var queue = Promise.resolve();
    function at(template, mediaId) { return template.replace("{media_id}", encodeURIComponent(mediaId)); }

    function fail(row, file, error, kept) {
      var text = "Not uploaded: " + (error.error || "it did not work") + (error.code ? " (" + error.code + ")" : "");
      if (!kept) text += " Nothing was kept.";
      show(row, "failed", text, error.code || "FAILED");
      if (error.sign_in && row) {
        var link = document.createElement("a");
        link.href = settings.signIn || error.sign_in;
        link.textContent = "Sign in again";
        row.status.appendChild(document.createTextNode(" "));
        row.status.appendChild(link);
      }
      if (callbacks.onFailed) callbacks.onFailed(error, file);
      return { state: "failed", code: error.code || "FAILED" };
    }

    function discard(mediaId) {
      return postJSON(at(settings.discard, mediaId), {}, settings.csrf);
    }

    function uploadOne(file) {
      var row = progressRow(list, file);
      var refused = check(file, settings.types);
      if (refused) return Promise.resolve(fail(row, file, refused, true));
      var type = file.type.toLowerCase();
      var kind = settings.types[type].kind;
      var hashing = KINDS_HASHED[kind] ? sha256(file) : Promise.resolve("");
      return hashing.then(function (hash) {
        var ask = { filename: file.name, mime_type: type, size_bytes: file.size };
        if (hash) ask.content_hash = hash;
        return postJSON(settings.presign, ask, settings.csrf);
      }).then(function (answer) {
        if (answer.status === 200 && answer.body.duplicate) {
          show(row, "duplicate", "Already in the library as " + answer.body.name + ": not uploaded again.", "");
          if (callbacks.onDuplicate) callbacks.onDuplicate(answer.body, file);
          return { state: "duplicate", media_id: answer.body.media_id };
        }
        if (answer.status !== 201) return fail(row, file, answer.body, true);
        var mediaId = answer.body.media_id;
        show(row, "uploading", "Uploading…", "");
        return put(answer.body.upload_url, file, type, function (loaded, total) {
          if (row) row.bar.value = Math.floor((loaded / total) * 100);
        }).then(function (stored) {
          if (stored.status !== 200) {
            var error = stored.body && stored.body.code ? stored.body : {
              code: stored.status ? "STORAGE_REFUSED" : "UPLOAD_FAILED",
              error: stored.status ? "Storage refused the upload (HTTP " + stored.status + ")." : "The upload to storage failed."
            };
            return discard(mediaId).then(function () { return fail(row, file, error, false); });
          }
          show(row, "confirming", "Checking the file…", "");
          return postJSON(at(settings.confirm, mediaId), {}, settings.csrf).then(function (confirmed) {
            if (confirmed.status !== 200) {
              return discard(mediaId).then(function () { return fail(row, file, confirmed.body, false); });
            }
            var done = confirmed.body;
            show(row, "uploaded", done.duplicate ? "Already in the library: the copy was dropped." : "Uploaded.", "");
            if (callbacks.onUploaded) callbacks.onUploaded(done, file);
            return { state: "uploaded", media_id: done.media_id };
          });
        });
      });
    }

    function upload(file) {
      var next = queue.then(function () { return uploadOne(file); });
      queue = next.catch(function () {});
      return next;
    }

    var input = root.querySelector("input[type=file]");
    if (input) {
      input.addEventListener("change", function () {
        var files = Array.prototype.slice.call(input.files || []);
        files.forEach(upload);
        input.value = "";
      });
    }
    var zone = root.querySelector("[data-dropzone]");
    if (zone) {
      zone.addEventListener("dragover", function (event) {
        event.preventDefault();
        zone.classList.add("dragging");
      });
      zone.addEventListener("dragleave", function () { zone.classList.remove("dragging"); });
      zone.addEventListener("drop", function (event) {
        event.preventDefault();
        zone.classList.remove("dragging");
        Array.prototype.slice.call((event.dataTransfer && event.dataTransfer.files) || []).forEach(upload);
      });
    }
    return { upload: upload };
  }

  function showInList(listId) {
    return function (answer) {
      var list = document.getElementById(listId);
      if (!list || !answer.item_html || document.getElementById("media-" + answer.media_id)) return;
      var holder = document.createElement("template");
      holder.innerHTML = answer.item_html.trim();
      list.insertBefore(holder.content, list.firstChild);
      list.hidden = false;
      var empty = document.getElementById("no-media");
      if (empty) empty.hidden = true;
    };
  }

  window.HeraldUpload = { attach: attach, check: check };

  document.querySelectorAll("[data-media-upload]").forEach(function (root) {
    var listId = root.getAttribute("data-list");
    attach(root, listId ? { onUploaded: showInList(listId) } : {});
  });
})();
