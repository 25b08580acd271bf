"""What every dashboard page shares: how a page family declares its routes, the sign-in
requirement (with the CSRF check of its forms), failure pages, rendering, redirects, paging and
formatting. The page modules hold only their handlers (docs/dashboard.md, "How a page is built")."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from google.protobuf.timestamp_pb2 import Timestamp
from herald.identity.v1 import accounts_pb2, identity_pb2
from herald.notes.v1 import notes_pb2
from herald.profiles.v1 import profiles_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse, redirect

from contract.redirects import local_path
from contract.requests import rpc_path
from facades.errors import ApiError
from facades.web import csrf
from facades.web.session import Viewer, clear_session_cookie, current_viewer, session_token
from facades.web.templating import render

log = logging.getLogger(__name__)

PROFILES_SHOWN = 500  # ListProfiles' largest page: filters and forms list every profile up to it

Handler = Callable[..., Awaitable[HTTPResponse]]


class Route(NamedTuple):
    """One page route: a page module lists its routes in a `ROUTES` tuple at its end."""

    method: str
    path: str
    handler: Handler


def blueprint(name: str, routes: Iterable[Route]) -> Blueprint:
    """A page family's routes as a blueprint. A new one for each app: route tables are plain
    data, so nothing registered is shared between two apps in one process (the tests build
    several)."""
    bp = Blueprint(name)
    for route in routes:
        bp.add_route(route.handler, route.path, methods=[route.method])
    return bp


# Outcomes of a Post/Redirect/Get, named in the redirect's query (`?notice=`): a fixed table, so
# nothing a link carries is ever echoed into the page.
NOTICES = {
    "signed-out": "You are signed out.",
    "switched": "Organization switched.",
    "key-revoked": "The API key is revoked. Requests made with it are refused from now on.",
    "agent-revoked": "The agent is disconnected. Its tokens are refused from now on.",
    "profile-added": "The sandbox profile is added.",
    "profile-saved": "The profile's settings are saved.",
    "profile-deleted": "The profile is deleted, with its past posts.",
    "slots-saved": "The queue slots are saved: posts scheduled at the next free slot take them from now on.",
    "disconnected": "The account is disconnected: Herald forgot its tokens and, where the platform allows, "
    "revoked its access.",
    "voice-saved": "The brand voice is saved as a new version.",
    "sourced": "The photos are in the library, ready for a post.",
    "providers": "The stock providers are saved.",
    "webhook-test": "A webhook.test event is on its way to this endpoint.",
    "webhook-enabled": "The endpoint is on: new events are delivered to it.",
    "webhook-disabled": "The endpoint is off: no events are delivered to it until it is turned on.",
    "webhook-deleted": "The endpoint is deleted.",
    "webhook-replayed": "The event is sent again (the same webhook-id).",
    "posts-scheduled": "The posts are scheduled.",
    "posts-queued": "The posts are queued: they go out in a moment.",
    "drafts-saved": "The drafts are saved: they are listed here as drafts, never published until scheduled.",
    "post-canceled": "The post is canceled: it will not be published, and what it held is refunded.",
    "post-retried": "The post is back in the queue: it is published again shortly.",
    "settings-saved": "The settings are saved. Times are shown in the organization's time zone.",
    "verification-sent": "A new confirmation link is on its way to your email address.",
    "verification-not-sent": "No link was sent: your address is confirmed already, or this Herald sends no mail.",
}


def notice(request: Request) -> str | None:
    return NOTICES.get(request.args.get("notice", ""))


def safe_next(target: str | None) -> str | None:
    """A local path to return to after sign-in, or None: only "/…" paths of this site, by the
    rule a connection's `return_to` follows too (contract/redirects.py)."""
    return local_path(target)


def see_other(location: str, *, clear_session: bool = False, request: Request | None = None) -> HTTPResponse:
    response = redirect(location, status=303)
    response.headers["Cache-Control"] = "no-store"
    if clear_session and request is not None:
        clear_session_cookie(response, request)
    return response


def login_redirect(request: Request, *, back_to: str | None = None) -> HTTPResponse:
    """303 to the sign-in page, coming back here (GETs) or to `back_to` afterwards."""
    target = back_to or (request.path + (f"?{request.query_string}" if request.query_string else ""))
    location = "/login?" + urlencode({"next": target}) if safe_next(target) else "/login"
    # A cookie the core no longer accepts (expired, signed out elsewhere) is dropped.
    return see_other(location, clear_session=session_token(request) is not None, request=request)


def failure_page(request: Request, error: ApiError, viewer: Viewer | None = None, **context: Any) -> HTTPResponse:
    status = error.http_status
    heading = "Service unavailable" if status >= 500 else "That did not work"
    message = error.message if status < 500 else "Herald cannot answer right now. Try again in a moment."
    return render(
        request,
        "message.html",
        status=status,
        viewer=viewer,
        heading=heading,
        message=message,
        role_alert=True,
        **context,
    )


def csrf_refused(request: Request) -> HTTPResponse:
    return render(
        request,
        "message.html",
        status=403,
        heading="Form expired",
        message="This form could not be accepted: its security token is missing or wrong. "
        "Reload the page and try again.",
        role_alert=True,
        link=request.path if request.path in ("/login", "/signup") else "/dashboard",
        link_text="Back",
    )


def page_errors(handler: Handler) -> Handler:
    """Every failure of a page handler ends as a page: a refused form as 403, a session the
    core no longer accepts as a trip to the sign-in page, any other core error as its status."""

    @functools.wraps(handler)
    async def wrapped(request: Request, *args: Any, **kwargs: Any) -> HTTPResponse:
        try:
            return await handler(request, *args, **kwargs)
        except csrf.CsrfRejected:
            return csrf_refused(request)
        except ApiError as error:
            if error.code == "UNAUTHORIZED" and request.method == "GET":
                return login_redirect(request)
            if error.code == "UNAUTHORIZED":
                return login_redirect(request, back_to="/dashboard")
            if error.http_status >= 500:
                log.warning("dashboard %s %s: %s", request.method, request.path, error.code)
            return failure_page(request, error)

    return wrapped


