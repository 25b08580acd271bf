"""The stock provider clients (core/stock/providers) against the demo provider over HTTP: search
mapped from both APIs, renditions sized and cropped and never enlarged, Unsplash's download
tracking, and every failure mapped to its code with the key never in a message."""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import AsyncIterator, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from PIL import Image

from core.stock.demo import DEMO_PEXELS_KEY, DEMO_UNSPLASH_KEY, DemoStockServer
from core.stock.demo_catalogue import BY_PEXELS_ID, BY_UNSPLASH_ID, CATALOGUE
from core.stock.providers import PexelsProvider, StockProvider, StockProviderError, UnsplashProvider
from core.stock.providers.base import fitted_box, with_params

pytestmark = [pytest.mark.one_backend, pytest.mark.usefixtures("no_faults_left")]
APP = "Herald Test"
SECRET = "sk-very-secret-value-0123456789"


@pytest.fixture
async def pexels(demo: DemoStockServer) -> AsyncIterator[PexelsProvider]:
    provider = PexelsProvider(DEMO_PEXELS_KEY, base_url=demo.pexels_base_url, image_hosts=demo.image_hosts, timeout=1)
    yield provider
    await provider.aclose()


@pytest.fixture
async def unsplash(demo: DemoStockServer) -> AsyncIterator[UnsplashProvider]:
    provider = UnsplashProvider(
        DEMO_UNSPLASH_KEY, app_name=APP, base_url=demo.unsplash_base_url, image_hosts=demo.image_hosts, timeout=1
    )
    yield provider
    await provider.aclose()


def last(demo: DemoStockServer, endpoint: str) -> Any:
    return next(r for r in reversed(demo.requests) if r.endpoint == endpoint)


async def fetch_size(url: str) -> tuple[int, int]:
    async with httpx2.AsyncClient(timeout=30) as client:
        response = await client.get(url)
    assert response.status_code == 200
    return Image.open(io.BytesIO(response.content)).size


def on_image_host(provider: StockProvider, url: str) -> bool:
    return urlsplit(url).netloc in provider.image_hosts


# --- search ------------------------------------------------------------------------------------


async def test_pexels_search_maps_every_field_and_needs_no_attribution(demo, pexels) -> None:
    photos = await pexels.search("coffee", count=10, orientation=None)
    assert len(photos) == 3
    for photo in photos:
        original = BY_PEXELS_ID[photo.source_ref]
        assert (photo.provider, photo.mime_type, photo.attribution) == ("stock_a", "image/jpeg", None)
        assert (photo.width, photo.height, photo.alt_text) == (original.width, original.height, original.title)
        assert on_image_host(pexels, photo.preview_url) and "h=350" in photo.preview_url
    request = last(demo, "search")
    assert (request.api, request.authorized, request.query["per_page"]) == ("pexels", True, "10")


async def test_unsplash_search_carries_attribution_with_referral_links(demo, unsplash) -> None:
    photos = await unsplash.search("mountain", count=10, orientation=None)
    assert len(photos) == 3
    for photo in photos:
        original = BY_UNSPLASH_ID[photo.source_ref]
        assert (photo.provider, photo.mime_type) == ("stock_b", "image/jpeg")
        assert (photo.width, photo.height, photo.alt_text) == (original.width, original.height, original.title.lower())
        assert on_image_host(unsplash, photo.preview_url) and "w=400" in photo.preview_url
        credit = photo.attribution
        assert credit is not None and (credit.photographer, credit.source) == (original.photographer, "Unsplash")
        for url, path in ((credit.photographer_url, f"/@{original.username}"), (credit.source_url, "/")):
            parts = urlsplit(url)
            assert (parts.scheme, parts.netloc, parts.path) == ("https", "unsplash.com", path)
            assert parse_qs(parts.query) == {"utm_source": [APP], "utm_medium": ["referral"]}
    request = last(demo, "search")
    assert (request.api, request.authorized, request.accept_version) == ("unsplash", True, "v1")


