"""The resources Herald answers with (docs/api.md, "Resources"), each built from its proto message.
This module holds what every domain's resources share (the page of a list, the catalog's
values several domains name) and the profiles' and credits' own; posts' are in
contract/post_resources.py, media's in contract/media_resources.py."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.credits.v1 import credits_pb2
from herald.identity.v1 import identity_pb2
from herald.profiles.v1 import profiles_pb2
from pydantic import Field

from contract.base import FromCatalog, Response, UtcTimestamp, timestamp

PLANS: dict[int, str] = {
    identity_pb2.PLAN_ACTIVE: "active",
    identity_pb2.PLAN_TRIALING: "trialing",
    identity_pb2.PLAN_NONE: "none",
}
Plan = Literal["active", "trialing", "none"]

# Values the core's catalog enumerates that several domains name.
Connector = Annotated[str, FromCatalog(lambda c: Literal[c.connectors])]
MediaKind = Annotated[str, FromCatalog(lambda c: Literal[c.media_kinds])]


def _id(prefix: str, description: str = "") -> Any:  # a FieldInfo
    return Field(pattern=f"^{prefix}_", description=description or None)


# Present only when there is a next page: pass it back as `page_token`.
NextPageToken = Annotated[
    str,
    Field(
        default=None,
        min_length=1,
        description="Present only when there is a next page; pass it back as `page_token`.",
    ),
]


def _page(key: str, items: list[dict[str, Any]], token: str) -> dict[str, Any]:
    """A list body: `{key: items}`, plus `next_page_token` only when there is a next page."""
    return {key: items, "next_page_token": token} if token else {key: items}


class ProfileConnection(Response):
    """How the profile's platform account is connected (docs/live-publishing.md). Its tokens
    never leave Herald's core."""

    status: Literal["connected", "needs_reauth", "disconnected", "sandbox"] = Field(
        description="connected: live deliveries go out; needs_reauth: connect the account again; "
        "disconnected: its account was disconnected and its tokens forgotten (connect it again to post live); "
        "sandbox: no platform account was ever connected. Sandbox publishing (the default) delivers to every "
        "profile whatever its status; live publishing only to connected ones."
    )
    platform_account_id: str | None = Field(description="The account's id on the platform.")
    handle: str | None
    avatar_url: str | None
    instance_url: str | None = Field(description="The Mastodon instance or Bluesky PDS of the account.")
    scopes: list[str] = Field(description="What the platform granted.")
    token_expires_at: UtcTimestamp | None
    connected_at: UtcTimestamp | None
    error: str | None = Field(description="Why the profile needs a human, when it does.")
    token_renewable: bool = Field(
        description="Whether Herald renews the access token itself before token_expires_at. False for a connected "
        "account whose token expires: connect it again before then."
    )
    metrics_error: str | None = Field(
        description="Why its posts' metrics cannot be read and how to fix it (a permission the account did not "
        "grant: connect it again granting it; a dead token); null when they can."
    )
    metrics_unavailable: list[str] = Field(
        description="The metrics that cannot be read; empty with metrics_error set: all of them."
    )

    @classmethod
    def from_proto(cls, c: profiles_pb2.ProfileConnection) -> dict[str, Any]:
        return dict(
            status=c.status or "sandbox",
            platform_account_id=c.platform_account_id or None,
            handle=c.handle or None,
            avatar_url=c.avatar_url or None,
            instance_url=c.instance_url or None,
            scopes=list(c.scopes),
            token_expires_at=timestamp(c.token_expire_time) if c.HasField("token_expire_time") else None,
            connected_at=timestamp(c.connect_time) if c.HasField("connect_time") else None,
            error=c.error or None,
            token_renewable=c.token_renewable,
            metrics_error=c.metrics_error or None,
            metrics_unavailable=list(c.metrics_unavailable),
        )


class Profile(Response):
    """A destination profile, named by its slug, and its platform account."""

    id: Annotated[str, _id("prf")]
    slug: str
    connector: Connector
    display_name: str
    tags: list[str] = Field(description="Lowercase.")
    created_at: UtcTimestamp
    connection: ProfileConnection
    default_language: str | None = Field(
        description="The language its posts get when a post names none (a BCP 47 tag); null when unset."
    )

    @classmethod
    def from_proto(cls, p: profiles_pb2.Profile) -> dict[str, Any]:
        return dict(
            id=p.id,
            slug=p.slug,
            connector=p.connector,
            display_name=p.display_name,
            tags=list(p.tags),
            created_at=timestamp(p.create_time),
            connection=ProfileConnection.from_proto(p.connection),
            default_language=p.default_language or None,
        )


class TimeSlotOut(Response):
    day: Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    time: str = Field(description="HH:MM, 24-hour, in the table's time zone.")


class ProfileSlots(Response):
    """A profile's weekly publishing times (an unset table: UTC and no slots)."""

    timezone: str = Field(description="An IANA time zone name.")
    slots: list[TimeSlotOut]

    @classmethod
    def from_proto(cls, t: profiles_pb2.ProfileSlots) -> dict[str, Any]:
        return dict(timezone=t.timezone, slots=[{"day": s.day, "time": s.time} for s in t.slots])


class ProfileList(Response):
    """A page of profiles, in slug order."""

    profiles: list[Profile]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: profiles_pb2.ListProfilesResponse) -> dict[str, Any]:
        return _page("profiles", [Profile.from_proto(p) for p in r.profiles], r.next_page_token)


class LedgerEntry(Response):
    """One movement of credits."""

    id: Annotated[str, _id("led")]
    delta: int = Field(description="Credits added (positive) or spent (negative).")
    balance_after: int
    reason: str = Field(description="e.g. `grant`, `post_delivery`, `refund`.")
    reference: str = Field(description="What the entry is for, e.g. the post id.")
    created_at: UtcTimestamp

    @classmethod
    def from_proto(cls, e: credits_pb2.LedgerEntry) -> dict[str, Any]:
        return dict(
            id=e.id,
            delta=e.delta,
            balance_after=e.balance_after,
            reason=e.reason,
            reference=e.reference,
            created_at=timestamp(e.create_time),
        )


class CreditAccount(Response):
    """The organization's credit balance, plan and most recent ledger entries."""

    organization: str = Field(description="The organization's slug.")
    balance: int
    plan: Plan
    low_credit_threshold: int
    ledger: list[LedgerEntry] = Field(description="Newest first.")

    @classmethod
    def from_proto(cls, a: credits_pb2.CreditAccount) -> dict[str, Any]:
        return dict(
            organization=a.organization,
            balance=a.balance,
            plan=PLANS.get(a.plan, "none"),
            low_credit_threshold=a.low_credit_threshold,
            ledger=[LedgerEntry.from_proto(e) for e in a.recent_entries],
        )


class LedgerPage(Response):
    """A page of the credit ledger, newest first."""

    entries: list[LedgerEntry]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: credits_pb2.ListLedgerEntriesResponse) -> dict[str, Any]:
        return _page("entries", [LedgerEntry.from_proto(e) for e in r.entries], r.next_page_token)
