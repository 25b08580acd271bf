"""The compose page (issue 31, docs/dashboard.md "Compose"): one form that writes a post for
several profiles (picked by slug or by tag), with a version per destination, a thread, a first
comment, media from the library and a time in a named zone, and creates it with CreatePosts.

The form works without a script (POST /dashboard/compose, then the posts page, or the form again
with the error and everything typed). A link fills it in: the calendar's (a time, its zone, a
profile) and a post page's "Duplicate" (`?from=<post_id>`: that post's content, thread, first
comment, media and profile, read with GetPost). Files from the computer go to the library with the
media page's upload script (static/media_upload.js, its endpoints media_uploads.py) and are
attached at once. The page's script (static/compose.js) calls two endpoints of this module with
the same form fields, the session cookie and the form's CSRF token: the preview while
the human types (POST /dashboard/compose/preview, the core's PreviewPosts: every count, problem
and the cost are the core's) and the creation (POST /dashboard/compose/create). Both answer JSON,
and 401 when the session is gone, so the page can ask to sign in again without losing the text.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from herald.media.v1 import media_pb2
from herald.posts.v1 import posts_pb2
from herald.profiles.v1 import profiles_pb2
from sanic import Request
from sanic.response import HTTPResponse, json

from contract.operations import TOOLS
from contract.organization import time_zones
from contract.post_requests import CreatePostsRequest
from contract.writing import PreviewPostsRequest
from facades.errors import ApiError
from facades.validation import validate
from facades.web.compose_form import (
    ACTIONS,
    LINK_FIELDS,
    Compose,
    Version,
    actions,
    read_form,
    read_link,
    text_field,
)
from facades.web.media_pages import MEDIA_ID, dimensions, upload_settings
from facades.web.pages import Route, dashboard_page, listed_profiles, see_other, signed_in
from facades.web.post_detail_pages import POST_ID
from facades.web.scripted import json_error, scripted, sign_in_to
from facades.web.session import Viewer

MEDIA_SHOWN = 100  # the newest confirmed media, ListMedia's largest page
DUPLICATE = "from"  # the link's field naming the post a "Duplicate" copies
ATTACHED_LOOKED_UP = 20  # attached media older than the newest MEDIA_SHOWN, looked up one by one
THREAD_ITEMS_SHOWN = 25  # "Add a thread item" stops here (the catalog's max_thread_items when it has one)
# Where each action lands: the posts page, with what happened.
CREATED_NOTICE = {"schedule": "posts-scheduled", "publish": "posts-queued", "draft": "drafts-saved"}
SIGN_IN = sign_in_to("/dashboard/compose")
PREVIEW_OPERATION = TOOLS["preview_post"]  # its JSON is what the cards render, here and in the MCP app
# What creation can refuse that the human fixes in the form: shown on the form with its status.
# Anything else is a failure page (pages.page_errors) or, for the script, its JSON error.
FORM_ERRORS = frozenset(
    {
        "VALIDATION_ERROR",
        "UNSUPPORTED_FEATURE",
        "RECONNECT_REQUIRED",
        "INVALID_MEDIA",
        "INVALID_MEDIA_COMBINATION",
        "NEVER_PUBLISH_PHRASE",
        "PROFILE_NOT_CONNECTED",
        "IDEMPOTENCY_KEY_REUSED",
        "SUBSCRIPTION_REQUIRED",
    }
)


# -- the page -------------------------------------------------------------------------------


def _platforms(catalog: Any) -> dict[str, dict[str, Any]]:
    """Platform key -> what its panel offers: its name, its post types (the default first) and
    whether it takes a title, from the core's catalog."""
    return {
        p.key: {"name": p.name, "post_types": [t.name for t in p.post_types], "title": p.HasField("title")}
        for p in catalog.message.platforms
    }


def _choice(media: media_pb2.Media) -> dict[str, str]:
    return {
        "id": media.media_id,
        "name": media.name or media.media_id,
        "type": media.type,
        "dimensions": dimensions(media),
    }


async def _library(request: Request, viewer: Viewer, attached: list[str]) -> list[dict[str, str]]:
    """The media offered: the newest confirmed ones, and, first, those of `attached` (a duplicated
    post's) that are older, while the library still holds them confirmed."""
    core = request.app.ctx.core
    try:
        listed = await core.call(
            core.media.ListMedia, media_pb2.ListMediaRequest(page_size=MEDIA_SHOWN), authorization=viewer.authorization
        )
    except ApiError as error:
        if error.code != "SUBSCRIPTION_REQUIRED":
            raise
        return []
    media = [_choice(m) for m in listed.response.media]
    shown = {m["id"] for m in media}

    async def held(media_id: str) -> media_pb2.Media | None:
        try:
            found = await core.call(
                core.media.GetMedia, media_pb2.GetMediaRequest(media_id=media_id), authorization=viewer.authorization
            )
        except ApiError as error:
            if error.code != "NOT_FOUND":
                raise
            return None
        return found.response if found.response.status == "confirmed" else None

    wanted = [m for m in attached if m not in shown and MEDIA_ID.fullmatch(m)][:ATTACHED_LOOKED_UP]
    older = [_choice(m) for m in await asyncio.gather(*(held(i) for i in wanted)) if m is not None]
    return older + media


