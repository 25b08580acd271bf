"""The audit log in the dashboard (docs/teams.md, "Audit log"):
what the organization's members changed, newest first, each event in words: who (their email,
and the API key or the agent that acted for them), what, on which resource (a link where the
dashboard has a page for it), when (in the organization's zone) and from which request. Filters
by member, action, resource and dates; keyset pages both ways, as the core answers them.

The core decides who may read it (ListAuditEvents needs manage_members): anyone else gets the
failure page with its 403. The words for each method are this page's (METHOD_PHRASES); a method
it does not know is named as the log names it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from herald.audit.v1 import audit_pb2
from herald.identity.v1 import members_pb2
from herald.posts.v1 import posts_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.post_links import post_page_path
from contract.requests import rpc_path
from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, see_other, signed_in, when
from facades.web.session import Viewer

EVENTS_PER_PAGE = 50
# What each audited core method did, as the page says it after the actor's email.
METHOD_PHRASES = {
    "posts.CreatePosts": "created a post",
    "posts.UpdatePost": "edited a post",
    "posts.CancelPost": "canceled a post",
    "posts.RetryPost": "retried a post",
    "posts.SchedulePost": "scheduled a draft",
    "posts.ApprovePost": "approved a post",
    "posts.RejectPost": "rejected a post",
    "posts.ReschedulePostGroup": "rescheduled a post for every destination",
    "posts.CancelPostGroup": "canceled a post for every destination",
    "posts.ApprovePostGroup": "approved a post for every destination",
    "posts.RejectPostGroup": "rejected a post for every destination",
    "notes.AddComment": "commented",
    "notes.MarkNotificationsRead": "marked notifications read",
    "notes.UpdateNotificationSettings": "changed their notification settings",
    "media.CreateUpload": "began an upload",
    "media.ConfirmMedia": "uploaded media",
    "media.UploadMedia": "uploaded media",
    "media.UpdateMedia": "edited media",
    "media.DeleteMedia": "deleted media",
    "stock.SourceMedia": "sourced stock photos",
    "stock.SetStockProviders": "changed the stock providers",
    "profiles.CreateProfile": "added a profile",
    "profiles.UpdateProfile": "edited a profile",
    "profiles.SetProfileSlots": "set a profile's time slots",
    "profiles.DeleteProfile": "deleted a profile",
    "connections.StartConnection": "began connecting an account",
    "connections.ConnectBluesky": "connected a Bluesky account",
    "connections.DisconnectProfile": "disconnected a profile's account",
    "brand.UpdateBrandVoice": "changed the brand voice",
    "generate.GeneratePost": "used a writing tool",
    "generate.GenerateThread": "used a writing tool",
    "generate.GenerateVariations": "used a writing tool",
    "generate.GenerateHashtags": "used a writing tool",
    "generate.RewriteForDestination": "used a writing tool",
    "webhooks.CreateWebhook": "added a webhook",
    "webhooks.UpdateWebhook": "edited a webhook",
    "webhooks.DeleteWebhook": "deleted a webhook",
    "webhooks.RotateWebhookSecret": "rotated a webhook's secret",
    "webhooks.TestWebhook": "sent a webhook test",
    "webhooks.ReplayWebhookDelivery": "replayed a webhook delivery",
    "identity.UpdateMember": "changed a member",
    "identity.RemoveMember": "removed a member",
    "identity.CreateInvitation": "invited someone",
    "identity.RevokeInvitation": "revoked an invitation",
    "identity.AcceptInvitation": "joined through an invitation",
    "identity.UpdateOrganization": "changed the organization's settings",
    "identity.CreateApiKey": "created an API key",
    "identity.RotateApiKey": "rotated an API key",
    "identity.RevokeApiKey": "revoked an API key",
    "identity.ApproveAuthorization": "connected an agent",
    "identity.RevokeGrant": "disconnected an agent",
    "identity.SwitchOrganization": "switched organization",
    "identity.SignOut": "signed out",
}
# Where the dashboard shows a resource of each kind (a post group: its first post, through
# group_page); the other kinds are named, not linked.
_LINKS = {
    "post": post_page_path,
    "post_group": lambda group_id: f"/dashboard/audit/post-groups/{group_id}",
    "webhook": lambda webhook_id: f"/dashboard/webhooks/{webhook_id}",
    "profile": lambda slug: f"/dashboard/profiles/{slug}",
    "member": lambda user_id: "/dashboard/members",
    "invitation": lambda invitation_id: "/dashboard/members",
}
_KIND_WORDS = {"post_group": "post group", "api_key": "API key", "generate_run": "writing run", "sourcing_run": "run"}
GROUP_ID = re.compile(r"grp_[0-9a-z]{1,64}")


@dataclass(frozen=True, slots=True)
class Filters:
    """The page's query: what the form sent, bounded, for the core to judge."""

    actor: str = ""
    method: str = ""
    resource: str = ""
    start: str = ""  # from, a date (YYYY-MM-DD) in the organization's zone
    end: str = ""  # to, a date, included

    @classmethod
    def read(cls, args: Any) -> Filters:
        return cls(
            actor=args.get("actor", "")[:64],
            method=args.get("method", "")[:80],
            resource=args.get("resource", "").strip()[:200],
            start=args.get("from", "")[:10],
            end=args.get("to", "")[:10],
        )

    @property
    def any(self) -> bool:
        return bool(self.actor or self.method or self.resource or self.start or self.end)

    def path(self, page: str = "") -> str:
        values = {"actor": self.actor, "method": self.method, "resource": self.resource}
        values |= {"from": self.start, "to": self.end, "page": page}
        query = urlencode({k: v for k, v in values.items() if v})
        return f"/dashboard/audit?{query}" if query else "/dashboard/audit"


