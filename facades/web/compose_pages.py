"""The compose page (issue 31, docs/dashboard.md "Compose"): one form that writes a post for
several profiles (picked by slug or by tag), with a version per destination, a thread, a first
comment, media from the library, the computer or the stock picker and a time in a named zone,
and creates it with CreatePosts; the same form edits one post (UpdatePost, compose_edit.py).

The form works without a script (POST /dashboard/compose, then the posts page, or the form again
with the error and everything typed). A link fills it in: the calendar's (a time, its zone, a
profile), a post page's "Duplicate" (`?from=<post_id>`: that post's content, thread, first
comment, media and profile, read with GetPost) and its "Edit" (`?edit=<post_id>`: the same and
its time, the profile fixed; Save changes goes back to the post's page). Files from the computer
go to the library with the media page's upload script (static/media_upload.js, its endpoints
media_uploads.py) and are attached at once; stock photos are searched and added by the media
page's picker inside the form, whose state they post along (compose_stock.py). The page's script
(static/compose.js) calls the endpoints of compose_script.py with the same form fields.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from herald.media.v1 import media_pb2
from herald.profiles.v1 import profiles_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.organization import time_zones
from contract.post_requests import CreatePostsRequest
from facades.errors import ApiError
from facades.validation import validate
from facades.web.compose_edit import EDIT, Editing, edit_form, editing_of, post_form, read_post, save_edit
from facades.web.compose_form import (
    ACTIONS,
    EDIT_ACTIONS,
    LINK_FIELDS,
    Compose,
    Link,
    read_form,
    read_link,
    text_field,
)
from facades.web.media_pages import MEDIA_ID, dimensions, upload_settings
from facades.web.pages import Route, dashboard_page, listed_profiles, see_other, signed_in
from facades.web.scripted import sign_in_to
from facades.web.session import Viewer
from facades.web.stock_picker import idle_section, picker_choices, picker_section

MEDIA_SHOWN = 100  # the newest confirmed media, ListMedia's largest page
DUPLICATE = "from"  # the link's field naming the post a "Duplicate" copies
ATTACHED_LOOKED_UP = 20  # attached media older than the newest MEDIA_SHOWN, looked up one by one
THREAD_ITEMS_SHOWN = 25  # "Add a thread item" stops here (the catalog's max_thread_items when it has one)
# Where each action lands: the posts page, with what happened.
CREATED_NOTICE = {"schedule": "posts-scheduled", "publish": "posts-queued", "draft": "drafts-saved"}
SIGN_IN = sign_in_to("/dashboard/compose")
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
# An edit's besides: the post went out, or began to, since the form was drawn. NOT_FOUND (another
# organization's post) is a 404 page.
EDIT_ERRORS = FORM_ERRORS | {"INVALID_POST_STATE"}


# -- the page -------------------------------------------------------------------------------


def platforms_of(catalog: Any) -> dict[str, dict[str, Any]]:
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
    or edited post's) that are older, while the library still holds them confirmed."""
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


async def _duplicate(
    request: Request, viewer: Viewer, post_id: str, platforms: dict[str, Any], filled: Link
) -> tuple[Compose | None, ApiError | None]:
    """The form a post's "Duplicate" opens (compose_edit.post_form: no time, the organization's
    zone), the link's other fields winning (a calendar slot's time); or, for another
    organization's post, an unknown or a malformed id, nothing and the alert saying so."""
    try:
        post = await read_post(request, viewer.authorization, post_id)
    except ApiError as refused:
        if refused.code != "NOT_FOUND":
            raise
        problem = ApiError(
            "NOT_FOUND",
            "There is no such post in this organization to duplicate: nothing is filled in from it.",
            {"argument": DUPLICATE},
        )
        return None, problem
    copy = post_form(post, platforms, viewer.time_zone)
    for name in filled.named:
        setattr(copy, name, getattr(filled.form, name))
    return copy, None


def _tags(profiles: list[profiles_pb2.Profile]) -> dict[str, list[str]]:
    tags: dict[str, list[str]] = {}
    for profile in profiles:
        for tag in profile.tags:
            tags.setdefault(tag, []).append(profile.slug)
    return dict(sorted(tags.items()))


async def _stock(
    request: Request, viewer: Viewer, checked: frozenset[str], failure: ApiError | None
) -> tuple[Any, int | None]:
    """The stock picker inside the form: its search's results once the form asks one (the media
    page's picker, stock_picker.py), and the status its search's refusal answers with."""
    picker = picker_choices(request.form if request.method == "POST" else request.args)
    if not picker["query"] and failure is None:
        return await idle_section(request, picker), None
    section = await picker_section(request, viewer, picker, failure=failure, checked=checked)
    return section, section.refused.http_status if section.refused else None


