// The calendar's "Move to…" dialog (docs/dashboard.md, "Calendar"): a post moved from the keyboard,
// its new "Schedule at" read in the zone the calendar shows, through calendar.js's move (the
// dashboard's /dashboard/calendar/posts/<id>/move: the core's UpdatePost). A refusal is said in the
// dialog and the post stays where it was. calendar.js makes it with what it shares and opens it
// from a post's "Move" button; dragging is calendar.js's own.
"use strict";
window.heraldCalendarMove = (shared) => {
  const byId = (id) => document.getElementById(id);
  const dialog = byId("move-dialog");
  if (!dialog) return null;
  const form = byId("move-form");
  const at = byId("move-at");
  const what = byId("move-what");
  const zoneName = byId("move-zone");
  const error = byId("move-error");
  let moving = null; // the post the dialog moves

  function open(post) {
    moving = post;
    what.textContent = `${post.profile}: ${post.excerpt}, now at ${shared.shownAt(post.start)}.`;
    zoneName.textContent = shared.zone();
    form.elements.time_zone.value = shared.zone();
    at.value = post.start;
    error.hidden = true;
    error.textContent = "";
    dialog.showModal();
    at.focus();
  }
  function close() {
    if (dialog.open) dialog.close();
  }
  dialog.addEventListener("close", () => {
    if (moving) shared.refocus(moving);
    moving = null;
  });
  byId("move-cancel").addEventListener("click", close);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!moving) return;
    const post = moving;
    const { ok, body } = await shared.movePost(post, at.value.slice(0, 16));
    if (!ok) {
      error.dataset.code = body.code;
      error.textContent = `Not moved: ${body.error}`;
      error.hidden = false;
      if (shared.sessionGone()) close();
      return;
    }
    shared.moved(post, body);
    close();
  });
  return { open };
};
