"""The brand voice in the dashboard: one form for the organization's voice (docs/brand-voice.md).

Lists are edited as text: one tone word, never-publish phrase or signature hashtag per line,
`use => instead of` per preferred term, and approved examples separated by a line of `---`."""

from __future__ import annotations

from typing import Any

from herald.brand.v1 import brand_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, form_value, see_other, signed_in, when
from facades.web.session import Viewer

EXAMPLE_SEPARATOR = "---"
EMOJI = {
    "none": brand_pb2.EMOJI_HABIT_NONE,
    "sparing": brand_pb2.EMOJI_HABIT_SPARING,
    "frequent": brand_pb2.EMOJI_HABIT_FREQUENT,
}
HASHTAGS = {
    "none": brand_pb2.HASHTAG_HABIT_NONE,
    "few": brand_pb2.HASHTAG_HABIT_FEW,
    "many": brand_pb2.HASHTAG_HABIT_MANY,
}


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _examples(text: str) -> list[str]:
    blocks, current = [], []
    for line in text.splitlines():
        if line.strip() == EXAMPLE_SEPARATOR:
            blocks.append("\n".join(current).strip())
            current = []
        else:
            current.append(line)
    blocks.append("\n".join(current).strip())
    return [b for b in blocks if b]


def _terms(text: str) -> list[brand_pb2.PreferredTerm]:
    terms = []
    for line in _lines(text):
        use, arrow, instead_of = line.partition("=>")
        if not arrow:
            raise ApiError("VALIDATION_ERROR", f"preferred terms: write 'use => instead of' ({line[:60]!r})")
        terms.append(brand_pb2.PreferredTerm(use=use.strip(), instead_of=instead_of.strip()))
    return terms


def _form_of(voice: brand_pb2.BrandVoice) -> dict[str, Any]:
    """The voice as the form's fields show it."""
    return {
        "description": voice.description,
        "tone": "\n".join(voice.tone),
        "audience": voice.audience,
        "examples": f"\n{EXAMPLE_SEPARATOR}\n".join(voice.examples),
        "never_publish": "\n".join(voice.never_publish),
        "preferred_terms": "\n".join(f"{t.use} => {t.instead_of}" for t in voice.preferred_terms),
        "emoji": {v: k for k, v in EMOJI.items()}.get(voice.emoji, "sparing"),
        "hashtags": {v: k for k, v in HASHTAGS.items()}.get(voice.hashtags, "few"),
        "signature_hashtags": "\n".join(voice.signature_hashtags),
        "version": str(voice.version),
    }


async def brand_voice_page(
    request: Request,
    viewer: Viewer,
    *,
    status: int = 200,
    error: str | None = None,
    form: dict[str, str] | None = None,
) -> HTTPResponse:
    """The form, filled with the saved voice, or with what was sent when a save was refused."""
    core = request.app.ctx.core
    voice = (
        await core.call(core.brand.GetBrandVoice, brand_pb2.GetBrandVoiceRequest(), authorization=viewer.authorization)
    ).response
    return await dashboard_page(
        request,
        viewer,
        "brand_voice.html",
        "brand",
        status=status,
        error=error,
        form=form or _form_of(voice),
        version=voice.version,
        updated=when(voice.update_time, viewer.time_zone, empty=""),
        updated_by=voice.updated_by,
    )


@signed_in
async def brand_voice(request: Request, viewer: Viewer) -> HTTPResponse:
    """The organization's brand voice, in a form."""
    return await brand_voice_page(request, viewer)


@signed_in
async def save_brand_voice(request: Request, viewer: Viewer) -> HTTPResponse:
    """Saves the form as a new version, unless another was saved since the form was read."""
    names = ("description", "tone", "audience", "examples", "never_publish", "preferred_terms")
    form = {name: form_value(request, name) for name in (*names, "emoji", "hashtags", "signature_hashtags", "version")}
    core = request.app.ctx.core
    try:
        message = brand_pb2.UpdateBrandVoiceRequest(
            voice=brand_pb2.BrandVoice(
                description=form["description"],
                tone=_lines(form["tone"]),
                audience=form["audience"],
                examples=_examples(form["examples"]),
                never_publish=_lines(form["never_publish"]),
                preferred_terms=_terms(form["preferred_terms"]),
                emoji=EMOJI.get(form["emoji"], brand_pb2.EMOJI_HABIT_UNSPECIFIED),
                hashtags=HASHTAGS.get(form["hashtags"], brand_pb2.HASHTAG_HABIT_UNSPECIFIED),
                signature_hashtags=_lines(form["signature_hashtags"]),
            )
        )
        # The version the form was read at: a save over someone else's newer one is refused.
        if form["version"].isdigit():
            message.expected_version = int(form["version"])
        await core.call(core.brand.UpdateBrandVoice, message, authorization=viewer.authorization)
    except ApiError as error:
        if error.code not in ("VALIDATION_ERROR", "CONFLICT"):
            raise
        return await brand_voice_page(request, viewer, status=error.http_status, error=error.message, form=form)
    return see_other("/dashboard/brand-voice?notice=voice-saved")


ROUTES = (
    Route("GET", "/dashboard/brand-voice", brand_voice),
    Route("POST", "/dashboard/brand-voice", save_brand_voice),
)
