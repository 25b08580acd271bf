"""herald.posts.v1.PostService: translates proto to the posts service and back.

A member's profile limits (core/identity/profile_limits.py) hold in every method: an action on
one post checks it first (require_post: no query without limits), lists and dry runs carry the
limits into their queries (`limited_to`)."""

from __future__ import annotations

import grpc
from herald.posts.v1 import posts_pb2, posts_pb2_grpc

from core.analytics import latest as latest_metrics
from core.identity import profile_limits
from core.identity.principal import CredentialKind
from core.identity.verification import require_verified
from core.pagination import page_request
from core.posts import (
    approvals,
    dry_run,
    preview,
    recent,
    service,
)
from core.posts.create import create_posts
from core.posts.group_servicer import GroupMethods
from core.posts.idempotency import request_hash
from core.posts.messages import post_message, tiktok_options
from core.posts.notices import Notice
from core.posts.reading_servicer import EVENTS_PAGE, GROUPS_PAGE, ReadingMethods
from core.posts.validation import CreateRequest, unknown_profiles
from core.posts.versions import Customization, Extras, ThreadItem
from core.rpc.context import current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy, PageBounds

_READ = frozenset({"posts:read"})
_WRITE = frozenset({"posts:write"})
_PEOPLE = frozenset({CredentialKind.SESSION, CredentialKind.API_KEY})

POLICIES = {
    "CreatePosts": MethodPolicy(permission="compose", scopes=_WRITE, writes=True),
    "ListPosts": MethodPolicy(permission="read", scopes=_READ, page=PageBounds(default=50, maximum=100)),
    "GetPost": MethodPolicy(permission="read", scopes=_READ),
    "UpdatePost": MethodPolicy(permission="compose", scopes=_WRITE, writes=True),
    "CancelPost": MethodPolicy(permission="publish", scopes=_WRITE, writes=True),
    "RetryPost": MethodPolicy(permission="publish", scopes=_WRITE, writes=True),
    # Contributors submit drafts: theirs wait for approval (docs/teams.md, "Approvals").
    "SchedulePost": MethodPolicy(permission="compose", scopes=_WRITE, writes=True),
    # People review: dashboard sessions and API keys whose role may approve; never an agent.
    "ApprovePost": MethodPolicy(
        permission="approve", credential_kinds=_PEOPLE, plan_exempt_for_sessions=True, scopes=_WRITE, writes=True
    ),
    "RejectPost": MethodPolicy(
        permission="approve", credential_kinds=_PEOPLE, plan_exempt_for_sessions=True, scopes=_WRITE, writes=True
    ),
    "ApprovePostGroup": MethodPolicy(
        permission="approve", credential_kinds=_PEOPLE, plan_exempt_for_sessions=True, scopes=_WRITE, writes=True
    ),
    "RejectPostGroup": MethodPolicy(
        permission="approve", credential_kinds=_PEOPLE, plan_exempt_for_sessions=True, scopes=_WRITE, writes=True
    ),
    "ListOutboxEntries": MethodPolicy(permission="read", scopes=_READ),
    # A post's history (docs/posts.md, "History"): its steps, 50 a page.
    "ListPostEvents": MethodPolicy(permission="read", scopes=_READ, page=EVENTS_PAGE),
    # A post group: as the single-post actions its actions repeat (docs/posts.md, "Post groups").
    "GetPostGroup": MethodPolicy(permission="read", scopes=_READ),
    "ReschedulePostGroup": MethodPolicy(permission="publish", scopes=_WRITE, writes=True),
    "CancelPostGroup": MethodPolicy(permission="publish", scopes=_WRITE, writes=True),
    # The dashboard's posts page (docs/dashboard.md, "Posts"): groups, 25 a page.
    "ListPostGroups": MethodPolicy(permission="read", scopes=_READ, page=GROUPS_PAGE),
    # A dry run of CreatePosts: it creates nothing, so reading posts is enough.
    "ValidatePosts": MethodPolicy(permission="compose", scopes=_READ),
    "PreviewPosts": MethodPolicy(permission="compose", scopes=_READ),
    # The dashboard's calendar (docs/dashboard.md, "Calendar"): sessions only, no surface of its own.
    "ListCalendarPosts": MethodPolicy(
        permission="read", credential_kinds=frozenset({CredentialKind.SESSION}), scopes=_READ
    ),
    # Writing tools (docs/api.md, "Authentication": generate:read reads recent posts).
    "ListRecentPosts": MethodPolicy(
        permission="read", scopes=frozenset({"generate:read"}), page=PageBounds(default=20, maximum=100)
    ),
}


def _thread(thread: posts_pb2.Thread) -> tuple[ThreadItem, ...]:
    return tuple(ThreadItem(item.content, tuple(item.media_ids)) for item in thread.items)


