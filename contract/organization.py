"""The organization's settings (docs/api.md, "Organization settings"): reading them, changing
them. One document per organization: the credential names it, so no path does."""

from __future__ import annotations

import functools
import zoneinfo
from typing import Annotated, Any

from herald.identity.v1 import accounts_pb2
from pydantic import Field

from contract.base import Request, Response, UtcTimestamp, timestamp
from contract.brand import OutputOnly
from contract.requests import ABSENT

_READ_ONLY = {"readOnly": True}
DEFAULT_TIME_ZONE = "UTC"
# Files of the zone database that load but are not zones anyone may name: the host's own zone and
# the POSIX default rules (available_timezones lists both when the host has them).
_NOT_ZONES = frozenset({"localtime", "posixrules"})


@functools.cache
def time_zones() -> frozenset[str]:
    """The time zones an organization may choose: every IANA name the zone database of this host
    knows, and UTC. The core accepts these (core/identity/organization.py); the dashboard offers
    them. Read once: listing the database walks its directory (about 40 ms)."""
    return frozenset(zoneinfo.available_timezones() - _NOT_ZONES | {DEFAULT_TIME_ZONE})


_TIME_ZONE = (
    "The IANA time zone the organization works in (e.g. `Europe/Paris`; `UTC` by default): the zone the "
    "dashboard shows and chooses times in. Times in requests and responses stay ISO 8601 instants."
)


class GetOrganizationRequest(Request):
    def to_proto(self) -> accounts_pb2.GetOrganizationRequest:
        return accounts_pb2.GetOrganizationRequest()


class UpdateOrganizationRequest(Request):
    """Changes the organization's settings; absent fields are kept. The body of a GET is
    accepted as it is: its output-only fields (`id`, `slug`, `created_at`) are ignored."""

    name: Annotated[
        str,
        Field(description="The display name: trimmed, then 1 to 200 characters without control characters."),
    ] = ABSENT
    time_zone: Annotated[
        str,
        Field(
            max_length=64,
            description="An IANA time zone name (e.g. `Europe/Paris`, `America/New_York`, `UTC`); another is "
            "refused (VALIDATION_ERROR).",
        ),
    ] = ABSENT
    approvals_required_for: Annotated[
        list[str],
        Field(
            max_length=10,
            description="Which posts wait for a person's approval: `agents` (created by an agent at /mcp), "
            "`api_keys` (created with an API key at /v1). `[]`: none (a contributor's posts always wait). "
            "Replaces the list.",
        ),
    ] = ABSENT
    approval_profile_tags: Annotated[
        list[str],
        Field(
            max_length=20,
            description="Only posts to profiles carrying one of these tags wait; `[]`: every profile. Replaces the list.",
        ),
    ] = ABSENT
    self_approval: Annotated[
        bool,
        Field(
            description="Whether a member may approve a post they wrote themselves (a post their agent wrote is "
            "theirs to approve either way)."
        ),
    ] = ABSENT
    # What GET answers beside the settings, ignored when sent back.
    id: OutputOnly
    slug: OutputOnly
    created_at: OutputOnly
    warning: OutputOnly

    def to_proto(self) -> accounts_pb2.UpdateOrganizationRequest:
        message = accounts_pb2.UpdateOrganizationRequest()
        if self.name is not None:
            message.name = self.name
        if self.time_zone is not None:
            message.time_zone = self.time_zone
        if self.approvals_required_for is not None:
            message.approvals_required_for.values.extend(self.approvals_required_for)
        if self.approval_profile_tags is not None:
            message.approval_profile_tags.values.extend(self.approval_profile_tags)
        if self.self_approval is not None:
            message.self_approval = self.self_approval
        return message


class Organization(Response):
    """The organization's settings. `id`, `slug` and `created_at` are output only (readOnly):
    PATCH ignores them, so this body can be edited and sent back whole."""

    id: str = Field(pattern="^org_", description="The organization's identifier.", json_schema_extra=_READ_ONLY)
    slug: str = Field(description="The organization's slug, set when it was created.", json_schema_extra=_READ_ONLY)
    name: str = Field(min_length=1, max_length=200, description="The organization's display name.")
    time_zone: str = Field(description=_TIME_ZONE)
    approvals_required_for: list[str] = Field(
        description='Which posts wait for a person\'s approval: `agents`, `api_keys` (docs/teams.md, "Approvals").'
    )
    approval_profile_tags: list[str] = Field(description="Only posts to profiles with one of these tags; [] all.")
    self_approval: bool = Field(description="Whether a member may approve a post they wrote themselves.")
    created_at: UtcTimestamp = Field(json_schema_extra=_READ_ONLY)

    @classmethod
    def from_proto(cls, o: accounts_pb2.OrganizationSettings) -> dict[str, Any]:
        return {
            "id": o.id,
            "slug": o.slug,
            "name": o.name,
            "time_zone": o.time_zone,
            "approvals_required_for": list(o.approvals.required_for),
            "approval_profile_tags": list(o.approvals.profile_tags),
            "self_approval": o.approvals.self_approval,
            "created_at": timestamp(o.create_time),
        }
