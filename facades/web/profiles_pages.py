"""The organization's profiles in the dashboard (docs/dashboard.md, "Profiles"): the list with each
account's connection health, adding a sandbox profile, and a profile's own page, where its
display name, tags and default language are changed, its account reconnected or disconnected,
and a profile without an account deleted. Connecting and disconnecting are connect_pages.py's."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from herald.connections.v1 import connections_pb2
from herald.profiles.v1 import profiles_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web import queue_slots
from facades.web.metric_words import label
from facades.web.pages import Route, dashboard_page, form_value, page_token, pager, see_other, signed_in, when
from facades.web.session import Viewer

PROFILES_PER_PAGE = 50
PROFILES = "/dashboard/profiles"
LIST_PLATFORMS = "/herald.connections.v1.ConnectionService/ListPlatforms"
# A token that Herald cannot renew is flagged this long before it expires (the overview too).
EXPIRY_WARNING = timedelta(days=7)
# Refusals of the profile page's forms shown on the page, the profile as it is; anything else
# (NOT_FOUND: another organization's profile) is a failure page.
_SHOWN = ("VALIDATION_ERROR", "PROFILE_IN_USE", "SUBSCRIPTION_REQUIRED", "FORBIDDEN")


# What a profile's slug looks like (core/profiles/service.py). Anything else is a profile no
# organization has: the 404 page, without asking the core.
SLUG = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def profile_path(slug: str) -> str:
    return f"{PROFILES}/{slug}"


def checked_slug(slug: str) -> str:
    if not SLUG.fullmatch(slug):
        raise ApiError("NOT_FOUND", "no such profile in this organization")
    return slug


def tags_of(text: str) -> list[str]:
    """A form's comma-separated tags."""
    return [t.strip() for t in text.split(",") if t.strip()]


def connection_health(profile: profiles_pb2.Profile, zone: str, now: datetime) -> dict[str, Any]:
    """How a profile's connection stands, as the list, its page and the overview show it: its
    status, its token's expiry (in the organization's zone) and whether Herald renews it, the
    platform's last complaint, and `attention`: why a human must connect it again ("" when no
    one must); and the metrics Herald cannot read with its account (`metrics_error`, why and
    which permission to grant by connecting again; `metrics_unavailable`, those metrics in words,
    none named: all of them)."""
    c = profile.connection
    status = c.status or "sandbox"
    expires_at = c.token_expire_time.ToDatetime(UTC) if c.HasField("token_expire_time") else None
    attention = ""
    if status == "needs_reauth":
        attention = "The platform refused its access: connect the account again."
    elif status == "connected" and expires_at is not None and not c.token_renewable:
        if expires_at <= now:
            attention = "Its access expired: connect the account again."
        elif expires_at <= now + EXPIRY_WARNING:
            attention = "Its access expires soon and Herald cannot renew it: connect the account again before then."
    return {
        "status": status,
        "handle": c.handle,
        "instance": c.instance_url,
        "scopes": list(c.scopes),
        "connected": when(c.connect_time, zone, ""),
        "expires": when(c.token_expire_time, zone, ""),
        "renewable": c.token_renewable,
        "error": c.error,
        "attention": attention,
        "metrics_error": c.metrics_error,
        "metrics_unavailable": [label(m) for m in c.metrics_unavailable],
    }


def _row(p: profiles_pb2.Profile, zone: str, now: datetime) -> dict[str, Any]:
    return {
        "slug": p.slug,
        "platform": p.connector,
        "display_name": p.display_name,
        "tags": list(p.tags),
        "default_language": p.default_language,
        "created": when(p.create_time, zone),
        "health": connection_health(p, zone, now),
    }


