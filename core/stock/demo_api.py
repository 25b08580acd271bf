"""The Pexels and Unsplash APIs as the demo stock provider answers them, in the shapes
of docs/platforms.md, "Pexels (stock_a)" and "Unsplash (stock_b)"."""

from __future__ import annotations

import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode, urlsplit

from core.stock.demo_catalogue import BY_PEXELS_ID, BY_UNSPLASH_ID, CATALOGUE, DemoPhoto

API_FAULTS = ("429", "403-rate-limit", "500", "timeout", "not-json", "malformed", "malformed-element")
# A search always answers at least this many photos, the closest the catalogue has when fewer
# match: a newcomer's first searches ("tea", a whole sentence) must not look broken.
MIN_RESULTS = 3
_PEXELS_PHOTO = re.compile(r"/v1/photos/([^/]+)")
_UNSPLASH_PHOTO = re.compile(r"/unsplash/photos/([^/]+)(/download)?")
_PEXELS_SIZES = {  # Pexels' `src` renditions, as its API answers them
    "large2x": "auto=compress&cs=tinysrgb&dpr=2&h=650&w=940",
    "large": "auto=compress&cs=tinysrgb&h=650&w=940",
    "medium": "auto=compress&cs=tinysrgb&h=350",
    "small": "auto=compress&cs=tinysrgb&h=130",
    "portrait": "auto=compress&cs=tinysrgb&fit=crop&h=1200&w=800",
    "landscape": "auto=compress&cs=tinysrgb&fit=crop&h=627&w=1200",
    "tiny": "auto=compress&cs=tinysrgb&dpr=1&fit=crop&h=200&w=280",
}
_UNSPLASH_SIZES = {  # Unsplash's `urls`, as its API answers them (after `raw`)
    "full": "crop=entropy&cs=srgb&fm=jpg&q=85",
    "regular": "crop=entropy&cs=tinysrgb&fit=max&fm=jpg&q=80&w=1080",
    "small": "crop=entropy&cs=tinysrgb&fit=max&fm=jpg&q=80&w=400",
    "thumb": "crop=entropy&cs=tinysrgb&fit=max&fm=jpg&q=80&w=200",
}
_CREATED = "2024-03-01T12:00:00Z"


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def _json(status: int, body: Any, **headers: str) -> Answer:
    return Answer(status, json.dumps(body).encode(), "application/json", headers)


