"""The audit log's operation (docs/teams.md, "Audit log")."""

from __future__ import annotations

from herald.audit.v1 import audit_pb2

from contract import audit
from contract.operation import Operation
from contract.requests import rpc_path

ROWS = (
    Operation(
        id="listAuditEvents",
        method="GET",
        path="/v1/audit-log",
        summary="The audit log: who changed what, when, through which credential",
        tag="audit",
        rpc=rpc_path(audit_pb2, "AuditService", "ListAuditEvents"),
        request=audit.ListAuditEventsRequest,
        responses={200: audit.AuditEventList},
        errors=("VALIDATION_ERROR", "FORBIDDEN"),
        description="Every change a member made, newest first: through the dashboard, an API key or an agent, with "
        "the credential that acted, the core method, the resource it named and the request's id. Only calls that "
        "succeeded (a refused or failed call changed nothing); what the workers do on their own (publishing) is "
        "not a person's act and is not listed. Filters: `actor_user_id`, `method`, `resource_id`, and a time "
        "range (`after` inclusive, `before` exclusive). Pages both ways: `next_page_token` for older events, "
        "`previous_page_token` for newer ones. Needs a role that manages members (owner, admin); API keys and "
        "dashboard sessions only, never an agent.",
    ),
)
