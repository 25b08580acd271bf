// The calendar's "Review" dialog (docs/dashboard.md, "Calendar"): a post waiting for approval is
// approved or rejected from the calendar, with a comment, through the dashboard's endpoints
// (/dashboard/calendar/posts/<id>/approve and …/reject: the core's ApprovePost and RejectPost, as
// the post's page calls them). What the core refuses is said in the dialog in its words; when the
// post's time passed while it waited, the dialog asks for a new "Schedule at" or "Publish now".
// calendar.js makes it with what it shares (its fetch, its messages, the zone shown) and opens it
// from a waiting post's "Review" button. Without the script, the post's page has the same buttons.
"use strict";
window.heraldCalendarReview = (shared) => {
  const byId = (id) => document.getElementById(id);
  const dialog = byId("review-dialog");
  if (!dialog) return null;
  const form = byId("review-form");
  const what = byId("review-what");
  const comment = byId("review-comment");
  const late = byId("review-late");
  const at = byId("review-at");
  const zoneName = byId("review-zone");
  const publish = byId("review-publish");
  const error = byId("review-error");
  let reviewing = null; // the post the dialog reviews

  function showError(body) {
    error.dataset.code = body.code;
    error.textContent = `Not done (${body.code}): ${body.error}`;
    error.hidden = false;
  }
  function reset(post) {
    what.textContent = `${post.profile}: ${post.excerpt}, at ${shared.shownAt(post.start)} (pending approval).`;
    comment.value = "";
    at.value = "";
    at.required = false;
    late.hidden = true;
    publish.hidden = true;
    zoneName.textContent = shared.zone();
    error.hidden = true;
    error.textContent = "";
    delete error.dataset.code;
  }
  function askForTime(post) {
    late.hidden = false;
    publish.hidden = false;
    if (!at.value) at.value = post.start;
  }
  function open(post) {
    reviewing = post;
    reset(post);
    dialog.showModal();
    comment.focus();
  }
  function close() {
    if (dialog.open) dialog.close();
  }
  dialog.addEventListener("close", () => {
    if (reviewing) shared.refocus(reviewing);
    reviewing = null;
  });
  byId("review-cancel").addEventListener("click", close);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!reviewing) return;
    const post = reviewing;
    const action = event.submitter ? event.submitter.value : "approve";
    const data = new URLSearchParams({ csrf_token: shared.csrfToken, comment: comment.value, time_zone: shared.zone() });
    if (action === "publish_now") data.set("publish_now", "true");
    else if (action === "approve" && !late.hidden && at.value) data.set("schedule_at", at.value.slice(0, 16));
    const url = (action === "reject" ? shared.config.reject : shared.config.approve).replace("{id}", encodeURIComponent(post.id));
    const { ok, body } = await shared.call(url, { method: "POST", body: data });
    if (!ok) {
      if (shared.sessionGone()) { close(); return; }
      showError(body);
      if (body.code === "VALIDATION_ERROR" && body.argument === "schedule_at") askForTime(post);
      // Reviewed by someone else first: the calendar shows the post as it is now.
      if (body.code === "INVALID_POST_STATE") shared.refresh();
      return;
    }
    shared.reviewed(post, body);
    close();
    const outcome = body.status === "draft" ? "rejected: it is a draft again" : `approved: ${body.status === "queued" ? "it goes out in a moment" : `scheduled at ${shared.shownAt(body.start)}`}`;
    shared.announce(`${post.profile}'s post is ${outcome}.`);
  });
  return { open };
};
