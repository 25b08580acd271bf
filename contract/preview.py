"""The preview of a post (`POST /v1/posts:preview`, MCP `preview_post`, docs/writing-tools.md):
what each destination would publish, part by part, with the dry run's verdicts."""

from __future__ import annotations

from typing import Any, Literal

from herald.posts.v1 import posts_pb2
from pydantic import Field

from contract.base import Response, UtcTimestamp, timestamp
from contract.post_options import Notice, notices_of
from contract.resources import Connector, MediaKind
from contract.writing import Credits, Problem, credits, problems_of


class MediaPreview(Response):
    media_id: str
    kind: MediaKind
    mime_type: str
    width: int | None = Field(description="Pixels; null when unknown.")
    height: int | None = Field(description="Pixels; null when unknown.")
    size_bytes: int


class TextPreview(Response):
    role: Literal["title", "content", "thread_item", "first_comment"] = Field(
        description="What the text is, in publishing order: the title (YouTube), the post's text, each thread "
        "item, the first comment."
    )
    text: str = Field(description="The text as it will be sent: the profile's version, customizations applied.")
    length: int = Field(ge=0, description="Its length as the platform counts it.")
    max_length: int = Field(ge=0, description="The limit this text has on the platform, in `unit`.")
    unit: str
    media: list[MediaPreview] = Field(description="What this part attaches, in order.")


class DestinationPreview(Response):
    profile: str
    connector: Connector | None = Field(description="Null for an unknown profile.")
    platform: str | None = Field(description="The platform's name, e.g. Bluesky; null for an unknown profile.")
    display_name: str | None = Field(description="The profile's display name; null for an unknown profile.")
    post_type: str | None
    valid: bool = Field(description="Whether creation would accept this profile's post (validate_post's verdict).")
    problems: list[Problem] = Field(description="validate_post's problems for this profile.")
    warnings: list[Problem] = Field(
        description="What would not stop creation but deserves a look: NEAR_LIMIT (a text within 10% of its "
        "limit), DRAFT (destination rules are checked when the draft is scheduled)."
    )
    parts: list[TextPreview] = Field(description="Every text the destination publishes; empty for an unknown profile.")
    notices: list[Notice] = Field(
        description="The request's fields this destination does not use (FIELD_IGNORED, validate_post's notices)."
    )


def _media(m: posts_pb2.MediaPreview) -> dict[str, Any]:
    return {
        "media_id": m.media_id,
        "kind": m.kind,
        "mime_type": m.mime_type,
        "width": m.width or None,
        "height": m.height or None,
        "size_bytes": m.size_bytes,
    }


class PostPreview(Response):
    """What POST /v1/posts would publish on every profile, as each platform would show it."""

    valid: bool = Field(description="Whether POST /v1/posts would create the posts (as validate_post).")
    deliverable: bool = Field(description="Valid, and the credit balance covers every delivery now.")
    problems: list[Problem] = Field(description="Problems of the request as a whole.")
    destinations: list[DestinationPreview] = Field(description="One preview per profile, in the order named.")
    credits: Credits
    draft: bool
    schedule_at: UtcTimestamp | None = Field(description="When it would go out; null for now or a draft.")

    @classmethod
    def from_proto(cls, r: posts_pb2.PreviewPostsResponse) -> dict[str, Any]:
        return {
            "valid": r.valid,
            "deliverable": r.deliverable,
            "problems": problems_of(r.problems),
            "destinations": [
                {
                    "profile": d.profile,
                    "connector": d.connector or None,
                    "platform": d.platform or None,
                    "display_name": d.display_name if d.connector else None,
                    "post_type": d.post_type or None,
                    "valid": d.valid,
                    "problems": problems_of(d.problems),
                    "warnings": problems_of(d.warnings),
                    "notices": notices_of(d.notices),
                    "parts": [
                        {
                            "role": p.role,
                            "text": p.text,
                            "length": p.length,
                            "max_length": p.max_length,
                            "unit": p.unit,
                            "media": [_media(m) for m in p.media],
                        }
                        for p in d.parts
                    ],
                }
                for d in r.destinations
            ],
            "credits": credits(r.credits_required, r.credit_balance),
            "draft": r.draft,
            "schedule_at": timestamp(r.schedule_time) if r.HasField("schedule_time") else None,
        }
