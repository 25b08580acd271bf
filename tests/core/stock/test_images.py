"""Stock photo bytes: fetching from the provider's image hosts only (over real loopback HTTP and
HTTPS servers), and the preset crop (ratio, no upscaling, detail-seeking window, orientation,
colour, reduced JPEG decoding)."""

from __future__ import annotations

import contextlib
import datetime
import io
import ipaddress
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from PIL import Image, ImageDraw, ImageOps, features

from core.stock.images import (
    PRESETS,
    TARGET_BOX,
    Cropped,
    ImageRefused,
    crop_to_preset,
    fetch_image,
    is_allowed_url,
    output_size,
)


def encode(image: Image.Image, fmt: str = "JPEG", **params: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **params)
    return out.getvalue()


def photo(width: int, height: int) -> Image.Image:
    """A photo-like frame: a gradient with soft noise and a few shapes."""
    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    draw = ImageDraw.Draw(image)
    for i in range(12):
        x, y = (i * 997) % width, (i * 563) % height
        draw.ellipse((x, y, x + width // 8, y + height // 8), fill=((i * 50) % 255, (i * 80) % 255, 90))
    return image


JPEG = encode(photo(640, 480), quality=85)
GIF = encode(photo(64, 48).convert("P"), "GIF")


# --- the loopback servers --------------------------------------------------------------------


@dataclass
class Server:
    host: str
    port: int
    hits: Counter[str] = field(default_factory=Counter)

    def url(self, path: str, *, scheme: str = "http", host: str | None = None) -> str:
        return f"{scheme}://{host or self.host}:{self.port}{path}"


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, status: int, body: bytes, content_type: str = "image/jpeg", length: bool = True) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            if length:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _redirect(self, location: str) -> None:
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:  # http.server names it
            path = self.path
            server.hits[path] += 1
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeouts)
                self._route(path)

        def _route(self, path: str) -> None:
            if path == "/photo.jpg":
                self._send(200, JPEG)
            elif path == "/photo.png":
                self._send(200, encode(photo(64, 48), "PNG"), "image/png")
            elif path == "/photo.webp":
                self._send(200, encode(photo(64, 48), "WEBP"), "image/webp")
            elif path == "/photo.gif":
                self._send(200, GIF, "image/gif")
            elif path == "/photo.avif":
                self._send(200, encode(photo(64, 48), "AVIF"), "image/avif")
            elif path == "/page.html":
                self._send(200, b"<!doctype html><title>not a photo</title>", "text/html")
            elif path == "/lying.jpg":  # says JPEG, is not
                self._send(200, b"\xff\xd8\xff" + b"garbage" * 100)
            elif path == "/big.jpg":
                self._send(200, JPEG)
            elif path == "/big-unannounced.jpg":  # no Content-Length: HTTP/1.0, ends at close
                self._send(200, JPEG, length=False)
            elif path == "/huge-announced.jpg":  # announces a body it never sends
                self.send_response(200)
                self.send_header("Content-Length", str(10**12))
                self.end_headers()
                time.sleep(3)
            elif path == "/slow.jpg":
                time.sleep(3)
                self._send(200, JPEG)
            elif path == "/trickle.jpg":  # a byte every 50 ms: no single read times out
                self.send_response(200)
                self.end_headers()
                for byte in JPEG[:60]:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.05)
            elif path == "/missing.jpg":
                self._send(404, b"not found", "text/plain")
            elif path.startswith("/hops/"):  # /hops/N: N redirects, then the photo
                left = int(path.rsplit("/", 1)[1])
                self._redirect(f"/hops/{left - 1}" if left > 1 else "/photo.jpg")
            elif path.startswith("/redirect?to="):
                self._redirect(path.split("=", 1)[1])
            else:
                self._send(404, b"", "text/plain")

    return Handler


@pytest.fixture(scope="module")
def serve() -> Iterator:
    started: list[ThreadingHTTPServer] = []

    def start(tls: ssl.SSLContext | None = None) -> Server:
        server = Server("127.0.0.1", 0)
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
        httpd.daemon_threads = True
        if tls is not None:
            httpd.socket = tls.wrap_socket(httpd.socket, server_side=True)
        server.port = httpd.server_address[1]
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        started.append(httpd)
        return server

    yield start
    for httpd in started:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def provider(serve) -> Server:
    return serve()


@pytest.fixture(scope="module")
def foreign(serve) -> Server:
    return serve()


