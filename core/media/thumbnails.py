"""Thumbnails of the media library, made by confirm (docs/media.md, "Thumbnails").

A thumbnail is a WebP at most THUMBNAIL_EDGE pixels on its long side, stored beside the media's
bytes under `{storage_key}.thumb`: images with Pillow (EXIF orientation applied; a GIF's or an
animated WebP's first frame), videos with a frame decoded by PyAV (its wheels bundle FFmpeg's
libraries: no system ffmpeg, nothing shelled out): the first frame at or after one second, or
halfway through a shorter video.

The work is bounded, whatever the file:
- it reads the object through `ObjectStorage.read` in byte ranges (so GCS works as the local
  storage does, and a video's index at its end is reached by seeking, not by reading it all),
  at most the object's size for an image (the presign limit, 50 MB) and VIDEO_READ_BUDGET for a
  video;
- pixels: an image or a video frame over Pillow's MAX_IMAGE_PIXELS is not decoded (the
  decompression-bomb limit the stock photos are held to, core/stock/images.py); a JPEG is decoded
  reduced (`Image.draft`);
- time: TIME_BUDGET seconds of wall time, after which the next read fails and confirm goes on
  without a thumbnail; at most MAX_FRAMES video frames are decoded;
- at most CONCURRENT thumbnails are made at once per core process.

Any failure (a corrupt or truncated file, a codec FFmpeg lacks, a budget spent, storage failing)
means no thumbnail: logged, never an error of confirm; the dashboard then shows a placeholder of
the media's type.
"""

from __future__ import annotations

import asyncio
import io
import logging
import threading
import time
import weakref
from collections.abc import Callable

from PIL import Image, ImageOps

from core.storage.base import ObjectStorage

log = logging.getLogger(__name__)

THUMBNAIL_EDGE = 320
THUMBNAIL_SUFFIX = ".thumb"
THUMBNAIL_TYPE = "image/webp"
WEBP_QUALITY = 80
TIME_BUDGET = 15.0  # seconds of wall time for one thumbnail, reads included
VIDEO_READ_BUDGET = 64 * 1024 * 1024  # bytes of a video read to find its frame
MAX_FRAMES = 120
FRAME_AT = 1.0  # seconds into a video
CONCURRENT = 2
IMAGE_FORMATS = ("JPEG", "PNG", "WEBP", "GIF")
_FIRST_READ = 256 * 1024
_MAX_READ = 8 * 1024 * 1024
# CONCURRENT slots per event loop (a core process runs one; tests may run several in turn).
_SLOTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()


class BudgetSpent(OSError):
    """The thumbnail's time or read budget is spent: it is given up."""


def thumbnail_key(storage_key: str) -> str:
    return storage_key + THUMBNAIL_SUFFIX


class RangeFile(io.RawIOBase):
    """A read-only, seekable file over one stored object, for a worker thread: each read that
    misses the buffered block asks the event loop for the next byte range (`ObjectStorage.read`
    with start/end), reading ahead more while reads are sequential. Reads fail (BudgetSpent) once
    more than `budget` bytes were fetched, past `deadline` (time.monotonic), or after `stop()`."""

    def __init__(
        self,
        fetch: Callable[[int, int], bytes],
        size: int,
        *,
        budget: int,
        deadline: float,
    ) -> None:
        super().__init__()
        self._fetch = fetch
        self.size = size
        self.budget = budget
        self.deadline = deadline
        self.fetched = 0
        self._pos = 0
        self._block_start = 0
        self._block = b""
        self._ahead = _FIRST_READ
        self._stopped = threading.Event()

    def stop(self) -> None:
        self._stopped.set()

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self.size + offset
        else:
            raise ValueError(f"unsupported whence {whence}")
        if pos < 0:
            raise ValueError("negative seek position")
        self._pos = pos
        return pos

    def readinto(self, buffer) -> int:  # a writable buffer
        wanted = len(buffer)
        if wanted == 0 or self._pos >= self.size:
            return 0
        offset = self._pos - self._block_start
        if not (0 <= offset < len(self._block)):
            self._load(self._pos)
            offset = 0
        piece = self._block[offset : offset + wanted]
        buffer[: len(piece)] = piece
        self._pos += len(piece)
        return len(piece)

    def _load(self, start: int) -> None:
        if self._stopped.is_set() or time.monotonic() > self.deadline:
            raise BudgetSpent("the thumbnail's time budget is spent")
        sequential = bool(self._block) and start == self._block_start + len(self._block)
        self._ahead = min(self._ahead * 2, _MAX_READ) if sequential else _FIRST_READ
        end = min(self.size, start + self._ahead)
        if self.fetched + (end - start) > self.budget:
            raise BudgetSpent(f"the thumbnail's read budget ({self.budget:,} bytes) is spent")
        block = self._fetch(start, end)
        self.fetched += len(block)
        self._block_start, self._block = start, block


