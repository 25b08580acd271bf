"""A post's comments on its page (docs/dashboard.md, "Comments"; docs/teams.md, "Comments and
notifications"): the team's internal notes, never published. The page lists the post's own and its
group's, oldest first, each with its author, its time in the organization's zone and its body
(escaped by the template, its mentions marked), and offers the form that adds one ("Add a comment",
"Post comment"; the approval form's "Comment" is the review's, not this).

The core decides everything: ListComments and AddComment with the session's credential. Who may
write is a role carrying `compose` by the core's catalog, the role the session's principal carries:
a member who may not (a viewer) sees the form disabled with the reason, and what the core refuses
anyway (FORBIDDEN, VALIDATION_ERROR: empty or too long) is shown under the form in its words, with
what was typed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from herald.notes.v1 import notes_pb2
from sanic import Request

from contract.requests import rpc_path
from facades.errors import ApiError
from facades.web.members_pages import in_words
from facades.web.pages import when
from facades.web.post_review import listed, roles_with
from facades.web.session import Viewer

COMPOSE = "compose"  # the permission commenting needs (the core's catalog says which roles carry it)
MAX_BODY = 5000  # core/notes/comments.py MAX_BODY: the textarea's maxlength
ADDED = "comment-added"  # the post page's notice after a comment (`?notice=`)
NOTICES = {ADDED: "Your comment is added. Anyone it mentions is notified."}
# The core's refusals of a comment a member reads under the form; NOT_FOUND (another
# organization's post) is the failure page.
SHOWN = ("VALIDATION_ERROR", "FORBIDDEN")


@dataclass(frozen=True, slots=True)
class Refused:
    """A comment the core refused: what was typed, and why."""

    body: str
    error: ApiError


async def _call(request: Request, viewer: Viewer, method: str, message: Any) -> Any:  # a proto
    core = request.app.ctx.core
    path = rpc_path(notes_pb2, "NoteService", method)
    return (await core.call(core.method(path), message, authorization=viewer.authorization)).response


def parts(body: str, mentions: list[str]) -> list[dict[str, str]]:
    """The body in pieces, each `@email` of a mentioned member a piece of its own (`mention`), as
    the page marks them; the rest as written."""
    if not mentions:
        return [{"text": body, "mention": ""}]
    found = re.compile("|".join(f"@{re.escape(email)}" for email in mentions), re.IGNORECASE)
    pieces, start = [], 0
    for match in found.finditer(body):
        pieces += [{"text": body[start : match.start()], "mention": ""}, {"text": match.group(0), "mention": "true"}]
        start = match.end()
    return [p for p in [*pieces, {"text": body[start:], "mention": ""}] if p["text"]]


def _comment(c: notes_pb2.Comment, zone: str) -> dict[str, Any]:
    return {
        "id": c.id,
        "author": c.author_email or c.author_id,
        "when": when(c.create_time, zone),
        "instant": c.create_time.ToJsonString(),
        "on_group": not c.post_id,
        "parts": parts(c.body, list(c.mentions)),
        "mentions": list(c.mentions),
    }


async def comments_of(request: Request, viewer: Viewer, post_id: str) -> list[dict[str, Any]]:
    """The post's comments and its group's, oldest first, as the page shows them."""
    found = await _call(request, viewer, "ListComments", notes_pb2.ListCommentsRequest(post_id=post_id))
    return [_comment(c, viewer.time_zone) for c in found.comments]


async def form(request: Request, viewer: Viewer, refused: Refused | None) -> dict[str, Any]:
    """The comment form: whether the member may write (else the reason), and after a refusal
    what was typed and the core's words."""
    writers = await roles_with(request, COMPOSE)
    role = viewer.principal.role
    allowed = role in writers
    why = "" if allowed else f"Your role ({role or 'none'}) cannot comment: {listed(writers)} can."
    return {
        "allowed": allowed,
        "why": why,
        "body": refused.body if refused else "",
        "max_body": MAX_BODY,
        "failure": refused and {"code": refused.error.code, "words": in_words(refused.error)},
    }


async def add(request: Request, viewer: Viewer, post_id: str, body: str) -> None:
    """Adds the comment to the post (AddComment); the core's refusal is raised."""
    await _call(request, viewer, "AddComment", notes_pb2.AddCommentRequest(post_id=post_id, body=body))