def _customization(c: posts_pb2.Customization) -> Customization:
    return Customization(
        content=c.content if c.HasField("content") else None,
        media_ids=tuple(c.media_ids.ids) if c.HasField("media_ids") else None,
        title=c.title if c.HasField("title") else None,
        post_type=c.post_type if c.HasField("post_type") else None,
        thread=_thread(c.thread) if c.HasField("thread") else None,
        first_comment=c.first_comment if c.HasField("first_comment") else None,
        language=c.language if c.HasField("language") else None,
        tiktok=tiktok_options(c.tiktok) if c.HasField("tiktok") else None,
    )


def _create_request(request: posts_pb2.CreatePostsRequest) -> CreateRequest:
    return CreateRequest(
        content=request.content,
        profiles=list(request.profiles),
        schedule_at=request.schedule_at if request.HasField("schedule_at") else None,
        media_ids=tuple(request.media_ids),
        post_types=dict(request.post_types),
        title=request.title if request.HasField("title") else None,
        extras=Extras(
            thread=_thread(request.thread),
            first_comment=request.first_comment if request.HasField("first_comment") else None,
            customizations={slug: _customization(c) for slug, c in request.customizations.items()},
            language=request.language if request.HasField("language") else None,
            tiktok=tiktok_options(request.tiktok) if request.HasField("tiktok") else None,
        ),
        draft=request.draft,
        next_slot=request.next_slot,
    )


