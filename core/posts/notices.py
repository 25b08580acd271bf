"""What a destination does not use of a request, said instead of dropped (docs/posts.md
"Notices").

A request names its fields once for every profile, so a field some destination has no place
for is not an error: the post is created, and the answer (creation, the dry run, the preview)
carries a notice per profile and field, code FIELD_IGNORED. A feature a destination cannot take
at all (a thread, a first comment) is refused instead (core/posts/features.py): dropping it
would publish something other than what was asked. Which fields each platform uses:

- `title`: YouTube (the video's title) and TikTok photo posts (their short title); a TikTok
  video's caption is the content, and no other platform's post has a title.
- `language`: the platforms whose API has a field for it (each connector's `language_field`:
  Bluesky, Mastodon, YouTube). Only a language the request named gets a notice: a profile's
  default language is a setting, not something this request asked for.
- `tiktok`: TikTok only; on TikTok, duets and stitches exist on videos only and music is added
  to photo posts only, so the other fields get a notice by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from core.connectors.registry import CONNECTORS
from core.connectors.tiktok import goes_out_as_photos
from core.posts.rules import PLATFORM_LIMITS, MediaInfo
from core.posts.versions import Version

FIELD_IGNORED = "FIELD_IGNORED"
_VIDEO_ONLY = ("disable_duet", "disable_stitch")
_PHOTO_ONLY = ("auto_add_music",)


@dataclass(frozen=True, slots=True)
class Notice:
    profile: str
    code: str
    field: str
    message: str


def notices_for(
    slug: str, connector: str, version: Version, post_type: str, media: Mapping[str, MediaInfo] | None
) -> list[Notice]:
    """The request's fields this profile's destination does not use, in field order. `media`
    (the confirmed media by id, None when unknown) tells a TikTok photo post from a video."""
    platform = CONNECTORS[connector]
    name = PLATFORM_LIMITS[connector]["name"]
    found: list[Notice] = []

    def ignored(field: str, why: str) -> None:
        found.append(Notice(slug, FIELD_IGNORED, field, f"{why}: {slug!r} publishes without it"))

    photos = connector == "tiktok" and goes_out_as_photos(post_type, _kinds(version, media))
    if version.title is not None and version.title.strip() and not _uses_title(connector, photos):
        where = "a TikTok video's caption is its content" if connector == "tiktok" else f"a {name} post has no title"
        ignored("title", where)
    if version.language is not None and not platform.language_field:
        ignored("language", f"{name}'s API has no field for a post's language")
    if version.tiktok is not None and connector != "tiktok":
        ignored("tiktok", f"the TikTok settings apply to TikTok posts only, and this is a {name} post")
    elif version.tiktok is not None:
        for option in _PHOTO_ONLY if not photos else _VIDEO_ONLY:
            if getattr(version.tiktok, option) is not None:
                kind = "a video" if not photos else "a photo post"
                ignored(f"tiktok.{option}", f"TikTok has no {option.removeprefix('disable_')} setting on {kind}")
    return found


def _uses_title(connector: str, photos: bool) -> bool:
    return connector == "youtube" or (connector == "tiktok" and photos)


def _kinds(version: Version, media: Mapping[str, MediaInfo] | None) -> list[str] | None:
    if media is None or not all(m in media for m in version.media_ids):
        return None
    return [media[m].kind for m in version.media_ids]