async def _duplicate(request: Request, viewer: Viewer, post_id: str, platforms: dict[str, Any]) -> Compose:
    """The form a post's "Duplicate" opens: its profile, text, thread items' text, first comment
    and media, its title and post type (when not the platform's default) as that profile's
    version; no time (a copy is not scheduled), the organization's zone. Another organization's
    post, an unknown or a malformed id: NOT_FOUND (the core is not asked about a malformed one)."""
    if not POST_ID.fullmatch(post_id):
        raise ApiError("NOT_FOUND", "no such post in this organization")
    core = request.app.ctx.core
    found = await core.call(
        core.posts.GetPost, posts_pb2.GetPostRequest(post_id=post_id), authorization=viewer.authorization
    )
    post = found.response
    default_type = (platforms.get(post.connector, {}).get("post_types") or [""])[0]
    version = Version(
        title=post.title if post.HasField("title") else "",
        post_type=post.post_type if post.post_type != default_type else "",
    )
    return Compose(
        content=post.content,
        profiles=[post.profile],
        thread=[item.content for item in post.thread if item.content.strip()],
        first_comment=post.first_comment.content if post.HasField("first_comment") else "",
        media_ids=list(dict.fromkeys(post.media_ids)),
        time_zone=viewer.time_zone,
        versions={post.profile: version},
    )


def _tags(profiles: list[profiles_pb2.Profile]) -> dict[str, list[str]]:
    tags: dict[str, list[str]] = {}
    for profile in profiles:
        for tag in profile.tags:
            tags.setdefault(tag, []).append(profile.slug)
    return dict(sorted(tags.items()))


async def compose_page(
    request: Request,
    viewer: Viewer,
    *,
    form: Compose | None = None,
    link: Any = None,
    status: int = 200,
    error: ApiError | None = None,
) -> HTTPResponse:
    """The form, empty, as it was sent (`form`) or filled in from a link's query (`link`: what it
    could not take is the alert, with 400; a post to duplicate it cannot read, 404), with `error`
    as its alert."""
    contract = await request.app.ctx.contract.get()
    platforms = _platforms(contract.catalog)
    profiles = await listed_profiles(request, viewer.authorization)
    zone = viewer.time_zone
    named: list[str] = []
    copied: dict[str, Any] | None = None
    if link is not None:
        filled = read_link(link, profiles={p.slug for p in profiles}, default_zone=zone)
        form, named, problem = filled.form, filled.named, filled.problem
        if post_id := text_field(link, DUPLICATE, 80).strip():
            try:
                copy = await _duplicate(request, viewer, post_id, platforms)
            except ApiError as refused:
                if refused.code != "NOT_FOUND":
                    raise
                problem = ApiError(
                    "NOT_FOUND",
                    "There is no such post in this organization to duplicate: nothing is filled in from it.",
                    {"argument": DUPLICATE},
                )
            else:
                copy.profiles = [slug for slug in copy.profiles if slug in {p.slug for p in profiles}]
                for name in named:  # what the link names besides wins (a calendar slot's time)
                    setattr(copy, name, getattr(filled.form, name))
                form, copied = copy, {"id": post_id}
        if problem is not None:
            status, error = problem.http_status, problem
    form = form or Compose(time_zone=zone, request_key=secrets.token_urlsafe(18))
    form.request_key = form.request_key or secrets.token_urlsafe(18)
    media = await _library(request, viewer, form.media_ids)
    uploads = await upload_settings(request, viewer.authorization)
    return await dashboard_page(
        request,
        viewer,
        "compose.html",
        "compose",
        status=status,
        # The script calls this page's endpoints (preview, create) and the upload script the
        # media endpoints and the storage's origin, as on the media page: nothing else is opened.
        connect_self=True,
        connect_origins=uploads["connect_origins"],
        uploads=uploads,
        form=form,
        fresh=request.method != "POST",
        from_link=named,
        from_post=copied,
        profiles=[
            {
                "slug": p.slug,
                "display_name": p.display_name,
                "connector": p.connector,
                "platform": platforms.get(p.connector, {}).get("name", p.connector),
                "tags": list(p.tags),
                "post_types": platforms.get(p.connector, {}).get("post_types", []),
                "title": platforms.get(p.connector, {}).get("title", False),
            }
            for p in profiles
        ],
        tags=_tags(profiles),
        media=media,
        zones=sorted(time_zones()),
        organization_zone=zone,
        thread_items=form.thread or [],
        max_thread_items=contract.catalog.limits.max_thread_items or THREAD_ITEMS_SHOWN,
        error=error.message if error else None,
        error_code=error.code if error else None,
        sign_in=SIGN_IN,
        draft_key=f"herald-compose:{viewer.principal.organization}",
    )