async def test_count_is_passed_as_per_page_within_each_apis_limit(demo, pexels, unsplash) -> None:
    assert len(await pexels.search("city", count=2, orientation=None)) == 2
    assert len(await unsplash.search("city", count=2, orientation=None)) == 2
    await pexels.search("city", count=500, orientation=None)
    assert last(demo, "search").query["per_page"] == "80"
    await unsplash.search("city", count=500, orientation=None)
    assert last(demo, "search").query["per_page"] == "30"
    await unsplash.search("city", count=0, orientation=None)
    assert last(demo, "search").query["per_page"] == "1"


@pytest.mark.parametrize(
    ("orientation", "pexels_value", "unsplash_value", "fits"),
    [
        ("landscape", "landscape", "landscape", lambda w, h: w > h),
        ("portrait", "portrait", "portrait", lambda w, h: h > w),
        ("square", "square", "squarish", lambda w, h: 0.9 <= w / h <= 1.1),
    ],
)
async def test_orientation_is_each_apis_own_value(
    demo,
    pexels,
    unsplash,
    orientation: str,
    pexels_value: str,
    unsplash_value: str,
    fits: Callable[[int, int], bool],
) -> None:
    for provider, value in ((pexels, pexels_value), (unsplash, unsplash_value)):
        photos = await provider.search("office city coffee nature", count=30, orientation=orientation)
        assert photos and all(fits(p.width, p.height) for p in photos)
        assert last(demo, "search").query["orientation"] == value
    with pytest.raises(ValueError):
        await pexels.search("city", count=3, orientation="wide")


async def test_a_malformed_photo_is_skipped_not_fatal(demo, pexels, unsplash) -> None:
    demo.fail_next("pexels", "malformed-element")
    demo.fail_next("unsplash", "malformed-element")
    assert len(await pexels.search("coffee", count=10, orientation=None)) == 2
    assert len(await unsplash.search("coffee", count=10, orientation=None)) == 2


# --- renditions --------------------------------------------------------------------------------


async def test_pexels_rendition_is_cropped_to_the_box_on_its_image_cdn(pexels) -> None:
    photo = CATALOGUE[0]  # 6000x4000
    rendition = await pexels.rendition(str(photo.pexels_id), width=1080, height=1350)
    parts = urlsplit(rendition.url)
    assert on_image_host(pexels, rendition.url)
    assert parts.path == f"/pexels/photos/{photo.pexels_id}/pexels-photo-{photo.pexels_id}.jpeg"
    assert parse_qs(parts.query) == {
        "auto": ["compress"],
        "cs": ["tinysrgb"],
        "fit": ["crop"],
        "w": ["1080"],
        "h": ["1350"],
    }
    assert (rendition.width, rendition.height, rendition.photo.source_ref) == (1080, 1350, str(photo.pexels_id))
    assert await fetch_size(rendition.url) == (1080, 1350)


async def test_unsplash_rendition_keeps_ixid_and_asks_for_an_entropy_crop(unsplash) -> None:
    photo = CATALOGUE[3]  # 6000x4000
    [found] = [
        p for p in await unsplash.search("snowy peak", count=5, orientation=None) if p.source_ref == photo.unsplash_id
    ]
    rendition = await unsplash.rendition(photo.unsplash_id, width=1200, height=628)
    query = parse_qs(urlsplit(rendition.url).query)
    assert query.pop("ixid") == parse_qs(urlsplit(found.preview_url).query)["ixid"]
    assert query == {
        "ixlib": ["rb-4.1.0"], "w": ["1200"], "h": ["628"], "fit": ["crop"], "crop": ["entropy"], "fm": ["jpg"], "q": ["85"]
    }  # fmt: skip
    assert on_image_host(unsplash, rendition.url) and rendition.photo.attribution is not None
    assert await fetch_size(rendition.url) == (1200, 628)


