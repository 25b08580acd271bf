"""Each destination platform's rules for one post: text length as the platform counts it, attachments.

Pure functions (no I/O) that POST /v1/posts runs for every destination before anything is created
(docs/posts.md, "Creating posts"); every number lives in one table, `PLATFORM_LIMITS`
(docs/platforms.md, "How to read this page").
Nothing is ever truncated: a problem is reported with the count and the limit.

Decisions where a platform's own documentation leaves room (docs/platforms.md, each platform):
- Post types, the first being the default: x, bluesky, mastodon, threads, linkedin: `post`;
  instagram: `feed` (one image; one video, which goes out as a Reel as Instagram does with every
  feed video; or a carousel of 2-10 images/videos), `reel` (one video), `story` (one image or
  video); tiktok: `video` (one video, or 1-35 images going out as a photo post, as the connector
  does), `photo` (1-35 images); youtube: `video`, `short` (a Short has no API flag: `short` only
  checks that the video is vertical or square when its size is known).
- YouTube needs a title: `title` is required and is never derived from the content, because a
  silently cut first line makes a poor public title; the content is the description.
- Threads counts text per grapheme, each emoji grapheme weighing its UTF-8 bytes (see `_threads_length`).
- Threads carousels: at most 10 items. Meta's posts page says carousels mix images and videos; the
  20-item ceiling is only found in third-party mirrors (PLATFORMS ⚠), so we keep the 10 that every
  source accepts. GIF files are refused: Threads takes JPEG/PNG images (its GIFs are GIPHY attachments).
- Bluesky GIFs go through the video service (it accepts image/gif, as the official app does), so a GIF
  takes the single video slot and the video size limit.
- Units the platform does not document (Instagram caption, LinkedIn commentary) are counted in
  UTF-16 code units, never fewer than code points or graphemes, so we never pass text they may refuse.
- Text platforms (x, bluesky, mastodon, threads, linkedin) need non-blank content; Instagram, TikTok
  and YouTube take an empty caption (their media requirement is checked by `media_problems`).
- Sizes: "MB" is read as MiB where the platform's own check is binary (X: 5,242,880 bytes; Mastodon:
  Rails `megabytes`), as exact bytes where stated (Bluesky images), otherwise as 10**6 (the stricter).
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import regex

from core.posts.x_count import extract_urls_with_indices, may_hold_url, weighted_length

MediaKind = Literal["image", "gif", "video"]


@dataclass(frozen=True, slots=True)
class MediaInfo:
    """A confirmed attachment as the rules see it; width and height are unknown for some files."""

    media_id: str
    kind: MediaKind  # "image", "gif" or "video"
    mime_type: str
    size_bytes: int
    width: int | None = None
    height: int | None = None


_MIB = 1024 * 1024
_MB = 1000 * 1000
_GB = 1000 * _MB


def _layout(kinds: list[str], low: int, high: int) -> dict[str, Any]:
    """One way a post's attachments may look: only these kinds, between `low` and `high` of them."""
    return {"kinds": kinds, "min": low, "max": high}


