"""One post in the dashboard (docs/dashboard.md, "Post detail"): what it says and where it goes,
its media with their thumbnails, each part's delivery (thread items, first comment), why it
failed, its review, its outbox entries (the requests the platform received, or in the sandbox
would have), and the actions "Cancel post", "Retry", "Edit" and "Duplicate" (links: compose,
`?edit=` and `?from=<post_id>`), for a post waiting for approval "Approve" and "Reject"
(post_review.py), the team's comments on it with the form that adds one (post_comments.py), and
for a post that is out its metrics with "Refresh metrics" (post_metrics.py).
A sandbox delivery's `url` is this page, at the part's outbox entry
(contract/post_links.py)."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from herald.media.v1 import media_pb2
from herald.posts.v1 import posts_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.post_links import outbox_anchor, post_page_path, sandbox_anchor
from facades.errors import ApiError
from facades.web import post_comments, post_metrics, post_review
from facades.web.media_pages import thumbnail_path
from facades.web.pages import Route, dashboard_page, notice, see_other, signed_in, when
from facades.web.post_history import post_history
from facades.web.session import Viewer

# What an id of a post looks like (core/ids.py: a prefix and a base32 body). Anything else is
# a post no organization has: the 404 page, without asking the core.
POST_ID = re.compile(r"pst_[0-9a-z]{1,64}")
# Media looked up for the page at most (a post, its thread items and its first comment).
MEDIA_SHOWN = 50
# What the core's UpdatePost and CancelPost change (core/posts/records.py EDITABLE): a queued post
# a worker claimed is `publishing`, so "queued" is one not claimed yet; a waiting post's edit keeps
# it waiting.
EDITABLE = ("draft", "scheduled", "queued", "pending_approval")
CANCELABLE = EDITABLE
RETRYABLE = ("failed",)
# Refusals of the actions shown on the page, the post as it is under them; anything else
# (NOT_FOUND: another organization's post) is a failure page.
_SHOWN = ("INVALID_POST_STATE", "SUBSCRIPTION_REQUIRED", "INSUFFICIENT_CREDITS", "VALIDATION_ERROR")
PART_NAMES = {"post": "Post", "thread": "Thread item", "first_comment": "First comment"}
# What an edit saved from compose says on the page (compose_edit.SAVED_NOTICE).
EDIT_NOTICES = {
    "post-edited": "The changes are saved.",
    "post-unchanged": "Nothing was changed: the form was saved as the post already was.",
    "post-scheduled": "The draft is saved and scheduled.",
    "post-queued": "The draft is saved and queued: it goes out in a moment.",
}


def post_status(post: posts_pb2.Post) -> str:
    return posts_pb2.PostStatus.Name(post.status).removeprefix("POST_STATUS_").lower()


def _checked(post_id: str) -> str:
    if not POST_ID.fullmatch(post_id):
        raise ApiError("NOT_FOUND", "no such post in this organization")
    return post_id


def _link(post_id: str, url: str) -> dict[str, str] | None:
    """How the page links to where a delivery is: this page's own outbox entry for a sandbox
    delivery (an anchor), the platform's https page for a live one, nothing otherwise."""
    if (anchor := sandbox_anchor(url, post_id)) is not None:
        return {"href": f"#{anchor}", "text": "its outbox entry (sandbox)", "external": ""}
    if url.startswith("https://"):
        return {"href": url, "text": url, "external": "true"}
    return None


def _part(post_id: str, part: posts_pb2.PostPart) -> dict[str, Any]:
    return {
        "content": part.content,
        "media_ids": list(part.media_ids),
        "status": part.status,
        "platform_post_id": part.platform_post_id,
        "link": _link(post_id, part.platform_url),
    }


def _cancel(status: str) -> dict[str, str]:
    """The "Cancel post" button: enabled, or disabled with the reason."""
    if status in CANCELABLE:
        return {"enabled": "true", "why": ""}
    shown = status.replace("_", " ")
    return {
        "enabled": "",
        "why": f"Only drafts, scheduled, queued and waiting posts can be canceled: this post is {shown}.",
    }


