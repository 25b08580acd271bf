"""Operations of approvals (docs/teams.md, "Approvals"): people approve or reject posts, one or a
whole group, that wait for approval. No tool: agents never approve."""

from __future__ import annotations

from herald.posts.v1 import posts_pb2

from contract import approvals
from contract import post_resources as rs
from contract.operation import Operation
from contract.requests import rpc_path

_WHO = (
    "People only: a dashboard session or an API key whose member may approve (owner, admin, editor); an agent's "
    "token is `FORBIDDEN`. A post the member wrote themselves (the dashboard, their own API key) needs another "
    "approver unless the organization allows self-approval; a post their agent wrote is theirs to approve. The "
    "body may be empty."
)

ROWS = (
    Operation(
        id="approvePost",
        method="POST",
        path="/v1/posts/{post_id}/approve",
        summary="Approve a post waiting for approval: it is scheduled or queued",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "ApprovePost"),
        request=approvals.ApprovePostRequest,
        responses={200: rs.Post},
        errors=(
            "FORBIDDEN",
            "NOT_FOUND",
            "INVALID_POST_STATE",
            "VALIDATION_ERROR",
            "NEVER_PUBLISH_PHRASE",
            "EMAIL_NOT_VERIFIED",
        ),
        description="Every check of creation runs again, then the post is scheduled at its schedule_at (or the one "
        "sent), or queued to go out now (`publish_now`, or a post that had no time of its own). A schedule_at that "
        "passed while it waited must be replaced: send `schedule_at` or `publish_now` (else `VALIDATION_ERROR`). "
        "Of two approvals at once, one counts; the other finds the post no longer waiting (`INVALID_POST_STATE`). "
        + _WHO,
    ),
    Operation(
        id="rejectPost",
        method="POST",
        path="/v1/posts/{post_id}/reject",
        summary="Reject a post waiting for approval: it is a draft again, with the review",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "RejectPost"),
        request=approvals.RejectPostRequest,
        responses={200: rs.Post},
        errors=("FORBIDDEN", "NOT_FOUND", "INVALID_POST_STATE", "VALIDATION_ERROR"),
        description="The post returns to `draft` with `review` (who, when, `comment`) on it. " + _WHO,
    ),
    Operation(
        id="approvePostGroup",
        method="POST",
        path="/v1/post-groups/{group_id}/approve",
        summary="Approve every post of a group that waits for approval",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "ApprovePostGroup"),
        request=approvals.ApprovePostGroupRequest,
        responses={200: rs.PostGroup},
        errors=(
            "FORBIDDEN",
            "NOT_FOUND",
            "INVALID_POST_STATE",
            "VALIDATION_ERROR",
            "NEVER_PUBLISH_PHRASE",
            "EMAIL_NOT_VERIFIED",
        ),
        description="All or nothing, in one transaction, each post as approvePost approves it; the first that "
        "refuses is named and nothing changes. Posts not waiting are left as they are; a group with none waiting "
        "is `INVALID_POST_STATE`. " + _WHO,
    ),
    Operation(
        id="rejectPostGroup",
        method="POST",
        path="/v1/post-groups/{group_id}/reject",
        summary="Reject every post of a group that waits for approval",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "RejectPostGroup"),
        request=approvals.RejectPostGroupRequest,
        responses={200: rs.PostGroup},
        errors=("FORBIDDEN", "NOT_FOUND", "INVALID_POST_STATE", "VALIDATION_ERROR"),
        description="All or nothing, each post as rejectPost rejects it. " + _WHO,
    ),
)
