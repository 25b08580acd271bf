"""Stock photo search and sourcing (docs/stock.md).

Search asks the provider and answers its photos; it creates, saves and charges nothing. Identical
searches of one organization are answered from a short cache (the providers ask for caching).

Sourcing, in the order of docs/stock.md, "Sourcing", before any photo is fetched or anything is
charged: the fields, the provider and preset, whether the provider is available to the
organization, the destination, and whether the balance pays for every photo asked for. Then each
photo is looked up, fetched from the provider's own image hosts (sized for the preset), cropped,
and written to object storage, with no transaction open; one transaction then records the
delivered photos as confirmed media and charges them with one conditional debit. A photo that
fails drops out, is listed under `failures`, and is not charged; when all fail, SOURCE_FAILED and
nothing is charged.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

import httpx2
from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.credits import service as credits
from core.db.models import media, organizations
from core.db.types import utcnow
from core.errors import (
    InsufficientCredits,
    RateLimited,  # a provider's limit, answered as Herald's own (429)
    ValidationError,
)
from core.ids import new_id
from core.media import service as media_service
from core.media import thumbnails
from core.media.messages import emit_confirmed
from core.stock import rules, runs
from core.stock.errors import ProviderError, SourceFailed, StockNotConfigured
from core.stock.images import TARGET_BOX, Cropped, ImageRefused, crop_to_preset, fetch_image
from core.stock.providers import Attribution, StockPhoto, StockProvider, StockProviderError
from core.stock.results import Delivered, Failure, Searched, Sourced
from core.storage.base import ObjectStorage

log = logging.getLogger(__name__)

Transaction = Callable[..., AbstractAsyncContextManager[AsyncConnection]]
# The orientation a search asks for per preset: any photo crops well to a square, so square asks
# for none (square originals are rare); story's 9:16 comes from portrait originals.
ORIENTATION: dict[str, str | None] = {
    "square": None,
    "portrait": "portrait",
    "landscape": "landscape",
    "story": "portrait",
}
FETCH_CONCURRENCY = 4
CACHE_ENTRIES = 2000


@dataclass(slots=True)
class _RunSlot:
    """A sourcing's run, once its call answered with one (the lock orders recording and the
    run's creation)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class _Fetched:
    ref: str
    photo: StockPhoto
    image: Cropped
    key: str
    media_id: str
    sha256: str
    # The thumbnail stored beside it (docs/media.md, "Thumbnails"), or None when none was made.
    thumbnail_key: str | None = None

    @property
    def keys(self) -> list[str]:
        """Every object stored for this photo."""
        return [self.key] + ([self.thumbnail_key] if self.thumbnail_key else [])


def attribution_json(attribution: Attribution | None) -> str:
    return json.dumps(asdict(attribution), separators=(",", ":")) if attribution is not None else ""


