"""The checks of a request's own fields (VALIDATION_ERROR), one place for each rule, made before
any destination's rule: texts, media lists, titles, threads, first comments, languages, TikTok
settings and customizations, for creation, edits and drafts alike (docs/posts.md, "Creating posts").
Each limit here is served in the core's catalog, so no surface keeps a copy."""

from __future__ import annotations

from collections.abc import Sequence

from core.connectors.base import TikTokOptions
from core.connectors.tiktok import PRIVACY_LEVELS
from core.errors import ValidationError
from core.posts.language import language_problem
from core.posts.versions import Extras, ThreadItem

MAX_THREAD_ITEMS = 25
# The longest text any platform takes (X Premium), and the most attachments (TikTok photo posts):
# a request beyond them fits no destination (docs/api.md, "Limits").
MAX_CONTENT_CHARS = 25_000
MAX_MEDIA = 35
MAX_PROFILES = 50
MAX_TITLE = 100


def check_text(what: str, text: str) -> None:
    if not text.strip():
        raise ValidationError(f"{what} is empty")
    if len(text) > MAX_CONTENT_CHARS:
        raise ValidationError(f"{what} is {len(text)} characters; the maximum is {MAX_CONTENT_CHARS}")


def check_title(what: str, title: str | None) -> None:
    if title is not None and len(title) > MAX_TITLE:
        raise ValidationError(f"{what} is {len(title)} characters; the maximum is {MAX_TITLE}")


def check_named_once(what: str, names: Sequence[str]) -> None:
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValidationError(f"{what} names {', '.join(map(repr, repeated))} more than once")


def check_profiles(profiles: Sequence[str]) -> None:
    if not profiles:
        raise ValidationError("profiles must name at least one profile")
    if len(profiles) > MAX_PROFILES:
        raise ValidationError(f"profiles names {len(profiles)} profiles; the maximum is {MAX_PROFILES}")
    check_named_once("profiles", profiles)


def check_media_ids(what: str, media_ids: tuple[str, ...]) -> None:
    if len(media_ids) > MAX_MEDIA:
        raise ValidationError(f"{what} names {len(media_ids)} files; the maximum is {MAX_MEDIA}")
    check_named_once(what, media_ids)


def check_thread(where: str, thread: tuple[ThreadItem, ...], *, allow_empty: bool = False) -> None:
    if not thread and not allow_empty:
        raise ValidationError(f"{where}thread needs 1 to {MAX_THREAD_ITEMS} items (leave it out for none)")
    if len(thread) > MAX_THREAD_ITEMS:
        raise ValidationError(f"{where}thread has {len(thread)} items; the maximum is {MAX_THREAD_ITEMS}")
    for i, item in enumerate(thread):
        check_text(f"{where}thread item {i + 1}: content", item.content)
        check_media_ids(f"{where}thread item {i + 1}: media_ids", item.media_ids)


def check_first_comment(where: str, text: str | None) -> None:
    if text is not None:
        check_text(f"{where}first_comment", text)


def check_language(what: str, language: str | None) -> None:
    if language is not None and (problem := language_problem(what, language)):
        raise ValidationError(problem)


def check_tiktok(where: str, options: TikTokOptions | None) -> None:
    if options is not None and options.privacy_level is not None and options.privacy_level not in PRIVACY_LEVELS:
        raise ValidationError(
            f"{where}tiktok.privacy_level {options.privacy_level[:40]!r} is not one of {', '.join(PRIVACY_LEVELS)}"
        )


def check_extras(extras: Extras, profiles: list[str]) -> None:
    """The shapes of thread, first_comment, language, tiktok and customizations."""
    if extras.thread:
        check_thread("", extras.thread)
    check_first_comment("", extras.first_comment)
    check_language("language", extras.language)
    check_tiktok("", extras.tiktok)
    unknown = [slug for slug in extras.customizations if slug not in profiles]
    if unknown:
        raise ValidationError(
            f"customizations: {', '.join(repr(s[:64]) for s in unknown)} is not one of the request's profiles"
        )
    for slug, c in extras.customizations.items():
        where = f"customizations[{slug!r}]: "
        if c.content is not None:
            check_text(f"{where}content", c.content)
        if c.media_ids is not None:
            check_media_ids(f"{where}media_ids", c.media_ids)
        check_title(f"{where}title", c.title)
        if c.thread is not None:
            check_thread(where, c.thread, allow_empty=True)  # [] : no thread for this profile
        check_first_comment(where, c.first_comment)
        check_language(f"{where}language", c.language)
        check_tiktok(where, c.tiktok)
