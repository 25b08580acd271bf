"""What each profile's post will be (docs/posts.md "Threads, first comments and versions").

A request names one text, media, title and post type for every profile, plus optionally a thread
(items published after the post as a reply chain), a first comment, the text's language and
TikTok settings (docs/posts.md "Languages and TikTok settings"). `customizations` give one
profile a version of its own: each field present replaces the request's value for that profile's
post only. `version_for` resolves a profile's effective post; the checks of the fields themselves
are core/posts/field_checks.py's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields

from core.connectors.base import TikTokOptions
from core.posts.language import normalized_language


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
    language: str | None = None
    tiktok: TikTokOptions | None = None


@dataclass(frozen=True, slots=True)
class Version:
    """One profile's effective post. `post_type` None: the request's post_types, else the default."""

    content: str
    media_ids: tuple[str, ...]
    title: str | None
    post_type: str | None
    thread: tuple[ThreadItem, ...] = ()
    first_comment: str | None = None
    # The language the request named for this post (normalized when well-formed); None: the
    # profile's default applies (core/posts/create.py).
    language: str | None = None
    tiktok: TikTokOptions | None = None

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
    """The request's fields beyond one post's content, media and title (all optional; docs/posts.md,
    "Threads, first comments and versions", "Languages and TikTok settings")."""

    thread: tuple[ThreadItem, ...] = ()
    first_comment: str | None = None
    customizations: Mapping[str, Customization] = field(default_factory=dict)
    language: str | None = None
    tiktok: TikTokOptions | None = None


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
        language=_normalized(extras.language if c.language is None else c.language),
        tiktok=extras.tiktok if c.tiktok is None else c.tiktok,
    )


def _normalized(language: str | None) -> str | None:
    """The tag in its conventional case; a malformed one is kept as sent (check_extras refuses
    it, and the dry run reports it without failing to build the version)."""
    return None if language is None else normalized_language(language) or language


def tiktok_json(options: TikTokOptions | None) -> str:
    """The settings as the posts table keeps them: the fields chosen, as JSON ("" for none)."""
    if options is None:
        return ""
    return json.dumps({k: v for k, v in asdict(options).items() if v is not None}, separators=(",", ":"))


def tiktok_from_json(stored: str | None) -> TikTokOptions | None:
    if not stored:
        return None
    known = {f.name for f in fields(TikTokOptions)}
    return TikTokOptions(**{k: v for k, v in json.loads(stored).items() if k in known})