def _retry(status: str) -> dict[str, str]:
    """The "Retry" button: enabled for a failed post, else disabled with the reason."""
    if status in RETRYABLE:
        return {"enabled": "true", "why": ""}
    return {"enabled": "", "why": f"Only failed posts can be retried: this post is {status.replace('_', ' ')}."}


def _edit(status: str) -> dict[str, str]:
    """The "Edit" link: enabled while UpdatePost can change the post, else disabled with the
    reason (a queued post part of which is out is refused by the core, on the edit form)."""
    if status in EDITABLE:
        return {"enabled": "true", "why": ""}
    shown = status.replace("_", " ")
    return {"enabled": "", "why": f"Only drafts, scheduled and queued posts can be edited: this post is {shown}."}


def _entries(entries: list[posts_pb2.OutboxEntry], zone: str) -> list[dict[str, Any]]:
    """The outbox entries, oldest first; the newest entry of each part carries the part's anchor
    (the one its `url` names)."""
    shown = []
    for e in entries:
        try:
            requests = json.loads(e.requests_json or "[]")
        except ValueError:
            requests = e.requests_json
        shown.append(
            {
                "id": e.id,
                "part": e.part,
                "name": PART_NAMES.get(e.part, e.part) + (f" {e.position + 1}" if e.part == "thread" else ""),
                "position": e.position,
                "mode": e.mode,
                "created": when(e.create_time, zone, ""),
                "platform_post_id": e.platform_post_id,
                "requests": json.dumps(requests, indent=2, ensure_ascii=False),
                "request_count": len(requests) if isinstance(requests, list) else 0,
                "anchor": "",
            }
        )
    seen = set()
    for entry in reversed(shown):
        anchor = outbox_anchor(entry["part"], entry["position"])
        if anchor not in seen:
            seen.add(anchor)
            entry["anchor"] = anchor
    return shown


async def _media(request: Request, viewer: Viewer, media_ids: list[str]) -> dict[str, dict[str, str]]:
    """The library's record of each media id (type, name, description) and its thumbnail (the
    media page's route); a media deleted since is shown by its id alone."""
    core = request.app.ctx.core

    async def one(media_id: str) -> dict[str, str]:
        try:
            found = await core.call(
                core.media.GetMedia, media_pb2.GetMediaRequest(media_id=media_id), authorization=viewer.authorization
            )
        except ApiError as error:
            if error.code != "NOT_FOUND":
                raise
            return {"id": media_id, "type": "", "name": "", "description": "", "thumbnail": "", "missing": "true"}
        m = found.response
        return {
            "id": media_id,
            "type": m.type,
            "name": m.name,
            "description": m.description,
            "thumbnail": thumbnail_path(media_id),
            "missing": "",
        }

    wanted = list(dict.fromkeys(media_ids))[:MEDIA_SHOWN]
    return {m["id"]: m for m in await asyncio.gather(*(one(i) for i in wanted))}


async def _approval(
    request: Request, viewer: Viewer, post: posts_pb2.Post, typed: dict[str, str] | None, failure: ApiError | None
) -> dict[str, Any]:
    """The review form of a post waiting for approval: whether the member may review (else the
    buttons' reason), whether they wrote it, and after a refusal what was typed and whether the
    form asks for a new time ("Publish now" beside it)."""
    late = typed is not None and failure is not None and post_review.late(failure)
    typed = typed or {"comment": "", "schedule_at": ""}
    return {
        "reviewer": await post_review.reviewer(request, viewer),
        "own": post_review.own(post, viewer),
        "late": late,
        "comment": typed["comment"],
        "schedule_at": typed["schedule_at"],
        "max_comment": post_review.MAX_COMMENT,
    }


def _failure(failure: ApiError | None, reviewed: bool) -> dict[str, str] | None:
    if failure is None:
        return None
    message = post_review.refusal(failure)["words"] if reviewed else failure.message
    return {"code": failure.code, "message": message}


