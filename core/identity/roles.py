"""What a member may do (docs/teams.md): the one table of roles and their permissions.

Every core method names the permission it needs (core/rpc/policy.py, MethodPolicy.permission),
checked with the credential's kind and scopes on every call: a dashboard session, an API key and an
agent's OAuth token act with the role of the member they belong to, never more. The role is read
with the credential itself (core/identity/authentication.py joins the membership anyway), so the
check costs a set lookup and a member whose role is lowered or who is removed is held to it on their
next request."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Permission:
    description: str


PERMISSIONS: dict[str, Permission] = {
    "read": Permission("see posts, their history, profiles, media, credits and the organization's settings"),
    "compose": Permission(
        "write drafts, upload and source media, run the writing tools, and create API keys for themselves"
    ),
    "publish": Permission(
        "schedule and publish posts, reschedule, cancel and retry them, set queue slots and the brand voice"
    ),
    "approve": Permission("approve or reject posts that wait for approval"),
    "manage_integrations": Permission("connect, edit and remove profiles; manage webhooks and stock providers"),
    "manage_members": Permission("invite, change and remove members; change the organization's settings"),
}

_EVERYTHING = frozenset(PERMISSIONS)

# Best first: a role is never granted by someone whose role is below it (core/identity/members.py).
ROLES: dict[str, frozenset[str]] = {
    "owner": _EVERYTHING,
    "admin": _EVERYTHING,
    "editor": frozenset({"read", "compose", "publish", "approve"}),
    # Contributors write; a person with `approve` decides what goes out.
    "contributor": frozenset({"read", "compose"}),
    "viewer": frozenset({"read"}),
}

ROLE_DESCRIPTIONS: dict[str, str] = {
    "owner": "everything, and the only role that can make or remove owners",
    "admin": "everything but making or removing owners",
    "editor": "writes, publishes and approves",
    "contributor": "writes drafts and submits them; never publishes on their own",
    "viewer": "reads",
}


def allows(role: str, permission: str) -> bool:
    """Whether `role` carries `permission` (an unknown role carries none)."""
    return permission in ROLES.get(role, frozenset())


def rank(role: str) -> int:
    """0 for the best role (owner); an unknown role ranks below every known one."""
    order = list(ROLES)
    return order.index(role) if role in ROLES else len(order)
