"""Bluesky's text features: rich-text facets, record keys (TIDs) and link cards (PLATFORMS.md, Bluesky)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin, urlsplit

# The app's own detection: a link or a mention starts at the text's start, after whitespace or
# "("; a tag after whitespace. A handle is a domain name: at least two labels.
_LINK = re.compile(r"(?<![^\s(])https?://\S+")
_TAG = re.compile(r"(?<!\S)#(\w+)")
_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_MENTION = re.compile(rf"(?<![^\s(])@({_LABEL}(?:\.{_LABEL})+)")
_TRAILING = ".,;:!?\"'"
_TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TITLE_CHARS = 300
_DESCRIPTION_CHARS = 1000


def links(text: str) -> list[tuple[int, str]]:
    """(character offset, URI) of each link, without the punctuation that ends a sentence."""
    found = []
    for match in _LINK.finditer(text):
        uri = match.group().rstrip(_TRAILING)
        if uri.endswith(")") and uri.count("(") < uri.count(")"):
            uri = uri[:-1]
        found.append((match.start(), uri))
    return found


def mentioned_handles(text: str) -> list[str]:
    """The distinct handles `@mentioned` in the text, lower-case, in order."""
    return list(dict.fromkeys(match.group(1).lower() for match in _MENTION.finditer(text)))


def text_facets(text: str, dids: Mapping[str, str]) -> list[dict[str, Any]]:
    """Link, mention and tag facets; offsets are UTF-8 byte offsets, end exclusive. A mention
    whose handle has no DID in `dids` stays plain text."""
    facets: list[tuple[int, dict[str, Any]]] = []
    for start, uri in links(text):
        facets.append(_facet(text, start, uri, {"$type": "app.bsky.richtext.facet#link", "uri": uri}))
    for match in _MENTION.finditer(text):
        did = dids.get(match.group(1).lower())
        if did:
            feature = {"$type": "app.bsky.richtext.facet#mention", "did": did}
            facets.append(_facet(text, match.start(), match.group(), feature))
    for match in _TAG.finditer(text):
        tag = match.group(1)
        if tag.isdigit() or len(tag) > 64:
            continue
        facets.append(_facet(text, match.start(), "#" + tag, {"$type": "app.bsky.richtext.facet#tag", "tag": tag}))
    return [facet for _, facet in sorted(facets, key=lambda pair: pair[0])]


def _facet(text: str, start: int, matched: str, feature: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    byte_start = len(text[:start].encode("utf-8"))
    byte_end = byte_start + len(matched.encode("utf-8"))
    return byte_start, {"index": {"byteStart": byte_start, "byteEnd": byte_end}, "features": [feature]}


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
