"""Approvals (docs/teams.md, "Approvals"): approving or rejecting a post, or a whole group, that
waits for a person, and the review a post keeps."""

from __future__ import annotations

from typing import Annotated

from herald.posts.v1 import posts_pb2
from pydantic import Field

from contract.base import DateTime, Request
from contract.post_requests import GroupId, PostId

_COMMENT = Annotated[str, Field(max_length=2000, description="What the reviewer says, kept with the review.")]
_SCHEDULE_AT = Annotated[
    DateTime | None,
    Field(
        description="Another send time (ISO 8601 with an offset) instead of the post's own. Needed, or publish_now, "
        "when the post's time passed while it waited."
    ),
]
_PUBLISH_NOW = Annotated[bool, Field(description="Send it now instead of at its time.")]


class ApprovePostRequest(Request):
    """Approves a post waiting for approval; the body may be empty."""

    post_id: PostId
    comment: _COMMENT = ""
    schedule_at: _SCHEDULE_AT = None
    publish_now: _PUBLISH_NOW = False

    def to_proto(self) -> posts_pb2.ApprovePostRequest:
        message = posts_pb2.ApprovePostRequest(post_id=self.post_id, comment=self.comment, publish_now=self.publish_now)
        if self.schedule_at is not None:
            message.schedule_at = self.schedule_at
        return message


class RejectPostRequest(Request):
    """Rejects a post waiting for approval: it returns to draft. The body may be empty."""

    post_id: PostId
    comment: _COMMENT = ""

    def to_proto(self) -> posts_pb2.RejectPostRequest:
        return posts_pb2.RejectPostRequest(post_id=self.post_id, comment=self.comment)


class ApprovePostGroupRequest(Request):
    """Approves every post of the group waiting for approval, all or nothing."""

    group_id: GroupId
    comment: _COMMENT = ""
    schedule_at: _SCHEDULE_AT = None
    publish_now: _PUBLISH_NOW = False

    def to_proto(self) -> posts_pb2.ApprovePostGroupRequest:
        message = posts_pb2.ApprovePostGroupRequest(
            group_id=self.group_id, comment=self.comment, publish_now=self.publish_now
        )
        if self.schedule_at is not None:
            message.schedule_at = self.schedule_at
        return message


class RejectPostGroupRequest(Request):
    """Rejects every post of the group waiting for approval, all or nothing."""

    group_id: GroupId
    comment: _COMMENT = ""

    def to_proto(self) -> posts_pb2.RejectPostGroupRequest:
        return posts_pb2.RejectPostGroupRequest(group_id=self.group_id, comment=self.comment)