async def profiles_page(
    request: Request,
    viewer: Viewer,
    *,
    status: int = 200,
    error: str | None = None,
    form: dict[str, str] | None = None,
    connect: dict[str, str] | None = None,
) -> HTTPResponse:
    """The profiles page: the organization's profiles with their connection health, connecting
    an account of each platform, and adding a sandbox profile."""
    core = request.app.ctx.core
    token = page_token(request)
    # The platform keys (a profile's `connector`), in the order of the core's catalog.
    platforms = (await request.app.ctx.contract.get()).catalog.connectors
    connectable = await core.call(
        core.method(LIST_PLATFORMS), connections_pb2.ListPlatformsRequest(), authorization=viewer.authorization
    )
    context = {
        "platforms": platforms,
        "connectable": [
            {"platform": p.platform, "method": p.method, "available": p.available}
            for p in connectable.response.platforms
        ],
        "publish_mode": connectable.response.publish_mode,
        "form": form or {"platform": platforms[0]},
        "connect": connect or {},
        "error": error,
        "connected": request.args.get("connection") == "connected" and request.args.get("profile", "")[:64],
        "connect_error": request.args.get("error", "")[:64],
    }
    try:
        result = await core.call(
            core.profiles.ListProfiles,
            profiles_pb2.ListProfilesRequest(page_size=PROFILES_PER_PAGE, page_token=token),
            authorization=viewer.authorization,
        )
    except ApiError as failure:
        if failure.code != "VALIDATION_ERROR":  # a malformed page token in the URL
            raise
        context["error"] = error or failure.message
        return await dashboard_page(
            request,
            viewer,
            "profiles.html",
            "profiles",
            status=status if error else failure.http_status,
            profiles=[],
            **context,
        )
    now = datetime.now(UTC)
    return await dashboard_page(
        request,
        viewer,
        "profiles.html",
        "profiles",
        status=status,
        profiles=[_row(p, viewer.time_zone, now) for p in result.response.profiles],
        **pager(PROFILES, token, result.response.next_page_token),
        **context,
    )


@signed_in
async def list_profiles(request: Request, viewer: Viewer) -> HTTPResponse:
    """The organization's profiles, 50 a page, with the forms that connect and add them."""
    return await profiles_page(request, viewer)