@pytest.fixture(scope="module")
def tls_provider(serve, tmp_path_factory: pytest.TempPathFactory) -> tuple[Server, ssl.SSLContext]:
    """An https image host with a self-signed certificate for 127.0.0.1, and a client context
    that trusts it."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    folder = tmp_path_factory.mktemp("tls")
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return serve(server_context), ssl.create_default_context(cafile=str(folder / "cert.pem"))


@pytest.fixture
async def client() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient() as c:
        yield c


LOOPBACK = frozenset({"127.0.0.1"})


async def refused(client: httpx2.AsyncClient, url: str, allowed: frozenset[str] = LOOPBACK, **kw: object) -> str:
    with pytest.raises(ImageRefused) as caught:
        await fetch_image(client, url, allowed_hosts=allowed, **kw)  # type: ignore[arg-type]
    return caught.value.code


# --- fetch_image -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/photo.jpg", "/photo.png", "/photo.webp"])
async def test_a_photo_on_an_allowed_host_is_fetched(client, provider: Server, path: str) -> None:
    data = await fetch_image(client, provider.url(path), allowed_hosts=LOOPBACK)
    assert Image.open(io.BytesIO(data)).format in ("JPEG", "PNG", "WEBP")


async def test_an_allowed_host_may_name_its_port(client, provider: Server) -> None:
    assert await fetch_image(
        client, provider.url("/photo.jpg"), allowed_hosts=frozenset({f"127.0.0.1:{provider.port}"})
    )
    other_port = frozenset({f"127.0.0.1:{provider.port + 1}"})
    assert await refused(client, provider.url("/photo.jpg"), other_port) == "FOREIGN_HOST"


async def test_https_to_an_allowed_host_is_fetched(tls_provider: tuple[Server, ssl.SSLContext]) -> None:
    server, trust = tls_provider
    async with httpx2.AsyncClient(verify=trust) as tls_client:
        data = await fetch_image(tls_client, server.url("/photo.jpg", scheme="https"), allowed_hosts=LOOPBACK)
    assert data == JPEG


async def test_a_foreign_host_is_refused_before_any_request(client, provider: Server) -> None:
    before = sum(provider.hits.values())
    # The same server by another name: only the listed names count.
    assert await refused(client, provider.url("/photo.jpg", host="localhost")) == "FOREIGN_HOST"
    assert await refused(client, "https://evil.example/photo.jpg") == "FOREIGN_HOST"
    assert await refused(client, "/photo.jpg") == "FOREIGN_HOST"
    assert await refused(client, "file:///etc/passwd") == "FOREIGN_HOST"
    assert sum(provider.hits.values()) == before


async def test_plain_http_only_to_a_loopback_host(client, provider: Server) -> None:
    # An allowed public host over http is refused before any connection (else FETCH_FAILED).
    allowed = frozenset({"images.example", "127.0.0.1"})
    assert await refused(client, "http://images.example/photo.jpg", allowed) == "FOREIGN_HOST"
    assert await fetch_image(client, provider.url("/photo.jpg"), allowed_hosts=allowed)


@pytest.mark.parametrize(
    ("url", "allowed", "ok"),
    [
        ("https://images.pexels.com/photos/1/a.jpeg?w=1080", {"images.pexels.com"}, True),
        ("https://IMAGES.PEXELS.COM/a.jpeg", {"images.pexels.com"}, True),
        ("http://images.pexels.com/a.jpeg", {"images.pexels.com"}, False),
        ("https://images.pexels.com.evil.example/a.jpeg", {"images.pexels.com"}, False),
        ("https://images.pexels.com@evil.example/a.jpeg", {"images.pexels.com"}, False),
        ("https://evil.example/?u=https://images.pexels.com/a.jpeg", {"images.pexels.com"}, False),
        ("ftp://images.pexels.com/a.jpeg", {"images.pexels.com"}, False),
        ("http://localhost:8080/a.jpeg", {"localhost"}, True),
        ("http://[::1]:8080/a.jpeg", {"::1"}, True),
        ("http://[::1]:8080/a.jpeg", {"[::1]:8080"}, True),
        ("http://127.0.0.1:8080/a.jpeg", {"localhost"}, False),
    ],
)
def test_which_urls_are_allowed(url: str, allowed: set[str], ok: bool) -> None:
    assert is_allowed_url(httpx2.URL(url), frozenset(allowed)) is ok


async def test_redirects_are_followed_within_allowed_hosts(client, provider: Server) -> None:
    assert await fetch_image(client, provider.url("/hops/3"), allowed_hosts=LOOPBACK) == JPEG
    assert await refused(client, provider.url("/hops/4")) == "FETCH_FAILED"


async def test_a_redirect_to_a_foreign_host_is_refused_unfollowed(client, provider: Server, foreign: Server) -> None:
    # Both servers listen on 127.0.0.1; the foreign one is named `localhost`, which is not allowed.
    target = foreign.url("/photo.jpg", host="localhost")
    assert await refused(client, provider.url(f"/redirect?to={target}")) == "FOREIGN_HOST"
    assert await refused(client, provider.url("/redirect?to=https://evil.example/x.jpg")) == "FOREIGN_HOST"
    assert sum(foreign.hits.values()) == 0


async def test_a_body_over_the_cap_is_refused(client, provider: Server) -> None:
    small = len(JPEG) - 1
    assert await refused(client, provider.url("/big.jpg"), max_bytes=small) == "TOO_LARGE"
    assert await refused(client, provider.url("/big-unannounced.jpg"), max_bytes=small) == "TOO_LARGE"
    assert await fetch_image(client, provider.url("/big-unannounced.jpg"), allowed_hosts=LOOPBACK) == JPEG


async def test_content_length_over_the_cap_is_refused_before_reading(client, provider: Server) -> None:
    started = time.monotonic()
    assert await refused(client, provider.url("/huge-announced.jpg"), timeout=5.0) == "TOO_LARGE"
    assert time.monotonic() - started < 2  # the body (never sent) was not waited for


async def test_a_slow_server_times_out(client, provider: Server) -> None:
    assert await refused(client, provider.url("/slow.jpg"), timeout=0.5) == "TIMEOUT"


async def test_the_deadline_covers_the_whole_body(client, provider: Server) -> None:
    started = time.monotonic()
    assert await refused(client, provider.url("/trickle.jpg"), timeout=0.8) == "TIMEOUT"
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("path", ["/page.html", "/lying.jpg", "/photo.gif"])
async def test_what_is_not_a_jpeg_png_or_webp_is_refused(client, provider: Server, path: str) -> None:
    assert await refused(client, provider.url(path)) == "NOT_AN_IMAGE"


@pytest.mark.skipif(not features.check("avif"), reason="Pillow built without AVIF")
async def test_avif_is_not_offered(client, provider: Server) -> None:
    assert await refused(client, provider.url("/photo.avif")) == "NOT_AN_IMAGE"


async def test_errors_and_dead_hosts_fail_the_fetch(client, provider: Server) -> None:
    assert await refused(client, provider.url("/missing.jpg")) == "FETCH_FAILED"
    with socket.socket() as unused:  # bound, never listening: connections are refused
        unused.bind(("127.0.0.1", 0))
        closed = unused.getsockname()[1]
        assert await refused(client, f"http://127.0.0.1:{closed}/photo.jpg") == "FETCH_FAILED"


# --- crop_to_preset --------------------------------------------------------------------------

SIZES = [
    (1, 1),
    (3, 2),
    (2, 3),
    (17, 5),
    (640, 480),
    (1080, 1080),
    (1080, 1350),
    (1200, 629),
    (1080, 1920),
    (1081, 1079),
    (4000, 4000),
    (6000, 4000),
    (4000, 6000),
    (8000, 400),
    (400, 8000),
    (3000, 90),
]
_SOURCES: dict[tuple[int, int], bytes] = {}


def source(size: tuple[int, int]) -> bytes:
    if size not in _SOURCES:
        _SOURCES[size] = encode(photo(*size), quality=85)
    return _SOURCES[size]


def assert_ratio(width: int, height: int, preset: str) -> None:
    a, b = PRESETS[preset]
    assert abs(width * b - height * a) <= max(a, b), (preset, width, height)
    # Rounded toward square: within the photo-sharing feed's 4:5 to 1.91:1.
    if preset == "landscape":
        assert width * 100 <= height * 191
    if preset == "portrait":
        assert width * 5 >= height * 4


def test_target_boxes_have_their_presets_ratio() -> None:
    assert set(TARGET_BOX) == set(PRESETS)
    for preset, (width, height) in TARGET_BOX.items():
        assert_ratio(width, height, preset)
        assert output_size((20000, 20000), PRESETS[preset], TARGET_BOX[preset]) == (width, height)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_output_has_the_ratio_fits_the_box_and_is_never_upscaled(preset: str) -> None:
    for size in SIZES:
        for box in (None, (300, 300)):
            cropped = crop_to_preset(source(size), preset, box=box)
            decoded = Image.open(io.BytesIO(cropped.data))
            assert (decoded.format, decoded.mode, cropped.mime_type) == ("JPEG", "RGB", "image/jpeg")
            assert decoded.size == (cropped.width, cropped.height)
            assert_ratio(cropped.width, cropped.height, preset)
            assert cropped.width <= size[0] and cropped.height <= size[1], (size, decoded.size)
            limit = box or TARGET_BOX[preset]
            assert cropped.width <= limit[0] and cropped.height <= limit[1]
            # As large as it may be: one side reaches the source's or the box's bound.
            assert cropped.width >= min(size[0], limit[0]) - 1 or cropped.height >= min(size[1], limit[1]) - 1


def _dark_share(cropped_data: bytes) -> float:
    gray = Image.open(io.BytesIO(cropped_data)).convert("L")
    return sum(gray.histogram()[:40]) / (gray.width * gray.height)


def _checkerboard(frame: Image.Image, box: tuple[int, int, int, int]) -> None:
    draw = ImageDraw.Draw(frame)
    x0, y0, x1, y1 = box
    for x in range(x0, x1, 20):
        for y in range(y0, y1, 20):
            draw.rectangle((x, y, x + 9, y + 9), fill=(0, 0, 0))
            draw.rectangle((x + 10, y + 10, x + 19, y + 19), fill=(0, 0, 0))


def test_the_window_follows_the_detail_across() -> None:
    frame = Image.new("RGB", (2400, 1200), (128, 140, 150))
    _checkerboard(frame, (2150, 500, 2350, 700))  # near the right edge
    cropped = crop_to_preset(encode(frame, quality=90), "square")
    assert (cropped.width, cropped.height) == (1080, 1080)
    assert _dark_share(cropped.data) > 0.005  # the object is in the frame (a centred window misses it)


def test_the_window_follows_the_detail_down() -> None:
    frame = Image.new("RGB", (1000, 3000), (200, 190, 180))
    _checkerboard(frame, (300, 2700, 700, 2950))  # near the bottom, against the pull upward
    assert _dark_share(crop_to_preset(encode(frame, quality=90), "landscape").data) > 0.01


def test_a_featureless_frame_is_cropped_in_the_middle() -> None:
    ramp = Image.linear_gradient("L").rotate(90).resize((3000, 1000)).convert("RGB")  # dark left, light right
    cropped = Image.open(io.BytesIO(crop_to_preset(encode(ramp, quality=95), "square").data)).convert("L")
    middle = ramp.convert("L").getpixel((1500, 500))
    assert abs(cropped.getpixel((cropped.width // 2, cropped.height // 2)) - middle) <= 10


def _tagged(frame: Image.Image, orientation: int) -> tuple[bytes, bytes]:
    """`frame` as a JPEG tagged with `orientation`, and the same decoded pixels turned upright by
    Pillow, untagged (PNG)."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    tagged = encode(frame, quality=92, exif=exif.tobytes())
    return tagged, encode(ImageOps.exif_transpose(Image.open(io.BytesIO(tagged))), "PNG")


