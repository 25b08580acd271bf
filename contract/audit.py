"""The audit log (docs/teams.md, "Audit log"): its filters and its events."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.audit.v1 import audit_pb2
from pydantic import Field

from contract.base import DateTime, InQuery, Request, Response, UtcTimestamp, timestamp
from contract.requests import _page_size, rpc_path
from contract.resources import NextPageToken

_FILTER = {"min_length": 1, "max_length": 200}


class ListAuditEventsRequest(Request):
    """Filters combine with AND; a page token keeps the filters it was answered with."""

    actor_user_id: Annotated[
        str | None, InQuery(), Field(**_FILTER, description="Only what this member did (their user id, `usr_…`).")
    ] = None
    method: Annotated[
        str | None,
        InQuery(),
        Field(**_FILTER, description="Only calls of this core method, as events name it (e.g. `posts.CreatePosts`)."),
    ] = None
    resource_id: Annotated[
        str | None, InQuery(), Field(**_FILTER, description="Only events about this resource (its id, or a slug).")
    ] = None
    after: Annotated[DateTime | None, InQuery(), Field(description="Only events at or after this time.")] = None
    before: Annotated[DateTime | None, InQuery(), Field(description="Only events before this time (exclusive).")] = None
    page_size: _page_size(rpc_path(audit_pb2, "AuditService", "ListAuditEvents")) = 0  # type: ignore[valid-type]
    page_token: Annotated[
        str | None,
        InQuery(),
        Field(min_length=1, description="The `next_page_token` or `previous_page_token` of another page."),
    ] = None

    def to_proto(self) -> audit_pb2.ListAuditEventsRequest:
        return audit_pb2.ListAuditEventsRequest(
            actor_user_id=self.actor_user_id or "",
            method=self.method or "",
            resource_id=self.resource_id or "",
            after=self.after or "",
            before=self.before or "",
            page_size=self.page_size,
            page_token=self.page_token or "",
        )


class AuditEvent(Response):
    """One change a person made: who, through which credential, what, when, from which request."""

    id: str = Field(pattern="^aud_", description="The event's id.")
    at: UtcTimestamp = Field(description="When the call that made the change began.")
    actor_user_id: str = Field(pattern="^usr_", description="The member who acted.")
    actor_email: str | None = Field(description="Their email address now; null once the account is gone.")
    via: Literal["dashboard", "api_key", "agent"] = Field(
        description="dashboard (a signed-in session), api_key, or agent (an OAuth access token at /mcp)."
    )
    credential_id: str = Field(
        description="Which credential acted: the API key's id (`key_…`), the agent's OAuth client id, or the "
        "dashboard session's id (`ses_…`)."
    )
    credential_name: str | None = Field(
        description="The API key's display prefix or the agent's client name; null for a session, or once the key "
        "or client is gone."
    )
    method: str = Field(description="The core method called, e.g. `posts.CreatePosts`, `identity.UpdateMember`.")
    resource_kind: str | None = Field(
        description="What the resource is: post, post_group, member, invitation, api_key, agent, webhook, media, "
        "profile, organization, generate_run or sourcing_run; null when the call names none."
    )
    resource_id: str | None = Field(description="The resource's id (a profile's slug).")
    request_id: str | None = Field(description="The X-Request-Id of the request that made the change.")

    @classmethod
    def from_proto(cls, e: audit_pb2.AuditEvent) -> dict[str, Any]:
        return {
            "id": e.id,
            "at": timestamp(e.event_time),
            "actor_user_id": e.actor_user_id,
            "actor_email": e.actor_email or None,
            "via": e.via,
            "credential_id": e.credential_id,
            "credential_name": e.credential_name or None,
            "method": e.method,
            "resource_kind": e.resource_kind or None,
            "resource_id": e.resource_id or None,
            "request_id": e.request_id or None,
        }


class AuditEventList(Response):
    """A page of the audit log, newest first."""

    events: list[AuditEvent]
    next_page_token: NextPageToken
    previous_page_token: Annotated[
        str,
        Field(
            default=None,
            min_length=1,
            description="Present unless this is the first (newest) page: pass it back as `page_token` for the "
            "newer events.",
        ),
    ]

    @classmethod
    def from_proto(cls, r: audit_pb2.ListAuditEventsResponse) -> dict[str, Any]:
        body: dict[str, Any] = {"events": [AuditEvent.from_proto(e) for e in r.events]}
        if r.next_page_token:
            body["next_page_token"] = r.next_page_token
        if r.previous_page_token:
            body["previous_page_token"] = r.previous_page_token
        return body