class PostServicer(GroupMethods, ReadingMethods, posts_pb2_grpc.PostServiceServicer):
    async def CreatePosts(
        self, request: posts_pb2.CreatePostsRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.CreatePostsResponse:
        call = current_call()
        if not request.draft:
            require_verified(call.principal)  # drafts are written before the address is confirmed
        if outside := await profile_limits.outside(call.conn, call.principal, request.profiles):
            raise unknown_profiles(outside)
        fingerprint = posts_pb2.CreatePostsRequest()
        fingerprint.CopyFrom(request)
        fingerprint.ClearField("request_id")
        outcome = await create_posts(
            call.conn,
            call.principal.org_id,
            _create_request(request),
            call.now,
            idempotency_key=request.request_id,
            request_digest=request_hash(fingerprint.SerializeToString(deterministic=True)),
            encode=lambda messages, notices: _created(messages, notices).SerializeToString(),
            live=call.settings.publish_mode == "live",
            ends_transaction=True,  # the unit of work commits right after
            author=approvals.author_of(call.principal),
            audit=call.audit,
        )
        if outcome.replay is not None:
            return posts_pb2.CreatePostsResponse.FromString(outcome.replay)
        return _created(outcome.messages, outcome.notices)

    async def ListPosts(
        self, request: posts_pb2.ListPostsRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.ListPostsResponse:
        call = current_call()
        page = page_request(request.page_size, request.page_token, POLICIES["ListPosts"].page)
        filters = service.ListFilter(
            status=request.status,
            profile=request.profile,
            connector=request.connector,
            scheduled_after=request.scheduled_after,
            scheduled_before=request.scheduled_before,
            group_id=request.group_id,
            limited_to=call.principal.profile_tags,
        )
        records, token = await service.list_posts(call.conn, call.principal.org_id, filters, page)
        return posts_pb2.ListPostsResponse(posts=[post_message(r) for r in records], next_page_token=token)

    async def GetPost(self, request: posts_pb2.GetPostRequest, context: grpc.aio.ServicerContext) -> posts_pb2.Post:
        call = current_call()
        await profile_limits.require_post(call.conn, call.principal, request.post_id)
        return post_message(await service.get_post(call.conn, call.principal.org_id, request.post_id))

    async def UpdatePost(
        self, request: posts_pb2.UpdatePostRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.Post:
        call = current_call()
        await profile_limits.require_post(call.conn, call.principal, request.post_id)
        change = service.PostChange(
            content=request.content if request.HasField("content") else None,
            schedule_at=request.schedule_at if request.HasField("schedule_at") else None,
            media_ids=list(request.media_ids) if request.update_media_ids else None,
            thread=_thread(request.thread) if request.HasField("thread") else None,
            first_comment=request.first_comment if request.HasField("first_comment") else None,
            language=request.language if request.HasField("language") else None,
            tiktok=tiktok_options(request.tiktok) if request.HasField("tiktok") else None,
        )
        record = await service.update_post(
            call.conn,
            call.principal.org_id,
            request.post_id,
            change,
            call.now,
            live=call.settings.publish_mode == "live",
            author=approvals.author_of(call.principal),
        )
        return post_message(record)

    async def SchedulePost(
        self, request: posts_pb2.SchedulePostRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.Post:
        call = current_call()
        require_verified(call.principal)
        await profile_limits.require_post(call.conn, call.principal, request.post_id)
        record = await service.schedule_post(
            call.conn,
            call.principal.org_id,
            request.post_id,
            schedule_at=request.schedule_at if request.HasField("schedule_at") else None,
            next_slot=request.next_slot,
            now=call.now,
            live=call.settings.publish_mode == "live",
            author=approvals.author_of(call.principal),
        )
        return post_message(record)

    async def CancelPost(
        self, request: posts_pb2.CancelPostRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.Post:
        call = current_call()
        await profile_limits.require_post(call.conn, call.principal, request.post_id)
        post, balance = await service.cancel_post(call.conn, call.principal.org_id, request.post_id, call.now)
        if balance is not None:
            call.credits_remaining = balance  # X-Credits-Remaining says what the refund left
        return post_message(post)

    async def RetryPost(self, request: posts_pb2.RetryPostRequest, context: grpc.aio.ServicerContext) -> posts_pb2.Post:
        call = current_call()
        await profile_limits.require_post(call.conn, call.principal, request.post_id)
        return post_message(await service.retry_post(call.conn, call.principal.org_id, request.post_id, call.now))

    async def ValidatePosts(
        self, request: posts_pb2.ValidatePostsRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.ValidatePostsResponse:
        call = current_call()
        run = await dry_run.validate_posts(*_checking(call, request.posts), **_checking_options(call))
        return posts_pb2.ValidatePostsResponse(
            valid=run.valid,
            deliverable=run.deliverable,
            problems=_problems(run.problems),
            profiles=[
                posts_pb2.ProfileCheck(
                    profile=c.profile,
                    connector=c.connector,
                    post_type=c.post_type,
                    valid=c.valid,
                    problems=_problems(c.problems),
                    length=c.length,
                    max_length=c.max_length,
                    unit=c.unit,
                    notices=_notices(c.notices),
                )
                for c in run.profiles
            ],
            credits_required=run.credits_required,
            credit_balance=run.balance,
        )

    async def PreviewPosts(
        self, request: posts_pb2.PreviewPostsRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.PreviewPostsResponse:
        call = current_call()
        shown = await preview.preview_posts(*_checking(call, request.posts), **_checking_options(call))
        run = shown.run
        return posts_pb2.PreviewPostsResponse(
            valid=run.valid,
            deliverable=run.deliverable,
            problems=_problems(run.problems),
            credits_required=run.credits_required,
            credit_balance=run.balance,
            destinations=[_destination(d) for d in shown.destinations],
            draft=shown.draft,
            schedule_time=timestamp(shown.schedule_at),
        )

    async def ListRecentPosts(
        self, request: posts_pb2.ListRecentPostsRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.ListPostsResponse:
        call = current_call()
        page = page_request(request.page_size, request.page_token, POLICIES["ListRecentPosts"].page)
        records, token = await recent.list_recent_posts(
            call.conn,
            call.principal.org_id,
            profile=request.profile,
            connector=request.connector,
            page=page,
            limited_to=call.principal.profile_tags,
        )
        # Each post's latest metrics (docs/analytics.md), so an agent sees what worked.
        metrics = await latest_metrics.of_posts(call.conn, [r.id for r in records])
        messages = [post_message(r) for r in records]
        for message in messages:
            message.metrics.update(metrics.get(message.id, {}))
        return posts_pb2.ListPostsResponse(posts=messages, next_page_token=token)


def _checking(call, posts: posts_pb2.CreatePostsRequest) -> tuple:  # the Call
    """The dry run's and the preview's positional arguments: what to check, for whom, when."""
    return call.conn, call.principal.org_id, _create_request(posts), call.now


def _checking_options(call) -> dict:  # the Call
    return {
        "balance": call.principal.credit_balance,
        "post_cost": call.settings.post_cost,
        "live": call.settings.publish_mode == "live",
        "limited_to": call.principal.profile_tags,
    }


def _problems(problems: list[dry_run.Problem]) -> list[posts_pb2.Problem]:
    return [posts_pb2.Problem(code=p.code, message=p.message) for p in problems]


def _notices(notices: list[Notice]) -> list[posts_pb2.Notice]:
    return [posts_pb2.Notice(profile=n.profile, code=n.code, field=n.field, message=n.message) for n in notices]


def _created(messages: list[posts_pb2.Post], notices: list[Notice]) -> posts_pb2.CreatePostsResponse:
    return posts_pb2.CreatePostsResponse(posts=messages, notices=_notices(notices))


def _destination(d: preview.Destination) -> posts_pb2.DestinationPreview:
    return posts_pb2.DestinationPreview(
        profile=d.check.profile,
        connector=d.check.connector,
        platform=d.platform,
        display_name=d.check.display_name,
        post_type=d.check.post_type,
        valid=d.check.valid,
        problems=_problems(d.check.problems),
        warnings=_problems(d.warnings),
        notices=_notices(d.check.notices),
        parts=[
            posts_pb2.TextPreview(
                role=p.role,
                text=p.text,
                length=p.length,
                max_length=p.max_length,
                unit=p.unit,
                media=[
                    posts_pb2.MediaPreview(
                        media_id=m.media_id,
                        kind=m.kind,
                        mime_type=m.mime_type,
                        width=m.width or 0,
                        height=m.height or 0,
                        size_bytes=m.size_bytes,
                    )
                    for m in p.media
                ],
            )
            for p in d.parts
        ],
    )
