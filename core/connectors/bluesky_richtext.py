"""Bluesky's text features: rich-text facets, record keys (TIDs) and link cards
(docs/live-publishing.md, "What Bluesky receives")."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from typing import Any, Literal
from urllib.parse import urljoin, urlsplit

import regex

from core.connectors.top_level_domains import TOP_LEVEL_DOMAINS

# Facets are found as the Bluesky app finds them: `detectFacets` of its `@atproto/api` package
# (github.com/bluesky-social/atproto, packages/api/src/rich-text/detection.ts and util.ts), whose
# patterns are JavaScript's. They are written out here so Python reads them the same way:
# JavaScript's `\s` (Unicode spaces and U+FEFF), `\d` (ASCII digits), `\b` (ASCII word
# characters), and case-insensitive only for ASCII letters.
_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
# Characters that end a tag as a space does: soft hyphen, word joiner, zero-width spaces and
# joiners, and the enclosing keycap (so `#` + U+20E3, the keycap emoji, starts no tag).
_INVISIBLE = "\u00ad\u2060\u200a\u200b\u200c\u200d\u20e2"
_WORD = "A-Za-z0-9_"
_WORD_EDGE = rf"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))"
# A mention: `@` at the start, after a space or "(", then a handle's characters up to a word edge.
_MENTION = regex.compile(rf"(?:^|[{_SPACE}]|\()(@)([a-zA-Z0-9.-]+){_WORD_EDGE}")
# A link: `http(s)://` and everything up to a space, or a bare domain name and what follows it,
# at the start of a line, after a space or "(".
_LINK = regex.compile(
    rf"(?:^|[{_SPACE}]|\()((?:[hH][tT][tT][pP][sS]?://[^{_SPACE}]+)"
    rf"|(?P<domain>[a-zA-Z][a-zA-Z0-9]*(?:\.[a-zA-Z0-9]+)+)[^{_SPACE}]*)",
    regex.MULTILINE,
)
# A tag: `#` or the full-width `＃` at the start or after a space, then a run of characters that
# are neither spaces nor invisible, holding one that is not a digit or punctuation; a tag never
# starts with U+FE0F (which makes `#` an emoji).
_TAG = regex.compile(
    rf"(?:^|[{_SPACE}])([#＃])((?!\ufe0f)[^{_SPACE}{_INVISIBLE}]*"
    rf"[^0-9{_SPACE}\p{{P}}{_INVISIBLE}]+[^{_SPACE}{_INVISIBLE}]*)?"
)
_TRAILING_PUNCTUATION = regex.compile(r"\p{P}+$")
# A cashtag: `$` and a ticker of 1-5 ASCII letters and digits starting with a letter, at the
# start or after a space or "(", before a space, the end or closing punctuation.
_CASHTAG = regex.compile(rf"(?:^|[{_SPACE}]|\()\$([A-Za-z][A-Za-z0-9]{{0,4}})(?=[{_SPACE}]|$|[.,;:!?)\"'\u2019])")
_GRAPHEME = regex.compile(r"\X")
MAX_TAG_GRAPHEMES = 64  # app.bsky.richtext.facet#tag: maxGraphemes
_TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TITLE_CHARS = 300
_DESCRIPTION_CHARS = 1000


@dataclass(frozen=True, slots=True)
class Found:
    """A facet the text holds: its kind, its UTF-8 byte range (end exclusive) and its value (the
    handle of a mention, the URI of a link, the tag without its sign)."""

    kind: Literal["mention", "link", "tag"]
    start: int
    end: int
    value: str


def detect_facets(text: str) -> list[Found]:
    """Mentions, links, tags and cashtags as the app detects them, ordered by where they start.

    - Mention: the handle must end in a top-level domain (IANA's list, lower case: the app's
      check is case-sensitive) or in `.test`.
    - Link: one trailing `.,;:!?` is left out, then one `)` when the link has no `(`. A bare
      domain becomes `https://…` when its last label is a top-level domain; a link written
      `HTTPS://…` in capitals is no link (the app checks for a lower-case `http`).
    - Tag: trailing punctuation is left out; a tag longer than 64 graphemes is none.
    - Cashtag: a tag whose value is `$` and the ticker in capitals."""
    found: list[Found] = []
    for match in _MENTION.finditer(text):
        handle = match.group(2)
        if _is_domain(handle) or handle.endswith(".test"):
            found.append(_found(text, "mention", match.start(1), 1 + len(handle), handle))
    for match in _LINK.finditer(text):
        uri = match.group(1)
        length = len(uri)
        if not uri.startswith("http"):
            domain = match.group("domain")
            if not domain or not _is_domain(domain):
                continue
            uri = f"https://{uri}"
        if uri[-1] in ".,;:!?":
            uri, length = uri[:-1], length - 1
        if uri.endswith(")") and "(" not in uri:
            uri, length = uri[:-1], length - 1
        found.append(_found(text, "link", match.start(1), length, uri))
    for match in _TAG.finditer(text):
        tag = _TRAILING_PUNCTUATION.sub("", match.group(2) or "")
        if not tag or (len(tag) > MAX_TAG_GRAPHEMES and len(_GRAPHEME.findall(tag)) > MAX_TAG_GRAPHEMES):
            continue
        found.append(_found(text, "tag", match.start(1), 1 + len(tag), tag))
    for match in _CASHTAG.finditer(text):
        ticker = match.group(1)
        found.append(_found(text, "tag", match.start(1) - 1, 1 + len(ticker), "$" + ticker.upper()))
    return sorted(found, key=lambda facet: facet.start)


def links(text: str) -> list[str]:
    """The URI of each link, in order (a bare domain as `https://…`)."""
    return [facet.value for facet in detect_facets(text) if facet.kind == "link"]


def mentioned_handles(text: str) -> list[str]:
    """The distinct handles `@mentioned` in the text, lower-case, in order."""
    return list(dict.fromkeys(f.value.lower() for f in detect_facets(text) if f.kind == "mention"))


def text_facets(text: str, dids: Mapping[str, str]) -> list[dict[str, Any]]:
    """The record's `facets`: links, tags, and the mentions whose handle has a DID in `dids`
    (one that could not be resolved stays plain text, as the app leaves it)."""
    facets = []
    for facet in detect_facets(text):
        if facet.kind == "mention":
            did = dids.get(facet.value.lower())
            if not did:
                continue
            feature = {"$type": "app.bsky.richtext.facet#mention", "did": did}
        elif facet.kind == "link":
            feature = {"$type": "app.bsky.richtext.facet#link", "uri": facet.value}
        else:
            feature = {"$type": "app.bsky.richtext.facet#tag", "tag": facet.value}
        facets.append({"index": {"byteStart": facet.start, "byteEnd": facet.end}, "features": [feature]})
    return facets


def _found(text: str, kind: Literal["mention", "link", "tag"], start: int, length: int, value: str) -> Found:
    """A facet over the characters [start, start + length) of `text`, in UTF-8 bytes."""
    byte_start = len(text[:start].encode("utf-8"))
    return Found(kind, byte_start, byte_start + len(text[start : start + length].encode("utf-8")), value)


def _is_domain(name: str) -> bool:
    """Whether `name` ends in `.` and a top-level domain."""
    return "." in name and name.rsplit(".", 1)[1] in TOP_LEVEL_DOMAINS


def tid(at: datetime, seed: str) -> str:
    """A record key (atproto TID): 13 base32-sortable characters of (microseconds since the epoch
    << 10 | a 10-bit clock id). The clock id comes from `seed`, so one delivery's key at one time
    is always the same key, and two deliveries at the same microsecond still differ."""
    micros = (at.astimezone(UTC) - _EPOCH) // timedelta(microseconds=1)
    clock_id = int.from_bytes(hashlib.sha256(seed.encode()).digest()[:2], "big") & 0x3FF
    value = ((micros << 10) | clock_id) & ~(1 << 63)
    chars = []
    for _ in range(13):
        chars.append(_TID_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def created_at(at: datetime) -> str:
    """The record's `createdAt`: RFC 3339 in UTC with milliseconds, as the app writes it."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass(frozen=True, slots=True)