def _same_crop(got: Cropped, want: Cropped) -> None:
    assert (got.width, got.height) == (want.width, want.height)
    got_image, want_image = (Image.open(io.BytesIO(c.data)) for c in (got, want))
    assert "exif" not in got_image.info and "icc_profile" not in got_image.info
    assert _mean_abs_difference(got_image, want_image) < 4


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_is_applied_then_stripped(orientation: int) -> None:
    # A sliding window (900x500 has slack for both presets): chosen and cut in upright terms.
    frame = photo(900, 500)
    _checkerboard(frame, (45, 50, 180, 166))
    tagged, upright = _tagged(frame, orientation)
    for preset in ("portrait", "landscape"):
        _same_crop(crop_to_preset(tagged, preset), crop_to_preset(upright, preset))
    # A large JPEG decoded reduced, already 4:5 once upright: the whole frame, turned.
    turned = orientation >= 5
    tagged, upright = _tagged(photo(*((4050, 3240) if turned else (3240, 4050))), orientation)
    got = crop_to_preset(tagged, "portrait")
    assert (got.width, got.height) == (1080, 1350)
    _same_crop(got, crop_to_preset(upright, "portrait"))


def _mean_abs_difference(a: Image.Image, b: Image.Image) -> float:
    from PIL import ImageChops, ImageStat

    return sum(ImageStat.Stat(ImageChops.difference(a.convert("L"), b.convert("L"))).mean)