def day_bounds(filters: Filters, zone: str) -> tuple[str, str]:
    """From and to, dates in the organization's zone, as instants: from's first instant and the
    first instant of the day after to."""
    tz = _zone(zone)

    def first_instant(text: str, argument: str, days: int = 0) -> str:
        try:
            day = date.fromisoformat(text) + timedelta(days=days)
            moment = datetime.combine(day, time(0), tzinfo=tz).astimezone(UTC)
        except (ValueError, OverflowError):
            raise ApiError(
                "VALIDATION_ERROR", f"{argument.capitalize()} must be a date (YYYY-MM-DD)", {"argument": argument}
            ) from None
        return moment.isoformat().replace("+00:00", "Z")

    return (
        first_instant(filters.start, "from") if filters.start else "",
        first_instant(filters.end, "to", days=1) if filters.end else "",
    )


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):
        return ZoneInfo("UTC")


def in_words(event: audit_pb2.AuditEvent) -> str:
    return METHOD_PHRASES.get(event.method, f"called {event.method}")


def through(event: audit_pb2.AuditEvent) -> str:
    """How the member acted, as the row says it."""
    if event.via == "api_key":
        return f"via API key {event.credential_name or event.credential_id}"
    if event.via == "agent":
        return f"via agent {event.credential_name or event.credential_id}"
    return "on the dashboard"


def _row(event: audit_pb2.AuditEvent, zone: str) -> dict[str, Any]:
    kind, resource = event.resource_kind, event.resource_id
    link = _LINKS.get(kind)
    return {
        "id": event.id,
        "when": when(event.event_time, zone),
        "instant": event.event_time.ToDatetime(tzinfo=UTC).isoformat().replace("+00:00", "Z"),
        "who": event.actor_email or event.actor_user_id,
        "through": through(event),
        "via": event.via,
        "what": in_words(event),
        "method": event.method,
        "kind": _KIND_WORDS.get(kind, kind),
        "resource": resource,
        "link": link(resource) if link and resource else "",
        "request_id": event.request_id,
    }


async def _call(request: Request, viewer: Viewer, module: Any, service: str, method: str, message: Any) -> Any:
    core = request.app.ctx.core
    path = rpc_path(module, service, method)
    return (await core.call(core.method(path), message, authorization=viewer.authorization)).response


@signed_in
async def audit_log(request: Request, viewer: Viewer) -> HTTPResponse:
    """A page of the audit log with the filters asked for (`?page=`: the core's token)."""
    filters = Filters.read(request.args)
    token = request.args.get("page", "")
    listed = await _call(request, viewer, members_pb2, "MemberService", "ListMembers", members_pb2.ListMembersRequest())
    context: dict[str, Any] = {
        "filters": filters,
        "zone": viewer.time_zone,
        "members": [{"user_id": m.user_id, "email": m.email} for m in listed.members],
        "actions": sorted(METHOD_PHRASES.items(), key=lambda action: (action[1], action[0])),
        "events": [],
        "pages": {},
    }
    try:
        after, before = day_bounds(filters, viewer.time_zone)
        page = await _call(
            request,
            viewer,
            audit_pb2,
            "AuditService",
            "ListAuditEvents",
            audit_pb2.ListAuditEventsRequest(
                actor_user_id=filters.actor,
                method=filters.method,
                resource_id=filters.resource,
                after=after,
                before=before,
                page_size=EVENTS_PER_PAGE,
                page_token=token[:512],
            ),
        )
    except ApiError as error:
        if error.code != "VALIDATION_ERROR":
            raise
        return await dashboard_page(
            request, viewer, "audit.html", "members", status=400, failure=error.message, **context
        )
    context["events"] = [_row(e, viewer.time_zone) for e in page.events]
    context["pages"] = {
        "newest": filters.path() if page.previous_page_token else "",
        "previous": filters.path(page.previous_page_token) if page.previous_page_token else "",
        "next": filters.path(page.next_page_token) if page.next_page_token else "",
    }
    return await dashboard_page(request, viewer, "audit.html", "members", **context)


@signed_in
async def group_page(request: Request, viewer: Viewer, group_id: str) -> HTTPResponse:
    """A post group named by an event: the page of its first post."""
    if not GROUP_ID.fullmatch(group_id):
        raise ApiError("NOT_FOUND", "no such post group in this organization")
    group = await _call(
        request, viewer, posts_pb2, "PostService", "GetPostGroup", posts_pb2.GetPostGroupRequest(group_id=group_id)
    )
    if not group.posts:
        raise ApiError("NOT_FOUND", "no such post group in this organization")
    return see_other(post_page_path(group.posts[0].id))


ROUTES = (
    Route("GET", "/dashboard/audit", audit_log),
    Route("GET", "/dashboard/audit/post-groups/<group_id:str>", group_page),
)
