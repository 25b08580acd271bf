"""A post's language and TikTok settings, and the notices that say which request fields a
destination does not use (docs/posts.md "Languages and TikTok settings", "Notices")."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.posts.v1 import posts_pb2
from pydantic import Field

from contract.base import Request, Response

PrivacyLevel = Literal["SELF_ONLY", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "PUBLIC_TO_EVERYONE"]
_TIKTOK_FIELDS = ("privacy_level", "disable_comment", "disable_duet", "disable_stitch", "auto_add_music")

# The core checks the tag's grammar (RFC 5646) and answers VALIDATION_ERROR naming it.
Language = Annotated[
    str,
    Field(
        min_length=1,
        max_length=35,
        description="The language of the text, a BCP 47 tag (e.g. `en`, `pt-BR`, `zh-Hant`), stored in its "
        "conventional case. Sent as Bluesky's `langs`, Mastodon's `language` (its ISO 639 part) and YouTube's "
        "`snippet.defaultLanguage`; the other platforms have no such field.",
    ),
]


class TikTokOptions(Request):
    """How TikTok posts are published; every field optional. Absent: the most private level the
    creator is offered (SELF_ONLY where offered), comments, duets and stitches off, no music."""

    privacy_level: Annotated[
        PrivacyLevel | None,
        Field(
            description="Who can see the post. It must be one TikTok offers the creator when the post goes out "
            "(creator_info), else the post fails platform_rejected (refunded)."
        ),
    ] = None
    disable_comment: Annotated[bool | None, Field(description="Turn comments off (default true).")] = None
    disable_duet: Annotated[bool | None, Field(description="Turn duets off (videos; default true).")] = None
    disable_stitch: Annotated[bool | None, Field(description="Turn stitches off (videos; default true).")] = None
    auto_add_music: Annotated[
        bool | None, Field(description="Let TikTok add recommended music (photo posts; default false).")
    ] = None

    def to_proto(self) -> posts_pb2.TikTokOptions:
        message = posts_pb2.TikTokOptions()
        for name in _TIKTOK_FIELDS:
            if (value := getattr(self, name)) is not None:
                setattr(message, name, value)
        return message


class TikTokSettings(Response):
    """The TikTok settings a post was created with; null fields take the defaults."""

    privacy_level: PrivacyLevel | None
    disable_comment: bool | None
    disable_duet: bool | None
    disable_stitch: bool | None
    auto_add_music: bool | None

    @classmethod
    def from_proto(cls, t: posts_pb2.TikTokOptions) -> dict[str, Any]:
        return {name: getattr(t, name) if t.HasField(name) else None for name in _TIKTOK_FIELDS}


class Notice(Response):
    """A request field a destination does not use: the post is created without it."""

    profile: str = Field(description="The profile slug it concerns.")
    code: Literal["FIELD_IGNORED"]
    field: str = Field(description="The request field, e.g. `title`, `language`, `tiktok.auto_add_music`.")
    message: str

    @classmethod
    def from_proto(cls, n: posts_pb2.Notice) -> dict[str, Any]:
        return {"profile": n.profile, "code": n.code, "field": n.field, "message": n.message}


def notices_of(notices: Any) -> list[dict[str, Any]]:  # repeated Notice
    return [Notice.from_proto(n) for n in notices]
