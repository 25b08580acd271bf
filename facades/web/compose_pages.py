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

import functools
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from herald.media.v1 import media_pb2
from herald.profiles.v1 import profiles_pb2
from sanic import Request
from sanic.response import HTTPResponse, json

from contract.operations import TOOLS
from contract.organization import DEFAULT_TIME_ZONE, time_zones
from contract.requests import CreatePostsRequest
from contract.writing import PreviewPostsRequest
from facades.errors import ApiError
from facades.validation import validate
from facades.web import csrf
from facades.web.pages import Route, dashboard_page, see_other, signed_in
from facades.web.session import Viewer, clear_session_cookie, session_token

PROFILES_SHOWN = 500  # ListProfiles' largest page: the form lists every profile up to it
MEDIA_SHOWN = 100  # the newest confirmed media, ListMedia's largest page
THREAD_ITEMS_SHOWN = 25  # "Add a thread item" stops here (the catalog's max_thread_items when it has one)
MAX_FORM_ITEMS = 100  # items of a list field read from a form; the contract refuses more than its bound
ACTIONS = ("schedule", "publish", "draft")
# Where each action lands: the posts page, with what happened.
CREATED_NOTICE = {"schedule": "posts-scheduled", "publish": "posts-queued", "draft": "drafts-saved"}
SIGN_IN = "/login?" + urlencode({"next": "/dashboard/compose"})
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


@dataclass(slots=True)
class Version:
    """One profile's own version, as its panel of the form holds it ("" = the post's value)."""

    content: str = ""
    first_comment: str = ""
    title: str = ""
    post_type: str = ""
    no_thread: bool = False

    def customization(self) -> dict[str, Any]:
        """The profile's entry of `customizations` (POST /v1/posts): only what it changes."""
        entry: dict[str, Any] = {
            name: value
            for name in ("content", "first_comment", "title", "post_type")
            if (value := getattr(self, name)).strip()
        }
        if self.no_thread:
            entry["thread"] = []
        return entry


@dataclass(slots=True)
class Compose:
    """The form's fields, read once for the page, the preview and the creation alike."""

    content: str = ""
    profiles: list[str] = field(default_factory=list)
    thread: list[str] = field(default_factory=list)
    first_comment: str = ""
    media_ids: list[str] = field(default_factory=list)
    schedule_at: str = ""  # the datetime-local field: "YYYY-MM-DDTHH:MM", local to time_zone
    time_zone: str = DEFAULT_TIME_ZONE
    next_slot: bool = False
    versions: dict[str, Version] = field(default_factory=dict)
    request_key: str = ""

    def body(self, action: str) -> dict[str, Any]:
        """The JSON body of POST /v1/posts this form stands for, for `action` (schedule, publish,
        draft; the preview shows what Schedule would do, or Publish now without a time)."""
        body: dict[str, Any] = {"content": self.content, "profiles": self.profiles}
        thread = [item for item in self.thread if item.strip()]
        if thread:
            body["thread"] = [{"content": item} for item in thread]
        if self.first_comment.strip():
            body["first_comment"] = self.first_comment
        if self.media_ids:
            body["media_ids"] = self.media_ids
        customizations = {
            slug: entry
            for slug in self.profiles
            if slug in self.versions and (entry := self.versions[slug].customization())
        }
        if customizations:
            body["customizations"] = customizations
        if action == "draft":
            body["draft"] = True
            if self.schedule_at:
                body["schedule_at"] = instant(self.schedule_at, self.time_zone)
        elif action == "schedule":
            if self.next_slot:
                body["next_slot"] = True
            elif self.schedule_at:
                body["schedule_at"] = instant(self.schedule_at, self.time_zone)
        return body


def _text(values: Mapping[str, Any] | None, name: str, limit: int = 100_000) -> str:
    value = (values.get(name) or "") if values is not None else ""
    return value[:limit] if isinstance(value, str) else ""


def _list(values: Any, name: str) -> list[str]:
    return [v for v in (values.getlist(name) or []) if isinstance(v, str)] if values is not None else []


