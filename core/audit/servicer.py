"""herald.audit.v1.AuditService: the organization's audit log (docs/teams.md, "Audit log")."""

from __future__ import annotations

import grpc
from herald.audit.v1 import audit_pb2, audit_pb2_grpc

from core.audit import service
from core.identity.principal import CredentialKind
from core.pagination import page_request
from core.rpc.context import current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy, PageBounds

POLICIES = {
    # Those who manage the members read what they did: owners and admins, with a key or the
    # dashboard; an agent never reads it, whatever its member's role.
    "ListAuditEvents": MethodPolicy(
        credential_kinds=frozenset({CredentialKind.API_KEY, CredentialKind.SESSION}),
        plan_exempt_for_sessions=True,
        permission="manage_members",
        page=PageBounds(default=50, maximum=200),
    ),
}


def _event(record: service.AuditRecord) -> audit_pb2.AuditEvent:
    return audit_pb2.AuditEvent(
        id=record.id,
        event_time=timestamp(record.at),
        actor_user_id=record.actor_user_id,
        actor_email=record.actor_email,
        via=record.via,
        credential_id=record.credential_id,
        credential_name=record.credential_name,
        method=record.method,
        resource_kind=record.resource_kind,
        resource_id=record.resource_id,
        request_id=record.request_id,
    )


class AuditServicer(audit_pb2_grpc.AuditServiceServicer):
    async def ListAuditEvents(
        self, request: audit_pb2.ListAuditEventsRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.ListAuditEventsResponse:
        call = current_call()
        page = page_request(request.page_size, request.page_token, POLICIES["ListAuditEvents"].page)
        filters = service.AuditFilter(
            actor_user_id=request.actor_user_id,
            method=request.method,
            resource_id=request.resource_id,
            after=request.after,
            before=request.before,
        )
        found = await service.list_events(call.conn, call.principal.org_id, filters, page)
        return audit_pb2.ListAuditEventsResponse(
            events=[_event(e) for e in found.events],
            next_page_token=found.next_token,
            previous_page_token=found.previous_token,
        )
