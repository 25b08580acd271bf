// The compose page's script (docs/dashboard.md, "Compose"). The form works without it; with it:
// - the preview follows the typing: 250 ms after the last change the form is sent to
//   /dashboard/compose/preview (the core's PreviewPosts) and its answer drawn with the preview
//   cards (preview_cards.js); the counts, the problems, the cost and why a button cannot act are
//   all in that answer, none is worked out here;
// - the buttons create the posts through /dashboard/compose/create and go where it says;
// - profiles are picked by tag, thread items added and removed, and each chosen profile's
//   version is a tab, without a round trip;
// - what is typed is kept in this tab's sessionStorage on every change and put back when the page
//   opens empty, so a session that ends (401: "Sign in again") loses nothing; a link that fills in
//   some fields (the calendar's: a time, its zone, a profile) keeps them, the draft gives the rest;
//   a post's "Duplicate" (data-from-post) is a whole post, and no draft is put back over it;
// - a post edited (data-edit): the buttons save it through /dashboard/compose/save (Save changes,
//   and a draft's Schedule and Publish now); what is typed is kept under the post's own key only
//   when the session ends, and put back over the post when the page opens again;
// - the stock picker's Search and "Add to this post" (data-round-trip) submit the form as it is,
//   so the page comes back from the server with the draft, the results or the photos attached;
// - files chosen or dropped in "From your computer" are uploaded by media_upload.js (the media
//   page's script: limits, SHA-256 dedupe, progress, discard on failure) and each media uploaded,
//   or found in the library already, is listed with the library's and checked at once;
// - the preview's media tiles show each media's thumbnail (the dashboard's thumbnail route).
"use strict";
(() => {
  const form = document.getElementById("compose");
  if (!form || typeof HeraldPreviewCards === "undefined") return;
  const Cards = HeraldPreviewCards;
  const byId = (id) => document.getElementById(id);
  const DEBOUNCE_MS = 250;
  // The buttons this form has: Schedule, Publish now and Save draft, or an edit's Save changes
  // (and a draft's Schedule and Publish now).
  const ACTIONS = Array.from(form.querySelectorAll('button[name="action"]'), (b) => b.value);
  const editing = form.dataset.edit || "";
  const content = byId("compose-content");
  const storageKey = form.dataset.draftKey;
  const maxItems = Number(form.dataset.maxThreadItems) || 25;
  const list = byId("thread-items");
  const itemTemplate = byId("thread-item-template");
  const addButton = byId("thread-add");
  const tablist = byId("version-tabs");
  const panels = Array.from(form.querySelectorAll("section.version"));
  let timer = null;
  let sequence = 0;
  let busy = false;
  let sessionGone = false;
  let refused = false; // a button's refusal is on the page: it stays until the form changes
  let current = null; // the profile whose version tab is open
  form.classList.add("js");

  // -- the draft kept in this tab ---------------------------------------------------------------
  function fields() {
    const pairs = [];
    for (const [name, value] of new FormData(form)) {
      if (name !== "csrf_token" && name !== "request_key" && typeof value === "string") pairs.push([name, value]);
    }
    return pairs;
  }
  function save() {
    try { sessionStorage.setItem(storageKey, JSON.stringify(fields())); } catch (e) { /* storage full or off */ }
  }
  function forget() {
    try { sessionStorage.removeItem(storageKey); } catch (e) { /* nothing kept */ }
  }
  function restore() {
    if (form.dataset.fresh !== "true" || form.dataset.fromPost) return;
    if (content.value.trim() && !editing) return;
    let pairs = null;
    try { pairs = JSON.parse(sessionStorage.getItem(storageKey) || "null"); } catch (e) { return; }
    if (!Array.isArray(pairs)) return;
    if (editing) { // what was typed replaces the post's values, thread items and media included
      list.replaceChildren();
      for (const box of form.querySelectorAll('input[name="media_ids"]')) box.checked = false;
    }
    const fromLink = new Set((form.dataset.fromLink || "").split(" ").filter(Boolean));
    for (const [name, value] of pairs) {
      if (fromLink.has(name)) continue; // the link's value wins
      if (name === "thread") { addItem(value); continue; }
      const inputs = Array.from(form.elements).filter((input) => input.name === name && input.type !== "submit");
      const box = inputs.find((input) => input.type === "checkbox" && input.value === value);
      if (box) box.checked = true;
      else if (inputs.length && inputs[0].type !== "checkbox") inputs[0].value = value;
    }
  }

  // -- thread items ----------------------------------------------------------------------------
  function renumber() {
    Array.from(list.children).forEach((item, index) => {
      const n = String(index + 1);
      const label = item.querySelector("label");
      const text = item.querySelector("textarea");
      const remove = item.querySelector("button");
      text.id = "thread-" + n;
      label.htmlFor = text.id;
      label.textContent = "Thread item " + n;
      remove.value = n;
      remove.textContent = "Remove thread item " + n;
    });
    addButton.disabled = list.children.length >= maxItems;
  }
  function addItem(text) {
    const item = itemTemplate.content.firstElementChild.cloneNode(true);
    item.querySelector("textarea").value = text || "";
    list.append(item);
    renumber();
    return item;
  }
  function removeItem(n) {
    const item = list.children[n - 1];
    if (item) item.remove();
    renumber();
  }

  // -- versions: one tab per chosen profile -----------------------------------------------------
  function chosen() {
    return Array.from(form.querySelectorAll('input[name="profiles"]:checked'), (input) => input.value);
  }
  function renderTabs(focus) {
    if (!tablist) return; // an edit: one profile, fixed
    const slugs = chosen();
    if (!slugs.includes(current)) current = slugs.length ? slugs[0] : null;
    byId("versions-none").hidden = slugs.length > 0;
    tablist.hidden = slugs.length === 0;
    tablist.replaceChildren(...slugs.map((slug) => {
      const tab = document.createElement("button");
      tab.type = "button";
      tab.id = "version-tab-" + slug;
      tab.textContent = slug;
      tab.setAttribute("role", "tab");
      tab.setAttribute("aria-controls", "version-" + slug);
      tab.setAttribute("aria-selected", String(slug === current));
      tab.tabIndex = slug === current ? 0 : -1;
      tab.dataset.profile = slug;
      return tab;
    }));
    for (const panel of panels) {
      const slug = panel.dataset.profile;
      const open = slugs.includes(slug);
      panel.hidden = slug !== current;
      if (open) {
        panel.setAttribute("role", "tabpanel");
        panel.setAttribute("aria-labelledby", "version-tab-" + slug);
      } else {
        panel.removeAttribute("role");
        panel.setAttribute("aria-labelledby", "version-" + slug + "-title");
      }
    }
    if (focus && current) byId("version-tab-" + current).focus();
  }
  if (tablist) tablist.addEventListener("click", (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (!tab) return;
    current = tab.dataset.profile;
    renderTabs(true);
  });
  if (tablist) tablist.addEventListener("keydown", (event) => {
    const slugs = chosen();
    const at = slugs.indexOf(current);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: slugs.length - 1 }[event.key];
    if (next === undefined || !slugs.length) return;
    event.preventDefault();
    current = slugs[(next + slugs.length) % slugs.length];
    renderTabs(true);
  });

  // -- the preview and the buttons --------------------------------------------------------------
  function post(url, extra) {
    const data = new URLSearchParams(new FormData(form));
    for (const [name, value] of extra || []) data.append(name, value);
    return fetch(url, { method: "POST", body: data, credentials: "same-origin", headers: { Accept: "application/json" } });
  }
  function button(action) {
    return form.querySelector('button[name="action"][value="' + action + '"]');
  }
  function setActions(actions) {
    for (const action of ACTIONS) {
      const state = actions[action];
      if (!state) continue;
      button(action).disabled = busy || !state.enabled;
      byId("why-" + action).textContent = state.enabled ? "" : state.reason;
    }
  }
  function blockActions(reason) {
    setActions(Object.fromEntries(ACTIONS.map((action) => [action, { enabled: false, reason }])));
  }
  function failure(text, code) {
    const alert = byId("compose-failure");
    alert.hidden = !text;
    alert.textContent = text || "";
    if (code) alert.dataset.code = code; else delete alert.dataset.code;
  }
  function sessionEnded() {
    sessionGone = true;
    save();
    byId("compose-session").hidden = false;
    blockActions("Sign in again first: your session has ended.");
  }
  function draw(answer) {
    const preview = answer.preview;
    const summary = byId("compose-summary");
    const problems = byId("compose-problems");
    const holder = byId("compose-cards");
    problems.replaceChildren();
    if (preview) {
      summary.replaceChildren(Cards.verdict(preview), document.createTextNode(" · "), Cards.cost(preview));
      if (preview.problems.length) problems.append(Cards.issues(preview.problems, "problem"));
      holder.replaceChildren(Cards.cards(preview));
    } else {
      summary.replaceChildren();
      if (answer.problem) problems.append(Cards.issues([answer.problem], "problem"));
      holder.replaceChildren();
    }
    setActions(answer.actions);
  }
  async function refresh() {
    const mine = ++sequence;
    let response;
    try {
      response = await post(form.dataset.preview);
    } catch (e) {
      if (mine === sequence) failure("Herald cannot be reached: the preview is not up to date.");
      return;
    }
    if (mine !== sequence) return; // a newer preview is on its way
    if (response.status === 401) { sessionEnded(); return; }
    const answer = await response.json().catch(() => null);
    if (!response.ok || !answer) {
      failure(answer ? answer.code + ": " + answer.error : "The preview failed (HTTP " + response.status + ").", answer && answer.code);
      blockActions("The preview failed: reload the page.");
      return;
    }
    if (sessionGone) { sessionGone = false; byId("compose-session").hidden = true; }
    if (!refused) failure("");
    draw(answer);
  }
  function changed() {
    refused = false;
    if (!editing || sessionGone) save(); // an edit keeps what is typed only once the session has ended
    clearTimeout(timer);
    timer = setTimeout(refresh, DEBOUNCE_MS);
  }
  async function create(action) {
    if (busy) return;
    busy = true;
    clearTimeout(timer);
    sequence += 1; // an answer of a preview still on its way is stale now
    blockActions("Sending…");
    let response;
    try {
      response = await post(form.dataset.create, [["action", action]]);
    } catch (e) {
      busy = false;
      failure("Herald cannot be reached: nothing was sent. Try again.");
      refused = true;
      refresh();
      return;
    }
    if (response.status === 401) { busy = false; sessionEnded(); return; }
    const answer = await response.json().catch(() => ({}));
    if (response.ok && answer.location) {
      forget();
      window.location.assign(answer.location);
      return;
    }
    busy = false;
    failure((answer.code || "HTTP " + response.status) + ": " + (answer.error || "the posts were not created"), answer.code);
    refused = true;
    refresh();
  }

  // -- media: the library's, and files uploaded from here -----------------------------------------
  // A media uploaded (or found in the library already) is listed first, checked, described as the
  // page describes the library's; one listed already is checked.
  function attachMedia(answer) {
    let box = byId("media-" + answer.media_id);
    if (!box) {
      const item = document.createElement("li");
      box = document.createElement("input");
      box.type = "checkbox";
      box.id = "media-" + answer.media_id;
      box.name = "media_ids";
      box.value = answer.media_id;
      box.setAttribute("aria-describedby", box.id + "-about");
      const label = document.createElement("label");
      label.className = "check";
      label.htmlFor = box.id;
      label.textContent = answer.name || answer.media_id;
      const about = document.createElement("span");
      about.className = "muted";
      about.id = box.id + "-about";
      const id = document.createElement("code");
      id.textContent = answer.media_id;
      about.append((answer.type || "media") + (answer.dimensions ? ", " + answer.dimensions : "") + " · ", id);
      item.append(box, document.createTextNode(" "), label, document.createTextNode(" "), about);
      byId("media-choices").prepend(item);
    }
    box.checked = true;
    byId("media-pick").hidden = false;
    byId("no-media").hidden = true;
    changed();
  }
  const uploadArea = byId("compose-upload");
  if (uploadArea && typeof HeraldUpload !== "undefined") {
    HeraldUpload.attach(uploadArea, {
      onUploaded: attachMedia,
      onDuplicate: attachMedia,
      onFailed: (error) => { if (error.code === "UNAUTHORIZED") sessionEnded(); }
    });
  }
  Cards.thumbnails((mediaId) => "/dashboard/media/" + encodeURIComponent(mediaId) + "/thumbnail");

  // The file input is the upload's, not the form's: choosing files changes nothing to preview;
  // nor does the stock picker, until a photo is added.
  const fromForm = (event) => event.target.type !== "file" && !event.target.closest("[data-picker]");
  const stockQuery = byId("stock-query");
  if (stockQuery) stockQuery.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return; // Enter searches, as in the media page's search form
    event.preventDefault();
    form.querySelector('button[name="stock_search"]').click();
  });
  form.addEventListener("input", (event) => { if (fromForm(event)) changed(); });
  form.addEventListener("change", (event) => {
    if (!fromForm(event)) return;
    if (event.target.name === "profiles") renderTabs(false);
    changed();
  });
  form.addEventListener("submit", (event) => {
    const pressed = event.submitter;
    if (pressed && pressed.dataset.roundTrip !== undefined) return; // the picker's: the server answers
    event.preventDefault();
    if (!pressed) return;
    if (pressed.name === "select_tag") {
      for (const box of form.querySelectorAll('input[name="profiles"]')) {
        if (box.dataset.tags.split(" ").includes(pressed.value)) box.checked = true;
      }
      renderTabs(false);
      changed();
    } else if (pressed.name === "thread_add") {
      addItem("").querySelector("textarea").focus();
      changed();
    } else if (pressed.name === "thread_remove") {
      removeItem(Number(pressed.value));
      addButton.focus();
      changed();
    } else if (pressed.name === "action" && ACTIONS.includes(pressed.value)) {
      create(pressed.value);
    }
  });

  restore();
  renumber();
  renderTabs(false);
  refresh();
})();
