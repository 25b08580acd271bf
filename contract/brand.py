"""The brand voice's shapes (docs/brand-voice.md): reading it, saving a new version."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from herald.brand.v1 import brand_pb2
from pydantic import Field

from contract.base import InQuery, Request, Response, UtcTimestamp, timestamp
from contract.requests import ABSENT

# The core checks every limit (VALIDATION_ERROR naming it).
VoiceProfile = Annotated[
    str | None,
    InQuery(),
    Field(min_length=1, description="A profile's slug: its voice (the organization's with its override applied)."),
]


class GetBrandVoiceRequest(Request):
    profile: VoiceProfile = None

    def to_proto(self) -> brand_pb2.GetBrandVoiceRequest:
        return brand_pb2.GetBrandVoiceRequest(profile=self.profile or "")


# A field GET answers and a save ignores (AIP-203, output only): what was read can be sent back
# whole. Any value is taken, since it is never used.
OutputOnly = Annotated[
    Any,
    Field(
        default=None,
        description="Output only: answered by GET, ignored when sent back.",
        json_schema_extra={"readOnly": True},
    ),
]
_READ_ONLY = {"readOnly": True}


class PreferredTermInput(Request):
    use: str = Field(description="The term to write.")
    instead_of: str = Field(description="The term not to write.")


class UpdateBrandVoiceRequest(Request):
    """A new version of the organization's voice, or of one profile's override (`profile`).
    Every field not sent is cleared; in an override an empty field means "as the
    organization's", and never_publish adds to the organization's phrases. The body of a GET
    is accepted as it is: its output-only fields are ignored, and its `profile` must be the
    query's (null for the organization's voice)."""

    names_in_body: ClassVar[frozenset[str]] = frozenset({"profile"})

    profile: Annotated[
        str | None,
        InQuery(),
        Field(
            min_length=1,
            description="A profile's slug: replace its override. A body read back from GET may repeat it; "
            "it must then be the query's (null: the organization's voice).",
        ),
    ] = None
    expected_version: Annotated[
        int,
        Field(ge=0, le=2**31 - 1, description="Refuse (CONFLICT) unless the current version is this one."),
    ] = ABSENT
    description: str = Field(default="", description="The voice in words (at most 2,000 characters).")
    tone: list[str] = Field(default=[], description="A few words for the tone, e.g. warm, direct (at most 10).")
    audience: str = Field(default="", description="Who the posts are for (at most 1,000 characters).")
    examples: list[str] = Field(default=[], description="Approved example posts (at most 10 of 5,000 characters).")
    never_publish: list[str] = Field(
        default=[],
        description="Phrases never published (at most 200 of 100 characters): a post holding one is refused, "
        "compared case- and accent-insensitively as whole words or phrases.",
    )
    preferred_terms: list[PreferredTermInput] = Field(default=[], description="Terms to use instead of others.")
    emoji: Literal["none", "sparing", "frequent"] | None = Field(default=None, description="Default: sparing.")
    hashtags: Literal["none", "few", "many"] | None = Field(default=None, description="Default: few.")
    signature_hashtags: list[str] = Field(default=[], description="Hashtags the voice signs with (at most 10).")
    # What GET answers beside the document, ignored (`expected_version` is the precondition).
    version: OutputOnly
    profile_version: OutputOnly
    updated_at: OutputOnly
    updated_by: OutputOnly
    warning: OutputOnly

    def to_proto(self) -> brand_pb2.UpdateBrandVoiceRequest:
        message = brand_pb2.UpdateBrandVoiceRequest(
            voice=brand_pb2.BrandVoice(
                profile=self.profile or "",
                description=self.description,
                tone=self.tone,
                audience=self.audience,
                examples=self.examples,
                never_publish=self.never_publish,
                preferred_terms=[
                    brand_pb2.PreferredTerm(use=t.use, instead_of=t.instead_of) for t in self.preferred_terms
                ],
                emoji=f"EMOJI_HABIT_{self.emoji.upper()}" if self.emoji else "EMOJI_HABIT_UNSPECIFIED",
                hashtags=f"HASHTAG_HABIT_{self.hashtags.upper()}" if self.hashtags else "HASHTAG_HABIT_UNSPECIFIED",
                signature_hashtags=self.signature_hashtags,
            )
        )
        if self.expected_version is not None:
            message.expected_version = self.expected_version
        return message


_EMOJI = {0: "sparing", 1: "none", 2: "sparing", 3: "frequent"}
_HASHTAGS = {0: "few", 1: "none", 2: "few", 3: "many"}


class PreferredTerm(Response):
    use: str
    instead_of: str


class BrandVoice(Response):
    """A brand voice: the organization's, or the one in effect for a profile (docs/brand-voice.md).
    `version`, `profile_version`, `updated_at` and `updated_by` are output only (readOnly): PUT
    ignores them, so this body can be edited and sent back whole."""

    profile: str | None = Field(description="The profile's slug; null for the organization's voice.")
    version: int = Field(
        ge=0, description="The organization's voice version; 0 before one was saved.", json_schema_extra=_READ_ONLY
    )
    profile_version: int = Field(
        ge=0, description="The profile's override version; 0 without one.", json_schema_extra=_READ_ONLY
    )
    description: str
    tone: list[str]
    audience: str
    examples: list[str] = Field(description="Approved example posts.")
    never_publish: list[str] = Field(description="Phrases a post must never contain (refused: NEVER_PUBLISH_PHRASE).")
    preferred_terms: list[PreferredTerm]
    emoji: Literal["none", "sparing", "frequent"]
    hashtags: Literal["none", "few", "many"]
    signature_hashtags: list[str]
    updated_at: UtcTimestamp | None = Field(
        description="When the latest version was saved.", json_schema_extra=_READ_ONLY
    )
    updated_by: str | None = Field(description="Who saved the latest version (email).", json_schema_extra=_READ_ONLY)

    @classmethod
    def from_proto(cls, v: brand_pb2.BrandVoice) -> dict[str, Any]:
        return {
            "profile": v.profile or None,
            "version": v.version,
            "profile_version": v.profile_version,
            "description": v.description,
            "tone": list(v.tone),
            "audience": v.audience,
            "examples": list(v.examples),
            "never_publish": list(v.never_publish),
            "preferred_terms": [{"use": t.use, "instead_of": t.instead_of} for t in v.preferred_terms],
            "emoji": _EMOJI[v.emoji],
            "hashtags": _HASHTAGS[v.hashtags],
            "signature_hashtags": list(v.signature_hashtags),
            "updated_at": timestamp(v.update_time) if v.HasField("update_time") else None,
            "updated_by": v.updated_by or None,
        }