class StockService:
    def __init__(
        self,
        providers: Mapping[str, StockProvider | None],
        storage: ObjectStorage,
        client: httpx2.AsyncClient,
        *,
        image_cost: int,
        low_credit_threshold: int,
        cache_seconds: float,
        max_bytes: int,
        timeout: float,
        wait_seconds: float = 30.0,
        recover_after: timedelta = timedelta(minutes=2),
    ) -> None:
        self.providers = providers
        self.storage = storage
        self.client = client
        self.image_cost = image_cost
        self.low_credit_threshold = low_credit_threshold
        self.cache_seconds = cache_seconds
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.wait_seconds = wait_seconds
        self.recover_after = recover_after
        self._runs: set[asyncio.Task[None]] = set()
        self._cache: OrderedDict[tuple[str, ...], tuple[float, list[StockPhoto]]] = OrderedDict()

    # --- search -------------------------------------------------------------------------------

    async def search(
        self, tx: Transaction, org_id: str, *, query: str, preset: str, count: int, provider: str
    ) -> Searched:
        query, count = rules.check_query(query), rules.check_count(count)
        provider, preset = rules.check_provider(provider), rules.check_preset(preset)
        source = await self.available(tx, org_id, provider)
        key = (org_id, provider, preset, str(count), query.casefold())
        cached = self._cache.get(key)
        if cached is not None and cached[0] > time.monotonic():
            self._cache.move_to_end(key)
            return Searched(provider, preset, query, cached[1])
        try:
            results = await source.search(query, count=count, orientation=ORIENTATION[preset])
        except StockProviderError as error:
            raise _provider_error(error) from None
        if self.cache_seconds > 0:
            self._cache[key] = (time.monotonic() + self.cache_seconds, results)
            while len(self._cache) > CACHE_ENTRIES:
                self._cache.popitem(last=False)
        return Searched(provider, preset, query, results)

    # --- sourcing -----------------------------------------------------------------------------

    async def source(
        self,
        tx: Transaction,
        org_id: str,
        *,
        source_refs: list[str],
        preset: str,
        destination: str,
        provider: str,
        query: str,
        now: datetime,
    ) -> Sourced:
        refs = rules.check_source_refs(list(source_refs))
        query = " ".join(query.split())
        if len(query) > rules.MAX_SOURCE_QUERY:
            raise ValidationError(f"query is at most {rules.MAX_SOURCE_QUERY} characters")
        provider, preset = rules.check_provider(provider), rules.check_preset(preset)
        source = await self.available(tx, org_id, provider)
        rules.check_destination(destination, preset)
        need = len(refs) * self.image_cost
        async with tx() as conn:
            balance = await conn.scalar(select(organizations.c.credit_balance).where(organizations.c.id == org_id))
        if balance is None or balance < need:
            raise InsufficientCredits(f"sourcing {len(refs)} photo(s) needs {need} credit(s); the balance is {balance}")

        slot = _RunSlot()
        work = asyncio.ensure_future(self._deliver(tx, org_id, source, refs, preset, provider, query, slot))
        try:
            done, _ = await asyncio.wait({work}, timeout=self.wait_seconds)
        except asyncio.CancelledError:
            work.cancel()  # the caller went away before any answer: nothing is kept or charged
            raise
        if done:
            return work.result()
        # Outlasting the call: answer a run, which this core's work records when it ends (or,
        # if this core stops, the run's job on a worker). The slot's lock orders the two: the
        # work records either before the run exists (then this call answers its result) or
        # with the run's outcome, in the transaction that charges.
        async with slot.lock:
            if work.done():
                return work.result()
            request = {"source_refs": refs, "preset": preset, "provider": provider, "query": query}
            slot.run_id = await runs.start(tx, org_id, len(refs), now, request, self.recover_after)
        follower = asyncio.ensure_future(runs.follow(tx, slot.run_id, work))
        self._runs.add(follower)
        follower.add_done_callback(self._runs.discard)
        return Sourced(len(refs), [], [], balance, run_id=slot.run_id, status="running")

    async def _deliver(
        self,
        tx: Transaction,
        org_id: str,
        source: StockProvider,
        refs: list[str],
        preset: str,
        provider: str,
        query: str,
        slot: _RunSlot,
    ) -> Sourced:
        fetched, failures = await self.fetch_all(source, org_id, refs, preset)
        if not fetched:
            summary = "; ".join(f"{f.source_ref}: {f.code}" for f in failures)
            raise SourceFailed(f"none of the {len(refs)} photo(s) could be saved ({summary}); nothing was charged")
        try:
            async with slot.lock, tx(writes=True) as conn:
                delivered, balance, unused = await self.record(
                    conn, org_id, provider, query, fetched, failures, utcnow(), run_id=slot.run_id
                )
        except BaseException:
            await self._forget([key for f in fetched for key in f.keys])
            raise
        await self._forget(unused)
        await self.track(source, provider, delivered)
        return Sourced(len(refs), delivered, failures, balance)

    async def fetch_all(
        self, source: StockProvider, org_id: str, refs: list[str], preset: str
    ) -> tuple[list[_Fetched], list[Failure]]:
        """Every photo fetched, cropped and stored (nothing recorded): what was, and what failed."""
        gate = asyncio.Semaphore(FETCH_CONCURRENCY)
        outcomes = await asyncio.gather(*(self._fetch(gate, source, org_id, ref, preset) for ref in refs))
        return [o for o in outcomes if isinstance(o, _Fetched)], [o for o in outcomes if isinstance(o, Failure)]

    async def track(self, source: StockProvider, provider: str, delivered: list[Delivered]) -> None:
        for item in delivered:  # the provider counts each delivered image once (Unsplash's rule)
            try:
                await source.track_download(item.photo.source_ref)
            except StockProviderError as error:
                log.warning("download tracking of %s %s failed: %s", provider, item.photo.source_ref, error.code)

    async def _fetch(
        self, gate: asyncio.Semaphore, source: StockProvider, org_id: str, ref: str, preset: str
    ) -> _Fetched | Failure:
        width, height = TARGET_BOX[preset]
        async with gate:
            try:
                rendition = await source.rendition(ref, width=width, height=height)
                data = await fetch_image(
                    self.client,
                    rendition.url,
                    allowed_hosts=source.image_hosts,
                    max_bytes=self.max_bytes,
                    timeout=self.timeout,
                )
                image = await asyncio.to_thread(crop_to_preset, data, preset)
            except StockProviderError as error:
                return Failure(ref, error.code, str(error))
            except ImageRefused as error:
                return Failure(ref, error.code, str(error))
        # Stored after the fetch slot is given back: the next photo downloads meanwhile.
        media_id = new_id("med")
        key = f"{org_id}/{media_id}"
        try:
            await self.storage.put(key, image.data, content_type=image.mime_type)
        except Exception as error:  # storage is down or full: this photo drops out
            log.warning("storing stock photo %s failed: %s", ref, type(error).__name__)
            return Failure(ref, "STORAGE_FAILED", "the photo could not be stored")
        thumbnail = await self._thumbnail(key, image.data)
        return _Fetched(ref, rendition.photo, image, key, media_id, hashlib.sha256(image.data).hexdigest(), thumbnail)

    async def _thumbnail(self, key: str, data: bytes) -> str | None:
        """The cropped photo's thumbnail, as confirm makes one for an upload (the photo is in
        memory and already bounded: no budget to keep); None when it cannot be made or stored."""
        try:
            thumb = await asyncio.to_thread(thumbnails.image_thumbnail, io.BytesIO(data))
            target = thumbnails.thumbnail_key(key)
            await self.storage.put(target, thumb, content_type=thumbnails.THUMBNAIL_TYPE)
        except Exception as error:
            log.info("no thumbnail for stock photo %s: %s", key, type(error).__name__)
            return None
        return target

    async def record(
        self,
        conn: AsyncConnection,
        org_id: str,
        provider: str,
        query: str,
        fetched: list[_Fetched],
        failures: list[Failure],
        now: datetime,
        *,
        run_id: str | None = None,
    ) -> tuple[list[Delivered], int, list[str]]:
        """In the caller's transaction: the media rows (or the library's existing copy of the same
        bytes), one conditional debit for every delivered photo and, for a run, its outcome
        (RunTaken when it already has one). Returns what was delivered, the balance and the
        stored keys no row uses (duplicates)."""
        delivered: list[Delivered] = []
        unused: list[str] = []
        rows: list[dict[str, object]] = []
        # One lookup for all photos: the library's copy of the same bytes, oldest first.
        known: dict[str, str] = {}
        for media_id, content_hash in await conn.execute(
            select(media.c.id, media.c.content_hash)
            .where(
                media.c.org_id == org_id,
                media.c.content_hash.in_({item.sha256 for item in fetched}),
                media.c.status == "confirmed",
            )
            .order_by(media.c.id)
        ):
            known.setdefault(content_hash, media_id)
        for item in fetched:
            existing = known.get(item.sha256)
            if existing is not None:  # in the library, or twice in this call
                delivered.append(Delivered(existing, item.photo))
                unused.extend(item.keys)
                continue
            known[item.sha256] = item.media_id
            rows.append(
                {
                    "id": item.media_id,
                    "org_id": org_id,
                    "kind": "image",
                    "mime_type": item.image.mime_type,
                    "size_bytes": len(item.image.data),
                    "name": f"{provider}-{item.ref}.jpg"[:255],
                    "description": item.photo.alt_text[:5000],
                    "tags": "",
                    "status": "confirmed",
                    "content_hash": item.sha256,
                    "width": item.image.width,
                    "height": item.image.height,
                    "storage_key": item.key,
                    "thumbnail_key": item.thumbnail_key,
                    "created_at": now,
                    "confirmed_at": now,
                    "source_provider": provider,
                    "source_ref": item.ref,
                    "source_query": query,
                    "attribution": attribution_json(item.photo.attribution),
                }
            )
            delivered.append(Delivered(item.media_id, item.photo))
        if rows:
            await conn.execute(insert(media), rows)
        balance = await credits.debit(
            conn,
            org_id,
            len(delivered) * self.image_cost,
            reason="stock_image",
            reference=_reference([d.media_id for d in delivered]),
            now=now,
            low_threshold=self.low_credit_threshold,
        )
        # Only the records this call created became usable (a known image was already).
        sourced = await media_service.get_many(conn, org_id, [r["id"] for r in rows])
        await emit_confirmed(conn, org_id, sourced, now)
        if run_id is not None:
            await runs.complete(conn, run_id, delivered, failures, now)
        return delivered, balance, unused

    async def _forget(self, keys: list[str]) -> None:
        for key in keys:
            try:
                await self.storage.delete(key)
            except Exception:  # housekeeping removes what no record names
                log.warning("could not delete unused stored photo %s", key)

    async def list_providers(self, conn: AsyncConnection, org_id: str) -> list[tuple[str, bool, bool]]:
        """(provider, configured on this deployment, turned on for the organization)."""
        disabled = await conn.scalar(select(organizations.c.stock_disabled).where(organizations.c.id == org_id))
        off = set((disabled or "").split(","))
        return [(p, self.providers.get(p) is not None, p not in off) for p in rules.PROVIDERS]

    async def set_disabled(self, conn: AsyncConnection, org_id: str, disabled: list[str]) -> None:
        for provider in disabled:
            rules.check_provider(provider)
        await conn.execute(
            update(organizations)
            .where(organizations.c.id == org_id)
            .values(stock_disabled=",".join(sorted(set(disabled))))
        )

    async def available(self, tx: Transaction, org_id: str, provider: str) -> StockProvider:
        source = self.providers.get(provider)
        if source is None:
            raise StockNotConfigured(f"{provider} is not set up on this deployment")
        async with tx() as conn:
            disabled = await conn.scalar(select(organizations.c.stock_disabled).where(organizations.c.id == org_id))
        if provider in (disabled or "").split(","):
            raise StockNotConfigured(f"{provider} is turned off for this organization")
        return source


def _provider_error(error: StockProviderError) -> RateLimited | ProviderError:
    if error.code == "RATE_LIMITED":
        retry = f"{int(error.retry_after)}" if error.retry_after else ""
        message = "the photo source's limit is reached; retry " + (f"in {retry} s" if retry else "in a few minutes")
        return RateLimited(message, **({"retry_after": retry} if retry else {}))
    return ProviderError(f"the photo source did not answer usably ({error}); nothing was saved or charged")


def _reference(media_ids: list[str]) -> str:
    """The ledger's reference of a sourcing: its media ids, or the first and how many more."""
    joined = ",".join(media_ids)
    return joined if len(joined) <= 128 else f"{media_ids[0]} and {len(media_ids) - 1} more"
