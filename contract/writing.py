"""The writing tools' shapes (docs/writing-tools.md): the dry run of a post, recent posts and
destination limits."""

from __future__ import annotations

from typing import Annotated, Any

from herald.catalog.v1 import catalog_pb2
from herald.posts.v1 import posts_pb2
from herald.profiles.v1 import profiles_pb2
from pydantic import Field

from contract.base import FromCatalog, InPath, InQuery, Request, Response
from contract.post_options import Notice, notices_of
from contract.post_requests import PostFields
from contract.requests import PageToken, rpc_path
from contract.resources import Connector


class ValidatePostsRequest(PostFields):
    """The body of POST /v1/posts, checked without creating anything."""

    def to_proto(self) -> posts_pb2.ValidatePostsRequest:
        return posts_pb2.ValidatePostsRequest(posts=self.create_message())


class PreviewPostsRequest(PostFields):
    """The body of POST /v1/posts, shown as each destination would publish it."""

    def to_proto(self) -> posts_pb2.PreviewPostsRequest:
        return posts_pb2.PreviewPostsRequest(posts=self.create_message())


class Problem(Response):
    code: str = Field(description="The code creation would answer with, e.g. VALIDATION_ERROR.")
    message: str


class ProfileCheck(Response):
    profile: str
    connector: Connector | None = Field(description="Null for an unknown profile.")
    post_type: str | None
    valid: bool
    problems: list[Problem]
    length: int = Field(ge=0, description="The content's length as the platform counts it.")
    max_length: int = Field(ge=0, description="The platform's limit, in the same unit.")
    unit: str
    notices: list[Notice] = Field(
        description="The request's fields this destination does not use (FIELD_IGNORED); not problems."
    )


class Credits(Response):
    required: int = Field(description="What the deliveries would cost.")
    balance: int
    sufficient: bool


def problems_of(problems: Any) -> list[dict[str, str]]:  # repeated Problem
    return [{"code": p.code, "message": p.message} for p in problems]


def credits(required: int, balance: int) -> dict[str, Any]:
    """The Credits of a dry run or a preview."""
    return {"required": required, "balance": balance, "sufficient": balance >= required}


class ValidationReport(Response):
    """Whether POST /v1/posts would accept the post, and why not, for every profile at once."""

    valid: bool = Field(description="Whether POST /v1/posts would create the posts.")
    deliverable: bool = Field(description="Valid, and the credit balance covers every delivery now.")
    problems: list[Problem] = Field(description="Problems of the request as a whole.")
    profiles: list[ProfileCheck] = Field(description="One verdict per profile, in the order named.")
    credits: Credits

    @classmethod
    def from_proto(cls, r: posts_pb2.ValidatePostsResponse) -> dict[str, Any]:
        return {
            "valid": r.valid,
            "deliverable": r.deliverable,
            "problems": problems_of(r.problems),
            "profiles": [
                {
                    "profile": c.profile,
                    "connector": c.connector or None,
                    "post_type": c.post_type or None,
                    "valid": c.valid,
                    "problems": problems_of(c.problems),
                    "length": c.length,
                    "max_length": c.max_length,
                    "unit": c.unit,
                    "notices": notices_of(c.notices),
                }
                for c in r.profiles
            ],
            "credits": credits(r.credits_required, r.credit_balance),
        }


_RECENT = rpc_path(posts_pb2, "PostService", "ListRecentPosts")


class ListRecentPostsRequest(Request):
    """Published posts, newest first by the time they went out."""

    profile: Annotated[str | None, InQuery(), Field(min_length=1, description="Only posts to this profile slug.")] = (
        None
    )
    connector: Annotated[Connector | None, InQuery(), Field(description="Only posts to this platform.")] = None
    page_size: Annotated[int, InQuery(), FromCatalog(lambda c: c.page_size(_RECENT))] = 0
    page_token: PageToken = None

    def to_proto(self) -> posts_pb2.ListRecentPostsRequest:
        return posts_pb2.ListRecentPostsRequest(
            profile=self.profile or "",
            connector=self.connector or "",
            page_size=self.page_size,
            page_token=self.page_token or "",
        )


class DestinationLimitsRequest(Request):
    profiles: Annotated[
        list[str] | None,
        InQuery(),
        Field(
            min_length=1,
            max_length=50,
            description="Profile slugs (repeat the query parameter); omitted: every profile of the organization.",
        ),
    ] = None

    def to_proto(self) -> profiles_pb2.GetDestinationLimitsRequest:
        return profiles_pb2.GetDestinationLimitsRequest(profiles=self.profiles or [])


