"""A post as the core's messages carry it (herald.posts.v1.Post): the servicer answers with it,
and the webhook events render it through the contract's Post, as GET /v1/posts/{id} does."""

from __future__ import annotations

from herald.posts.v1 import posts_pb2

from core.posts.parts import PartRecord
from core.posts.records import PostRecord
from core.rpc.convert import timestamp

STATUS_TO_PROTO = {
    "scheduled": posts_pb2.POST_STATUS_SCHEDULED,
    "queued": posts_pb2.POST_STATUS_QUEUED,
    "publishing": posts_pb2.POST_STATUS_PUBLISHING,
    "published": posts_pb2.POST_STATUS_PUBLISHED,
    "failed": posts_pb2.POST_STATUS_FAILED,
    "canceled": posts_pb2.POST_STATUS_CANCELED,
    "draft": posts_pb2.POST_STATUS_DRAFT,
    "partially_published": posts_pb2.POST_STATUS_PARTIALLY_PUBLISHED,
}


def _part(part: PartRecord) -> posts_pb2.PostPart:
    return posts_pb2.PostPart(
        content=part.content,
        media_ids=list(part.media_ids),
        status=part.status,
        platform_post_id=part.platform_post_id,
        platform_url=part.platform_url,
    )


def post_message(record: PostRecord) -> posts_pb2.Post:
    message = posts_pb2.Post(
        id=record.id,
        profile=record.profile,
        connector=record.connector,
        content=record.content,
        status=STATUS_TO_PROTO[record.status],
        schedule_time=timestamp(record.schedule_at),
        create_time=timestamp(record.created_at),
        media_ids=list(record.media_ids),
        post_type=record.post_type,
        failure_reason=record.failure_reason,
        failure_detail=record.failure_detail,
        platform_error=record.platform_error,
        platform_post_id=record.platform_post_id,
        platform_url=record.platform_url,
        publish_time=timestamp(record.published_at),
        attempts=record.attempts,
        update_time=timestamp(record.updated_at),
    )
    if record.title is not None:
        message.title = record.title
    message.thread.extend(_part(p) for p in record.thread)
    if (comment := record.first_comment) is not None:
        message.first_comment.CopyFrom(_part(comment))
    return message
