"""The arguments of each operation (docs/api.md, "Route reference"), each converting itself to
its core request message. Absent optional fields stay unset in the message, so the core's
defaults apply. This module holds what every domain's arguments share and the profiles' and
credits' own; posts' are in contract/post_requests.py, media's in contract/media_requests.py."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.credits.v1 import credits_pb2
from herald.profiles.v1 import profiles_pb2
from pydantic import Field

from contract.base import FromCatalog, InPath, InQuery, Request, UniqueStrings

INT64_MAX = 2**63 - 1


def rpc_path(module: Any, service: str, method: str) -> str:  # a generated module
    """The gRPC path of a core method, e.g. `/herald.posts.v1.PostService/CreatePosts`."""
    descriptor = module.DESCRIPTOR.services_by_name[service]
    return f"/{descriptor.full_name}/{descriptor.methods_by_name[method].name}"


# An optional field that may be absent but not null (PATCH: absent keeps the current value).
ABSENT = Field(default=None)


def _page_size(path: str) -> Any:  # an Annotated type
    return Annotated[int, InQuery(), FromCatalog(lambda c: c.page_size(path))]


PageToken = Annotated[
    str | None, InQuery(), Field(min_length=1, description="The `next_page_token` of the previous page.")
]
Tag = Annotated[
    str | None,
    InQuery(),
    FromCatalog(lambda c: Field(pattern=c.limits.tag_pattern)),
    Field(description="Only those with this tag (case-insensitive)."),
]


Content = Annotated[
    str,
    FromCatalog(lambda c: Field(min_length=1, max_length=c.limits.max_content_chars)),
    Field(pattern=r"\S", description="Post body; never truncated: each destination's own limit is checked."),
]
MediaIds = Annotated[
    UniqueStrings,
    FromCatalog(lambda c: Field(max_length=c.limits.max_media_ids)),
    Field(description="Confirmed media of this organization's library."),
]


class ListProfilesRequest(Request):
    """List the organization's connected profiles, optionally by tag."""

    tag: Tag = None
    page_size: _page_size(rpc_path(profiles_pb2, "ProfileService", "ListProfiles")) = 0  # type: ignore[valid-type]
    page_token: PageToken = None

    def to_proto(self) -> profiles_pb2.ListProfilesRequest:
        return profiles_pb2.ListProfilesRequest(
            tag=self.tag or "", page_size=self.page_size, page_token=self.page_token or ""
        )


class GetProfileRequest(Request):
    slug: Annotated[str, InPath(), Field(min_length=1, description="The profile's slug.")]

    def to_proto(self) -> profiles_pb2.GetProfileRequest:
        return profiles_pb2.GetProfileRequest(slug=self.slug)


ProfileSlug = Annotated[str, InPath(), Field(min_length=1, description="The profile's slug.")]


class TimeSlot(Request):
    day: Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    time: Annotated[str, Field(pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$", description="HH:MM, 24-hour, local time.")]

    def to_proto(self) -> profiles_pb2.TimeSlot:
        return profiles_pb2.TimeSlot(day=self.day, time=self.time)


class GetProfileSlotsRequest(Request):
    slug: ProfileSlug

    def to_proto(self) -> profiles_pb2.GetProfileSlotsRequest:
        return profiles_pb2.GetProfileSlotsRequest(slug=self.slug)


class SetProfileSlotsRequest(Request):
    """Replaces the profile's weekly publishing times; `next_slot` posts take the next free one."""

    slug: ProfileSlug
    timezone: Annotated[str, Field(min_length=1, max_length=64, description="An IANA time zone, e.g. Europe/Paris.")]
    slots: Annotated[
        list[TimeSlot],
        FromCatalog(lambda c: Field(max_length=c.limits.max_time_slots)),
        Field(description="Weekly times in that zone; [] clears the table."),
    ]

    def to_proto(self) -> profiles_pb2.SetProfileSlotsRequest:
        return profiles_pb2.SetProfileSlotsRequest(
            slug=self.slug, timezone=self.timezone, slots=[s.to_proto() for s in self.slots]
        )


class UpdateProfileRequest(Request):
    """Changes a profile's settings; absent fields are kept."""

    slug: ProfileSlug
    display_name: Annotated[
        str, Field(min_length=1, max_length=200, description="Its name in Herald: trimmed, then 1-200 characters.")
    ] = ABSENT
    tags: Annotated[
        list[str],
        Field(
            max_length=20,
            description="Replaces its tags (`[]` removes them all): each 1-64 of a-z 0-9 _ : - (any case, stored "
            "lowercase), at most 20.",
        ),
    ] = ABSENT
    default_language: Annotated[
        str,
        Field(
            max_length=35,
            description="The language its posts are written in when a post names none, a BCP 47 tag (e.g. `en`, "
            '`pt-BR`); "" removes it. Posts already created keep theirs.',
        ),
    ] = ABSENT

    def to_proto(self) -> profiles_pb2.UpdateProfileRequest:
        message = profiles_pb2.UpdateProfileRequest(slug=self.slug)
        if self.display_name is not None:
            message.display_name = self.display_name
        if self.tags is not None:
            message.update_tags = True
            message.tags.extend(self.tags)
        if self.default_language is not None:
            message.default_language = self.default_language
        return message


class DeleteProfileRequest(Request):
    slug: ProfileSlug

    def to_proto(self) -> profiles_pb2.DeleteProfileRequest:
        return profiles_pb2.DeleteProfileRequest(slug=self.slug)


class GetCreditsRequest(Request):
    ledger_limit: Annotated[
        int | None,
        InQuery(),
        FromCatalog(
            lambda c: Field(
                ge=0,
                le=c.limits.max_recent_ledger_entries,
                description=f"How many recent ledger entries to include (default "
                f"{c.limits.default_recent_ledger_entries}).",
            )
        ),
    ] = None

    def to_proto(self) -> credits_pb2.GetCreditAccountRequest:
        message = credits_pb2.GetCreditAccountRequest()
        if self.ledger_limit is not None:
            message.recent_entries = self.ledger_limit
        return message


class ListLedgerRequest(Request):
    page_size: _page_size(rpc_path(credits_pb2, "CreditsService", "ListLedgerEntries")) = 0  # type: ignore[valid-type]
    page_token: PageToken = None

    def to_proto(self) -> credits_pb2.ListLedgerEntriesRequest:
        return credits_pb2.ListLedgerEntriesRequest(page_size=self.page_size, page_token=self.page_token or "")
