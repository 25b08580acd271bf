"""Recording the audit log (docs/teams.md, "Audit log"): who changed what, when, through which
credential and from which request.

One place writes it: the unit of work (core/rpc/interceptors.py) makes a `Pending` event for every
call of a method whose policy `writes` and that has a principal, and writes it in the call's own
transaction once the servicer has returned. A call that fails rolls its change back and leaves no
event, and no servicer has to remember to record anything. A hot path may write the event earlier,
in a round trip it makes anyway (creation's pipeline, core/posts/create.py: no round trip of its
own), and a call that turned out to change nothing (an idempotent replay) says so; the unit of
work then writes nothing more. Methods that hold no transaction (an upload, a connection's
exchange with a platform) commit their own work, and their event follows in a short transaction
of its own.

The resource is what the request names (its `post_id`, `group_id`, `user_id`, ...) or else what the
response made (a new post group, API key, invitation, webhook, media, profile, run). Anonymous
methods (sign-up, sign-in, the OAuth token endpoint) have no principal and no event, except one:
joining an organization through an invitation link while signing up or in (`joined`), which the
organization joined records as the new member's own act; what the workers do on their own
(publishing, retries, token refresh) has none: no person acted."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from google.protobuf.message import Message
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import audit_events
from core.db.prepared import Prepared
from core.identity.principal import CredentialKind, Principal
from core.ids import new_id

# How the member acted: the same words as a post's author_via (core/posts/approvals.py).
VIA = {
    CredentialKind.SESSION: "dashboard",
    CredentialKind.API_KEY: "api_key",
    CredentialKind.OAUTH_ACCESS_TOKEN: "agent",
}
# Request fields that name the resource a call acts on, most specific first, and what they name.
REQUEST_FIELDS = (
    ("post_id", "post"),
    ("group_id", "post_group"),
    ("user_id", "member"),
    ("invitation_id", "invitation"),
    ("api_key_id", "api_key"),
    ("grant_id", "agent"),
    ("webhook_id", "webhook"),
    ("media_id", "media"),
    ("slug", "profile"),
    ("organization", "organization"),
)
# What a call made when its request names nothing: the id in its response (by the response's
# message type; a repeated field's first element), and what it names.
RESPONSE_IDS: dict[str, tuple[tuple[str, ...], str]] = {
    "herald.posts.v1.CreatePostsResponse": (("posts", "group_id"), "post_group"),
    "herald.identity.v1.CreatedApiKey": (("api_key", "id"), "api_key"),
    "herald.identity.v1.CreatedInvitation": (("invitation", "id"), "invitation"),
    "herald.profiles.v1.Profile": (("slug",), "profile"),
    "herald.media.v1.Upload": (("media_id",), "media"),
    "herald.media.v1.Media": (("media_id",), "media"),
    "herald.webhooks.v1.Webhook": (("id",), "webhook"),
    "herald.generate.v1.GenerateRun": (("id",), "generate_run"),
    "herald.stock.v1.SourceMediaResponse": (("run_id",), "sourcing_run"),
}
# A change that belongs to another organization than the credential's: joining one through an
# invitation is recorded in the organization joined (the response's field names it).
ORG_IN_RESPONSE = {"identity.AcceptInvitation": "organization_id"}

RESOURCE_ID_CHARS = 200

_INSERT = Prepared(
    insert(audit_events),
    columns=[
        "id",
        "org_id",
        "at",
        "actor_user_id",
        "via",
        "credential_id",
        "method",
        "resource_kind",
        "resource_id",
        "request_id",
    ],
)


def method_name(path: str) -> str:
    """A core method as the log names it: `/herald.posts.v1.PostService/CreatePosts` is
    `posts.CreatePosts`."""
    service, _, method = path.lstrip("/").partition("/")
    return f"{service.split('.')[1]}.{method}"


def log_names(paths: Iterable[str]) -> dict[str, str]:
    """Each method's name in the log, by its gRPC path; refuses two methods of one name (the
    core would not start, rather than log two methods as one)."""
    names = {path: method_name(path) for path in paths}
    if len(set(names.values())) != len(names):
        twice = sorted({n for n in names.values() if list(names.values()).count(n) > 1})
        raise RuntimeError(f"two core methods share an audit log name: {twice}")
    return names


def credential_of(principal: Principal) -> str:
    """Which credential acted: an agent is known by its OAuth client (its access tokens come and
    go); an API key and a session by their own ids."""
    if principal.credential_kind is CredentialKind.OAUTH_ACCESS_TOKEN:
        return principal.client_id
    return principal.credential_id


@dataclass(slots=True)
class Pending:
    """The event of one call, written at most once."""

    row: dict[str, Any]
    done: bool = False

    def names(self, kind: str, resource_id: str) -> None:
        """The resource, when the caller knows it before the response exists."""
        self.row["resource_kind"], self.row["resource_id"] = kind, resource_id[:RESOURCE_ID_CHARS]

    def unchanged(self) -> None:
        """The call changed nothing (it answered an earlier call's result again): no event."""
        self.done = True

    async def write(self, conn: AsyncConnection, response: Any = None) -> None:
        """The event, in `conn`'s transaction (inside a pipeline, in its round trip); nothing when
        it was written already or the call changed nothing. `response` completes the resource and,
        for a call that joins an organization, says which."""
        if self.done:
            return
        self.done = True
        if isinstance(response, Message):
            self._complete(response)
        await _INSERT.run(conn, self.row)

    def _complete(self, response: Message) -> None:
        if self.row["resource_id"] is None and (found := RESPONSE_IDS.get(response.DESCRIPTOR.full_name)):
            path, kind = found
            if value := _field(response, path):
                self.names(kind, value)
        if field := ORG_IN_RESPONSE.get(self.row["method"]):
            self.row["org_id"] = getattr(response, field) or self.row["org_id"]


def pending(principal: Principal, method: str, request: Any, now: datetime, request_id: str | None) -> Pending | None:
    """The event a call of `method` (method_name's form) will record once it succeeds; None for a
    request that only checks (`validate_only`) and so changes nothing."""
    if getattr(request, "validate_only", False):
        return None
    row = {
        "id": new_id("aud"),
        "org_id": principal.org_id,
        "at": now,
        "actor_user_id": principal.user_id,
        "via": VIA[principal.credential_kind],
        "credential_id": credential_of(principal),
        "method": method,
        "resource_kind": None,
        "resource_id": None,
        "request_id": request_id,
    }
    event = Pending(row)
    if isinstance(request, Message):
        for field, kind in REQUEST_FIELDS:
            value = getattr(request, field, None)
            if isinstance(value, str) and value:
                event.names(kind, value)
                break
    return event


async def joined(
    conn: AsyncConnection, *, org_id: str, user_id: str, session_id: str, method: str, now: datetime
) -> None:
    """The event of joining `org_id` through an invitation link at sign-up or sign-in: an anonymous
    call, so the unit of work records nothing; the new member acted, from the dashboard, with the
    session the call opened (as AcceptInvitation, its signed-in twin, is recorded)."""
    await _INSERT.run(
        conn,
        {
            "id": new_id("aud"),
            "org_id": org_id,
            "at": now,
            "actor_user_id": user_id,
            "via": VIA[CredentialKind.SESSION],
            "credential_id": session_id,
            "method": method,
            "resource_kind": "member",
            "resource_id": user_id,
            "request_id": None,
        },
    )


def _field(message: Message, path: tuple[str, ...]) -> str:
    """The string at `path` in `message` ("" when absent); a repeated field's first element."""
    value: Any = message
    for name in path:
        value = getattr(value, name)
        if not isinstance(value, (str, Message)):  # a repeated field
            if not value:
                return ""
            value = value[0]
    return value if isinstance(value, str) else ""
