"""/v1/posts: create (SPEC 4), list, get, edit, cancel, retry, and a post's outbox."""

from __future__ import annotations

from herald.posts.v1 import posts_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.rest import render
from facades.rest.auth import api_key_authorization
from facades.rest.body import json_object, string, string_list, string_map
from facades.rest.respond import int_arg, ok, page, reject_after_auth

bp = Blueprint("posts", url_prefix="/posts")

CREATE_FIELDS = frozenset({"content", "profiles", "schedule_at", "media_ids", "post_types", "title"})
PATCH_FIELDS = frozenset({"content", "schedule_at", "media_ids"})


def _idempotency_key(request: Request) -> str:
    key = request.headers.get("idempotency-key", "")
    if key and not (key.isascii() and key.isprintable()):
        raise ApiError("VALIDATION_ERROR", "Idempotency-Key must be printable ASCII")
    return key


def _create_request(request: Request) -> posts_pb2.CreatePostsRequest:
    body = json_object(request, CREATE_FIELDS)
    if isinstance(body, ApiError):
        raise body
    message = posts_pb2.CreatePostsRequest(
        content=string(body, "content", required=True) or "",
        profiles=string_list(body, "profiles", required=True) or [],
        media_ids=string_list(body, "media_ids") or [],
        post_types=string_map(body, "post_types") or {},
        request_id=_idempotency_key(request),
    )
    schedule_at = string(body, "schedule_at")
    if schedule_at is not None:
        message.schedule_at = schedule_at
    title = string(body, "title")
    if title is not None:
        message.title = title
    return message


@bp.post("")
async def create_posts(request: Request) -> HTTPResponse:
    authorization = api_key_authorization(request)
    try:
        message = _create_request(request)
    except ApiError as error:
        return await reject_after_auth(request, authorization, error)
    core = request.app.ctx.core
    result = await core.call(core.posts.CreatePosts, message, authorization=authorization)
    return ok(result, {"posts": [render.post(p) for p in result.response.posts]}, status=201)


@bp.get("")
async def list_posts(request: Request) -> HTTPResponse:
    authorization = api_key_authorization(request)
    page_size = int_arg(request, "page_size")
    if isinstance(page_size, ApiError):
        return await reject_after_auth(request, authorization, page_size)
    args = request.args
    core = request.app.ctx.core
    result = await core.call(
        core.posts.ListPosts,
        posts_pb2.ListPostsRequest(
            status=args.get("status", ""),
            profile=args.get("profile", ""),
            connector=args.get("connector", ""),
            scheduled_after=args.get("scheduled_after", ""),
            scheduled_before=args.get("scheduled_before", ""),
            page_size=page_size,
            page_token=args.get("page_token", ""),
        ),
        authorization=authorization,
    )
    return page(result, "posts", [render.post(p) for p in result.response.posts])


@bp.get("/<post_id:str>")
async def get_post(request: Request, post_id: str) -> HTTPResponse:
    authorization = api_key_authorization(request)
    core = request.app.ctx.core
    result = await core.call(core.posts.GetPost, posts_pb2.GetPostRequest(post_id=post_id), authorization=authorization)
    return ok(result, render.post(result.response))


@bp.patch("/<post_id:str>")
async def update_post(request: Request, post_id: str) -> HTTPResponse:
    authorization = api_key_authorization(request)
    try:
        body = json_object(request, PATCH_FIELDS)
        if isinstance(body, ApiError):
            raise body
        message = posts_pb2.UpdatePostRequest(post_id=post_id)
        content = string(body, "content", nullable=False)
        if content is not None:
            message.content = content
        schedule_at = string(body, "schedule_at", nullable=False)
        if schedule_at is not None:
            message.schedule_at = schedule_at
        if "media_ids" in body:
            message.update_media_ids = True
            message.media_ids.extend(string_list(body, "media_ids") or [])
    except ApiError as error:
        return await reject_after_auth(request, authorization, error)
    core = request.app.ctx.core
    result = await core.call(core.posts.UpdatePost, message, authorization=authorization)
    return ok(result, render.post(result.response))


@bp.delete("/<post_id:str>")
async def cancel_post(request: Request, post_id: str) -> HTTPResponse:
    authorization = api_key_authorization(request)
    core = request.app.ctx.core
    result = await core.call(
        core.posts.CancelPost, posts_pb2.CancelPostRequest(post_id=post_id), authorization=authorization
    )
    return ok(result, render.post(result.response))


@bp.post("/<post_id:str>/retry")
async def retry_post(request: Request, post_id: str) -> HTTPResponse:
    authorization = api_key_authorization(request)
    core = request.app.ctx.core
    result = await core.call(
        core.posts.RetryPost, posts_pb2.RetryPostRequest(post_id=post_id), authorization=authorization
    )
    return ok(result, render.post(result.response))


@bp.get("/<post_id:str>/outbox")
async def post_outbox(request: Request, post_id: str) -> HTTPResponse:
    authorization = api_key_authorization(request)
    core = request.app.ctx.core
    result = await core.call(
        core.posts.ListOutboxEntries, posts_pb2.ListOutboxEntriesRequest(post_id=post_id), authorization=authorization
    )
    return ok(result, {"entries": [render.outbox_entry(e) for e in result.response.entries]})
