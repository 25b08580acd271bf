"""The compose page (issue 31, docs/dashboard.md "Compose"): one form that writes a post for
several profiles (picked by slug or by tag), with a version per destination, a thread, a first
comment, media from the library and a time in a named zone, and creates it with CreatePosts.

The form works without a script (POST /dashboard/compose, then the posts page, or the form again
with the error and everything typed). Its script (static/compose.js) calls two endpoints of this
module with the same form fields, the session cookie and the form's CSRF token: the preview while
the human types (POST /dashboard/compose/preview, the core's PreviewPosts: every count, problem
and the cost are the core's) and the creation (POST /dashboard/compose/create). Both answer JSON,
and 401 when the session is gone, so the page can ask to sign in again without losing the text.
"""

from __future__ import annotations

import secrets
from typing import Any

from herald.media.v1 import media_pb2
from herald.profiles.v1 import profiles_pb2
from sanic import Request
from sanic.response import HTTPResponse, json

from contract.operations import TOOLS
from contract.organization import time_zones
from contract.requests import CreatePostsRequest
from contract.writing import PreviewPostsRequest
from facades.errors import ApiError
from facades.validation import validate
from facades.web.compose_form import ACTIONS, LINK_FIELDS, Compose, actions, read_form, read_link, text_field
from facades.web.pages import Route, dashboard_page, listed_profiles, see_other, signed_in
from facades.web.scripted import json_error, scripted, sign_in_to
from facades.web.session import Viewer

MEDIA_SHOWN = 100  # the newest confirmed media, ListMedia's largest page
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


async def _library(request: Request, viewer: Viewer) -> list[dict[str, str]]:
    core = request.app.ctx.core
    try:
        listed = await core.call(
            core.media.ListMedia, media_pb2.ListMediaRequest(page_size=MEDIA_SHOWN), authorization=viewer.authorization
        )
    except ApiError as error:
        if error.code != "SUBSCRIPTION_REQUIRED":
            raise
        return []
    return [
        {
            "id": m.media_id,
            "name": m.name or m.media_id,
            "type": m.type,
            "dimensions": f"{m.width} × {m.height}" if m.width and m.height else "",
        }
        for m in listed.response.media
    ]


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
    could not take is the alert, with 400), with `error` as its alert."""
    contract = await request.app.ctx.contract.get()
    platforms = _platforms(contract.catalog)
    profiles = await listed_profiles(request, viewer.authorization)
    zone = viewer.time_zone
    named: list[str] = []
    if link is not None:
        filled = read_link(link, profiles={p.slug for p in profiles}, default_zone=zone)
        form, named = filled.form, filled.named
        if filled.problem is not None:
            status, error = filled.problem.http_status, filled.problem
    form = form or Compose(time_zone=zone, request_key=secrets.token_urlsafe(18))
    form.request_key = form.request_key or secrets.token_urlsafe(18)
    return await dashboard_page(
        request,
        viewer,
        "compose.html",
        "compose",
        status=status,
        # The script calls this page's endpoints (preview, create): nothing else is opened.
        connect_self=True,
        form=form,
        fresh=request.method != "POST",
        from_link=named,
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
        media=await _library(request, viewer),
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
    profiles, content)."""
    named = any(name in request.args for name in LINK_FIELDS)
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
