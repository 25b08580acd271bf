"""What each profile's post will be (docs/posts.md "Threads, first comments and versions").

A request names one text, media, title and post type for every profile, plus optionally a thread
(items published after the post as a reply chain) and a first comment. `customizations` give one
profile a version of its own: each field present replaces the request's value for that profile's
post only. `version_for` resolves a profile's effective post; the shape checks here are the
field checks of creation (VALIDATION_ERROR), made before any destination rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from core.errors import ValidationError

MAX_THREAD_ITEMS = 25
MAX_CONTENT_CHARS = 25_000  # the longest any platform takes (X Premium); SPEC leaves it open
MAX_MEDIA = 35  # TikTok photo posts; SPEC leaves it open


@dataclass(frozen=True, slots=True)
class ThreadItem:
    content: str
    media_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Customization:
    """One profile's overrides; None: the request's value."""

    content: str | None = None
    media_ids: tuple[str, ...] | None = None
    title: str | None = None
    post_type: str | None = None
    thread: tuple[ThreadItem, ...] | None = None
    first_comment: str | None = None


@dataclass(frozen=True, slots=True)
class Version:
    """One profile's effective post. `post_type` None: the request's post_types, else the default."""

    content: str
    media_ids: tuple[str, ...]
    title: str | None
    post_type: str | None
    thread: tuple[ThreadItem, ...] = ()
    first_comment: str | None = None

    @property
    def units(self) -> int:
        """Deliveries the post costs: itself and each thread item (a first comment is free)."""
        return 1 + len(self.thread)

    @property
    def texts(self) -> list[tuple[str, str]]:
        """Every text the post sends, named: for the never-publish check."""
        out = [("content", self.content)]
        if self.title:
            out.append(("title", self.title))
        out += [(f"thread item {i + 1}", item.content) for i, item in enumerate(self.thread)]
        if self.first_comment is not None:
            out.append(("first comment", self.first_comment))
        return out

    @property
    def all_media_ids(self) -> list[str]:
        return [*self.media_ids, *(m for item in self.thread for m in item.media_ids)]


@dataclass(frozen=True, slots=True)
class Extras:
    """The request's fields beyond SPEC's post (all optional)."""

    thread: tuple[ThreadItem, ...] = ()
    first_comment: str | None = None
    customizations: Mapping[str, Customization] = field(default_factory=dict)


def version_for(
    slug: str,
    *,
    content: str,
    media_ids: tuple[str, ...],
    title: str | None,
    extras: Extras,
) -> Version:
    c = extras.customizations.get(slug) or Customization()
    return Version(
        content=content if c.content is None else c.content,
        media_ids=media_ids if c.media_ids is None else c.media_ids,
        title=title if c.title is None else c.title,
        post_type=c.post_type,
        thread=extras.thread if c.thread is None else c.thread,
        first_comment=extras.first_comment if c.first_comment is None else c.first_comment,
    )


def check_text(what: str, text: str) -> None:
    if not text.strip():
        raise ValidationError(f"{what} is empty")
    if len(text) > MAX_CONTENT_CHARS:
        raise ValidationError(f"{what} is {len(text)} characters; the maximum is {MAX_CONTENT_CHARS}")


def check_media_ids(what: str, media_ids: tuple[str, ...]) -> None:
    if len(media_ids) > MAX_MEDIA:
        raise ValidationError(f"{what} names {len(media_ids)} files; the maximum is {MAX_MEDIA}")
    repeated = sorted({m for m in media_ids if media_ids.count(m) > 1})
    if repeated:
        raise ValidationError(f"{what} names {', '.join(map(repr, repeated))} more than once")


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


def check_extras(extras: Extras, profiles: list[str], max_title: int) -> None:
    """The shapes of thread, first_comment and customizations (VALIDATION_ERROR)."""
    if extras.thread:
        check_thread("", extras.thread)
    check_first_comment("", extras.first_comment)
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
        if c.title is not None and len(c.title) > max_title:
            raise ValidationError(f"{where}title is {len(c.title)} characters; the maximum is {max_title}")
        if c.thread is not None:
            check_thread(where, c.thread, allow_empty=True)  # [] : no thread for this profile
        check_first_comment(where, c.first_comment)