class DemoAPI:
    """Answers one API request. Auth as the real APIs check it: Pexels wants the key itself in
    `Authorization`, Unsplash `Client-ID <key>`; anything else is 401 in the API's own shape."""

    def __init__(self, *, pexels_key: str, unsplash_key: str) -> None:
        self.pexels_key, self.unsplash_key = pexels_key, unsplash_key
        self._lock = threading.Lock()
        self._pexels_remaining, self._pexels_reset = 20_000, next_month()
        self._unsplash_remaining = 5_000

    def set_pexels_quota(self, remaining: int, reset: int) -> None:
        with self._lock:
            self._pexels_remaining, self._pexels_reset = remaining, reset

    @staticmethod
    def route(path: str) -> tuple[str, str]:
        """(api, endpoint) of a path: pexels or unsplash; search, photo or download."""
        if path in ("/v1/search", "/v1/search/"):  # Pexels' own next_page links have the slash
            return "pexels", "search"
        if _PEXELS_PHOTO.fullmatch(path):
            return "pexels", "photo"
        if path == "/unsplash/search/photos":
            return "unsplash", "search"
        if match := _UNSPLASH_PHOTO.fullmatch(path):
            return "unsplash", "download" if match[2] else "photo"
        return "unknown", "unknown"

    def authorized(self, api: str, authorization: str) -> bool:
        if api == "pexels":
            return authorization == self.pexels_key
        if api == "unsplash":
            return authorization == f"Client-ID {self.unsplash_key}"
        return True

    def answer(
        self,
        api: str,
        endpoint: str,
        path: str,
        query: dict[str, str],
        origin: str,
        *,
        authorized: bool,
        foreign: frozenset[str] = frozenset(),
        fault: str | None = None,
    ) -> Answer:
        """The answer to a request; `fault` (one of API_FAULTS but `timeout`) replaces it."""
        if api == "unknown":
            return _json(404, {"errors": ["Not Found"]})
        if not authorized:
            if api == "pexels":
                return _json(401, {"status": 401, "code": "Unauthorized"})
            return _json(401, {"errors": ["OAuth error: The access token is invalid"]})
        if fault is not None and fault not in ("timeout", "malformed-element"):
            return _fault(api, endpoint, fault)
        urls = _Urls(origin, foreign)
        if api == "pexels":
            answer = self._pexels_search(query, urls) if endpoint == "search" else self._pexels_photo(path, urls)
        elif endpoint == "search":
            answer = self._unsplash_search(query, urls)
        else:
            answer = self._unsplash_photo(path, endpoint, urls)
        if fault == "malformed-element" and answer.status == 200:
            return _broken_first(answer, "photos" if api == "pexels" else "results")
        return answer

    def _pexels_search(self, query: dict[str, str], urls: _Urls) -> Answer:
        words = _words(query.get("query", ""))
        if not query.get("query", "").strip():
            return _json(400, {"status": 400, "code": "query is required"})
        per_page, page = _paging(query, default=15, maximum=80)
        found = _search(words, query.get("orientation"), {"square": "square"})
        shown = found[(page - 1) * per_page : page * per_page]
        body: dict[str, Any] = {
            "page": page,
            "per_page": per_page,
            "photos": [pexels_photo(p, urls) for p in shown],
            "total_results": len(found),
        }
        params = {k: v for k, v in query.items() if k != "page"}
        if page * per_page < len(found):
            body["next_page"] = f"{urls.origin}/v1/search/?{urlencode({**params, 'page': page + 1})}"
        if page > 1:
            body["prev_page"] = f"{urls.origin}/v1/search/?{urlencode({**params, 'page': page - 1})}"
        return _json(200, body, **self._pexels_limits())

    def _pexels_photo(self, path: str, urls: _Urls) -> Answer:
        match = _PEXELS_PHOTO.fullmatch(path)
        photo = BY_PEXELS_ID.get(match[1]) if match else None
        if photo is None:
            return _json(404, {"status": 404, "code": "Not Found"})
        return _json(200, pexels_photo(photo, urls), **self._pexels_limits())

    def _pexels_limits(self) -> dict[str, str]:
        """Pexels' rate-limit headers, which only its 2xx answers carry."""
        with self._lock:
            remaining, self._pexels_remaining = self._pexels_remaining, max(0, self._pexels_remaining - 1)
            reset = self._pexels_reset
        return {"X-Ratelimit-Limit": "20000", "X-Ratelimit-Remaining": str(remaining), "X-Ratelimit-Reset": str(reset)}

    def _unsplash_search(self, query: dict[str, str], urls: _Urls) -> Answer:
        words = _words(query.get("query", ""))
        if not query.get("query", "").strip():
            return _json(400, {"errors": ["query is missing"]})
        per_page, page = _paging(query, default=10, maximum=30)
        found = _search(words, query.get("orientation"), {"squarish": "square"})
        shown = found[(page - 1) * per_page : page * per_page]
        body = {
            "total": len(found),
            "total_pages": math.ceil(len(found) / per_page),
            "results": [unsplash_photo(p, urls) for p in shown],
        }
        return _json(200, body, **self._unsplash_limits())

    def _unsplash_photo(self, path: str, endpoint: str, urls: _Urls) -> Answer:
        match = _UNSPLASH_PHOTO.fullmatch(path)
        photo = BY_UNSPLASH_ID.get(match[1]) if match else None
        if photo is None:
            return _json(404, {"errors": ["Couldn't find Photo"]})
        if endpoint == "download":
            return _json(200, {"url": unsplash_photo(photo, urls)["urls"]["full"]}, **self._unsplash_limits())
        return _json(200, unsplash_photo(photo, urls), **self._unsplash_limits())

    def _unsplash_limits(self) -> dict[str, str]:
        with self._lock:
            self._unsplash_remaining = max(0, self._unsplash_remaining - 1)
            remaining = self._unsplash_remaining
        return {"X-Ratelimit-Limit": "5000", "X-Ratelimit-Remaining": str(remaining)}


class _Urls:
    """Links of the answers: the API's at the origin the client used; a photo's images there
    too, or, for a photo with the `foreign-host` fault, at the same port under another name."""

    def __init__(self, origin: str, foreign: frozenset[str]) -> None:
        self.origin = origin
        parts = urlsplit(origin)
        other = "127.0.0.1" if parts.hostname == "localhost" else "localhost"
        self.foreign_origin = f"http://{other}:{parts.port or 80}"
        self.foreign = foreign

    def images(self, ref: str) -> str:
        return self.foreign_origin if ref in self.foreign else self.origin


def pexels_photo(photo: DemoPhoto, urls: _Urls) -> dict[str, Any]:
    """A photo as Pexels' search and photo endpoints answer it."""
    ref = photo.pexels_id
    original = f"{urls.images(str(ref))}/pexels/photos/{ref}/pexels-photo-{ref}.jpeg"
    slug = "-".join(_words(photo.title))
    return {
        "id": ref,
        "width": photo.width,
        "height": photo.height,
        "url": f"https://www.pexels.com/photo/{slug}-{ref}/",
        "photographer": photo.photographer,
        "photographer_url": f"https://www.pexels.com/@{photo.username.replace('_', '-')}",
        "photographer_id": 100_000 + photo.number,
        "avg_color": photo.color.upper(),
        "src": {"original": original} | {size: f"{original}?{query}" for size, query in _PEXELS_SIZES.items()},
        "liked": False,
        "alt": photo.title,
    }