def _no_bomb(width: int, height: int) -> None:
    limit = Image.MAX_IMAGE_PIXELS
    if limit is not None and width * height > limit:
        raise ValueError(f"{width}x{height} is over the {limit} pixel limit")


def _encode(picture: Image.Image) -> bytes:
    picture.thumbnail((THUMBNAIL_EDGE, THUMBNAIL_EDGE), Image.Resampling.LANCZOS, reducing_gap=3.0)
    alpha = picture.mode in ("RGBA", "LA", "PA") or "transparency" in picture.info
    picture = picture.convert("RGBA" if alpha else "RGB")
    out = io.BytesIO()
    picture.save(out, "WEBP", quality=WEBP_QUALITY, method=4)
    return out.getvalue()


def image_thumbnail(source: io.RawIOBase | io.BytesIO) -> bytes:
    """A JPEG's, PNG's, WebP's or GIF's thumbnail (the first frame of an animation)."""
    with Image.open(source, formats=IMAGE_FORMATS) as image:
        _no_bomb(*image.size)
        image.draft("RGB", (THUMBNAIL_EDGE * 2, THUMBNAIL_EDGE * 2))  # JPEG: decode reduced
        upright = ImageOps.exif_transpose(image)
        return _encode(upright if upright is not None else image)


def video_thumbnail(source: io.RawIOBase | io.BytesIO) -> bytes:
    """A frame of a video (MP4, MOV, WebM): the first at or after FRAME_AT seconds, or halfway
    through a shorter video, decoding at most MAX_FRAMES frames."""
    import av  # FFmpeg's libraries: loaded by the processes that confirm media, when they first do

    with av.open(source, mode="r") as container:
        stream = container.streams.video[0]
        _no_bomb(stream.codec_context.width, stream.codec_context.height)
        duration = container.duration / av.time_base if container.duration else 0.0
        target = min(FRAME_AT, duration / 2) if duration > 0 else 0.0
        chosen = None
        for count, frame in enumerate(container.decode(stream)):
            chosen = frame
            if frame.time is None or frame.time >= target or count + 1 >= MAX_FRAMES:
                break
        if chosen is None:
            raise ValueError("the video has no decodable frame")
        return _encode(chosen.to_image())


async def make_thumbnail(
    storage: ObjectStorage, key: str, *, kind: str, size_bytes: int, generation: int | None = None
) -> bytes | None:
    """The thumbnail of the object at `key` (those `generation`'s bytes), or None when none can
    be made within the budgets."""
    loop = asyncio.get_running_loop()
    slots = _SLOTS.setdefault(loop, asyncio.Semaphore(CONCURRENT))

    async def read_range(start: int, end: int) -> bytes:
        return b"".join([chunk async for chunk in storage.read(key, start=start, end=end, generation=generation)])

    def fetch(start: int, end: int) -> bytes:  # (from the worker thread)
        remaining = max(0.0, source.deadline - time.monotonic())
        return asyncio.run_coroutine_threadsafe(read_range(start, end), loop).result(timeout=remaining)

    render = video_thumbnail if kind == "video" else image_thumbnail
    async with slots:
        budget = min(size_bytes, VIDEO_READ_BUDGET) if kind == "video" else size_bytes
        source = RangeFile(fetch, size_bytes, budget=budget, deadline=time.monotonic() + TIME_BUDGET)
        started = time.monotonic()
        try:
            return await asyncio.wait_for(asyncio.to_thread(render, source), TIME_BUDGET)
        except Exception as error:  # a corrupt file, a budget spent, storage failing: no thumbnail
            log.info("no thumbnail for %s (%s): %s", key, kind, type(error).__name__)
            return None
        finally:
            source.stop()
            log.debug("thumbnail of %s: %.3f s, %d bytes read", key, time.monotonic() - started, source.fetched)


async def store_thumbnail(
    storage: ObjectStorage, key: str, *, kind: str, size_bytes: int, generation: int | None = None
) -> str | None:
    """Makes the thumbnail of the object at `key` and stores it beside it; its key, or None when
    none was made or storing it failed."""
    data = await make_thumbnail(storage, key, kind=kind, size_bytes=size_bytes, generation=generation)
    if data is None:
        return None
    target = thumbnail_key(key)
    try:
        await storage.put(target, data, content_type=THUMBNAIL_TYPE)
    except Exception:
        log.warning("storing the thumbnail of %s failed", key, exc_info=True)
        return None
    return target