class ProfileLimitsRequest(Request):
    slug: Annotated[str, InPath(), Field(min_length=1, description="The profile's slug.")]

    def to_proto(self) -> profiles_pb2.GetDestinationLimitsRequest:
        return profiles_pb2.GetDestinationLimitsRequest(profiles=[self.slug])


_KINDS = {
    catalog_pb2.PLATFORM_KIND_MICROBLOGGING: "microblogging",
    catalog_pb2.PLATFORM_KIND_PHOTO_SHARING: "photo_sharing",
    catalog_pb2.PLATFORM_KIND_SHORT_VIDEO: "short_video",
    catalog_pb2.PLATFORM_KIND_VIDEO: "video",
    catalog_pb2.PLATFORM_KIND_PROFESSIONAL_NETWORK: "professional_network",
}


class TextLimits(Response):
    max_length: int = Field(description="The most the text may count, in `unit`.")
    unit: str
    counting: str = Field(description="How the platform counts, in words.")
    requires_text: bool
    max_utf8_bytes: int | None
    max_links: int | None
    max_hashtags: int | None
    max_mentions: int | None
    forbidden_characters: str | None


class TitleLimits(Response):
    required: bool
    max_length: int


class MediaLayout(Response):
    kinds: list[str]
    min_items: int
    max_items: int


class AspectRule(Response):
    kind: str
    min_ratio: str | None
    max_ratio: str | None
    description: str


class PostTypeRules(Response):
    name: str
    default: bool
    media_required: bool
    layouts: list[MediaLayout] = Field(description="The ways the attachments may look; a post's must fit one.")
    aspect_rules: list[AspectRule]


class MediaCap(Response):
    kind: str
    max_bytes: int | None
    mime_types: list[str] = Field(description="Empty: any type of the library.")


class DestinationLimits(Response):
    """One profile and the real rules of its platform (from the core's catalog)."""

    profile: str
    display_name: str
    connector: Connector
    platform: str = Field(description="The platform's name.")
    kind: str = Field(description="microblogging, photo_sharing, short_video, video or professional_network.")
    text: TextLimits
    title: TitleLimits | None
    post_types: list[PostTypeRules] = Field(description="The first is the default.")
    media_caps: list[MediaCap]

    @classmethod
    def from_proto(cls, d: profiles_pb2.DestinationLimits) -> dict[str, Any]:
        p, t = d.platform, d.platform.text
        return {
            "profile": d.profile,
            "display_name": d.display_name,
            "connector": p.key,
            "platform": p.name,
            "kind": _KINDS[p.kind],
            "text": {
                "max_length": t.max_length,
                "unit": t.unit,
                "counting": t.counting,
                "requires_text": t.requires_text,
                "max_utf8_bytes": t.max_utf8_bytes or None,
                "max_links": t.max_links or None,
                "max_hashtags": t.max_hashtags or None,
                "max_mentions": t.max_mentions or None,
                "forbidden_characters": t.forbidden_characters or None,
            },
            "title": {"required": p.title.required, "max_length": p.title.max_length} if p.HasField("title") else None,
            "post_types": [
                {
                    "name": pt.name,
                    "default": i == 0,
                    "media_required": pt.media_required,
                    "layouts": [
                        {"kinds": list(lay.kinds), "min_items": lay.min_items, "max_items": lay.max_items}
                        for lay in pt.layouts
                    ],
                    "aspect_rules": [
                        {
                            "kind": a.kind,
                            "min_ratio": a.min_ratio or None,
                            "max_ratio": a.max_ratio or None,
                            "description": a.description,
                        }
                        for a in pt.aspect_rules
                    ],
                }
                for i, pt in enumerate(p.post_types)
            ],
            "media_caps": [
                {"kind": m.kind, "max_bytes": m.max_bytes or None, "mime_types": list(m.mime_types)}
                for m in p.media_caps
            ],
        }


class DestinationLimitsList(Response):
    """One entry per profile, in the order named (slug order when none was)."""

    destinations: list[DestinationLimits]

    @classmethod
    def from_proto(cls, r: profiles_pb2.GetDestinationLimitsResponse) -> dict[str, Any]:
        return {"destinations": [DestinationLimits.from_proto(d) for d in r.destinations]}


class SingleDestinationLimits(DestinationLimits):
    """The rules of one profile's platform."""

    @classmethod
    def from_proto(cls, r: profiles_pb2.GetDestinationLimitsResponse) -> dict[str, Any]:  # type: ignore[override]
        return DestinationLimits.from_proto(r.destinations[0])
