"""The demo stock provider: one local HTTP server speaking both the Pexels and the Unsplash API."""

from __future__ import annotations

import contextlib
import logging
import re
import shutil
import threading
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

from core.stock.demo_api import API_FAULTS, Answer, DemoAPI
from core.stock.demo_catalogue import (
    BY_PEXELS_ID,
    BY_UNSPLASH_ID,
    BY_UNSPLASH_SLUG,
    MIME_TYPES,
    DemoPhoto,
    ImageStore,
    Sizing,
)

log = logging.getLogger(__name__)

DEMO_PEXELS_KEY = "demo-stock-a-key"
DEMO_UNSPLASH_KEY = "demo-stock-b-key"
ApiName = Literal["pexels", "unsplash"]
ApiFault = Literal["429", "403-rate-limit", "500", "timeout", "not-json", "malformed", "malformed-element"]
ImageFault = Literal["not-an-image", "foreign-host", "500", "slow"]
IMAGE_FAULTS = ("not-an-image", "foreign-host", "500", "slow")
_PEXELS_IMAGE = re.compile(r"/pexels/photos/([0-9]+)/pexels-photo-([0-9]+)\.jpeg")
_UNSPLASH_IMAGE = re.compile(r"/unsplash-images/(photo-[0-9]+-[0-9a-f]+)")
_HOST_HEADER = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # bursts of parallel fetches: the default 5 drops connections


@dataclass(frozen=True, slots=True)
class DemoRequest:
    """One request the server received: which API and endpoint, its query, whether its auth
    was right, what it was answered."""

    api: str  # pexels, unsplash or image
    endpoint: str  # search, photo, download, image or unknown
    path: str
    query: dict[str, str]
    authorized: bool
    accept_version: str | None
    status: int


@dataclass
class _Fault:
    api: str
    kind: str
    endpoint: str | None
    seconds: float
    times: int


@dataclass
class _State:
    lock: threading.Lock = field(default_factory=threading.Lock)
    api_faults: list[_Fault] = field(default_factory=list)
    image_faults: dict[str, tuple[str, float]] = field(default_factory=dict)
    downloads: Counter[str] = field(default_factory=Counter)
    images: Counter[str] = field(default_factory=Counter)
    requests: list[DemoRequest] = field(default_factory=list)