async def post_page(
    request: Request,
    viewer: Viewer,
    post_id: str,
    *,
    status: int = 200,
    failure: ApiError | None = None,
    typed: dict[str, str] | None = None,
    refused_comment: post_comments.Refused | None = None,
) -> HTTPResponse:
    """The post, its parts, its comments and its outbox (and, after a refused action, why it was
    refused; `typed`: a refused review's form as it was sent; `refused_comment`: a comment the
    core refused, shown under its form)."""
    core = request.app.ctx.core
    post_id = _checked(post_id)
    found = await core.call(
        core.posts.GetPost, posts_pb2.GetPostRequest(post_id=post_id), authorization=viewer.authorization
    )
    post = found.response
    state, zone = post_status(post), viewer.time_zone
    outbox, comments, metrics = await asyncio.gather(
        core.call(
            core.posts.ListOutboxEntries,
            posts_pb2.ListOutboxEntriesRequest(post_id=post_id),
            authorization=viewer.authorization,
        ),
        post_comments.comments_of(request, viewer, post_id),
        post_metrics.metrics_of(request, viewer, post_id, state),
    )
    history, history_more = await post_history(request, viewer, post_id)
    thread = [_part(post.id, t) for t in post.thread]
    comment = _part(post.id, post.first_comment) if post.HasField("first_comment") else None
    every_media = [*post.media_ids, *(m for t in thread for m in t["media_ids"])]
    every_media += comment["media_ids"] if comment else []
    return await dashboard_page(
        request,
        viewer,
        "post.html",
        "posts",
        status=status,
        flash=_notice(request),
        failure=_failure(failure, typed is not None),
        post={
            "id": post.id,
            "profile": post.profile,
            "platform": post.connector,
            "status": state,
            "content": post.content,
            "title": post.title if post.HasField("title") else "",
            "post_type": post.post_type,
            "language": post.language if post.HasField("language") else "",
            "media_ids": list(post.media_ids),
            "scheduled": when(post.schedule_time, zone, ""),
            "published": when(post.publish_time, zone, ""),
            "created": when(post.create_time, zone, ""),
            "updated": when(post.update_time, zone, ""),
            "attempts": post.attempts,
            "failure_reason": post.failure_reason,
            "failure_detail": post.failure_detail,
            "platform_error": post.platform_error,
            "platform_post_id": post.platform_post_id,
            "link": _link(post.id, post.platform_url),
            "via": post_review.VIA.get(post.author_via, post.author_via),
        },
        review=post_review.review_of(post, zone),
        approval=await _approval(request, viewer, post, typed, failure) if state == post_review.PENDING else None,
        zone=zone,
        thread=thread,
        comment=comment,
        media=await _media(request, viewer, every_media),
        entries=_entries(list(outbox.response.entries), zone),
        history=history,
        history_more=history_more,
        comments=comments,
        commenting=await post_comments.form(request, viewer, refused_comment),
        metrics=metrics,
        cancel=_cancel(state),
        retry=_retry(state),
        edit=_edit(state),
    )


def _notice(request: Request) -> str | None:
    name = request.args.get("notice", "")
    shown = EDIT_NOTICES.get(name) or post_review.NOTICES.get(name) or post_comments.NOTICES.get(name)
    return shown or post_metrics.NOTICES.get(name) or notice(request)


@signed_in
async def show_post(request: Request, viewer: Viewer, post_id: str) -> HTTPResponse:
    """One post of the organization: content, media, parts, failure, outbox, actions."""
    return await post_page(request, viewer, post_id)


@signed_in
async def cancel_post(request: Request, viewer: Viewer, post_id: str) -> HTTPResponse:
    """Cancels the post (a draft, scheduled, queued or waiting one); a refusal is shown on its page."""
    return await _act(request, viewer, post_id, "CancelPost", "post-canceled")


@signed_in
async def retry_post(request: Request, viewer: Viewer, post_id: str) -> HTTPResponse:
    """Puts a failed post back in the queue; a refusal is shown on its page."""
    return await _act(request, viewer, post_id, "RetryPost", "post-retried")


