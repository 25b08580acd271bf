"""The stock providers of this deployment, from settings (docs/stock.md): the operator's keys,
else the local demo provider while `stock_demo` is on, else none (STOCK_NOT_CONFIGURED); and the
stock service they make up."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

import httpx2

from core.settings import CoreSettings
from core.stock.demo import DEMO_PEXELS_KEY, DEMO_UNSPLASH_KEY
from core.stock.providers import PexelsProvider, StockProvider, UnsplashProvider
from core.stock.service import StockService
from core.storage.base import ObjectStorage

PEXELS_API = "https://api.pexels.com"
UNSPLASH_API = "https://api.unsplash.com"


def _reachable(listen: str) -> str:
    host, _, port = listen.rpartition(":")
    return f"{'127.0.0.1' if host in ('', '0.0.0.0', '::', '[::]') else host}:{port}"


def _hosts(base_url: str, default_api: str, real: frozenset[str]) -> frozenset[str]:
    """The provider's own image hosts, plus the host of a base URL the operator pointed it at
    (a proxy, the demo): its images come from there."""
    if base_url.rstrip("/") == default_api:
        return real
    return real | {urlsplit(base_url).netloc}


def providers_from(settings: CoreSettings) -> dict[str, StockProvider | None]:
    demo = _reachable(settings.stock_demo_listen) if settings.stock_demo else None
    found: dict[str, StockProvider | None] = {"stock_a": None, "stock_b": None}
    timeout = settings.stock_timeout_seconds
    if key := settings.stock_a_api_key.get_secret_value():
        base = settings.stock_a_base_url
        found["stock_a"] = PexelsProvider(
            key, base_url=base, image_hosts=_hosts(base, PEXELS_API, frozenset({"images.pexels.com"})), timeout=timeout
        )
    elif demo:
        found["stock_a"] = PexelsProvider(
            DEMO_PEXELS_KEY, base_url=f"http://{demo}", image_hosts=frozenset({demo}), timeout=timeout
        )
    if key := settings.stock_b_access_key.get_secret_value():
        base = settings.stock_b_base_url
        found["stock_b"] = UnsplashProvider(
            key,
            app_name=settings.stock_b_app_name,
            base_url=base,
            image_hosts=_hosts(base, UNSPLASH_API, frozenset({"images.unsplash.com", "plus.unsplash.com"})),
            timeout=timeout,
        )
    elif demo:
        found["stock_b"] = UnsplashProvider(
            DEMO_UNSPLASH_KEY,
            app_name=settings.stock_b_app_name,
            base_url=f"http://{demo}/unsplash",
            image_hosts=frozenset({demo}),
            timeout=timeout,
        )
    return found


def stock_service(settings: CoreSettings, storage: ObjectStorage) -> StockService:
    """The service as the core's settings configure it (the servicer's, and a worker's)."""
    return StockService(
        providers_from(settings),
        storage,
        httpx2.AsyncClient(timeout=settings.stock_timeout_seconds, follow_redirects=False),
        image_cost=settings.stock_image_cost,
        low_credit_threshold=settings.low_credit_threshold,
        cache_seconds=settings.stock_search_cache_seconds,
        max_bytes=settings.stock_fetch_max_bytes,
        timeout=settings.stock_timeout_seconds,
        wait_seconds=settings.stock_source_wait_seconds,
        recover_after=timedelta(seconds=settings.stock_source_recover_seconds),
    )