# Every platform limit in one place (docs/platforms.md). "media" maps each post type (the first is the
# default) to its attachment rule: a post's attachments must all fit one layout; "aspect" bounds
# width:height per kind when the size is known.
PLATFORM_LIMITS: dict[str, dict[str, Any]] = {
    "x": {
        "name": "X",
        "kind": "microblogging",
        "max_length": 280,  # 25,000 for Premium accounts ⚠: we cannot tell the tier, so the floor
        "unit": "characters as X counts them (weighted)",
        "counting": "twitter-text weighted length after NFC: code points 0-4351, 8192-8205, 8208-8223 and "
        "8242-8247 weigh 1, everything else (CJK) 2, any emoji sequence 2, every URL 23 (bare domains too)",
        "requires_text": True,
        "media": {
            "post": {
                "required": False,
                "layouts": [_layout(["image"], 1, 4), _layout(["gif"], 1, 1), _layout(["video"], 1, 1)],
                "aspect": {"video": {"min": "1:3", "max": "3:1", "text": "with an aspect ratio between 1:3 and 3:1"}},
            }
        },
        "max_bytes": {"image": 5 * _MIB, "gif": 15 * _MIB, "video": 8 * _GB},
    },
    "bluesky": {
        "name": "Bluesky",
        "kind": "microblogging",
        "max_length": 300,
        "max_utf8_bytes": 3000,
        "unit": "graphemes",
        "counting": "graphemes (Unicode extended grapheme clusters, as Intl.Segmenter counts them), "
        "and at most 3000 UTF-8 bytes",
        "requires_text": True,
        "media": {
            "post": {
                "required": False,
                "layouts": [_layout(["image"], 1, 4), _layout(["gif"], 1, 1), _layout(["video"], 1, 1)],
            }
        },
        # A GIF is uploaded through the video service, so it has the video limit.
        "max_bytes": {"image": 2_000_000, "gif": 300 * _MB, "video": 300 * _MB},
    },
    "mastodon": {
        "name": "Mastodon",
        "kind": "microblogging",
        "max_length": 500,  # the default; an instance may configure another
        "unit": "characters as Mastodon counts them (graphemes, each URL as 23)",
        "counting": "graphemes, with every http(s) URL counted as 23 (bare domains are not replaced) and "
        "@user@domain counted as @user; 500 is the default, instances may differ",
        "requires_text": True,
        "media": {
            "post": {
                "required": False,
                # A video may not share a post with anything; GIFs become gifv, which may.
                "layouts": [_layout(["image", "gif"], 1, 4), _layout(["video"], 1, 1)],
            }
        },
        "max_bytes": {"image": 16 * _MIB, "gif": 16 * _MIB, "video": 99 * _MIB},
    },
    "threads": {
        "name": "Threads",
        "kind": "microblogging",
        "max_length": 500,
        "max_links": 5,
        "unit": "characters as Threads counts them (each emoji as its UTF-8 bytes)",
        "counting": "graphemes, each emoji grapheme counting its UTF-8 bytes (e.g. 4 for 😀); at most 5 distinct links",
        "requires_text": True,
        "media": {"post": {"required": False, "layouts": [_layout(["image", "video"], 1, 10)]}},
        "max_bytes": {"image": 8 * _MB, "video": 1 * _GB},
        "mime_types": {"image": ["image/jpeg", "image/png"]},
    },
    "instagram": {
        "name": "Instagram",
        "kind": "photo_sharing",
        "max_length": 2200,
        "max_hashtags": 30,
        "max_mentions": 20,
        "unit": "UTF-16 code units",
        "counting": "UTF-16 code units (the unit is undocumented; this never counts less than Instagram); "
        "at most 30 hashtags and 20 @mentions",
        "requires_text": False,
        "media": {
            "feed": {
                "required": True,
                # A single video goes out as a Reel, as Instagram does with every feed video.
                "layouts": [_layout(["image"], 1, 1), _layout(["video"], 1, 1), _layout(["image", "video"], 2, 10)],
                "aspect": {
                    "image": {"min": "4:5", "max": "1.91:1", "text": "with an aspect ratio between 4:5 and 1.91:1"}
                },
            },
            "reel": {"required": True, "layouts": [_layout(["video"], 1, 1)]},
            "story": {"required": True, "layouts": [_layout(["image", "video"], 1, 1)]},
        },
        "max_bytes": {"image": 8 * _MB, "video": 300 * _MB},
        "mime_types": {"image": ["image/jpeg"]},
    },
    "tiktok": {
        "name": "TikTok",
        "kind": "short_video",
        "max_length": 2200,
        "unit": "UTF-16 code units",
        "counting": "UTF-16 code units (an emoji is usually 2)",
        "requires_text": False,
        "media": {
            # Images alone under the default type go out as a photo post (as the connector does).
            "video": {"required": True, "layouts": [_layout(["video"], 1, 1), _layout(["image"], 1, 35)]},
            "photo": {"required": True, "layouts": [_layout(["image"], 1, 35)]},
        },
        "max_bytes": {"video": 4 * _GB},
        # Photo posts take JPEG and WebP only (Content Posting API, photo media requirements).
        "mime_types": {"image": ["image/jpeg", "image/webp"]},
    },
    "youtube": {
        "name": "YouTube",
        "kind": "video",
        "max_length": 5000,
        "max_title_length": 100,
        "title_required": True,
        "forbidden_characters": "<>",
        "unit": "UTF-8 bytes",
        "counting": "the content is the description: at most 5000 UTF-8 bytes; `title` is required, at most "
        "100 characters; neither may contain < or >",
        "requires_text": False,
        "media": {
            "video": {"required": True, "layouts": [_layout(["video"], 1, 1)]},
            "short": {
                "required": True,
                "layouts": [_layout(["video"], 1, 1)],
                "aspect": {"video": {"min": None, "max": "1:1", "text": "that are vertical or square"}},
            },
        },
        "max_bytes": {},
    },
    "linkedin": {
        "name": "LinkedIn",
        "kind": "professional_network",
        "max_length": 3000,
        "unit": "UTF-16 code units",
        "counting": "UTF-16 code units (the unit is undocumented; this never counts less than LinkedIn)",
        "requires_text": True,
        "media": {"post": {"required": False, "layouts": [_layout(["image", "gif"], 1, 20), _layout(["video"], 1, 1)]}},
        "max_bytes": {"video": 500 * _MB},
    },
}

