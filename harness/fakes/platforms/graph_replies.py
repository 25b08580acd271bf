"""Replies on the fake Threads and first comments on the fake Instagram, as Meta documents them
(docs/platforms.md; developers.facebook.com/docs/threads/retrieve-and-manage-
replies/create-replies, developers.facebook.com/docs/instagram-platform/instagram-graph-api/
reference/ig-media/comments).

Threads: a container made with `reply_to_id` replies to a published post of a thread whose first
post (its root) is the caller's own, and needs `threads_manage_replies`; it is published like any
post. A reply is not among `GET /{user}/threads` (Threads lists replies at `/replies`, with
`threads_read_replies`); its fields say `is_reply`, `replied_to` and `root_post`.

Instagram: `POST /{ig-media-id}/comments` with `message` (in the query or the form) comments on
a published media of the caller (not a story), with `instagram_business_manage_comments`, and
answers `{id}`; `GET /{ig-media-id}/comments` lists them newest first (`fields`, `limit`,
`paging.next` when there are more).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from harness.fakes.platforms.base import Answer, Request, Route, answer, with_query
from harness.fakes.platforms.graph_shapes import cursor, graph_error, no_object, pick, timestamp

MANAGE_REPLIES = "threads_manage_replies"
MANAGE_COMMENTS = "instagram_business_manage_comments"
MAX_COMMENT = 2200
_VERSION = r"/v\d+\.\d+"


@dataclass
class GraphComment:
    id: str
    media_id: str
    owner: str  # the id of the user who commented
    username: str
    text: str
    created_at: float = field(default_factory=time.time)


def _no_permission() -> Answer:
    return graph_error(403, "Application does not have permission for this action", code=10)


class GraphGrants:
    """The scopes the request's token was granted (FakeGraph's `access_tokens`)."""

    access_tokens: dict[str, Any]

    def granted(self, request: Request) -> tuple[str, ...]:
        token = request.bearer or request.query.get("access_token") or (request.form or {}).get("access_token", "")
        grant = self.access_tokens.get(token)
        return grant.scopes if grant is not None else ()


class ThreadsReplies(GraphGrants):
    """FakeThreads' replies (see the module docstring)."""

    posts: dict[str, Any]
    lock: Any

    def reply_refused(self, request: Request, user: Any, form: dict[str, str]) -> Answer | None:
        reply_to = form.get("reply_to_id")
        if not reply_to:
            return None
        if MANAGE_REPLIES not in self.granted(request):
            return _no_permission()
        parent = self.posts.get(reply_to)
        if parent is None:
            return no_object(reply_to, "post")
        if self.root_of(parent).owner != user.id:
            return graph_error(400, "You can only reply to a thread whose root post you own.", code=10)
        return None

    def root_of(self, post: Any) -> Any:
        while post.reply_to and post.reply_to in self.posts:
            post = self.posts[post.reply_to]
        return post

    def replies_to(self, post_id: str) -> list[Any]:
        """The posts replying to `post_id`, oldest first."""
        with self.lock:
            return sorted((p for p in self.posts.values() if p.reply_to == post_id), key=lambda p: p.created_at)

    def reply_fields(self, post: Any) -> dict[str, Any]:
        if not post.reply_to:
            return {"is_reply": False}
        root = self.root_of(post)
        return {"is_reply": True, "replied_to": {"id": post.reply_to}, "root_post": {"id": root.id}}

    def listed(self, post: Any) -> bool:
        return not post.reply_to  # replies are listed at /{user}/replies, not among the threads


class InstagramComments(GraphGrants):
    """FakeInstagram's comments (see the module docstring)."""

    posts: dict[str, Any]
    users: dict[str, Any]
    lock: Any
    base_url: str

    def __init__(self, **kwargs: Any) -> None:
        self.comments: list[GraphComment] = []
        super().__init__(**kwargs)

    def routes(self) -> list[Route]:
        path = re.compile(rf"{_VERSION}/(?P<id>\d+)/comments")
        return [("POST", path, self.create_comment), ("GET", path, self.list_comments), *super().routes()]

    def comments_on(self, media_id: str) -> list[GraphComment]:
        """The media's comments, oldest first."""
        with self.lock:
            return [c for c in self.comments if c.media_id == media_id]

    def _commented(self, request: Request, media_id: str) -> tuple[Any, Any] | Answer:
        user = self._caller(request)
        if isinstance(user, Answer):
            return user
        if MANAGE_COMMENTS not in self.granted(request):
            return _no_permission()
        media = self.posts.get(media_id)
        if media is None or media.owner != user.id:
            return no_object(media_id, request.method.lower())
        return user, media

    def create_comment(self, request: Request, match: re.Match[str]) -> Answer:
        found = self._commented(request, match["id"])
        if isinstance(found, Answer):
            return found
        user, media = found
        if media.media_type == "STORIES":
            return graph_error(400, "Comments are not available on stories.", code=100)
        message = {**request.query, **(request.form or {})}.get("message", "")
        if not message.strip():
            return graph_error(400, "The parameter message is required.", code=100)
        if len(message) > MAX_COMMENT:
            return graph_error(400, f"Param message must be at most {MAX_COMMENT} characters long.", code=100)
        comment = GraphComment(self._new_id(), media.id, user.id, user.username, message)
        self.comments.append(comment)
        return answer(200, {"id": comment.id})

    def list_comments(self, request: Request, match: re.Match[str]) -> Answer:
        found = self._commented(request, match["id"])
        if isinstance(found, Answer):
            return found
        _, media = found
        q = request.query
        limit = int(q["limit"]) if q.get("limit", "").isdigit() else 25
        offset = int(q["after"]) if q.get("after", "").isdigit() else 0
        newest = sorted(self.comments_on(media.id), key=lambda c: c.created_at, reverse=True)
        page = newest[offset : offset + max(1, min(limit, 100))]
        data = [pick(_comment_fields(c), q.get("fields", "")) for c in page]
        paging: dict[str, Any] = (
            {"cursors": {"before": cursor(page[0].id), "after": cursor(page[-1].id)}} if page else {}
        )
        if offset + len(page) < len(newest):
            paging["next"] = with_query(f"{self.base_url}{request.path}", after=str(offset + len(page)))
        return answer(200, {"data": data, "paging": paging})


def _comment_fields(comment: GraphComment) -> dict[str, Any]:
    return {
        "id": comment.id,
        "text": comment.text,
        "username": comment.username,
        "from": {"id": comment.owner, "username": comment.username},
        "media": {"id": comment.media_id},
        "timestamp": timestamp(comment.created_at),
        "like_count": 0,
        "hidden": False,
    }
