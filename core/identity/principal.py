"""The principal a credential resolves to, and the credential kinds that exist."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class CredentialKind(StrEnum):
    API_KEY = "api_key"
    OAUTH_ACCESS_TOKEN = "oauth_access_token"
    SESSION = "session"


ACTIVE_PLANS = frozenset({"active", "trialing"})


@dataclass(frozen=True, slots=True)
class Principal:
    """One human user acting in exactly one organization through one credential
    (docs/decisions.md, "Every call carries the caller's credential")."""

    user_id: str
    org_id: str
    org_slug: str
    credential_kind: CredentialKind
    credential_id: str
    scopes: frozenset[str]
    plan: str
    credit_balance: int
    # The member's role in the organization (core/identity/roles.py): the credential acts with it.
    role: str = ""
    # The member's profile limits (core/identity/profile_limits.py): they reach only the profiles
    # carrying one of these tags, and those profiles' posts. Empty: every profile.
    profile_tags: tuple[str, ...] = ()
    # The organization's approval settings (docs/teams.md, "Approvals"), read with the credential:
    # which channels' posts wait for a person (`agents`, `api_keys`), for which profile tags (empty:
    # all), and whether a member may approve what they wrote themselves.
    approvals_required_for: frozenset[str] = frozenset()
    approval_profile_tags: tuple[str, ...] = ()
    self_approval: bool = False
    # The organization waits for its creator's address to be verified before it publishes
    # (core/identity/verification.py).
    awaiting_verification: bool = False
    # Set for dashboard sessions only: the API key and access token lookups do not read users.
    email: str = ""
    # Set for dashboard sessions only (the organization's row is read anyway): the zone its pages
    # show times in (core/identity/organization.py).
    time_zone: str = ""
    # Set for OAuth access tokens: the client they were issued to (its rate limit).
    client_id: str = ""

    @property
    def has_plan(self) -> bool:
        return self.plan in ACTIVE_PLANS