def test_transparency_is_flattened_onto_white() -> None:
    frame = Image.new("RGBA", (500, 500), (0, 0, 0, 0))
    ImageDraw.Draw(frame).rectangle((200, 200, 300, 300), fill=(200, 0, 0, 255))
    for variant in (frame, frame.convert("LA"), frame.convert("P")):
        cropped = crop_to_preset(encode(variant, "PNG"), "square")
        decoded = Image.open(io.BytesIO(cropped.data))
        assert (decoded.format, decoded.mode) == ("JPEG", "RGB")
        assert min(decoded.getpixel((5, 5))) >= 245  # white, not black


def test_sixteen_bit_grayscale_and_cmyk_become_rgb() -> None:
    wide = Image.linear_gradient("L").resize((300, 200)).convert("I").point(lambda v: v * 257).convert("I;16")
    for data in (encode(wide, "PNG"), encode(photo(300, 200).convert("CMYK"), quality=90)):
        decoded = Image.open(io.BytesIO(crop_to_preset(data, "square").data))
        assert (decoded.mode, decoded.size) == ("RGB", (200, 200))


def test_an_unusable_icc_profile_is_dropped() -> None:
    for profile in (b"not a profile", _srgb_profile()):
        data = encode(photo(400, 300), quality=90, icc_profile=profile)
        decoded = Image.open(io.BytesIO(crop_to_preset(data, "square").data))
        assert "icc_profile" not in decoded.info and decoded.size == (300, 300)


