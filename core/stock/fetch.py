"""Fetching a stock photo's bytes from the provider's own image hosts, capped and sniffed."""

from __future__ import annotations

import asyncio
import io
import ipaddress
from typing import Literal

import httpx2
from PIL import Image

RefusalCode = Literal["FOREIGN_HOST", "TOO_LARGE", "NOT_AN_IMAGE", "FETCH_FAILED", "TIMEOUT"]
# The formats Herald takes from a provider: what every destination accepts as a photo. GIF
# (animation), AVIF, TIFF and the rest are refused whatever the Content-Type says.
IMAGE_FORMATS = ("JPEG", "PNG", "WEBP")
MAX_REDIRECTS = 3
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Asking for these keeps content-negotiating image CDNs (Unsplash's imgix with `auto=format`)
# from answering with a format Herald refuses.
_ACCEPT = "image/jpeg, image/png, image/webp"
_LOOPBACK_NAMES = frozenset({"localhost"})


class ImageRefused(Exception):
    """A photo Herald would not take. `code` is stable (branch on it), the message is for people:

    - `FOREIGN_HOST`: the URL, or a redirect on the way, is not on one of the provider's image
      hosts, or is not https (plain http only to a loopback host that is allowed: the embedded
      demo provider);
    - `TOO_LARGE`: the body is over the byte cap (Content-Length or the bytes counted);
    - `NOT_AN_IMAGE`: the bytes are not a JPEG, PNG or WebP (sniffed, not the Content-Type), or
      cannot be decoded, or are a decompression bomb;
    - `FETCH_FAILED`: a connection failure, a status other than 2xx, too many redirects;
    - `TIMEOUT`: the whole fetch, redirects and body included, outlasted its deadline.
    """

    def __init__(self, code: RefusalCode, message: str = "") -> None:
        super().__init__(message or code)
        self.code: RefusalCode = code
        self.message = message or code


def is_allowed_url(url: httpx2.URL, allowed_hosts: frozenset[str]) -> bool:
    """Whether Herald may fetch `url`: its host (any port) or `host:port` is in `allowed_hosts`
    (lowercase names, as the provider's image hosts are written), and it is https, or http to
    a loopback host (the embedded demo provider serves plain http on 127.0.0.1)."""
    host = (url.host or "").lower()
    if not host or url.scheme not in ("https", "http"):
        return False
    port = url.port or (443 if url.scheme == "https" else 80)
    netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if host not in allowed_hosts and netloc not in allowed_hosts:
        return False
    return url.scheme == "https" or _is_loopback(host)


def _is_loopback(host: str) -> bool:
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def sniff_image_format(data: bytes) -> str:
    """The bytes' real format, one of IMAGE_FORMATS, read from the bytes themselves (Pillow's
    `open` and `verify`: headers and, for PNG, chunk checksums; nothing is decoded). Raises
    ImageRefused(NOT_AN_IMAGE) for anything else, decompression bombs included."""
    try:
        with Image.open(io.BytesIO(data), formats=IMAGE_FORMATS) as image:
            image.verify()
            found = image.format
    except Image.DecompressionBombError as error:
        raise ImageRefused("NOT_AN_IMAGE", f"the image is too large to decode ({error})") from error
    except Exception as error:  # Pillow raises many kinds on hostile bytes; all mean the same
        raise ImageRefused("NOT_AN_IMAGE", "the bytes are not a JPEG, PNG or WebP image") from error
    if found not in IMAGE_FORMATS:
        raise ImageRefused("NOT_AN_IMAGE", f"{found} images are not accepted")
    return found


async def fetch_image(
    client: httpx2.AsyncClient,
    url: str,
    *,
    allowed_hosts: frozenset[str],
    max_bytes: int = 25 * 1024 * 1024,
    timeout: float = 20.0,  # noqa: ASYNC109 (one deadline over hops and body; asyncio.timeout inside)
) -> bytes:
    """GETs one photo from a provider's image host and returns its bytes, a JPEG, PNG or WebP.

    No URL from a request or a provider's answer makes Herald fetch anything else: the URL and
    every redirect hop (at most MAX_REDIRECTS, each checked by `is_allowed_url` before it is
    requested; the client's own redirect setting is not used) must be on `allowed_hosts`.
    The body is streamed and refused as soon as it passes `max_bytes` (a Content-Length over
    it is refused before any byte is read); `timeout` is one deadline for the whole fetch. The
    type is sniffed from the bytes, never taken from Content-Type. Raises ImageRefused.
    """
    try:
        async with asyncio.timeout(timeout):
            data = await _get_following_allowed_redirects(client, httpx2.URL(url), allowed_hosts, max_bytes, timeout)
    except (TimeoutError, httpx2.TimeoutException) as error:
        raise ImageRefused("TIMEOUT", f"the image did not arrive within {timeout:g} s") from error
    except httpx2.InvalidURL as error:
        raise ImageRefused("FOREIGN_HOST", "the image URL is not a valid URL") from error
    except httpx2.HTTPError as error:
        raise ImageRefused("FETCH_FAILED", f"the image could not be fetched ({type(error).__name__})") from error
    sniff_image_format(data)
    return data


async def _get_following_allowed_redirects(
    client: httpx2.AsyncClient, url: httpx2.URL, allowed_hosts: frozenset[str], max_bytes: int, read_timeout: float
) -> bytes:
    for _ in range(MAX_REDIRECTS + 1):
        if not is_allowed_url(url, allowed_hosts):
            raise ImageRefused("FOREIGN_HOST", f"{url.scheme}://{url.host} is not one of the provider's image hosts")
        async with client.stream(
            "GET", url, headers={"Accept": _ACCEPT}, follow_redirects=False, timeout=read_timeout
        ) as response:
            if response.status_code in _REDIRECTS and "location" in response.headers:
                url = url.join(response.headers["location"])
                continue
            if not response.is_success:
                raise ImageRefused("FETCH_FAILED", f"the image host answered {response.status_code}")
            return await _read_capped(response, max_bytes)
    raise ImageRefused("FETCH_FAILED", f"more than {MAX_REDIRECTS} redirects")


async def _read_capped(response: httpx2.Response, max_bytes: int) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ImageRefused("TOO_LARGE", f"the image is {declared} bytes, over the {max_bytes}-byte cap")
    body = bytearray()
    # Decoded bytes are counted: a compressed body cannot swell past the cap in memory.
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise ImageRefused("TOO_LARGE", f"the image is over the {max_bytes}-byte cap")
    return bytes(body)