async def _act(request: Request, viewer: Viewer, post_id: str, method: str, notice: str) -> HTTPResponse:
    core = request.app.ctx.core
    post_id = _checked(post_id)
    message = (posts_pb2.CancelPostRequest if method == "CancelPost" else posts_pb2.RetryPostRequest)(post_id=post_id)
    try:
        await core.call(getattr(core.posts, method), message, authorization=viewer.authorization)
    except ApiError as error:
        if error.code not in _SHOWN:
            raise
        return await post_page(request, viewer, post_id, status=error.http_status, failure=error)
    return see_other(f"{post_page_path(post_id)}?notice={notice}")


@signed_in
async def approve_post(request: Request, viewer: Viewer, post_id: str) -> HTTPResponse:
    """Approves a post waiting for approval, with the form's comment (and, once its time has
    passed, a new "Schedule at" or "Publish now"); a refusal is shown on its page in the core's
    words, with what was typed."""
    return await _review(request, viewer, post_id, approving=True)


@signed_in
async def reject_post(request: Request, viewer: Viewer, post_id: str) -> HTTPResponse:
    """Rejects a post waiting for approval, with the form's comment: it is a draft again."""
    return await _review(request, viewer, post_id, approving=False)


async def _review(request: Request, viewer: Viewer, post_id: str, *, approving: bool) -> HTTPResponse:
    post_id = _checked(post_id)
    form = request.form or {}
    typed = {"comment": (form.get("comment") or "")[:4000], "schedule_at": (form.get("schedule_at") or "")[:40]}
    try:
        choice = post_review.decision(form, viewer.time_zone)
        if approving:
            done = await post_review.approve(request, viewer.authorization, post_id, choice)
        else:
            done = await post_review.reject(request, viewer.authorization, post_id, choice)
    except ApiError as error:
        if not post_review.shown(error):
            raise
        return await post_page(request, viewer, post_id, status=error.http_status, failure=error, typed=typed)
    name = post_review.approved_notice(done) if approving else "post-rejected"
    return see_other(f"{post_page_path(post_id)}?notice={name}")


@signed_in
async def add_comment(request: Request, viewer: Viewer, post_id: str) -> HTTPResponse:
    """Adds the form's comment to the post ("Post comment"); a refusal is shown under the form in
    the core's words, with what was typed."""
    post_id = _checked(post_id)
    body = ((request.form or {}).get("body") or "")[: post_comments.MAX_BODY * 4]  # the core says if too long
    try:
        await post_comments.add(request, viewer, post_id, body)
    except ApiError as error:
        if error.code not in post_comments.SHOWN:
            raise
        refused = post_comments.Refused(body, error)
        return await post_page(request, viewer, post_id, status=error.http_status, refused_comment=refused)
    return see_other(f"{post_page_path(post_id)}?notice={post_comments.ADDED}#comments")


@signed_in
async def refresh_metrics(request: Request, viewer: Viewer, post_id: str) -> HTTPResponse:
    """Asks the workers to read the post's metrics now ("Refresh metrics"); back to its page
    saying whether a read was queued, or the refusal on the page (not out, too many refreshes)."""
    post_id = _checked(post_id)
    try:
        name = await post_metrics.refresh(request, viewer, post_id)
    except ApiError as error:
        if error.code not in post_metrics.SHOWN:
            raise
        return await post_page(request, viewer, post_id, status=error.http_status, failure=error)
    return see_other(f"{post_page_path(post_id)}?notice={name}#metrics")


ROUTES = (
    Route("GET", "/dashboard/posts/<post_id:str>", show_post),
    Route("POST", "/dashboard/posts/<post_id:str>/cancel", cancel_post),
    Route("POST", "/dashboard/posts/<post_id:str>/retry", retry_post),
    Route("POST", "/dashboard/posts/<post_id:str>/approve", approve_post),
    Route("POST", "/dashboard/posts/<post_id:str>/reject", reject_post),
    Route("POST", "/dashboard/posts/<post_id:str>/comments", add_comment),
    Route("POST", "/dashboard/posts/<post_id:str>/metrics/refresh", refresh_metrics),
)