def read_form(values: Any, *, default_zone: str = "") -> Compose:  # request.form
    """The form as sent. Text is kept as typed (the core trims nothing either); lists keep their
    order, without repeats. The form always sends its time zone; without one, a time is read in
    `default_zone` (the page: the organization's; the script's endpoints: none, so refused)."""
    profiles = list(dict.fromkeys(v.strip() for v in _list(values, "profiles") if v.strip()))
    versions = {}
    for slug in profiles:
        prefix = f"v.{slug}."
        versions[slug] = Version(
            content=_text(values, prefix + "content"),
            first_comment=_text(values, prefix + "first_comment"),
            title=_text(values, prefix + "title", 1000),
            post_type=_text(values, prefix + "post_type", 40).strip(),
            no_thread=bool(_text(values, prefix + "no_thread", 10)),
        )
    return Compose(
        content=_text(values, "content"),
        profiles=profiles,
        thread=_list(values, "thread")[:MAX_FORM_ITEMS],
        first_comment=_text(values, "first_comment"),
        media_ids=list(dict.fromkeys(v.strip() for v in _list(values, "media_ids") if v.strip())),
        schedule_at=_text(values, "schedule_at", 40).strip(),
        time_zone=_text(values, "time_zone", 64).strip() or default_zone,
        next_slot=bool(_text(values, "next_slot", 10)),
        versions=versions,
        request_key=_text(values, "request_key", 64).strip(),
    )


def instant(local: str, zone: str) -> str:
    """The datetime-local field's value, read in the named zone, as the ISO 8601 instant the API
    takes. A time the zone skips (clocks moved forward) is refused rather than moved; a time that
    happens twice (clocks moved back) is its first occurrence."""
    if zone not in time_zones():
        problem = f"time zone {zone[:64]!r} is not an IANA time zone" if zone else "Schedule at needs its time zone"
        raise ApiError("VALIDATION_ERROR", problem, {"argument": "time_zone"})
    try:
        naive = datetime.fromisoformat(local)
    except ValueError:
        raise ApiError(
            "VALIDATION_ERROR", "Schedule at must be a date and a time (YYYY-MM-DDTHH:MM)", {"argument": "schedule_at"}
        ) from None
    if naive.tzinfo is not None:
        raise ApiError(
            "VALIDATION_ERROR", "Schedule at takes a local time, without an offset", {"argument": "schedule_at"}
        )
    tz = ZoneInfo(zone)
    moment = naive.replace(tzinfo=tz).astimezone(UTC)
    if moment.astimezone(tz).replace(tzinfo=None) != naive:
        raise ApiError(
            "VALIDATION_ERROR",
            f"{naive:%Y-%m-%d %H:%M} does not exist in {zone}: the clocks skip it that day; choose another time",
            {"argument": "schedule_at"},
        )
    return moment.isoformat().replace("+00:00", "Z")


# -- the page -------------------------------------------------------------------------------


def _platforms(catalog: Any) -> dict[str, dict[str, Any]]:
    """Platform key -> what its panel offers: its name, its post types (the default first) and
    whether it takes a title, from the core's catalog."""
    return {
        p.key: {"name": p.name, "post_types": [t.name for t in p.post_types], "title": p.HasField("title")}
        for p in catalog.message.platforms
    }


async def _profiles(request: Request, viewer: Viewer) -> list[profiles_pb2.Profile]:
    core = request.app.ctx.core
    listed = await core.call(
        core.profiles.ListProfiles,
        profiles_pb2.ListProfilesRequest(page_size=PROFILES_SHOWN),
        authorization=viewer.authorization,
    )
    return list(listed.response.profiles)


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
    status: int = 200,
    error: ApiError | None = None,
) -> HTTPResponse:
    """The form, empty or as it was sent (`form`), with `error` as its alert."""
    contract = await request.app.ctx.contract.get()
    platforms = _platforms(contract.catalog)
    profiles = await _profiles(request, viewer)
    zone = viewer.time_zone
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
    """The compose form (the "New post" link of every page)."""
    return await compose_page(request, viewer)


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
    if tag := _text(values, "select_tag", 64):
        profiles = await _profiles(request, viewer)
        chosen = [p.slug for p in profiles if tag in p.tags]
        form.profiles = list(dict.fromkeys([*form.profiles, *chosen]))
        return await compose_page(request, viewer, form=form)
    if _text(values, "thread_add", 10):
        form.thread = [*form.thread, ""][:THREAD_ITEMS_SHOWN]
        return await compose_page(request, viewer, form=form)
    if (removed := _text(values, "thread_remove", 10)).isdigit():
        index = int(removed) - 1
        form.thread = [item for i, item in enumerate(form.thread) if i != index]
        return await compose_page(request, viewer, form=form)
    action = _text(values, "action", 20)
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