class DemoStockServer:
    """The server on `host:port` (0: any free port), its catalogue drawn under `data_dir`.
    `herald serve` starts one so the stock feature works with no keys (`herald stock-demo` runs
    it alone, `run_demo_stock`); tests drive the real provider clients against it. `start()`/
    `stop()` run it in a thread (or use it as a context manager); `serve_forever()` blocks.

    Routes, in each API's documented shapes (docs/platforms.md, "Pexels (stock_a)" and
    "Unsplash (stock_b)"):
    - Pexels (`pexels_base_url` = `http://host:port`, header `Authorization: <key>`):
      `GET /v1/search`, `GET /v1/photos/{id}`; images at
      `/pexels/photos/{id}/pexels-photo-{id}.jpeg`. 2xx answers carry
      `X-Ratelimit-Limit/-Remaining/-Reset`; other answers do not.
    - Unsplash (`unsplash_base_url` = `http://host:port/unsplash`, `Authorization: Client-ID
      <key>`): `GET /search/photos`, `GET /photos/{id}`, `GET /photos/{id}/download` (download
      tracking, counted per photo); images at `/unsplash-images/photo-…` (`urls.raw` carries
      `ixid` and `ixlib`).
    - Images take the imgix parameters both CDNs use (`w, h, dpr, fit=crop, crop, fm, q`) and
      need no auth. Links are built from the request's Host header, so they work under whatever
      name the server is reached by; `image_hosts` is the bound `host:port` (a server listening
      on all interfaces is reached by a name the operator gives the clients as image hosts).

    Switches for tests (thread-safe): `fail_next` (the next API answers: 429, 403 "Rate Limit
    Exceeded", 500, a timeout, not JSON, a malformed envelope or element), `image_fault` (a
    photo's image is not an image, answers 500, trickles in slowly, or its URLs point at another
    host), `set_pexels_quota`, and the counters `download_count`, `image_count` and the log
    `requests`.
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        pexels_key: str = DEMO_PEXELS_KEY,
        unsplash_key: str = DEMO_UNSPLASH_KEY,
    ) -> None:
        self.store = ImageStore(data_dir)
        self.api = DemoAPI(pexels_key=pexels_key, unsplash_key=unsplash_key)
        self._state = _State()
        self._stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # else a small body waits for the headers' delayed ACK

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server._serve(self)

        self.httpd = _Server((host, port), Handler)
        self.host, self.port = host, self.httpd.server_address[1]
        self._thread: threading.Thread | None = None

    # --- addresses -----------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def pexels_base_url(self) -> str:
        return self.base_url

    @property
    def unsplash_base_url(self) -> str:
        return f"{self.base_url}/unsplash"

    @property
    def image_hosts(self) -> frozenset[str]:
        """Where the photos' images are, as the providers' `image_hosts` take it (`host:port`)."""
        return frozenset({self.base_url.removeprefix("http://")})

    # --- life ----------------------------------------------------------------------------------

    def start(self) -> DemoStockServer:
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="stock-demo", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def serve_forever(self) -> None:
        try:
            self.httpd.serve_forever()
        finally:
            self._stopping.set()
            self.httpd.server_close()

    def __enter__(self) -> DemoStockServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- switches and counters -----------------------------------------------------------------

    def fail_next(
        self,
        api: ApiName,
        kind: ApiFault,
        *,
        endpoint: Literal["search", "photo", "download"] | None = None,
        times: int = 1,
        seconds: float = 5.0,
    ) -> None:
        """The next `times` requests to `api` (to `endpoint` only, if given) fail as `kind`:
        `429`; `403-rate-limit` (403, text "Rate Limit Exceeded"); `500`; `timeout` (answered
        only after `seconds`, past the client's timeout); `not-json` (200 with an HTML page);
        `malformed` (200 JSON without the documented envelope); `malformed-element` (200, the
        envelope right but its first photo broken)."""
        if api not in ("pexels", "unsplash") or kind not in API_FAULTS:
            raise ValueError(f"no such API fault: {api} {kind}")
        with self._state.lock:
            self._state.api_faults.append(_Fault(api, kind, endpoint, seconds, times))

    def image_fault(self, source_ref: str, kind: ImageFault, *, seconds: float = 5.0) -> None:
        """Until `clear_faults`, photo `source_ref` (a Pexels or an Unsplash id): `not-an-image`
        (an HTML body sent as image/jpeg), `500`, `slow` (the body trickles in over `seconds`),
        or `foreign-host` (its `src`/`urls` name another host: `localhost` when reached by IP,
        else 127.0.0.1, same port, so a client that fetched them anyway would be seen here)."""
        if kind not in IMAGE_FAULTS:
            raise ValueError(f"no such image fault: {kind}")
        if _photo(source_ref) is None:
            raise KeyError(f"the demo catalogue has no photo {source_ref!r}")
        with self._state.lock:
            self._state.image_faults[source_ref] = (kind, seconds)

    def clear_faults(self) -> None:
        with self._state.lock:
            self._state.api_faults.clear()
            self._state.image_faults.clear()

    def set_pexels_quota(self, *, remaining: int, reset: int) -> None:
        """What the next Pexels 2xx answers say of the monthly quota (`X-Ratelimit-*`)."""
        self.api.set_pexels_quota(remaining, reset)

    def download_count(self, unsplash_id: str) -> int:
        """Authenticated download-tracking hits of an Unsplash photo."""
        with self._state.lock:
            return self._state.downloads[unsplash_id]

    def image_count(self, source_ref: str) -> int:
        """Image requests for a photo (any size), by its Pexels or Unsplash id."""
        with self._state.lock:
            return self._state.images[source_ref]

    @property
    def requests(self) -> list[DemoRequest]:
        with self._state.lock:
            return list(self._state.requests)

    def prepare(self) -> None:
        """Draws every original now rather than at first request."""
        self.store.prepare()

    # --- serving -------------------------------------------------------------------------------

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        split = urlsplit(handler.path)
        path, query = split.path, dict(parse_qsl(split.query, keep_blank_values=True))
        host = handler.headers.get("Host", "")
        origin = f"http://{host}" if _HOST_HEADER.fullmatch(host) else self.base_url
        try:
            if path.startswith(("/pexels/", "/unsplash-images/")):
                self._image(handler, path, query)
                return
            api, endpoint = self.api.route(path)
            authorized = self.api.authorized(api, handler.headers.get("Authorization", ""))
            fault = self._take_fault(api, endpoint) if authorized else None
            if fault is not None and fault.kind == "timeout":
                self._stopping.wait(fault.seconds)  # answered properly, long after the client gave up
            answer = self.api.answer(
                api,
                endpoint,
                path,
                query,
                origin,
                authorized=authorized,
                foreign=self._foreign_refs(),
                fault=fault.kind if fault else None,
            )
            if endpoint == "download" and authorized and answer.status == 200:
                with self._state.lock:
                    self._state.downloads[path.split("/")[-2]] += 1
            accept = handler.headers.get("Accept-Version")
            self._record(DemoRequest(api, endpoint, path, query, authorized, accept, answer.status))
            _send(handler, answer)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout it was meant to hit)

    def _take_fault(self, api: str, endpoint: str) -> _Fault | None:
        with self._state.lock:
            for fault in self._state.api_faults:
                if fault.api == api and fault.endpoint in (None, endpoint):
                    fault.times -= 1
                    if fault.times <= 0:
                        self._state.api_faults.remove(fault)
                    return fault
        return None

    def _image(self, handler: BaseHTTPRequestHandler, path: str, query: dict[str, str]) -> None:
        photo, ref = _image_photo(path)
        if photo is None:
            self._record(DemoRequest("image", "image", path, query, True, None, 404))
            _send(handler, Answer(404, b"Not Found", "text/plain"))
            return
        with self._state.lock:
            self._state.images[ref] += 1
            fault, seconds = self._state.image_faults.get(ref, ("", 0.0))
        answer, sizing = _image_answer(fault, query)
        self._record(DemoRequest("image", "image", path, query, True, None, answer.status if answer else 200))
        if answer is not None:
            _send(handler, answer)
            return
        assert sizing is not None
        file = self.store.rendition(photo, sizing)
        size = file.stat().st_size
        handler.send_response(200)
        handler.send_header("Content-Type", MIME_TYPES[sizing.extension])
        handler.send_header("Content-Length", str(size))
        handler.send_header("Cache-Control", "public, max-age=31536000")
        handler.end_headers()
        with file.open("rb") as body:
            if fault == "slow":
                chunk = max(1, size // 20)
                while (data := body.read(chunk)) and not self._stopping.wait(seconds / 20):
                    handler.wfile.write(data)
            else:
                shutil.copyfileobj(body, handler.wfile, 256 * 1024)

    def _foreign_refs(self) -> frozenset[str]:
        with self._state.lock:
            return frozenset(ref for ref, (kind, _) in self._state.image_faults.items() if kind == "foreign-host")

    def _record(self, request: DemoRequest) -> None:
        with self._state.lock:
            self._state.requests.append(request)
            del self._state.requests[:-1000]  # a long-lived demo keeps only the latest


def _photo(source_ref: str) -> DemoPhoto | None:
    return BY_PEXELS_ID.get(source_ref) or BY_UNSPLASH_ID.get(source_ref)


def _image_photo(path: str) -> tuple[DemoPhoto | None, str]:
    if (match := _PEXELS_IMAGE.fullmatch(path)) and match[1] == match[2]:
        return BY_PEXELS_ID.get(match[1]), match[1]
    if match := _UNSPLASH_IMAGE.fullmatch(path):
        photo = BY_UNSPLASH_SLUG.get(match[1])
        return photo, photo.unsplash_id if photo else ""
    return None, ""


def _image_answer(fault: str, query: dict[str, str]) -> tuple[Answer | None, Sizing | None]:
    """What an image request is answered instead of the image (a fault, bad parameters), or how
    the image is to be sized."""
    if fault == "500":
        return Answer(500, b"<html><body>Internal Server Error</body></html>", "text/html"), None
    if fault == "not-an-image":
        return Answer(200, b"<!DOCTYPE html><html><body>Not an image</body></html>" * 40, "image/jpeg"), None
    try:
        return None, Sizing.from_query(query)
    except ValueError as error:
        return Answer(400, str(error).encode(), "text/plain"), None


def _send(handler: BaseHTTPRequestHandler, answer: Answer) -> None:
    handler.send_response(answer.status)
    handler.send_header("Content-Type", answer.content_type)
    handler.send_header("Content-Length", str(len(answer.body)))
    for name, value in answer.headers.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(answer.body)


def run_demo_stock(listen: str, data_dir: Path) -> None:
    """Serves the demo provider on `listen` ("host:port") until interrupted, drawing the
    catalogue in the background meanwhile (`herald stock-demo`)."""
    host, _, port = listen.rpartition(":")
    server = DemoStockServer(data_dir, host=host.strip("[]") or "127.0.0.1", port=int(port))
    threading.Thread(target=server.prepare, name="stock-demo-prepare", daemon=True).start()
    log.info(
        "demo stock provider on %s: stock_a (Pexels) key %r at %s, stock_b (Unsplash) key %r at %s",
        server.base_url,
        DEMO_PEXELS_KEY,
        server.pexels_base_url,
        DEMO_UNSPLASH_KEY,
        server.unsplash_base_url,
    )
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