async def test_a_rendition_never_asks_for_more_pixels_than_the_original(pexels, unsplash) -> None:
    small = CATALOGUE[23]  # 800x533
    rendition = await pexels.rendition(str(small.pexels_id), width=1080, height=1080)
    assert (rendition.width, rendition.height) == (533, 533)
    assert await fetch_size(rendition.url) == (533, 533)
    tall = CATALOGUE[21]  # 1080x1920
    rendition = await unsplash.rendition(tall.unsplash_id, width=2160, height=3840)
    assert (rendition.width, rendition.height) == (1080, 1920)
    wide = CATALOGUE[20]  # 7000x3000: a 9:16 box fits by its height
    rendition = await unsplash.rendition(wide.unsplash_id, width=2160, height=3840)
    assert (rendition.width, rendition.height) == (1687, 3000)
    assert await fetch_size(rendition.url) == (1687, 3000)


# --- download tracking -------------------------------------------------------------------------


async def test_unsplash_download_is_tracked_once_per_call_with_auth_and_ixid(demo, unsplash) -> None:
    ref = CATALOGUE[4].unsplash_id
    before = demo.download_count(ref)
    await unsplash.rendition(ref, width=1080, height=1080)
    assert demo.download_count(ref) == before  # looking up is not using
    await unsplash.track_download(ref)
    assert demo.download_count(ref) == before + 1
    request = last(demo, "download")
    assert (request.authorized, request.accept_version, request.status) == (True, "v1", 200)
    assert request.query["ixid"]
    await unsplash.track_download(ref)
    assert demo.download_count(ref) == before + 2


async def test_tracking_a_photo_not_seen_yet_looks_it_up_first(demo) -> None:
    provider = UnsplashProvider(DEMO_UNSPLASH_KEY, app_name=APP, base_url=demo.unsplash_base_url)
    ref = CATALOGUE[5].unsplash_id
    before, lookups = demo.download_count(ref), len([r for r in demo.requests if r.endpoint == "photo"])
    try:
        await provider.track_download(ref)
    finally:
        await provider.aclose()
    assert demo.download_count(ref) == before + 1
    assert len([r for r in demo.requests if r.endpoint == "photo"]) == lookups + 1


async def test_pexels_has_no_download_tracking(demo, pexels) -> None:
    seen = len(demo.requests)
    await pexels.track_download(str(CATALOGUE[0].pexels_id))
    assert len(demo.requests) == seen


# --- failures ----------------------------------------------------------------------------------

FAILURES = [
    ("pexels", "429", "RATE_LIMITED"),
    ("unsplash", "429", "RATE_LIMITED"),
    ("unsplash", "403-rate-limit", "RATE_LIMITED"),
    ("pexels", "403-rate-limit", "PROVIDER_ERROR"),  # Pexels answers no such 403: a refused key
    ("pexels", "500", "PROVIDER_ERROR"),
    ("unsplash", "500", "PROVIDER_ERROR"),
    ("pexels", "timeout", "PROVIDER_ERROR"),
    ("unsplash", "timeout", "PROVIDER_ERROR"),
    ("pexels", "not-json", "PROVIDER_ERROR"),
    ("unsplash", "not-json", "PROVIDER_ERROR"),
    ("pexels", "malformed", "PROVIDER_ERROR"),
    ("unsplash", "malformed", "PROVIDER_ERROR"),
]


