"""Comments and notifications (docs/teams.md, "Comments and notifications")."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.notes.v1 import notes_pb2
from pydantic import BaseModel, ConfigDict, Field

from contract.base import InQuery, Request, Response, UtcTimestamp, timestamp
from contract.post_requests import GroupId, PostId
from contract.requests import PageToken, _page_size
from contract.resources import NextPageToken, _page

_BODY = Annotated[
    str,
    Field(
        min_length=1,
        max_length=5000,
        description="What the comment says (1 to 5000 characters). `@email` of a member mentions them: they "
        "are notified.",
    ),
]


class AddPostCommentRequest(Request):
    post_id: PostId
    body: _BODY

    def to_proto(self) -> notes_pb2.AddCommentRequest:
        return notes_pb2.AddCommentRequest(post_id=self.post_id, body=self.body)


class AddGroupCommentRequest(Request):
    group_id: GroupId
    body: _BODY

    def to_proto(self) -> notes_pb2.AddCommentRequest:
        return notes_pb2.AddCommentRequest(group_id=self.group_id, body=self.body)


class ListPostCommentsRequest(Request):
    post_id: PostId

    def to_proto(self) -> notes_pb2.ListCommentsRequest:
        return notes_pb2.ListCommentsRequest(post_id=self.post_id)


class ListGroupCommentsRequest(Request):
    group_id: GroupId

    def to_proto(self) -> notes_pb2.ListCommentsRequest:
        return notes_pb2.ListCommentsRequest(group_id=self.group_id)


class Comment(Response):
    """A comment of the team on a post or a post group; never published."""

    id: str = Field(pattern="^cmt_")
    group_id: str
    post_id: str | None = Field(description="The post it is about; null for a comment on the whole group.")
    author: str = Field(description="Its author's email address.")
    body: str
    mentions: list[str] = Field(description="The members it mentions (their emails).")
    created_at: UtcTimestamp

    @classmethod
    def from_proto(cls, c: notes_pb2.Comment) -> dict[str, Any]:
        return {
            "id": c.id,
            "group_id": c.group_id,
            "post_id": c.post_id or None,
            "author": c.author_email,
            "body": c.body,
            "mentions": list(c.mentions),
            "created_at": timestamp(c.create_time),
        }


class CommentList(Response):
    """Oldest first."""

    comments: list[Comment]

    @classmethod
    def from_proto(cls, r: notes_pb2.ListCommentsResponse) -> dict[str, Any]:
        return {"comments": [Comment.from_proto(c) for c in r.comments]}


class ListNotificationsRequest(Request):
    show: Annotated[Literal["all", "unread"], InQuery(), Field(description="`unread`: only those not read yet.")] = (
        "all"
    )
    page_size: _page_size("/herald.notes.v1.NoteService/ListNotifications") = None
    page_token: PageToken = None

    def to_proto(self) -> notes_pb2.ListNotificationsRequest:
        return notes_pb2.ListNotificationsRequest(
            unread_only=self.show == "unread", page_size=self.page_size or 0, page_token=self.page_token or ""
        )


class Notification(Response):
    id: str = Field(pattern="^ntf_")
    kind: str = Field(
        description="approval_requested, post_approved, post_rejected, post_failed, profile_needs_reauth, "
        "token_expiring, credits_low or mentioned."
    )
    text: str
    subject_id: str | None = Field(description="The post, profile or comment it is about.")
    link: str | None = Field(description="The dashboard page where it is seen to (a path under the base URL).")
    created_at: UtcTimestamp
    read_at: UtcTimestamp | None

    @classmethod
    def from_proto(cls, n: notes_pb2.Notification) -> dict[str, Any]:
        return {
            "id": n.id,
            "kind": n.kind,
            "text": n.text,
            "subject_id": n.subject_id or None,
            "link": n.link or None,
            "created_at": timestamp(n.create_time),
            "read_at": timestamp(n.read_time) if n.HasField("read_time") else None,
        }


class NotificationList(Response):
    """Newest first, with the unread count."""

    notifications: list[Notification]
    next_page_token: NextPageToken
    unread_count: int = Field(ge=0)

    @classmethod
    def from_proto(cls, r: notes_pb2.ListNotificationsResponse) -> dict[str, Any]:
        listed = _page("notifications", [Notification.from_proto(n) for n in r.notifications], r.next_page_token)
        return {**listed, "unread_count": r.unread_count}


class MarkNotificationsReadRequest(Request):
    ids: Annotated[list[str], Field(max_length=200, description="The notifications to mark read.")] = []
    all: Annotated[bool, Field(description="Mark every one read instead.")] = False

    def to_proto(self) -> notes_pb2.MarkNotificationsReadRequest:
        return notes_pb2.MarkNotificationsReadRequest(ids=self.ids, all=self.all)


class UnreadCount(Response):
    unread_count: int = Field(ge=0)

    @classmethod
    def from_proto(cls, r: notes_pb2.MarkNotificationsReadResponse) -> dict[str, Any]:
        return {"unread_count": r.unread_count}


class GetNotificationSettingsRequest(Request):
    def to_proto(self) -> notes_pb2.GetNotificationSettingsRequest:
        return notes_pb2.GetNotificationSettingsRequest()


class ChannelChoice(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    kind: str = Field(max_length=32)
    inbox: bool
    email: bool


class UpdateNotificationSettingsRequest(Request):
    channels: Annotated[list[ChannelChoice], Field(min_length=1, max_length=20)]

    def to_proto(self) -> notes_pb2.UpdateNotificationSettingsRequest:
        return notes_pb2.UpdateNotificationSettingsRequest(
            channels=[notes_pb2.NotificationChannel(kind=c.kind, inbox=c.inbox, email=c.email) for c in self.channels]
        )


class Channel(Response):
    kind: str
    description: str
    inbox: bool = Field(description="Shown in the dashboard's inbox.")
    email: bool = Field(description="Sent by email (when mail is configured).")


class NotificationSettings(Response):
    channels: list[Channel]
    mail_configured: bool = Field(description="Whether this Herald sends mail at all.")

    @classmethod
    def from_proto(cls, s: notes_pb2.NotificationSettings) -> dict[str, Any]:
        return {
            "channels": [
                {"kind": c.kind, "description": c.description, "inbox": c.inbox, "email": c.email} for c in s.channels
            ],
            "mail_configured": s.mail_configured,
        }