POST_TYPES: dict[str, tuple[str, ...]] = {c: tuple(p["media"]) for c, p in PLATFORM_LIMITS.items()}
# The platform keys (a post's `connector`), in the catalog's order; the connector objects that
# deliver to each are core/connectors/registry.py's CONNECTORS.
PLATFORMS: tuple[str, ...] = tuple(PLATFORM_LIMITS)

_GRAPHEME = regex.compile(r"\X")
_EMOJI = regex.compile(r"[\p{Extended_Pictographic}\p{Regional_Indicator}\u20e3]")
# Mastodon's Account::MENTION_RE: @user or @user@domain, not inside a word or a URL path.
_MASTODON_MENTION = regex.compile(
    r"(?<![=/\w])@([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)(?:@[\w.-]+\w+)?", regex.IGNORECASE
)
_HASHTAG = regex.compile(r"(?<![\w&#])#\w+")
_INSTAGRAM_MENTION = regex.compile(r"(?<![\w@.])@[\w.]*\w")
_NOUNS = {"image": ("image", "images"), "gif": ("GIF", "GIFs"), "video": ("video", "videos")}


def _platform(connector: str) -> dict[str, Any]:
    try:
        return PLATFORM_LIMITS[connector]
    except KeyError:
        raise ValueError(f"unknown connector {connector!r}") from None


def _media_rule(connector: str, post_type: str) -> dict[str, Any]:
    rules = _platform(connector)["media"]
    if post_type not in rules:
        raise ValueError(f"{post_type!r} is not a post type of {connector} ({', '.join(rules)})")
    return rules[post_type]


def default_post_type(connector: str) -> str:
    """The post type used when the request names none for this platform."""
    _platform(connector)
    return POST_TYPES[connector][0]


def _graphemes(text: str) -> int:
    if text.isascii():  # each ASCII character is a grapheme of its own, but CR LF is one (UAX #29)
        return len(text) - text.count("\r\n")
    return sum(1 for _ in _GRAPHEME.finditer(text))


def _utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _mastodon_length(text: str) -> int:
    # StatusLengthValidator: URLs with a scheme become 23 characters and @user@domain becomes @user,
    # overlapping entities resolved in favour of the URL; then graphemes are counted.
    if "://" not in text and "@" not in text:  # neither a URL with a scheme nor a mention
        return _graphemes(text)
    urls = [tuple(u["indices"]) for u in extract_urls_with_indices(text, extract_urls_without_protocol=False)]
    pieces, position = [], 0
    entities = [(s, e, "x" * 23) for s, e in urls]
    for m in _MASTODON_MENTION.finditer(text):
        if not any(s < m.end() and m.start() < e for s, e in urls):
            entities.append((m.start(), m.end(), "@" + m.group(1)))
    for start, end, replacement in sorted(entities):
        pieces += [text[position:start], replacement]
        position = end
    pieces.append(text[position:])
    return _graphemes("".join(pieces))