@pytest.mark.parametrize(("api", "kind", "code"), FAILURES)
@pytest.mark.parametrize("call", ["search", "rendition"])
async def test_every_failure_maps_to_its_code(
    demo, pexels, unsplash, api: str, kind: str, code: str, call: str
) -> None:
    provider = pexels if api == "pexels" else unsplash
    ref = str(CATALOGUE[6].pexels_id) if api == "pexels" else CATALOGUE[6].unsplash_id
    demo.fail_next(api, kind, endpoint="search" if call == "search" else "photo", seconds=3)  # type: ignore[arg-type]
    with pytest.raises(StockProviderError) as caught:
        if call == "search":
            await provider.search("office", count=5, orientation=None)
        else:
            await provider.rendition(ref, width=1080, height=1080)
    assert caught.value.code == code
    assert (caught.value.retry_after is not None) == (code == "RATE_LIMITED")
    assert DEMO_PEXELS_KEY not in str(caught.value) and DEMO_UNSPLASH_KEY not in str(caught.value)
    # The failure was one answer: the next call is answered.
    assert await provider.search("office", count=5, orientation=None)


async def test_download_tracking_failures_are_mapped_too(demo, unsplash) -> None:
    ref = CATALOGUE[7].unsplash_id
    await unsplash.rendition(ref, width=100, height=100)
    demo.fail_next("unsplash", "403-rate-limit", endpoint="download")
    with pytest.raises(StockProviderError) as caught:
        await unsplash.track_download(ref)
    assert caught.value.code == "RATE_LIMITED"
    demo.fail_next("unsplash", "500", endpoint="download")
    with pytest.raises(StockProviderError) as caught:
        await unsplash.track_download(ref)
    assert caught.value.code == "PROVIDER_ERROR"


async def test_an_unknown_photo_is_not_found(demo, pexels, unsplash) -> None:
    for provider, ref in ((pexels, "999"), (unsplash, "Nope12345")):
        with pytest.raises(StockProviderError) as caught:
            await provider.rendition(ref, width=100, height=100)
        assert caught.value.code == "NOT_FOUND"
    with pytest.raises(StockProviderError) as caught:
        await unsplash.track_download("Nope12345")
    assert caught.value.code == "NOT_FOUND"
    seen = len(demo.requests)
    for provider, ref in ((pexels, "../v1/search"), (pexels, "12a"), (unsplash, "a/b"), (unsplash, "")):
        with pytest.raises(StockProviderError) as caught:
            await provider.rendition(ref, width=100, height=100)
        assert caught.value.code == "NOT_FOUND"
    assert len(demo.requests) == seen  # an id that cannot be one is never sent


async def test_a_refused_key_is_a_provider_error_that_does_not_name_the_key(demo) -> None:
    providers = [
        PexelsProvider(SECRET, base_url=demo.pexels_base_url),
        UnsplashProvider(SECRET, app_name=APP, base_url=demo.unsplash_base_url),
    ]
    for provider in providers:
        for call in (provider.search("coffee", count=3, orientation=None), provider.rendition("1", width=9, height=9)):
            with pytest.raises(StockProviderError) as caught:
                await call
            assert caught.value.code == "PROVIDER_ERROR"
            assert SECRET not in str(caught.value) and SECRET not in repr(caught.value)
        await provider.aclose()
    assert not [r for r in demo.requests[-4:] if r.authorized]


async def test_pexels_retry_hint_comes_from_the_reset_seen_on_earlier_answers(demo) -> None:
    provider = PexelsProvider(DEMO_PEXELS_KEY, base_url=demo.pexels_base_url)
    try:
        demo.fail_next("pexels", "429")
        with pytest.raises(StockProviderError) as caught:
            await provider.search("coffee", count=3, orientation=None)
        assert 0 < caught.value.retry_after <= 3600  # nothing seen yet: the next hour
        # The month's quota spent: retry at its reset.
        demo.set_pexels_quota(remaining=0, reset=int(time.time()) + 7200)
        await provider.search("coffee", count=3, orientation=None)
        demo.fail_next("pexels", "429")
        with pytest.raises(StockProviderError) as caught:
            await provider.search("coffee", count=3, orientation=None)
        assert 7190 <= caught.value.retry_after <= 7200
        # Quota left: the hourly limit was hit, retry by the next hour (or the reset if sooner).
        demo.set_pexels_quota(remaining=500, reset=int(time.time()) + 30 * 86400)
        await provider.search("coffee", count=3, orientation=None)
        demo.fail_next("pexels", "429")
        with pytest.raises(StockProviderError) as caught:
            await provider.search("coffee", count=3, orientation=None)
        assert 0 < caught.value.retry_after <= 3600
    finally:
        demo.set_pexels_quota(remaining=20_000, reset=int(time.time()) + 30 * 86400)
        await provider.aclose()


