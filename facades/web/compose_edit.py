"""A post read into the compose form (docs/dashboard.md, "Compose"): what a post page's
"Duplicate" copies (`?from=<post_id>`) and what its "Edit" opens (`?edit=<post_id>`), and how an
edited form is saved. Editing calls the core's UpdatePost as PATCH /v1/posts/{id} does (the same
contract model checks the arguments), with only what the form changed; a draft's Schedule and
Publish now then call SchedulePost. The pages and endpoints that use this are compose_pages.py
and compose_script.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from herald.posts.v1 import posts_pb2
from sanic import Request

from contract.post_requests import SchedulePostRequest, UpdatePostRequest
from facades.errors import ApiError
from facades.validation import validate
from facades.web.compose_form import EDIT_ACTIONS, Compose, Version
from facades.web.local_time import instant
from facades.web.post_detail_pages import EDITABLE, POST_ID, post_status
from facades.web.posts_pages import local_input

EDIT = "edit"  # the link's field naming the post an "Edit" opens
# Where a saved edit lands: the post's page, with what happened (post_detail_pages.EDIT_NOTICES).
SAVED_NOTICE = {
    "save": "post-edited",
    "unchanged": "post-unchanged",
    "scheduled": "post-scheduled",
    "queued": "post-queued",
}


async def read_post(request: Request, authorization: str, post_id: str) -> posts_pb2.Post:
    """The post (GetPost as the signed-in organization). Another organization's post, an unknown
    or a malformed id: NOT_FOUND (the core is not asked about a malformed one)."""
    if not POST_ID.fullmatch(post_id):
        raise ApiError("NOT_FOUND", "no such post in this organization")
    core = request.app.ctx.core
    found = await core.call(core.posts.GetPost, posts_pb2.GetPostRequest(post_id=post_id), authorization=authorization)
    return found.response


def post_form(post: posts_pb2.Post, platforms: dict[str, Any], zone: str, *, timed: bool = False) -> Compose:
    """The form a post fills in: its profile, text, thread items' text, first comment and media,
    its title and post type (when not the platform's default) as that profile's version, the
    organization's zone; its send time in that zone when `timed` (an edit: a copy has none)."""
    default_type = (platforms.get(post.connector, {}).get("post_types") or [""])[0]
    version = Version(
        title=post.title if post.HasField("title") else "",
        post_type=post.post_type if post.post_type != default_type else "",
    )
    return Compose(
        content=post.content,
        profiles=[post.profile],
        thread=[item.content for item in post.thread if item.content.strip()],
        first_comment=post.first_comment.content if post.HasField("first_comment") else "",
        media_ids=list(dict.fromkeys(post.media_ids)),
        schedule_at=local_input(post.schedule_time, zone) if timed else "",
        time_zone=zone,
        versions={post.profile: version},
    )


@dataclass(frozen=True, slots=True)
class Editing:
    """The post an edit form changes, as the page shows it: what the form cannot change (the
    profile, its platform, the post type and title, which UpdatePost leaves alone) and its status
    (a draft's form has Schedule and Publish now besides Save changes)."""

    post_id: str
    profile: str
    platform: str
    status: str
    post_type: str
    title: str

    @property
    def draft(self) -> bool:
        return self.status == "draft"


def editing_of(post: posts_pb2.Post, platforms: dict[str, Any]) -> Editing:
    """The post as its edit form shows it."""
    return Editing(
        post_id=post.id,
        profile=post.profile,
        platform=platforms.get(post.connector, {}).get("name", post.connector),
        status=post_status(post),
        post_type=post.post_type,
        title=post.title if post.HasField("title") else "",
    )


def edit_form(post: posts_pb2.Post, platforms: dict[str, Any], zone: str) -> tuple[Compose, Editing]:
    """The form an "Edit" opens: the post, its time in the organization's zone (none for a draft
    without a time of its own: its schedule time is then the instant it was created). A post
    that can no longer change: INVALID_POST_STATE (the core's rule: drafts, scheduled and queued
    posts)."""
    edited = editing_of(post, platforms)
    if edited.status not in EDITABLE:
        raise ApiError(
            "INVALID_POST_STATE", f"post is {edited.status}; only drafts, scheduled or queued posts can be edited"
        )
    untimed = edited.draft and post.schedule_time == post.create_time
    form = post_form(post, platforms, zone, timed=not untimed)
    form.edit, form.edit_status = post.id, edited.status
    return form, edited


def _thread(form: Compose, post: posts_pb2.Post) -> list[dict[str, Any]] | None:
    """The thread to send, or None when its text is the post's. The form edits the items' text
    only: an item whose text the post has keeps that item's media (the first such item's)."""
    items = [item for item in form.thread if item.strip()]
    if items == [t.content for t in post.thread]:
        return None
    media: dict[str, list[list[str]]] = {}
    for t in post.thread:
        media.setdefault(t.content, []).append(list(t.media_ids))
    thread = []
    for text in items:
        kept = media.get(text) or [[]]
        thread.append({"content": text} | ({"media_ids": kept.pop(0)} if kept[0] else {}))
    return thread


def changes(form: Compose, post: posts_pb2.Post) -> dict[str, Any]:
    """What the form changes of the post, as PATCH /v1/posts/{id}'s body: only the fields that
    differ (so an edit that leaves the time alone does not move a queued post). Schedule at is
    compared at the minute the form shows, in the form's zone; an empty one keeps the post's."""
    body: dict[str, Any] = {}
    if form.content != post.content:
        body["content"] = form.content
    if (thread := _thread(form, post)) is not None:
        body["thread"] = thread
    comment = form.first_comment if form.first_comment.strip() else ""
    if comment != (post.first_comment.content if post.HasField("first_comment") else ""):
        body["first_comment"] = comment
    if form.media_ids != list(dict.fromkeys(post.media_ids)):
        body["media_ids"] = form.media_ids
    if form.schedule_at and form.schedule_at != local_input(post.schedule_time, form.time_zone):
        body["schedule_at"] = instant(form.schedule_at, form.time_zone)
    return body


async def save_edit(request: Request, authorization: str, form: Compose, action: str) -> str:
    """Saves the edited form (`action`: save, or a draft's schedule or publish) and answers where
    to go next: the post's page with a notice. Raises the core's ApiError (NOT_FOUND for another
    organization's post); what the core refuses changes nothing, but a draft's changes are saved
    before SchedulePost refuses it (the page then says why it is still a draft)."""
    if action not in EDIT_ACTIONS:
        raise ApiError("VALIDATION_ERROR", "action must be save, schedule or publish", {"argument": "action"})
    post = await read_post(request, authorization, form.edit)
    draft = post_status(post) == "draft"
    if action != "save" and not draft:
        raise ApiError("INVALID_POST_STATE", "only a draft is scheduled or published from here: save the changes")
    if action == "schedule" and not (form.schedule_at or form.next_slot):
        raise ApiError(
            "VALIDATION_ERROR", "Choose a date and time in Schedule at, or Next free slot", {"argument": "schedule_at"}
        )
    contract = await request.app.ctx.contract.get()
    core = request.app.ctx.core
    body = changes(form, post)
    if action != "save":  # the draft's time is the scheduling's, below
        body.pop("schedule_at", None)
    if body:
        message = validate(contract.model(UpdatePostRequest), {"post_id": post.id, **body}).to_proto()
        await core.call(core.posts.UpdatePost, message, authorization=authorization)
    notice = SAVED_NOTICE["save" if body else "unchanged"]
    if action != "save":
        timed = action == "schedule" and not form.next_slot
        arguments = {
            "post_id": post.id,
            "next_slot": action == "schedule" and form.next_slot,
            "schedule_at": instant(form.schedule_at, form.time_zone) if timed else None,
        }
        message = validate(contract.model(SchedulePostRequest), arguments).to_proto()
        scheduled = await core.call(core.posts.SchedulePost, message, authorization=authorization)
        notice = SAVED_NOTICE.get(post_status(scheduled.response), notice)
    return f"/dashboard/posts/{post.id}?notice={notice}"