def _threads_length(text: str) -> int:
    # Meta: "Text posts are limited to 500 characters. Emojis are counted as the number of UTF-8
    # bytes", linking a grapheme splitter. Read literally: one per grapheme, except that a grapheme
    # holding an emoji weighs its UTF-8 bytes (😀 4, 👨‍👩‍👧 18). Counting every character in bytes
    # would refuse ordinary non-Latin posts that Threads takes; counting emoji as 1 would pass
    # posts that Threads refuses.
    if text.isascii():  # no emoji: every grapheme weighs 1
        return _graphemes(text)
    return sum(len(g.encode()) if _EMOJI.search(g) else 1 for g in _GRAPHEME.findall(text))


def count(connector: str, text: str) -> int:
    """The length of `text` as that platform counts it, in the unit of its `max_length`
    (`limits(connector)["counting"]` says which)."""
    _platform(connector)
    if connector == "x":
        return weighted_length(text)  # = parse_tweet(text).weightedLength, see core/posts/x_count.py
    if connector == "bluesky":
        return _graphemes(text)
    if connector == "mastodon":
        return _mastodon_length(text)
    if connector == "threads":
        return _threads_length(text)
    if connector == "youtube":
        return len(text.encode())
    return _utf16_units(text)  # instagram, tiktok, linkedin


def text_problems(connector: str, text: str) -> list[str]:
    """Problems with a text as this platform counts and bounds it (length, bytes, links, hashtags,
    mentions, forbidden characters), [] when it fits. Blank text is fine here: whether the
    platform needs text at all is `content_problems`'. Generated drafts pass this same check."""
    p = _platform(connector)
    name, problems = p["name"], []
    if text.strip():
        length = count(connector, text)
        if length > p["max_length"]:
            problems.append(f"content is {length} {p['unit']}, over the {name} limit of {p['max_length']}")
    if "max_utf8_bytes" in p and (size := len(text.encode())) > p["max_utf8_bytes"]:
        problems.append(f"content is {size} UTF-8 bytes, over the {name} limit of {p['max_utf8_bytes']} bytes")
    if "max_links" in p:
        links = {u["url"] for u in extract_urls_with_indices(text)} if may_hold_url(text) else set()
        if len(links) > p["max_links"]:
            problems.append(f"content has {len(links)} distinct links, over the {name} limit of {p['max_links']}")
    for key, pattern, what in (
        ("max_hashtags", _HASHTAG, "hashtags"),
        ("max_mentions", _INSTAGRAM_MENTION, "@mentions"),
    ):
        if key in p and (found := len(pattern.findall(text))) > p[key]:
            problems.append(f"content has {found} {what}, over the {name} limit of {p[key]}")
    forbidden = p.get("forbidden_characters", "")
    bad = sorted({c for c in forbidden if c in text}) if forbidden else []
    if bad:
        problems.append(f"content contains {' and '.join(bad)}, which {name} does not allow")
    return problems


def content_problems(connector: str, content: str, *, title: str | None, post_type: str) -> list[str]:
    """Human-readable problems with the text (and YouTube's title) for this platform, [] when fine.
    Each names the count and the limit; nothing is truncated. The request-wide title rule
    (docs/api.md, "Limits") is the caller's."""
    p = _platform(connector)
    _media_rule(connector, post_type)
    name, problems = p["name"], []
    if not content.strip() and p["requires_text"]:
        problems.append(f"content is empty, and {name} needs text")
    problems += text_problems(connector, content)
    if p.get("title_required"):
        if title is None or not title.strip():
            problems.append(
                f"{name} needs a title: send `title` (at most {p['max_title_length']} characters, "
                f"no {' or '.join(p['forbidden_characters'])}), and the content becomes the description"
            )
        elif len(title) > p["max_title_length"]:
            problems.append(f"title is {len(title)} characters, over the {name} limit of {p['max_title_length']}")
        bad = sorted({c for c in title or "" if c in p.get("forbidden_characters", "")})
        if bad:
            problems.append(f"title contains {' and '.join(bad)}, which {name} does not allow")
    return problems