Scripted = Callable[[Request, str], Awaitable[HTTPResponse]]


def _json_error(error: ApiError, **extra: Any) -> HTTPResponse:
    """An error as /v1 answers it (`{error, code, argument?, …}`), with the page's extras."""
    body = error.body() | ({"argument": error.argument} if error.argument else {})
    return json(body | extra, status=error.http_status, headers={"Cache-Control": "no-store"})


def _session_gone(request: Request) -> HTTPResponse:
    """401 for the script: the page shows "Sign in again" (to /login, back to compose) and keeps
    the text; a cookie the core no longer accepts is dropped on the way."""
    response = _json_error(ApiError("UNAUTHORIZED", "your session has ended: sign in again"), sign_in=SIGN_IN)
    if session_token(request) is not None:
        clear_session_cookie(response, request)
    return response


def scripted(handler: Scripted) -> Scripted:
    """A dashboard endpoint the page's script calls: the session cookie is the credential (passed
    to the core as it is: one call, no GetPrincipal first) and the form's CSRF token is checked
    before anything else. Every answer is JSON: 401 without a session the core accepts, 403 for
    a missing or wrong CSRF token, the core's errors with their code."""

    @functools.wraps(handler)
    async def wrapped(request: Request) -> HTTPResponse:
        token = session_token(request)
        if token is None:
            return _session_gone(request)
        try:
            csrf.check(request, signed_in=True)
        except csrf.CsrfRejected as refused:
            return _json_error(ApiError("FORBIDDEN", str(refused)))
        try:
            return await handler(request, f"Bearer {token}")
        except ApiError as error:
            if error.code == "UNAUTHORIZED":
                return _session_gone(request)
            return _json_error(error)

    return wrapped


def _action(enabled: bool, reason: str = "") -> dict[str, Any]:
    return {"enabled": enabled, "reason": "" if enabled else reason}


def _not_ready(preview: dict[str, Any]) -> str:
    """Why the preview's post cannot be created, in a line: the first problem, and who has one."""
    if preview["problems"]:
        first = preview["problems"][0]
        return f"Fix the post first: {first['code']}: {first['message']}"
    failing = [d["profile"] for d in preview["destinations"] if not d["valid"]]
    return f"Fix the problems of {', '.join(failing)} first (shown on {'its card' if len(failing) == 1 else 'their cards'})."


def actions(form: Compose, preview: dict[str, Any] | None, problem: ApiError | None) -> dict[str, Any]:
    """Whether each button can act, and why not: read off the form and the core's preview (the
    verdicts, the cost and the balance), never counted here."""
    missing = (
        "Write the post's text in Content first."
        if not form.content.strip()
        else "Choose at least one profile first."
        if not form.profiles
        else ""
    )
    if missing or problem is not None or preview is None:
        reason = missing or (f"{problem.message[:1].upper()}{problem.message[1:]}." if problem else "")
        return {name: _action(False, reason) for name in ACTIONS}
    not_ready = "" if preview["valid"] else _not_ready(preview)
    credits = preview["credits"]
    if not_ready:
        publish = _action(False, not_ready)
    elif not preview["deliverable"]:
        publish = _action(
            False, f"Not enough credits: this costs {credits['required']}, the balance is {credits['balance']}."
        )
    else:
        publish = _action(True)
    when = (
        "" if form.next_slot or form.schedule_at else "Choose a date and time in Schedule at, or Next free slot, first."
    )
    return {
        "schedule": _action(not when and not not_ready, when or not_ready),
        "publish": publish,
        "draft": _action(True),
    }


@scripted
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


@scripted
async def create(request: Request, authorization: str) -> HTTPResponse:
    """What the buttons do with the script: creates the posts and answers where to go next (201
    {created, location}), or the error (its code, message and argument) for the page to show."""
    action = _text(request.form, "action", 20)
    if action not in ACTIONS:
        return _json_error(
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
