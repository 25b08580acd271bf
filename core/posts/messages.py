"""A post as the core's messages carry it (herald.posts.v1.Post): the servicer answers with it,
and the webhook events render it through the contract's Post, as GET /v1/posts/{id} does."""

from __future__ import annotations

from dataclasses import fields

from herald.posts.v1 import posts_pb2

from core.connectors.base import TikTokOptions
from core.posts.group_listing import ListedGroup
from core.posts.records import PostRecord
from core.posts.thread_parts import PartRecord
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
    "pending_approval": posts_pb2.POST_STATUS_PENDING_APPROVAL,
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
        group_id=record.group_id,
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
    message.author_id, message.author_via = record.author_id, record.author_via
    if record.review is not None:
        review = record.review
        message.review.CopyFrom(
            posts_pb2.Review(
                outcome=review.outcome,
                reviewer_id=review.reviewer_id,
                reviewer_email=review.reviewer_email,
                review_time=timestamp(review.at),
                comment=review.comment,
            )
        )
    if record.title is not None:
        message.title = record.title
    if record.language is not None:
        message.language = record.language
    if record.tiktok is not None:
        message.tiktok.CopyFrom(tiktok_message(record.tiktok))
    message.thread.extend(_part(p) for p in record.thread)
    if (comment := record.first_comment) is not None:
        message.first_comment.CopyFrom(_part(comment))
    return message


def group_message(records: list[PostRecord]) -> posts_pb2.PostGroup:
    """A post group (core/posts/groups.py): its posts, in creation order."""
    return posts_pb2.PostGroup(
        id=records[0].group_id,
        create_time=timestamp(min(r.created_at for r in records)),
        posts=[post_message(r) for r in records],
    )


def listed_group_message(listed: ListedGroup) -> posts_pb2.ListedPostGroup:
    """A group as the posts page lists it (core/posts/group_listing.py)."""
    return posts_pb2.ListedPostGroup(
        group=group_message(listed.posts),
        section=listed.position.section,
        send_time=timestamp(listed.position.at),
        matching_post_ids=[r.id for r in listed.posts if r.id in listed.matching],
    )


_TIKTOK_FIELDS = tuple(f.name for f in fields(TikTokOptions))


def tiktok_message(options: TikTokOptions) -> posts_pb2.TikTokOptions:
    """The settings chosen, each field set only when the request chose it."""
    message = posts_pb2.TikTokOptions()
    for name in _TIKTOK_FIELDS:
        if (value := getattr(options, name)) is not None:
            setattr(message, name, value)
    return message


def tiktok_options(message: posts_pb2.TikTokOptions) -> TikTokOptions:
    """The settings a request's message chose (a field it left unset stays None)."""
    chosen = {name: getattr(message, name) for name in _TIKTOK_FIELDS if message.HasField(name)}
    return TikTokOptions(**chosen)
