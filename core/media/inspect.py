"""What the stored bytes really are: SHA-256, type by magic numbers, image dimensions.

One streaming pass; memory stays bounded whatever the size (only the first megabyte is offered
to Pillow's incremental parser, which needs just the header for the dimensions)."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from PIL import ImageFile

HEADER_BYTES = 1024 * 1024
# ISO base media (MP4 and QuickTime) files are one container family: either declaration fits.
_ISO_BMFF = {"video/mp4", "video/quicktime"}


@dataclass(frozen=True, slots=True)
class Inspection:
    sha256: str
    size_bytes: int
    sniffed_type: str | None
    width: int | None
    height: int | None


def sniff(head: bytes) -> str | None:
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[4:8] == b"ftyp":
        return "video/quicktime" if head[8:12] == b"qt  " else "video/mp4"
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        return "video/webm"
    return None


def matches(declared: str, sniffed: str | None) -> bool:
    if sniffed is None:
        return False
    return declared == sniffed or (declared in _ISO_BMFF and sniffed in _ISO_BMFF)


async def inspect(chunks: AsyncIterator[bytes]) -> Inspection:
    digest = hashlib.sha256()
    head = b""
    size = 0
    parser: ImageFile.Parser | None = None
    fed = 0
    sniffed: str | None = None
    async for chunk in chunks:
        digest.update(chunk)
        size += len(chunk)
        if len(head) < 64:
            head += chunk[: 64 - len(head)]
            if len(head) >= 12 or size < 12:
                sniffed = sniff(head)
        if sniffed and sniffed.startswith("image/") and fed < HEADER_BYTES:
            if parser is None:
                parser = ImageFile.Parser()
            piece = chunk[: HEADER_BYTES - fed]
            fed += len(piece)
            try:
                if parser.image is None:
                    parser.feed(piece)
            except Exception:  # a broken image simply has no known dimensions
                parser = None
                fed = HEADER_BYTES
    sniffed = sniff(head)
    width = height = None
    if parser is not None and parser.image is not None:
        width, height = parser.image.size
    return Inspection(digest.hexdigest(), size, sniffed, width, height)
