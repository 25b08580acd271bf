"""The member's notifications in the dashboard (docs/dashboard.md, "Notifications"; docs/teams.md,
"Comments and notifications"): their inbox in this organization, newest first, the unread ones
marked, each saying what happened, when (in the organization's zone) and linking to where it is
seen to; "Mark read" one or all; "Unread only"; and, below, their choice per kind of the inbox and
email.

The core makes and keeps everything (NoteService: a person's own inbox, sessions and API keys
only): the list is one ListNotifications page (its keyset token in `?page=`), whose unread count is
the navigation's on this page too, and the settings are GetNotificationSettings' kinds, in its
order and words. Email is offered only when this Herald sends mail (`mail_configured`); otherwise
its boxes show the member's choice, disabled, and saving keeps it."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlencode

from herald.notes.v1 import notes_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.redirects import local_path
from contract.requests import rpc_path
from facades.errors import ApiError
from facades.web.members_pages import in_words
from facades.web.pages import Route, dashboard_page, form_value, page_token, see_other, signed_in, when
from facades.web.session import Viewer

PATH = "/dashboard/notifications"
PER_PAGE = 25
UNREAD = "unread"  # `?show=unread`: the "Unread only" view
MAX_KINDS = 50  # kinds read off the settings form at most (the core knows eight)
# Outcomes of a Post/Redirect/Get on this page (`?notice=`): a fixed table, as pages.NOTICES.
NOTICES = {
    "notification-read": "The notification is marked read.",
    "notifications-read": "Every notification is marked read.",
    "notification-settings-saved": "The notification settings are saved: they hold for what happens from now on.",
}
# The core's refusal a member can act on (a page token or a kind it does not know); anything else
# is a failure page.
_SHOWN = ("VALIDATION_ERROR",)


async def _call(request: Request, viewer: Viewer, method: str, message: Any) -> Any:  # a proto
    """Calls a NoteService method with the viewer's session; its response."""
    core = request.app.ctx.core
    path = rpc_path(notes_pb2, "NoteService", method)
    return (await core.call(core.method(path), message, authorization=viewer.authorization)).response


def page_path(unread_only: bool, **query: str) -> str:
    """This page's address, in the view asked for (the empty values left out)."""
    values = {"show": UNREAD if unread_only else "", **query}
    encoded = urlencode({name: value for name, value in values.items() if value})
    return f"{PATH}?{encoded}" if encoded else PATH


def _item(n: notes_pb2.Notification, zone: str) -> dict[str, Any]:
    return {
        "id": n.id,
        "kind": n.kind,
        "text": n.text,
        # Where it is seen to: a path of this site only, as the core makes them.
        "link": local_path(n.link) or "",
        "when": when(n.create_time, zone),
        "instant": n.create_time.ToJsonString(),
        "unread": not n.HasField("read_time"),
    }


def _channel(c: notes_pb2.NotificationChannel) -> dict[str, Any]:
    return {
        "kind": c.kind,
        "description": c.description[:1].upper() + c.description[1:],
        "inbox": c.inbox,
        "email": c.email,
    }


async def _settings(request: Request, viewer: Viewer) -> notes_pb2.NotificationSettings:
    return await _call(request, viewer, "GetNotificationSettings", notes_pb2.GetNotificationSettingsRequest())


async def _listed(
    request: Request, viewer: Viewer, asked: notes_pb2.ListNotificationsRequest
) -> tuple[notes_pb2.ListNotificationsResponse | None, ApiError | None]:
    """The page of notifications asked for, or the core's refusal of its page token."""
    try:
        return await _call(request, viewer, "ListNotifications", asked), None
    except ApiError as error:
        if error.code not in _SHOWN:
            raise
        return None, error


async def notifications_page(
    request: Request, viewer: Viewer, *, status: int = 200, failure: ApiError | None = None
) -> HTTPResponse:
    """A page of the member's notifications in the view asked for, and their settings; `failure`
    is a refused form's error. A page token the core refuses is the page with its alert and no
    list."""
    unread_only = request.args.get("show", "") == UNREAD
    token = page_token(request)
    asked = notes_pb2.ListNotificationsRequest(unread_only=unread_only, page_size=PER_PAGE, page_token=token)
    (listed, refused), chosen = await asyncio.gather(_listed(request, viewer, asked), _settings(request, viewer))
    failure = failure or refused
    if refused is not None:
        status = refused.http_status
    next_token = listed.next_page_token if listed else ""
    return await dashboard_page(
        request,
        viewer,
        "notifications.html",
        "notifications",
        status=status,
        unread=listed.unread_count if listed else None,  # else dashboard_page asks for it
        flash=NOTICES.get(request.args.get("notice", "")),
        failure=failure and {"code": failure.code, "words": in_words(failure)},
        unread_only=unread_only,
        views={"all": page_path(False), "unread": page_path(True)},
        items=[_item(n, viewer.time_zone) for n in listed.notifications] if listed else [],
        first_page=bool(token),
        next_link=page_path(unread_only, page=next_token) if next_token else None,
        channels=[_channel(c) for c in chosen.channels],
        mail_configured=chosen.mail_configured,
    )


@signed_in
async def notifications(request: Request, viewer: Viewer) -> HTTPResponse:
    """The member's notifications (`?show=unread`: the unread ones; `?page=`: the core's token)
    and their notification settings."""
    return await notifications_page(request, viewer)


@signed_in
async def mark_read(request: Request, viewer: Viewer) -> HTTPResponse:
    """Marks one notification read (the form's `id`) or every one (`all`), then the page again in
    the view it was sent from."""
    everything = form_value(request, "all") == "true"
    one = form_value(request, "id")[:64]
    message = notes_pb2.MarkNotificationsReadRequest(all=everything, ids=[] if everything or not one else [one])
    try:
        await _call(request, viewer, "MarkNotificationsRead", message)
    except ApiError as error:
        if error.code not in _SHOWN:
            raise
        return await notifications_page(request, viewer, status=error.http_status, failure=error)
    done = "notifications-read" if everything else "notification-read"
    return see_other(page_path(form_value(request, "show") == UNREAD, notice=done))


@signed_in
async def save_settings(request: Request, viewer: Viewer) -> HTTPResponse:
    """Saves the member's choice per kind: the form names its kinds, the checked boxes say inbox
    and email. While this Herald sends no mail the email boxes are disabled: each kind keeps its
    saved email choice."""
    form = request.form
    kinds = list(dict.fromkeys(form.getlist("kind") if form else []))[:MAX_KINDS]
    inbox = set(form.getlist("inbox") or []) if form else set()
    email = set(form.getlist("email") or []) if form else set()
    saved = await _settings(request, viewer)
    kept = {c.kind: c.email for c in saved.channels}
    channels = [
        notes_pb2.NotificationChannel(
            kind=kind, inbox=kind in inbox, email=kind in email if saved.mail_configured else kept.get(kind, False)
        )
        for kind in kinds
    ]
    try:
        await _call(
            request,
            viewer,
            "UpdateNotificationSettings",
            notes_pb2.UpdateNotificationSettingsRequest(channels=channels),
        )
    except ApiError as error:
        if error.code not in _SHOWN:
            raise
        return await notifications_page(request, viewer, status=error.http_status, failure=error)
    return see_other(page_path(False, notice="notification-settings-saved"))


ROUTES = (
    Route("GET", PATH, notifications),
    Route("POST", f"{PATH}/read", mark_read),
    Route("POST", f"{PATH}/settings", save_settings),
)
