"""Unsplash (`stock_b`): search, photo lookup, download tracking, `urls.raw` renditions
(docs/platforms.md, "Unsplash (stock_b)")."""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any, ClassVar
from urllib.parse import SplitResult, quote, urlencode, urlsplit

import httpx2

from core.stock.providers.base import (
    Attribution,
    JSONProvider,
    ProviderKey,
    Rendition,
    StockPhoto,
    api_orientation,
    fitted_box,
    non_empty_str,
    per_page,
    positive_int,
    with_params,
)

BASE_URL = "https://api.unsplash.com"
IMAGE_HOSTS = frozenset({"images.unsplash.com", "plus.unsplash.com"})
MAX_PER_PAGE = 30
_ORIENTATION = {"landscape": "landscape", "portrait": "portrait", "square": "squarish"}
# The picker's preview: `small` is 400 px wide; `thumb` (200) or `regular` if a photo lacks it.
_PREVIEW_SIZES = ("small", "thumb", "regular")
# How many photos' download_location are remembered between lookup and tracking.
_REMEMBERED = 1024


class UnsplashProvider(JSONProvider):
    """Unsplash with the operator's access key (`Authorization: Client-ID <key>`,
    `Accept-Version: v1`). Its rules (help.unsplash.com/articles/2511245): hotlink the `urls`,
    credit the photographer and Unsplash with referral links (`attribution`, with `utm_source` the
    operator's registered `app_name`), and GET `links.download_location` with auth when a photo
    is used (`track_download`; only ever on the API's own host, so the key goes nowhere else).

    Renditions are `urls.raw` (its `ixid`/`ixlib` kept) with the documented resize parameters
    `w,h,fit=crop,crop=entropy,fm=jpg,q=85`, scaled down to fit the original. Over the rate
    limit Unsplash answers 403 "Rate Limit Exceeded" (or 429); the limit is hourly, so the retry
    hint is the next full hour unless the answer has a Retry-After.
    """

    key: ClassVar[ProviderKey] = "stock_b"
    name: ClassVar[str] = "Unsplash"
    ref_pattern: ClassVar[re.Pattern[str]] = re.compile(r"[A-Za-z0-9_-]{1,64}")

    def __init__(
        self,
        access_key: str,
        *,
        app_name: str,
        base_url: str = BASE_URL,
        image_hosts: frozenset[str] = IMAGE_HOSTS,
        timeout: float = 10.0,
        client: httpx2.AsyncClient | None = None,
    ) -> None:
        if not app_name.strip():
            raise ValueError("Unsplash needs the app's name for its referral links (utm_source)")
        super().__init__(
            base_url=base_url,
            headers={"Authorization": f"Client-ID {access_key}", "Accept-Version": "v1"},
            secret=access_key,
            image_hosts=image_hosts,
            timeout=timeout,
            client=client,
        )
        self.app_name = app_name.strip()
        self._referral = urlencode({"utm_source": self.app_name, "utm_medium": "referral"})
        self._download_locations: OrderedDict[str, str] = OrderedDict()

    async def search(self, query: str, *, count: int, orientation: str | None) -> list[StockPhoto]:
        size = per_page(count, MAX_PER_PAGE)
        params = {"query": query, "per_page": str(size)}
        if value := api_orientation(orientation, _ORIENTATION):
            params["orientation"] = value
        body = await self.get_json(f"{self.base_url}/search/photos", params, what="GET /search/photos")
        results = body.get("results") if isinstance(body, dict) else None
        if not isinstance(results, list):
            raise self.error("PROVIDER_ERROR", "Unsplash answered GET /search/photos without a `results` list")
        photos = []
        for item in results:
            if parsed := self._photo(item):
                photos.append(parsed[0])
        return photos[:size]

    async def rendition(self, source_ref: str, *, width: int, height: int) -> Rendition:
        photo, raw = await self._look_up(source_ref)
        w, h = fitted_box(width, height, (photo.width, photo.height))
        params = {"w": str(w), "h": str(h), "fit": "crop", "crop": "entropy", "fm": "jpg", "q": "85"}
        return Rendition(photo, with_params(raw, params), w, h)

    async def track_download(self, source_ref: str) -> None:
        """One authenticated GET of the photo's `links.download_location`, every query parameter
        kept (looked up first unless a search or rendition just saw it)."""
        ref = self.check_ref(source_ref)
        location = self._download_locations.get(ref)
        if location is None:
            await self._look_up(ref)
            location = self._download_locations.get(ref)
        if location is None:
            raise self.error("PROVIDER_ERROR", f"Unsplash answered GET /photos/{ref} without links.download_location")
        if not self._on_api(location):
            raise self.error("PROVIDER_ERROR", "Unsplash's links.download_location is not on its API host")
        await self.get(location, what=f"GET /photos/{ref}/download", photo=True)

    def rate_limited(self, status: int, text: str) -> bool:
        return status == 429 or (status == 403 and "rate limit exceeded" in text.lower())

    async def _look_up(self, source_ref: str) -> tuple[StockPhoto, str]:
        ref = self.check_ref(source_ref)
        what = f"GET /photos/{ref}"
        parsed = self._photo(await self.get_json(f"{self.base_url}/photos/{ref}", what=what, photo=True))
        if parsed is None:
            raise self.error("PROVIDER_ERROR", f"Unsplash answered {what} without the documented photo fields")
        return parsed

    def _photo(self, item: Any) -> tuple[StockPhoto, str] | None:
        """A result or photo as (StockPhoto, urls.raw), its download_location remembered; None
        when malformed (a photo without its photographer cannot be credited, so it is too)."""
        if not isinstance(item, dict):
            return None
        ref, urls, user = item.get("id"), item.get("urls"), item.get("user")
        width, height = positive_int(item.get("width")), positive_int(item.get("height"))
        if not isinstance(ref, str) or not self.ref_pattern.fullmatch(ref) or width is None or height is None:
            return None
        if not isinstance(urls, dict) or not isinstance(user, dict):
            return None
        raw = non_empty_str(urls.get("raw"))
        preview = next((url for size in _PREVIEW_SIZES if (url := non_empty_str(urls.get(size)))), None)
        name, username = non_empty_str(user.get("name")), non_empty_str(user.get("username"))
        if raw is None or preview is None or name is None or username is None:
            return None
        links = item.get("links")
        location = non_empty_str(links.get("download_location")) if isinstance(links, dict) else None
        if location is not None:
            self._remember(ref, location)
        alt = non_empty_str(item.get("alt_description")) or non_empty_str(item.get("description")) or ""
        attribution = Attribution(
            photographer=name.strip(),
            photographer_url=f"https://unsplash.com/@{quote(username.strip(), safe='')}?{self._referral}",
            source="Unsplash",
            source_url=f"https://unsplash.com/?{self._referral}",
        )
        photo = StockPhoto(ref, "stock_b", preview, "image/jpeg", width, height, alt.strip(), attribution)
        return photo, raw

    def _remember(self, ref: str, location: str) -> None:
        self._download_locations[ref] = location
        self._download_locations.move_to_end(ref)
        while len(self._download_locations) > _REMEMBERED:
            self._download_locations.popitem(last=False)

    def _on_api(self, url: str) -> bool:
        """Whether `url` is under the configured API base URL (scheme, host, port and path)."""
        try:
            target, base = urlsplit(url), urlsplit(self.base_url)
            same_origin = (target.scheme, target.hostname, _port(target)) == (base.scheme, base.hostname, _port(base))
        except ValueError:
            return False
        return same_origin and (target.path + "/").startswith(base.path.rstrip("/") + "/")


def _port(url: SplitResult) -> int | None:
    return url.port or {"https": 443, "http": 80}.get(url.scheme)