@signed_in
async def add_profile(request: Request, viewer: Viewer) -> HTTPResponse:
    """Adds a sandbox profile: no platform account, only the sandbox delivers to it."""
    form = {name: form_value(request, name) for name in ("slug", "platform", "display_name", "tags")}
    core = request.app.ctx.core
    try:
        await core.call(
            core.profiles.CreateProfile,
            profiles_pb2.CreateProfileRequest(
                profile=profiles_pb2.Profile(
                    slug=form["slug"],
                    connector=form["platform"],
                    display_name=form["display_name"],
                    tags=tags_of(form["tags"]),
                )
            ),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in ("VALIDATION_ERROR", "CONFLICT"):
            raise
        return await profiles_page(request, viewer, status=error.http_status, error=error.message, form=form)
    return see_other(f"{PROFILES}?notice=profile-added")


async def _deletion(request: Request, viewer: Viewer, slug: str) -> dict[str, str]:
    """The "Delete profile" button: enabled, or disabled with the core's reason (DeleteProfile
    asked to check only, so the rule is the core's alone): the profile in use, or a role that
    may not delete profiles."""
    core = request.app.ctx.core
    try:
        await core.call(
            core.profiles.DeleteProfile,
            profiles_pb2.DeleteProfileRequest(slug=slug, validate_only=True),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code == "FORBIDDEN":  # a role that may not delete profiles (a viewer) still sees the page
            return {"enabled": "", "why": error.message[:1].upper() + error.message[1:] + "."}
        if error.code != "PROFILE_IN_USE":
            raise
        pending = int((error.metadata or {}).get("pending_posts", "0") or 0)
        if pending:
            why = (
                f"{pending} post{'s' if pending != 1 else ''} to this profile "
                f"{'have' if pending != 1 else 'has'} not gone out (drafts, scheduled, queued or publishing): "
                "cancel them first."
            )
        else:
            why = "It holds a platform account: disconnect it first (that revokes Herald's access at the platform)."
        return {"enabled": "", "why": why}
    return {"enabled": "true", "why": ""}


def _reconnect(profile: profiles_pb2.Profile, platforms: dict[str, connections_pb2.ConnectablePlatform]) -> dict:
    """How the page connects the profile's account (again): the platform's sign-in started from
    here (its instance named for Mastodon), or Bluesky's app-password form on the profiles page."""
    platform = platforms.get(profile.connector)
    method = platform.method if platform is not None else ""
    available = platform is not None and platform.available
    return {
        "method": method,
        "available": available,
        "why": "" if available else f"Connecting {profile.connector} accounts is not set up by this Herald's operator.",
        "instance": profile.connection.instance_url,
    }


async def profile_page(
    request: Request,
    viewer: Viewer,
    slug: str,
    *,
    status: int = 200,
    failure: ApiError | None = None,
    form: dict[str, str] | None = None,
    suggestion: dict[str, Any] | None = None,
    slots_failure: ApiError | None = None,
    count: str = "",
) -> HTTPResponse:
    """A profile's page: its connection health and what fixes it, the metrics it cannot read, its
    queue slots (with a proposal from its best times, or a refusal of the slots' forms), the
    settings form (with what was sent, after a refusal), and deleting it."""
    core = request.app.ctx.core
    slug = checked_slug(slug)
    # The profile first: another organization's (or no) profile is a 404 before anything else.
    found = await core.call(
        core.profiles.GetProfile, profiles_pb2.GetProfileRequest(slug=slug), authorization=viewer.authorization
    )
    deletion, connectable, slots, editor = await asyncio.gather(
        _deletion(request, viewer, slug),
        core.call(
            core.method(LIST_PLATFORMS), connections_pb2.ListPlatformsRequest(), authorization=viewer.authorization
        ),
        queue_slots.current(request, viewer, slug),
        queue_slots.editor(request, viewer),
    )
    profile = found.response
    row = _row(profile, viewer.time_zone, datetime.now(UTC))
    return await dashboard_page(
        request,
        viewer,
        "profile.html",
        "profiles",
        status=status,
        failure={"code": failure.code, "message": failure.message} if failure else None,
        profile=row,
        form=form
        or {
            "display_name": row["display_name"],
            "tags": ", ".join(row["tags"]),
            "default_language": row["default_language"],
        },
        deletion=deletion,
        reconnect=_reconnect(profile, {p.platform: p for p in connectable.response.platforms}),
        publish_mode=connectable.response.publish_mode,
        slots=slots,
        slots_editor=editor,
        suggestion=suggestion,
        slots_failure={"code": slots_failure.code, "message": slots_failure.message} if slots_failure else None,
        count=count or str(queue_slots.DEFAULT_COUNT),
        max_count=queue_slots.MAX_COUNT,
    )


@signed_in
async def show_profile(request: Request, viewer: Viewer, slug: str) -> HTTPResponse:
    """One profile: its connection health, its settings form, reconnect, disconnect, delete."""
    return await profile_page(request, viewer, slug)


@signed_in
async def update_profile(request: Request, viewer: Viewer, slug: str) -> HTTPResponse:
    """Saves the profile's display name, tags and default language (all three, as the form
    shows them); a refusal is the page again with what was sent."""
    slug = checked_slug(slug)
    form = {name: form_value(request, name) for name in ("display_name", "tags", "default_language")}
    core = request.app.ctx.core
    try:
        await core.call(
            core.profiles.UpdateProfile,
            profiles_pb2.UpdateProfileRequest(
                slug=slug,
                display_name=form["display_name"],
                update_tags=True,
                tags=tags_of(form["tags"]),
                default_language=form["default_language"],
            ),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in _SHOWN:
            raise
        return await profile_page(request, viewer, slug, status=error.http_status, failure=error, form=form)
    return see_other(f"{profile_path(slug)}?notice=profile-saved")


@signed_in
async def delete_profile(request: Request, viewer: Viewer, slug: str) -> HTTPResponse:
    """Deletes the profile, with its past posts, once its slug is typed to confirm; a refusal
    (PROFILE_IN_USE, the slug not typed) is shown on its page and deletes nothing."""
    slug = checked_slug(slug)
    core = request.app.ctx.core
    try:
        if form_value(request, "confirm") != slug:
            # Asked of the core first, so another organization's profile is a 404 whatever was typed.
            await core.call(
                core.profiles.GetProfile, profiles_pb2.GetProfileRequest(slug=slug), authorization=viewer.authorization
            )
            raise ApiError("VALIDATION_ERROR", f"Type the profile's slug, {slug}, to confirm that it is deleted.")
        await core.call(
            core.profiles.DeleteProfile,
            profiles_pb2.DeleteProfileRequest(slug=slug),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in _SHOWN:
            raise
        return await profile_page(request, viewer, slug, status=error.http_status, failure=error)
    return see_other(f"{PROFILES}?notice=profile-deleted")


ROUTES = (
    Route("GET", PROFILES, list_profiles),
    Route("POST", PROFILES, add_profile),
    Route("GET", f"{PROFILES}/<slug:str>", show_profile),
    Route("POST", f"{PROFILES}/<slug:str>", update_profile),
    Route("POST", f"{PROFILES}/<slug:str>/delete", delete_profile),
)