async def compose_page(
    request: Request,
    viewer: Viewer,
    *,
    form: Compose | None = None,
    link: Any = None,
    status: int = 200,
    error: ApiError | None = None,
    stock_failure: ApiError | None = None,
    checked: frozenset[str] = frozenset(),
    flash: str | None = None,
) -> HTTPResponse:
    """The form, empty, as it was sent (`form`, an edit's too) or filled in from a link's query
    (`link`: what it could not take is the alert, with 400; a post to duplicate it cannot read,
    404; a post to edit it cannot read, the 404 page), with `error` as its alert; the stock
    picker with `stock_failure` as its own and the photos `checked`, and `flash` a notice."""
    contract = await request.app.ctx.contract.get()
    platforms = platforms_of(contract.catalog)
    profiles = await listed_profiles(request, viewer.authorization)
    zone = viewer.time_zone
    named: list[str] = []
    copied: dict[str, Any] | None = None
    edited: Editing | None = None
    if link is not None:
        filled = read_link(link, profiles={p.slug for p in profiles}, default_zone=zone)
        form, named, problem = filled.form, filled.named, filled.problem
        if post_id := text_field(link, EDIT, 80).strip():
            form, edited = edit_form(await read_post(request, viewer.authorization, post_id), platforms, zone)
            for name in (n for n in named if n != "profiles"):  # the profile is the post's
                setattr(form, name, getattr(filled.form, name))
        elif post_id := text_field(link, DUPLICATE, 80).strip():
            copy, refused = await _duplicate(request, viewer, post_id, platforms, filled)
            problem = refused or problem
            if copy is not None:
                copy.profiles = [slug for slug in copy.profiles if slug in {p.slug for p in profiles}]
                form, copied = copy, {"id": post_id}
        if problem is not None:
            status, error = problem.http_status, problem
    form = form or Compose(time_zone=zone, request_key=secrets.token_urlsafe(18))
    form.request_key = form.request_key or secrets.token_urlsafe(18)
    if form.edit and edited is None:  # an edit form sent back: the post as it is now
        edited = editing_of(await read_post(request, viewer.authorization, form.edit), platforms)
    media = await _library(request, viewer, form.media_ids)
    uploads = await upload_settings(request, viewer.authorization)
    stock, refused_status = await _stock(request, viewer, checked, stock_failure)
    sign_in = sign_in_to(f"/dashboard/compose?{EDIT}={edited.post_id}") if edited else SIGN_IN
    draft_key = f"herald-compose:{viewer.principal.organization}" + (f":{EDIT}:{edited.post_id}" if edited else "")
    return await dashboard_page(
        request,
        viewer,
        "compose.html",
        "posts" if edited else "compose",
        status=refused_status if refused_status and status == 200 else status,
        # The script calls this page's endpoints (preview, create) and the upload script the
        # media endpoints and the storage's origin, as on the media page: nothing else is
        # opened. Images: the stock previews' origins, while the picker shows them.
        connect_self=True,
        connect_origins=uploads["connect_origins"],
        image_origins=stock.image_origins,
        uploads=uploads,
        form=form,
        fresh=request.method != "POST",
        from_link=named,
        from_post=copied,
        editing=edited,
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
        sign_in=sign_in,
        draft_key=draft_key,
        **({"flash": flash} if flash else {}),
        **stock.context,
    )


@signed_in
async def compose(request: Request, viewer: Viewer) -> HTTPResponse:
    """The compose form (the "New post" link of every page), filled in from the query when it
    names the form's fields (the calendar's New post and free slots: schedule_at, time_zone,
    profiles, content), a post to duplicate (`from`, a post page's "Duplicate") or a post to
    edit (`edit`, a post page's and the posts page's "Edit")."""
    named = any(name in request.args for name in (*LINK_FIELDS, DUPLICATE, EDIT))
    return await compose_page(request, viewer, link=request.args if named else None)


async def create_posts(request: Request, authorization: str, form: Compose, action: str) -> int:
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
    and goes to the posts page (an edited post's Save changes, Schedule or Publish now saves it
    and goes to its page); the other buttons (select a tag's profiles, add or remove a thread
    item, show the chosen profiles' versions, search stock photos) only show the form again as
    asked."""
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
    if action not in (EDIT_ACTIONS if form.edit else ACTIONS):  # "Show the versions…", Search, or nothing
        return await compose_page(request, viewer, form=form)
    try:
        if form.edit:
            return see_other(await save_edit(request, viewer.authorization, form, action))
        await create_posts(request, viewer.authorization, form, action)
    except ApiError as error:
        if error.code not in (EDIT_ERRORS if form.edit else FORM_ERRORS):
            raise
        return await compose_page(request, viewer, form=form, status=error.http_status, error=error)
    return see_other(f"/dashboard/posts?notice={CREATED_NOTICE[action]}")


ROUTES = (
    Route("GET", "/dashboard/compose", compose),
    Route("POST", "/dashboard/compose", submit),
)