@signed_in
async def compose(request: Request, viewer: Viewer) -> HTTPResponse:
    """The compose form (the "New post" link of every page), filled in from the query when it
    names the form's fields (the calendar's New post and free slots: schedule_at, time_zone,
    profiles, content) or a post to duplicate (`from`, a post page's "Duplicate")."""
    named = any(name in request.args for name in (*LINK_FIELDS, DUPLICATE))
    return await compose_page(request, viewer, link=request.args if named else None)


async def _create(request: Request, authorization: str, form: Compose, action: str) -> int:
    """Creates the posts the form stands for; the number created. Raises the core's ApiError."""
    contract = await request.app.ctx.contract.get()
    body = form.body(action)
    body["idempotency_key"] = f"compose-{form.request_key}" if form.request_key else None
    message = validate(contract.model(CreatePostsRequest), body).to_proto()
    core = request.app.ctx.core
    created = await core.call(core.posts.CreatePosts, message, authorization=authorization)
    return len(created.response.posts)


@signed_in
async def submit(request: Request, viewer: Viewer) -> HTTPResponse:
    """The form without its script: one of Schedule, Publish now or Save draft creates the posts
    and goes to the posts page; the other buttons (select a tag's profiles, add or remove a thread
    item, show the chosen profiles' versions) only show the form again as asked."""
    values = request.form
    form = read_form(values, default_zone=viewer.time_zone)
    if tag := text_field(values, "select_tag", 64):
        profiles = await listed_profiles(request, viewer.authorization)
        chosen = [p.slug for p in profiles if tag in p.tags]
        form.profiles = list(dict.fromkeys([*form.profiles, *chosen]))
        return await compose_page(request, viewer, form=form)
    if text_field(values, "thread_add", 10):
        form.thread = [*form.thread, ""][:THREAD_ITEMS_SHOWN]
        return await compose_page(request, viewer, form=form)
    if (removed := text_field(values, "thread_remove", 10)).isdigit():
        index = int(removed) - 1
        form.thread = [item for i, item in enumerate(form.thread) if i != index]
        return await compose_page(request, viewer, form=form)
    action = text_field(values, "action", 20)
    if action not in ACTIONS:  # "Show the versions of the chosen profiles", or nothing pressed
        return await compose_page(request, viewer, form=form)
    try:
        await _create(request, viewer.authorization, form, action)
    except ApiError as error:
        if error.code not in FORM_ERRORS:
            raise
        return await compose_page(request, viewer, form=form, status=error.http_status, error=error)
    return see_other(f"/dashboard/posts?notice={CREATED_NOTICE[action]}")


# -- the script's endpoints -------------------------------------------------------------------


@scripted(sign_in=SIGN_IN)
async def preview(request: Request, authorization: str) -> HTTPResponse:
    """The preview of the form as it is (PreviewPosts): each destination's parts counted against
    their limits, every problem, the cost and the balance, and what each button can do."""
    form = read_form(request.form)
    if not form.content.strip() or not form.profiles:
        return _answer(form, None)
    contract = await request.app.ctx.contract.get()
    try:
        message = validate(contract.model(PreviewPostsRequest), form.body("schedule")).to_proto()
    except ApiError as error:  # the request's own shape: the core would refuse it before any check
        return _answer(form, None, error)
    core = request.app.ctx.core
    result = await core.call(core.posts.PreviewPosts, message, authorization=authorization)
    _, shown = PREVIEW_OPERATION.render(result.response, contract)
    return _answer(form, shown)


def _answer(form: Compose, shown: dict[str, Any] | None, problem: ApiError | None = None) -> HTTPResponse:
    """The preview endpoint's answer: the preview (POST /v1/posts:preview's JSON) or the request's
    own problem, and what each button may do."""
    refused = problem and {"code": problem.code, "message": problem.message, "argument": problem.argument}
    return json(
        {"preview": shown, "problem": refused or None, "actions": actions(form, shown, problem)},
        headers={"Cache-Control": "no-store"},
    )


@scripted(sign_in=SIGN_IN)
async def create(request: Request, authorization: str) -> HTTPResponse:
    """What the buttons do with the script: creates the posts and answers where to go next (201
    {created, location}), or the error (its code, message and argument) for the page to show."""
    action = text_field(request.form, "action", 20)
    if action not in ACTIONS:
        return json_error(
            ApiError("VALIDATION_ERROR", "action must be schedule, publish or draft", {"argument": "action"})
        )
    form = read_form(request.form)
    created = await _create(request, authorization, form, action)
    location = f"/dashboard/posts?notice={CREATED_NOTICE[action]}"
    return json({"created": created, "location": location}, status=201, headers={"Cache-Control": "no-store"})


ROUTES = (
    Route("GET", "/dashboard/compose", compose),
    Route("POST", "/dashboard/compose", submit),
    Route("POST", "/dashboard/compose/preview", preview),
    Route("POST", "/dashboard/compose/create", create),
)
