"""Operations of comments and notifications (docs/teams.md, "Comments and notifications"). People
only (API keys here; the dashboard has its own pages): no tool."""

from __future__ import annotations

from herald.notes.v1 import notes_pb2

from contract import notes
from contract.operation import Operation
from contract.requests import rpc_path

_ADD = rpc_path(notes_pb2, "NoteService", "AddComment")
_LIST = rpc_path(notes_pb2, "NoteService", "ListComments")
_MENTIONS = (
    "Internal: never published. Writing `@` and a member's email mentions them: they are notified (inbox, and "
    "email by their choice). Needs a role that composes (not a viewer)."
)

ROWS = (
    Operation(
        id="addPostComment",
        method="POST",
        path="/v1/posts/{post_id}/comments",
        summary="Comment on a post (the team's note, never published)",
        tag="comments",
        rpc=_ADD,
        request=notes.AddPostCommentRequest,
        responses={201: notes.Comment},
        errors=("NOT_FOUND", "VALIDATION_ERROR", "FORBIDDEN"),
        description=_MENTIONS,
    ),
    Operation(
        id="listPostComments",
        method="GET",
        path="/v1/posts/{post_id}/comments",
        summary="A post's comments and its group's, oldest first",
        tag="comments",
        rpc=_LIST,
        request=notes.ListPostCommentsRequest,
        responses={200: notes.CommentList},
        errors=("NOT_FOUND",),
    ),
    Operation(
        id="addGroupComment",
        method="POST",
        path="/v1/post-groups/{group_id}/comments",
        summary="Comment on a post group (all the posts one request made)",
        tag="comments",
        rpc=_ADD,
        request=notes.AddGroupCommentRequest,
        responses={201: notes.Comment},
        errors=("NOT_FOUND", "VALIDATION_ERROR", "FORBIDDEN"),
        description=_MENTIONS,
    ),
    Operation(
        id="listGroupComments",
        method="GET",
        path="/v1/post-groups/{group_id}/comments",
        summary="Every comment of a post group and of its posts, oldest first",
        tag="comments",
        rpc=_LIST,
        request=notes.ListGroupCommentsRequest,
        responses={200: notes.CommentList},
        errors=("NOT_FOUND",),
    ),
    Operation(
        id="listNotifications",
        method="GET",
        path="/v1/notifications",
        summary="Your notifications in this organization, newest first",
        tag="notifications",
        rpc=rpc_path(notes_pb2, "NoteService", "ListNotifications"),
        request=notes.ListNotificationsRequest,
        responses={200: notes.NotificationList},
        description="The API key's member's own notifications, with the unread count. Made by the workers from "
        "what happened (a post waiting for your approval, your post approved, rejected or failed, a profile to "
        "reconnect or whose access ends within 7 days, low credits, a mention), within a second or so.",
    ),
    Operation(
        id="markNotificationsRead",
        method="POST",
        path="/v1/notifications/read",
        summary="Mark notifications read",
        tag="notifications",
        rpc=rpc_path(notes_pb2, "NoteService", "MarkNotificationsRead"),
        request=notes.MarkNotificationsReadRequest,
        responses={200: notes.UnreadCount},
        errors=("VALIDATION_ERROR",),
        description="Those named in `ids` (your own; others are ignored), or every one with `all: true`. Answers "
        "the unread count after.",
    ),
    Operation(
        id="getNotificationSettings",
        method="GET",
        path="/v1/notification-settings",
        summary="Where each kind of your notifications goes",
        tag="notifications",
        rpc=rpc_path(notes_pb2, "NoteService", "GetNotificationSettings"),
        request=notes.GetNotificationSettingsRequest,
        responses={200: notes.NotificationSettings},
    ),
    Operation(
        id="updateNotificationSettings",
        method="PATCH",
        path="/v1/notification-settings",
        summary="Choose, per kind, the inbox and email",
        tag="notifications",
        rpc=rpc_path(notes_pb2, "NoteService", "UpdateNotificationSettings"),
        request=notes.UpdateNotificationSettingsRequest,
        responses={200: notes.NotificationSettings},
        errors=("VALIDATION_ERROR",),
        description="The kinds sent change; the others keep their setting.",
    ),
)
