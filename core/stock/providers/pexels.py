"""Pexels (`stock_a`): search, photo lookup, and renditions on its image CDN
(docs/platforms.md, "Pexels (stock_a)")."""

from __future__ import annotations

import re
import time
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx2

from core.stock.providers.base import (
    JSONProvider,
    ProviderKey,
    Rendition,
    StockPhoto,
    api_orientation,
    fitted_box,
    next_hour,
    non_empty_str,
    per_page,
    positive_int,
    with_params,
)

BASE_URL = "https://api.pexels.com"
IMAGE_HOSTS = frozenset({"images.pexels.com"})
MAX_PER_PAGE = 80
_ORIENTATION = {"landscape": "landscape", "portrait": "portrait", "square": "square"}
# The picker's preview: `medium` is 350 px high; the smaller ones if a photo lacks it.
_PREVIEW_SIZES = ("medium", "small", "tiny", "large")
_MIME_BY_EXTENSION = {".jpeg": "image/jpeg", ".jpg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}


class PexelsProvider(JSONProvider):
    """Pexels with the operator's API key (`Authorization: <key>`, no "Bearer"). No credit is
    required (attribution None) and there is no download tracking.

    Renditions are `src.original` with the CDN parameters Pexels' own `src` sizes use
    (`auto=compress&cs=tinysrgb&fit=crop&w=&h=`), scaled down to fit the original. Rate limit:
    Pexels sends `X-Ratelimit-Remaining/-Reset` (the monthly quota) only on 2xx answers and a
    bare 429 over a limit, so the last values seen say when to retry: at the monthly reset when
    the month's quota was spent, else at the next hour (the 200/h limit) or the reset if sooner.
    """

    key: ClassVar[ProviderKey] = "stock_a"
    name: ClassVar[str] = "Pexels"
    ref_pattern: ClassVar[re.Pattern[str]] = re.compile(r"[0-9]{1,20}")

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = BASE_URL,
        image_hosts: frozenset[str] = IMAGE_HOSTS,
        timeout: float = 10.0,
        client: httpx2.AsyncClient | None = None,
    ) -> None:
        super().__init__(
            base_url=base_url,
            headers={"Authorization": api_key},
            secret=api_key,
            image_hosts=image_hosts,
            timeout=timeout,
            client=client,
        )
        self._reset_at: float | None = None
        self._remaining: int | None = None

    async def search(self, query: str, *, count: int, orientation: str | None) -> list[StockPhoto]:
        size = per_page(count, MAX_PER_PAGE)
        params = {"query": query, "per_page": str(size)}
        if value := api_orientation(orientation, _ORIENTATION):
            params["orientation"] = value
        body = await self.get_json(f"{self.base_url}/v1/search", params, what="GET /v1/search")
        photos = body.get("photos") if isinstance(body, dict) else None
        if not isinstance(photos, list):
            raise self.error("PROVIDER_ERROR", "Pexels answered GET /v1/search without a `photos` list")
        parsed = (_photo(item) for item in photos)
        return [photo for photo, _ in filter(None, parsed)][:size]

    async def rendition(self, source_ref: str, *, width: int, height: int) -> Rendition:
        ref = self.check_ref(source_ref)
        what = f"GET /v1/photos/{ref}"
        parsed = _photo(await self.get_json(f"{self.base_url}/v1/photos/{ref}", what=what, photo=True))
        if parsed is None:
            raise self.error("PROVIDER_ERROR", f"Pexels answered {what} without the documented photo fields")
        photo, original = parsed
        w, h = fitted_box(width, height, (photo.width, photo.height))
        params = {"auto": "compress", "cs": "tinysrgb", "fit": "crop", "w": str(w), "h": str(h)}
        return Rendition(photo, with_params(original, params), w, h)

    async def track_download(self, source_ref: str) -> None:
        """Pexels asks for no download tracking."""

    def observe(self, headers: httpx2.Headers) -> None:
        reset, remaining = headers.get("x-ratelimit-reset", ""), headers.get("x-ratelimit-remaining", "")
        if reset.isdigit():
            self._reset_at = float(reset)
        if remaining.isdigit():
            self._remaining = int(remaining)

    def retry_after(self, response: httpx2.Response) -> float:
        header = response.headers.get("retry-after", "")
        if header.isdigit():
            return float(header)
        until_reset = None if self._reset_at is None else self._reset_at - time.time()
        if until_reset is None or until_reset <= 0:
            return next_hour()
        if self._remaining is not None and self._remaining > 0:
            return min(until_reset, next_hour())  # the month's quota is not spent: the hourly limit
        return until_reset


def _photo(item: Any) -> tuple[StockPhoto, str] | None:
    """A search result or photo lookup as (StockPhoto, src.original); None when malformed."""
    if not isinstance(item, dict):
        return None
    ref = item.get("id")
    if isinstance(ref, str) and PexelsProvider.ref_pattern.fullmatch(ref):
        ref = int(ref)
    src = item.get("src")
    width, height = positive_int(item.get("width")), positive_int(item.get("height"))
    if positive_int(ref) is None or width is None or height is None or not isinstance(src, dict):
        return None
    original = non_empty_str(src.get("original"))
    preview = next((url for size in _PREVIEW_SIZES if (url := non_empty_str(src.get(size)))), None)
    if original is None or preview is None:
        return None
    alt = item.get("alt")
    suffix = urlsplit(original).path.rsplit(".", 1)[-1].lower()
    photo = StockPhoto(
        source_ref=str(ref),
        provider="stock_a",
        preview_url=preview,
        mime_type=_MIME_BY_EXTENSION.get(f".{suffix}", "image/jpeg"),
        width=width,
        height=height,
        alt_text=alt.strip() if isinstance(alt, str) else "",
        attribution=None,
    )
    return photo, original