class Card:
    """What a link card shows of a page: its Open Graph title, description and image URL."""

    title: str
    description: str
    image: str | None


def page_card(body: bytes, page_url: str, content_type: str | None = None) -> Card | None:
    """The card of an HTML page (og: tags, else <title> and the description meta), or None when
    the page names neither a title nor a description."""
    parser = _HeadParser()
    try:
        parser.feed(body.decode(_charset(content_type), "replace"))
        parser.close()
    except (AssertionError, ValueError):  # HTMLParser's rare complaints about broken markup
        pass
    meta = parser.meta
    title = " ".join((meta.get("og:title") or meta.get("twitter:title") or parser.title).split())
    description = " ".join((meta.get("og:description") or meta.get("description") or "").split())
    if not title and not description:
        return None
    image = meta.get("og:image") or meta.get("og:image:url") or meta.get("twitter:image")
    image_url = urljoin(page_url, image) if image else None
    if image_url and urlsplit(image_url).scheme not in ("http", "https"):
        image_url = None
    return Card(title[:_TITLE_CHARS], description[:_DESCRIPTION_CHARS], image_url)


def _charset(content_type: str | None) -> str:
    match = re.search(r"charset=[\"']?([\w.:-]+)", content_type or "", re.IGNORECASE)
    if match:
        try:
            "".encode(match.group(1))
            return match.group(1)
        except LookupError:
            pass
    return "utf-8"


class _HeadParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "meta":
            values = {name.lower(): value or "" for name, value in attrs}
            key = (values.get("property") or values.get("name") or "").lower()
            if key and values.get("content", "").strip():
                self.meta.setdefault(key, values["content"].strip())
        elif tag == "title":
            self._in_title = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title and len(self.title) < 4 * _TITLE_CHARS:
            self.title += data
