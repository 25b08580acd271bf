"""Comments on the fake LinkedIn: the Comments API of the versioned REST API
(learn.microsoft.com/linkedin/marketing/community-management/shares/comments-api), and Rest.li's
error envelope the whole fake answers with.

`POST /rest/socialActions/{url-encoded post URN}/comments` with `{actor, object, message: {text}}`
takes the same headers as posts (`LinkedIn-Version`, `X-Restli-Protocol-Version`) and
`w_member_social`. The actor must be the member the token is of (403 otherwise), `object` the
URN of the path (400), and that post must exist (404). It answers 201 with the comment (its
`commentUrn` names the post and the comment's id) and the id in `x-restli-id`. Reading a
post's comments needs `r_member_social`, which LinkedIn grants to select developers only: this
fake grants it to no one, so the GET answers 403 as it does to Herald.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from harness.fakes.platforms.base import Answer, Request, Route, answer

MAX_COMMENT = 1250  # LinkedIn's comment length (characters)


@dataclass
class Comment:
    id: str
    post_urn: str
    actor: str
    text: str
    created_at: float = field(default_factory=time.time)

    @property
    def urn(self) -> str:
        return f"urn:li:comment:({self.post_urn},{self.id})"


def rest_error(status: int, code: str, message: str, *, service_code: int | None = None) -> Answer:
    """Rest.li's error answer: `{status, code, message[, serviceErrorCode]}`."""
    body: dict[str, Any] = {"status": status, "code": code, "message": message}
    if service_code is not None:
        body["serviceErrorCode"] = service_code
    return answer(status, body)


class LinkedInComments:
    """FakeLinkedIn's comments (see the module docstring)."""

    posts: list[Any]
    lock: Any

    def __init__(self, **kwargs: Any) -> None:
        self.comments: list[Comment] = []
        super().__init__(**kwargs)

    def comment_routes(self) -> list[Route]:
        path = re.compile(r"/rest/socialActions/(?P<urn>[^/]+)/comments")
        return [("POST", path, self.create_comment), ("GET", path, self.list_comments)]

    def comments_on(self, post_urn: str) -> list[Comment]:
        """The post's comments, oldest first."""
        with self.lock:
            return [c for c in self.comments if c.post_urn == post_urn]

    def create_comment(self, request: Request, match: re.Match[str]) -> Answer:
        member = self._rest_caller(request)
        if isinstance(member, Answer):
            return member
        urn = unquote(match["urn"])
        body = request.json if isinstance(request.json, dict) else {}
        if body.get("actor") != member.urn:
            return rest_error(403, "ACCESS_DENIED", f"Member is not allowed to comment as {body.get('actor')}.")
        if body.get("object") != urn:
            return rest_error(400, "ILLEGAL_ARGUMENT", f"/object must be {urn}, the entity the path names.")
        if not any(p.urn == urn for p in self.posts):
            return rest_error(404, "RESOURCE_NOT_FOUND", f"{urn} does not exist.")
        text = (body.get("message") or {}).get("text") if isinstance(body.get("message"), dict) else None
        if not isinstance(text, str) or not text.strip():
            return rest_error(400, "ILLEGAL_ARGUMENT", "/message/text is required.")
        if len(text) > MAX_COMMENT:
            return rest_error(400, "ILLEGAL_ARGUMENT", f"/message/text is longer than {MAX_COMMENT} characters.")
        comment = Comment(str(7_300_000_000_000_000_000 + secrets.randbelow(10**17)), urn, member.urn, text)
        self.comments.append(comment)
        return answer(201, _resource(comment), x_restli_id=comment.id)

    def list_comments(self, request: Request, match: re.Match[str]) -> Answer:
        member = self._rest_caller(request, "r_member_social")
        if isinstance(member, Answer):
            return member
        found = [_resource(c) for c in self.comments_on(unquote(match["urn"]))]
        return answer(200, {"elements": found, "paging": {"count": len(found), "start": 0, "total": len(found)}})


def _resource(comment: Comment) -> dict[str, Any]:
    at = {"actor": comment.actor, "time": int(comment.created_at * 1000)}
    return {
        "actor": comment.actor,
        "commentUrn": comment.urn,
        "id": comment.id,
        "object": comment.post_urn,
        "message": {"text": comment.text, "attributes": []},
        "created": at,
        "lastModified": at,
    }