def _plural(kind: str, n: int) -> str:
    singular, plural = _NOUNS.get(kind, (kind, kind + "s"))
    return f"{n} {singular if n == 1 else plural}"


def _describe_layout(layout: dict[str, Any]) -> str:
    kinds = " or ".join(_NOUNS[k][1] for k in layout["kinds"])
    if layout["min"] == layout["max"]:
        if layout["max"] == 1:
            return "1 " + " or ".join(_NOUNS[k][0] for k in layout["kinds"])
        return f"{layout['max']} {kinds}"
    return f"{layout['min']} to {layout['max']} {kinds}"


def _label(connector: str, post_type: str) -> str:
    name = _platform(connector)["name"]
    return name if len(POST_TYPES[connector]) == 1 else f"{name} {post_type}"


def _ratio(text: str) -> Fraction:
    width, height = text.split(":")
    return Fraction(width) / Fraction(height)


def media_problems(connector: str, post_type: str, media: list[MediaInfo]) -> list[str]:
    """Problems with the attachments for this platform and post type (INVALID_MEDIA_COMBINATION),
    [] when fine: count and mix of kinds, then each file's type, size and shape."""
    p, rule = _platform(connector), _media_rule(connector, post_type)
    label, problems = _label(connector, post_type), []
    layouts = rule["layouts"]
    allowed = {k for lay in layouts for k in lay["kinds"]}
    takes = ", or ".join(_describe_layout(lay) for lay in layouts)
    if len(layouts) > 1 and sum(len(lay["kinds"]) for lay in layouts) == len(allowed):
        takes += " (never mixed)"
    if not media:
        if rule["required"]:
            problems.append(f"{label} needs media and takes no text-only posts: it takes {takes}")
        return problems
    kinds = Counter(m.kind for m in media)
    refused = [k for k in kinds if k not in allowed]
    has = " and ".join(_plural(k, n) for k, n in kinds.items())
    if refused:
        ids = ", ".join(m.media_id for m in media if m.kind in refused)
        problems.append(f"{label} does not take {' or '.join(_NOUNS.get(k, (k, k))[1] for k in refused)} ({ids})")
    elif not any(set(kinds) <= set(lay["kinds"]) and lay["min"] <= len(media) <= lay["max"] for lay in layouts):
        problems.append(f"{label} takes {takes}, and this post has {has}")
    for m in media:
        mime_types = p.get("mime_types", {}).get(m.kind)
        if mime_types and m.mime_type not in mime_types:
            problems.append(
                f"media {m.media_id} is {m.mime_type}, and {label} takes {_NOUNS[m.kind][1]} only as {', '.join(mime_types)}"
            )
        limit = p["max_bytes"].get(m.kind)
        if limit is not None and m.size_bytes > limit:
            problems.append(
                f"media {m.media_id} is {m.size_bytes} bytes, over the {label} limit of {limit} bytes for {_NOUNS[m.kind][1]}"
            )
        aspect = rule.get("aspect", {}).get(m.kind)
        if aspect and m.width and m.height:
            ratio = Fraction(m.width, m.height)
            low = _ratio(aspect["min"]) if aspect["min"] else None
            high = _ratio(aspect["max"]) if aspect["max"] else None
            if (low is not None and ratio < low) or (high is not None and ratio > high):
                problems.append(
                    f"media {m.media_id} is {m.width}x{m.height}, and {label} takes {_NOUNS[m.kind][1]} {aspect['text']}"
                )
    return problems


def limits(connector: str) -> dict[str, Any]:
    """A JSON-ready description of the platform's limits and how it counts, for agents
    (get_destination_limits): the table's entry plus the post types and, for the default post
    type, the most images and videos a post takes."""
    entry = copy.deepcopy(_platform(connector))
    default = default_post_type(connector)
    layouts = entry["media"][default]["layouts"]
    return {
        "connector": connector,
        "platform": entry.pop("name"),
        "post_types": list(POST_TYPES[connector]),
        "default_post_type": default,
        **entry,
        "max_images": max((lay["max"] for lay in layouts if "image" in lay["kinds"]), default=0),
        "max_videos": max((lay["max"] for lay in layouts if "video" in lay["kinds"]), default=0),
    }
