"""The operation table: every public operation once, with its HTTP route, its core method, its
request and response shapes, the error codes it answers with and, where agents have it, its MCP
tool. The facade registers the /v1 routes, builds `tools/list` and `tools/call`, and assembles
openapi.json from this table alone (facades/rest/operations.py, facades/mcp/tools.py,
facades/discovery/openapi.py).

What a row holds: contract/operation.py. Every /v1 route takes an API key (`svc_…`); every tool
an OAuth access token for {base_url}/mcp. The scope a token needs is the core method's (its
policy, served in the catalog), so it is not repeated here."""

from __future__ import annotations

from contract.operation import Operation
from contract.table import (
    accounts,
    analytics,
    approvals,
    audience,
    audit,
    connections,
    generate,
    media,
    members,
    notes,
    posts,
    stock,
    webhooks,
    writing,
)

OPERATIONS: tuple[Operation, ...] = (
    *accounts.ROWS,
    *members.ROWS,
    *audit.ROWS,
    *connections.ROWS,
    *posts.ROWS,
    *analytics.ROWS,
    *audience.ROWS,
    *approvals.ROWS,
    *notes.ROWS,
    *media.ROWS,
    *stock.ROWS,
    *writing.ROWS,
    *generate.ROWS,
    *webhooks.ROWS,
)

TAGS = {
    "profiles": "Destination profiles and the platform accounts connected to them.",
    "credits": "The organization's credit balance and ledger.",
    "organization": "The organization's settings: its name and its time zone.",
    "members": "The organization's members and their roles.",
    "audit": "The audit log: every change a member made, and through which credential.",
    "comments": "The team's comments on posts and post groups: internal, never published.",
    "notifications": "Your notifications and where each kind goes.",
    "posts": "Posts: create, list, edit, cancel and retry posts; recent posts; the dry run.",
    "analytics": "What published posts did on their platforms: metrics read at growing intervals, kept as history.",
    "media": "The media library: presign, confirm, manage; licensed stock photos.",
    "brand": "The brand voice: how the organization writes and what it never publishes.",
    "writing": "Writing tools: destination limits and the generation catalogue.",
    "webhooks": "Webhook endpoints: signed lifecycle events pushed to your servers.",
}
OPERATIONS_BY_ID = {op.id: op for op in OPERATIONS}
TOOLS = {op.tool.name: op for op in OPERATIONS if op.tool is not None}
