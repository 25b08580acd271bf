"""Operations on posts."""

from __future__ import annotations

from herald.posts.v1 import posts_pb2

from contract import requests as rq
from contract import resources as rs
from contract.operation import Operation, Tool
from contract.requests import rpc_path

_POST_LINKS = ("getPost", "updatePost", "cancelPost", "retryPost", "listPostOutbox")

ROWS = (
    Operation(
        id="createPosts",
        method="POST",
        path="/v1/posts",
        summary="Publish or schedule one post per named profile",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "CreatePosts"),
        request=rq.CreatePostsRequest,
        responses={201: rs.CreatedPosts},
        errors=(
            "VALIDATION_ERROR",
            "INVALID_MEDIA",
            "INVALID_MEDIA_COMBINATION",
            "IDEMPOTENCY_KEY_REUSED",
            "PAYLOAD_TOO_LARGE",
        ),
        description="All or nothing: every check passes for every profile, or nothing is created. Each "
        "destination's text limit is checked as that platform counts; nothing is ever truncated. A post "
        "costs credits when it goes out; at zero credits it fails with failure_reason insufficient_credits.",
        links=("post_id", "$response.body#/posts/0/id", _POST_LINKS),
        tool=Tool(
            name="create_post",
            title="Create or schedule a post",
            description="Publish a post now, or schedule it with schedule_at, to one or more connected profiles "
            "(slugs from list_profiles) on a microblogging, photo-sharing, short-video or video platform: one "
            "post per profile, all or nothing. Each platform's own length limit and media rules are checked; "
            "nothing is truncated, an error names the profile, the count and the limit. Attach media_ids from "
            "create_media + confirm_media. Send an idempotency_key to retry safely: the same key and arguments "
            "answer the first result again. Returns the created posts with their ids and status.",
            open_world=True,
        ),
    ),
    Operation(
        id="listPosts",
        method="GET",
        path="/v1/posts",
        summary="List posts, newest first",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "ListPosts"),
        request=rq.ListPostsRequest,
        responses={200: rs.PostList},
        errors=("VALIDATION_ERROR",),
        tool=Tool(
            name="list_posts",
            title="List posts",
            description="List the organization's posts, newest first, optionally only those of one profile "
            "(its slug, the handle list_profiles shows), one platform (`connector`), one status (scheduled, "
            "queued, publishing, published, failed, canceled) or a schedule window. A failed post says why in "
            "failure_reason. Paged: pass next_page_token back as page_token.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="getPost",
        method="GET",
        path="/v1/posts/{post_id}",
        summary="One post",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "GetPost"),
        request=rq.GetPostRequest,
        responses={200: rs.Post},
        errors=("NOT_FOUND",),
        tool=Tool(
            name="get_post",
            title="Get a post",
            description="Read one post by id: its status (scheduled, queued, publishing, published, failed, "
            "canceled), the published URL once out, or why it failed.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="updatePost",
        method="PATCH",
        path="/v1/posts/{post_id}",
        summary="Edit a scheduled or queued post",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "UpdatePost"),
        request=rq.UpdatePostRequest,
        responses={200: rs.Post},
        errors=(
            "VALIDATION_ERROR",
            "INVALID_MEDIA",
            "INVALID_MEDIA_COMBINATION",
            "NOT_FOUND",
            "INVALID_POST_STATE",
            "PAYLOAD_TOO_LARGE",
        ),
        description="Only while the post is `scheduled` or `queued` (INVALID_POST_STATE otherwise); absent fields "
        "are kept. The new content and media are checked against the destination's rules.",
        tool=Tool(
            name="update_post",
            title="Edit a post",
            description="Change the content, schedule_at or media_ids of a post that is still scheduled or queued; "
            "fields left out keep their value, media_ids replaces the attachments ([] removes them). The "
            "platform's rules are checked again. A post that is publishing or done cannot change.",
            destructive=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="cancelPost",
        method="DELETE",
        path="/v1/posts/{post_id}",
        summary="Cancel a scheduled or queued post",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "CancelPost"),
        request=rq.CancelPostRequest,
        responses={200: rs.Post},
        errors=("NOT_FOUND", "INVALID_POST_STATE"),
        tool=Tool(
            name="cancel_post",
            title="Cancel a post",
            description="Cancel a post that is still scheduled or queued, so it never goes out. Returns the post, "
            "now `canceled`. A post that is publishing or done cannot be canceled (INVALID_POST_STATE).",
            destructive=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="retryPost",
        method="POST",
        path="/v1/posts/{post_id}/retry",
        summary="Re-queue a failed post",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "RetryPost"),
        request=rq.RetryPostRequest,
        responses={200: rs.Post},
        errors=("NOT_FOUND", "INVALID_POST_STATE"),
        tool=Tool(
            name="retry_post",
            title="Retry a failed post",
            description="Put a failed post back in the queue to publish now, e.g. after credits were topped up "
            "(failure_reason insufficient_credits). Only failed posts can be retried.",
            idempotent=True,
            open_world=True,
        ),
    ),
    Operation(
        id="listPostOutbox",
        method="GET",
        path="/v1/posts/{post_id}/outbox",
        summary="What was delivered for a post (sandbox: the exact platform requests)",
        tag="posts",
        rpc=rpc_path(posts_pb2, "PostService", "ListOutboxEntries"),
        request=rq.ListOutboxRequest,
        responses={200: rs.OutboxEntries},
        errors=("NOT_FOUND",),
    ),
)