def signed_in(handler: Handler) -> Handler:
    """Runs the handler with the signed-in viewer as its second argument. A POST must carry
    the form's CSRF token (checked before anything else is done); without a session, GETs go
    to the sign-in page and come back, POSTs go to the sign-in page. A GET's viewer is read with
    the header's organizations and count (one call: current_viewer)."""

    @functools.wraps(handler)
    async def wrapped(request: Request, *args: Any, **kwargs: Any) -> HTTPResponse:
        if session_token(request) is None:
            return login_redirect(request, back_to=None if request.method == "GET" else "/dashboard")
        if request.method == "POST":
            csrf.check(request, signed_in=True)
        viewer = await current_viewer(request, header=request.method == "GET")
        if viewer is None:
            return login_redirect(request, back_to=None if request.method == "GET" else "/dashboard")
        return await handler(request, viewer, *args, **kwargs)

    return page_errors(wrapped)


async def organizations(request: Request, viewer: Viewer) -> list[accounts_pb2.Organization]:
    core = request.app.ctx.core
    result = await core.call(
        core.accounts.ListOrganizations, accounts_pb2.ListOrganizationsRequest(), authorization=viewer.authorization
    )
    return list(result.response.organizations)


async def listed_profiles(request: Request, authorization: str) -> list[profiles_pb2.Profile]:
    """The organization's profiles, up to PROFILES_SHOWN: what a page's filters or form offer."""
    core = request.app.ctx.core
    listed = await core.call(
        core.profiles.ListProfiles,
        profiles_pb2.ListProfilesRequest(page_size=PROFILES_SHOWN),
        authorization=authorization,
    )
    return list(listed.response.profiles)


async def unread_count(request: Request, viewer: Viewer) -> int:
    """How many of the member's notifications are unread: the navigation's count when the viewer
    was read without it (one ListNotifications of one item, which answers the count with it)."""
    core = request.app.ctx.core
    listed = await core.call(
        core.method(rpc_path(notes_pb2, "NoteService", "ListNotifications")),
        notes_pb2.ListNotificationsRequest(page_size=1),
        authorization=viewer.authorization,
    )
    return listed.response.unread_count


@dataclass(frozen=True, slots=True)
class Navigation:
    """What every signed-in page's header shows besides the viewer: the organization switcher's
    organizations and the unread notifications' count."""

    organizations: list[accounts_pb2.Organization]
    unread: int


async def navigation(request: Request, viewer: Viewer, *, unread: int | None = None) -> Navigation:
    """The header: read with a GET's viewer (no call), else its calls at once (the count only
    when the page did not read it: a form's refusal shown again). A page that makes calls of its
    own gathers this with them and hands it to dashboard_page as `nav`."""
    if viewer.organizations is not None and viewer.unread is not None:
        return Navigation(viewer.organizations, viewer.unread if unread is None else unread)
    if unread is not None:
        return Navigation(await organizations(request, viewer), unread)
    listed, count = await asyncio.gather(organizations(request, viewer), unread_count(request, viewer))
    return Navigation(listed, count)


async def dashboard_page(
    request: Request,
    viewer: Viewer,
    template: str,
    section: str,
    *,
    status: int = 200,
    unread: int | None = None,
    nav: Navigation | None = None,
    **context: Any,
) -> HTTPResponse:
    """A signed-in page: the navigation with the unread notifications' count, the organization
    switcher and the notice from a redirect. `nav`: the header's calls, made by the page with its
    own (`navigation`); else they are made here, the count only when the page did not pass its
    own as `unread`."""
    context.setdefault("flash", notice(request))
    nav = nav or await navigation(request, viewer, unread=unread)
    return render(
        request,
        template,
        status=status,
        viewer=viewer,
        section=section,
        organizations=nav.organizations,
        unread=nav.unread,
        **context,
    )


def form_value(request: Request, name: str) -> str:
    return ((request.form or {}).get(name) or "").strip() if request.form is not None else ""


def when(stamp: Timestamp, zone: str, empty: str = "never") -> str:
    """An instant as the dashboard shows it: in the organization's time zone, named
    ("2026-11-28 09:30 (Europe/Paris)"); `empty` for an unset time. `zone` is the viewer's
    `time_zone`; one this host does not know is shown as UTC, named so."""
    if not stamp.seconds and not stamp.nanos:
        return empty
    tz = _zone(zone)
    return f"{datetime.fromtimestamp(stamp.seconds, tz).strftime('%Y-%m-%d %H:%M')} ({tz.key})"


@functools.lru_cache(maxsize=64)
def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):  # not found, not a zone's name, not a TZif file
        return ZoneInfo("UTC")


def plan_name(plan: int) -> str:
    return identity_pb2.Plan.Name(plan).removeprefix("PLAN_").lower() if plan else "none"


def page_token(request: Request) -> str:
    """The list page asked for (`?page=`, the core's opaque token; "" for the first page)."""
    token = request.args.get("page", "")
    return token if len(token) <= 512 else ""


def pager(path: str, token: str, next_token: str, **filters: str) -> dict[str, Any]:
    """What pager.html shows: a link to the first page when this is not it, and one to the next
    page when the core says there is one, keeping the list's filters (the empty ones left out)."""
    query = {name: value for name, value in filters.items() if value} | {"page": next_token}
    return {"first_page": bool(token), "next_link": f"{path}?{urlencode(query)}" if next_token else None}