def unsplash_photo(photo: DemoPhoto, urls: _Urls) -> dict[str, Any]:
    """A photo as Unsplash's search and photo endpoints answer it."""
    ref = photo.unsplash_id
    ixid = f"M3wxMjA3fDB8MXxhbGx8{photo.number:02d}fHx8fHx8fHwxNzA5Mjk0NDAw"
    raw = f"{urls.images(ref)}/unsplash-images/{photo.unsplash_slug}?ixid={ixid}&ixlib=rb-4.1.0"
    api = f"{urls.origin}/unsplash"
    user = {
        "id": f"u{photo.number:03d}{photo.username[:6]}",
        "username": photo.username,
        "name": photo.photographer,
        "first_name": photo.photographer.split()[0],
        "last_name": photo.photographer.split()[-1],
        "links": {
            "self": f"{api}/users/{photo.username}",
            "html": f"https://unsplash.com/@{photo.username}",
            "photos": f"{api}/users/{photo.username}/photos",
        },
    }
    return {
        "id": ref,
        "slug": f"{'-'.join(_words(photo.title))}-{ref}",
        "created_at": _CREATED,
        "updated_at": _CREATED,
        "width": photo.width,
        "height": photo.height,
        "color": photo.color,
        "blur_hash": "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
        "likes": 10 * photo.number,
        "description": None,
        "alt_description": photo.title.lower(),
        "urls": {"raw": raw} | {size: f"{raw}&{query}" for size, query in _UNSPLASH_SIZES.items()},
        "links": {
            "self": f"{api}/photos/{ref}",
            "html": f"https://unsplash.com/photos/{ref}",
            "download": f"https://unsplash.com/photos/{ref}/download?ixid={ixid}",
            "download_location": f"{api}/photos/{ref}/download?ixid={ixid}",
        },
        "user": user,
    }


def _fault(api: str, endpoint: str, kind: str) -> Answer:
    if kind == "429":
        return Answer(429, b"Rate Limit Exceeded", "text/plain")
    if kind == "403-rate-limit":
        return Answer(403, b"Rate Limit Exceeded", "text/plain")
    if kind == "500":
        return Answer(500, b"<html><body><h1>500 Internal Server Error</h1></body></html>", "text/html")
    if kind == "not-json":
        return Answer(200, b"<!DOCTYPE html><html><body>Down for maintenance</body></html>", "text/html")
    if endpoint == "search":  # malformed: the envelope lacks its list
        return _json(200, {"page": 1, "photos": "none"} if api == "pexels" else {"total": 1, "results": None})
    return _json(200, {"id": 0, "width": "wide"})


def _broken_first(answer: Answer, key: str) -> Answer:
    """The answer with its first photo lacking its sizes and image links."""
    body = json.loads(answer.body)
    if isinstance(body, dict) and body.get(key):
        body[key][0] = {"id": body[key][0]["id"], "width": "wide"}
    elif isinstance(body, dict):
        body = {"id": body.get("id"), "width": "wide"}
    return _json(answer.status, body, **answer.headers)


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def _paging(query: dict[str, str], *, default: int, maximum: int) -> tuple[int, int]:
    def number(name: str, fallback: int) -> int:
        value = query.get(name, "")
        return int(value) if value.isdigit() else fallback

    return min(max(number("per_page", default), 1), maximum), max(number("page", 1), 1)


def _search(words: list[str], orientation: str | None, aliases: dict[str, str]) -> list[DemoPhoto]:
    """The photos of the orientation matching the most words first; when fewer than
    MIN_RESULTS match, the closest others after them (DemoPhoto.closeness), up to MIN_RESULTS."""
    wanted = aliases.get(orientation or "", orientation)
    shown = [p for p in CATALOGUE if wanted in (None, "", p.orientation)]
    matched = sorted((p for p in shown if p.score(words) > 0), key=lambda p: (-p.score(words), p.number))
    if len(matched) >= MIN_RESULTS:
        return matched
    related = frozenset(tag for p in CATALOGUE if p.score(words) > 0 for tag in p.tags)
    others = [p for p in shown if p not in matched]
    others.sort(key=lambda p: (*(-c for c in p.closeness(words, related)), p.number))
    return matched + others[: MIN_RESULTS - len(matched)]


def next_month(now: float | None = None) -> int:
    """The UNIX time of the next month's start (UTC): Pexels' monthly quota reset."""
    today = datetime.fromtimestamp(time.time() if now is None else now, UTC)
    year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
    return int(datetime(year, month, 1, tzinfo=UTC).timestamp())