async def test_unsplash_retry_hint_is_the_next_hour(demo, unsplash) -> None:
    demo.fail_next("unsplash", "403-rate-limit")
    with pytest.raises(StockProviderError) as caught:
        await unsplash.search("coffee", count=3, orientation=None)
    assert caught.value.code == "RATE_LIMITED" and 0 < caught.value.retry_after <= 3600


# --- against a scripted server: what the demo never answers ----------------------------------


class Scripted:
    """A loopback server answering `routes[path]` = (status, body) and recording each request."""

    def __init__(self, routes: dict[str, tuple[int, Any]]) -> None:
        self.routes = routes
        self.seen: list[tuple[str, dict[str, str]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                status, body = server.routes.get(self.path.split("?")[0], (404, {"errors": ["Not Found"]}))
                payload = body(self) if callable(body) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


async def test_a_key_the_provider_echoes_back_is_blanked_out() -> None:
    echoed = lambda handler: json.dumps({"errors": [f"bad key {handler.headers['Authorization']}"]}).encode()  # noqa: E731
    echo = Scripted({"/v1/search": (500, echoed)})
    provider = PexelsProvider(SECRET, base_url=echo.base)
    try:
        with pytest.raises(StockProviderError) as caught:
            await provider.search("coffee", count=3, orientation=None)
    finally:
        await provider.aclose()
        echo.close()
    assert caught.value.code == "PROVIDER_ERROR" and "***" in str(caught.value)
    assert SECRET not in str(caught.value)


async def test_the_key_goes_to_no_download_location_off_the_api() -> None:
    elsewhere = Scripted({})
    photo = {
        "id": "abc123", "width": 100, "height": 100,
        "urls": {"raw": "https://images.unsplash.com/photo-1?ixid=x", "small": "https://images.unsplash.com/photo-1?w=400"},
        "user": {"name": "A B", "username": "ab"},
        "links": {"download_location": f"{elsewhere.base}/photos/abc123/download?ixid=x"},
    }  # fmt: skip
    api = Scripted({"/photos/abc123": (200, photo)})
    provider = UnsplashProvider(SECRET, app_name=APP, base_url=api.base)
    try:
        with pytest.raises(StockProviderError) as caught:
            await provider.track_download("abc123")
    finally:
        await provider.aclose()
        api.close()
        elsewhere.close()
    assert caught.value.code == "PROVIDER_ERROR"
    assert elsewhere.seen == []


async def test_no_connection_is_a_provider_error() -> None:
    closed = Scripted({})
    closed.close()
    provider = UnsplashProvider(SECRET, app_name=APP, base_url=closed.base)
    try:
        with pytest.raises(StockProviderError) as caught:
            await provider.search("coffee", count=3, orientation=None)
    finally:
        await provider.aclose()
    assert caught.value.code == "PROVIDER_ERROR" and SECRET not in str(caught.value)


def test_rendition_parameters_keep_what_the_url_has_as_it_is_written() -> None:
    url = "https://images.unsplash.com/photo-1?ixid=M3w%2Fx&ixlib=rb-4.1.0&w=5&fit=max"
    assert with_params(url, {"w": "10", "h": "20", "fit": "crop"}) == (
        "https://images.unsplash.com/photo-1?ixid=M3w%2Fx&ixlib=rb-4.1.0&w=10&fit=crop&h=20"
    )
    assert fitted_box(1080, 1350, (800, 533)) == (426, 533)
    assert fitted_box(1080, 1080, None) == (1080, 1080)