def _srgb_profile() -> bytes:
    from PIL import ImageCms

    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares its size and holds no pixels: Pillow reads the size from the header."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


def test_decompression_bombs_are_refused() -> None:
    with pytest.raises(ImageRefused) as caught:
        crop_to_preset(_png_header_only(40000, 40000), "square")
    assert caught.value.code == "NOT_AN_IMAGE"
    with pytest.raises(ImageRefused) as caught:
        crop_to_preset(source((640, 480)), "square", max_pixels=640 * 480 - 1)
    assert caught.value.code == "NOT_AN_IMAGE"


@pytest.mark.parametrize(
    "data", [b"", b"<html>", GIF, JPEG[: len(JPEG) // 3], b"\x89PNG\r\n\x1a\n" + b"\x00" * 64], ids=str
)
def test_undecodable_data_is_refused(data: bytes) -> None:
    with pytest.raises(ImageRefused) as caught:
        crop_to_preset(data, "square")
    assert caught.value.code == "NOT_AN_IMAGE"


def test_an_unknown_preset_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="square"):
        crop_to_preset(JPEG, "banner")


# Run in a fresh process: the peak resident memory (VmHWM, reset through clear_refs just
# before) that decoding adds, in KiB.
_PEAK_RSS = """
import io, sys
from PIL import Image
from core.stock.images import crop_to_preset

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])

data = open(sys.argv[1], "rb").read()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status("VmRSS")
if sys.argv[2] == "crop":
    crop_to_preset(data, "square")
else:
    Image.open(io.BytesIO(data)).load()
print(status("VmHWM") - before)
"""


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's peak-RSS reset")
def test_large_jpegs_are_decoded_reduced(tmp_path: Path) -> None:
    """A 6000x4000 JPEG cropped to a 1080 square decodes at half scale (3000x2000): the peak
    memory it adds is well under what a plain full decode adds (~94 MB against ~37 MB)."""
    path = tmp_path / "big.jpg"
    path.write_bytes(encode(photo(6000, 4000), quality=85))
    root = Path(__file__).resolve().parents[3]

    def peak_kib(mode: str) -> int:
        run = subprocess.run(
            [sys.executable, "-c", _PEAK_RSS, str(path), mode], cwd=root, capture_output=True, text=True, check=True
        )
        return int(run.stdout.strip())

    full, cropped = peak_kib("full"), peak_kib("crop")
    assert full > 90_000  # 24 Mpx at 4 bytes each
    assert cropped < full / 2, (cropped, full)
