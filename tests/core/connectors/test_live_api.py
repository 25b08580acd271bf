"""The live API (core/connectors/live.py) against a real HTTP server on loopback: the account's
token, one refresh on a dead token, Retry-After and rate-limit headers, the creating request's
mark, transport failures before and after sending, bodies streamed from real storage."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
import pytest

from core.connectors.base import DeliveryError, ErrorClass, MediaBytes, PlatformRequest
from core.connectors.live import LiveAPI
from core.connectors.transport import BlockedAddress, PlatformEndpoints
from core.connectors.x import XConnector
from core.settings import CoreSettings
from core.storage.local import LocalStorage
from tests.core.connectors.factories import video

Answer = Callable[[str, str, dict[str, str], bytes], tuple[int, dict[str, str], bytes]]


class Server:
    """Answers with `self.answer(method, path, headers, body)`; records every request."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        self.answer: Answer = lambda *_: (200, {}, b"{}")
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                server.requests.append((self.command, self.path, headers, body))
                status, extra, payload = server.answer(self.command, self.path, headers, body)
                try:
                    self.send_response(status)
                    for key, value in {"Content-Type": "application/json", **extra}.items():
                        self.send_header(key, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_PUT = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Token:
    def __init__(self, *, refusable: bool = False) -> None:
        self.value = "tok-1"
        self.refreshes = 0
        self.refusable = refusable

    def authorization(self, scheme: str) -> str:
        return f"{scheme} {self.value}"

    async def refresh(self) -> None:
        self.refreshes += 1
        if self.refusable:
            raise DeliveryError(ErrorClass.NEEDS_REAUTH, "refresh refused")
        self.value = f"tok-{self.refreshes + 1}"


class Progress:
    def __init__(self) -> None:
        self.saved: list[dict[str, Any]] = []
        self.keepalives = 0

    async def save(self, state: Any) -> None:
        self.saved.append(dict(state))

    async def keepalive(self) -> None:
        self.keepalives += 1


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


@pytest.fixture
def storage(tmp_path) -> LocalStorage:
    return LocalStorage(CoreSettings(data_dir=tmp_path))


def live(
    server: Server,
    storage: LocalStorage,
    token: Token | None = None,
    timeout: float = 5.0,
    max_response_bytes: int = 8 * 1024 * 1024,
    **state: Any,
):
    endpoints = PlatformEndpoints({"api.x.com": server.base}, max_response_bytes=max_response_bytes)
    client = endpoints.client(timeout=timeout)
    api = LiveAPI(
        client,
        XConnector(),
        token or Token(),
        lambda key, start, end, generation: storage.read(key, start=start, end=end, generation=generation),
        Progress(),
        state,
    )
    return api, client


def tweet(**kw: Any) -> PlatformRequest:
    return PlatformRequest("POST", "https://api.x.com/2/tweets", json={"text": "hi"}, **kw)


async def test_the_accounts_token_goes_in_the_header_and_the_host_is_rewritten(server, storage) -> None:
    api, client = live(server, storage)
    async with client:
        response = await api.send(tweet())
    method, path, headers, body = server.requests[0]
    assert (method, path, json.loads(body)) == ("POST", "/2/tweets", {"text": "hi"})
    assert headers["authorization"] == "Bearer tok-1"
    assert headers["host"] == server.base.removeprefix("http://")
    assert response.status == 200
    assert "tok-1" not in json.dumps(api.requests)


async def test_a_dead_token_is_refreshed_once_and_the_request_sent_again(server, storage) -> None:
    server.answer = lambda m, p, h, b: (
        (401, {}, b'{"title":"Unauthorized"}') if h["authorization"] == "Bearer tok-1" else (200, {}, b"{}")
    )
    token = Token()
    api, client = live(server, storage, token)
    async with client:
        await api.send(tweet())
    assert token.refreshes == 1
    assert [h["authorization"] for _, _, h, _ in server.requests] == ["Bearer tok-1", "Bearer tok-2"]


async def test_a_token_refused_after_its_refresh_needs_a_human(server, storage) -> None:
    server.answer = lambda *_: (401, {}, b'{"title":"Unauthorized"}')
    token = Token()
    api, client = live(server, storage, token)
    async with client:
        with pytest.raises(DeliveryError) as caught:
            await api.send(tweet())
    assert caught.value.error_class is ErrorClass.NEEDS_REAUTH and token.refreshes == 1 and len(server.requests) == 2


async def test_retry_after_and_an_exhausted_window_say_when_to_come_back(server, storage) -> None:
    reset = int(time.time()) + 900
    server.answer = lambda *_: (200, {"x-rate-limit-remaining": "0", "x-rate-limit-reset": str(reset)}, b"{}")
    api, client = live(server, storage)
    async with client:
        await api.send(PlatformRequest("GET", "https://api.x.com/2/users/me"))
        assert api.throttled_until is not None and int(api.throttled_until.timestamp()) == reset
        server.answer = lambda *_: (429, {"Retry-After": "1200"}, b'{"title":"Too Many Requests"}')
        with pytest.raises(DeliveryError) as caught:
            await api.send(tweet())
    assert caught.value.error_class is ErrorClass.RETRYABLE and caught.value.retry_after == 1200
    assert caught.value.status == 429


async def test_the_creating_request_is_marked_before_it_is_sent_and_unmarked_when_refused(server, storage) -> None:
    server.answer = lambda *_: (403, {}, b'{"detail":"You are not allowed to create a Tweet with duplicate content."}')
    api, client = live(server, storage)
    async with client:
        with pytest.raises(DeliveryError) as caught:
            await api.send(tweet(creates_post=True))
    saves = api.progress.saved
    assert "create_sent_at" in saves[0] and "create_sent_at" not in saves[-1]
    assert caught.value.error_class is ErrorClass.PERMANENT and "duplicate" in str(caught.value)


async def test_no_answer_after_sending_the_creating_request_is_uncertain(server, storage) -> None:
    def slow(*_: Any) -> tuple[int, dict[str, str], bytes]:
        time.sleep(1.5)
        return 201, {}, b'{"data":{"id":"1"}}'

    server.answer = slow
    api, client = live(server, storage, timeout=0.5)
    async with client:
        with pytest.raises(DeliveryError) as caught:
            await api.send(tweet(creates_post=True))
        assert caught.value.error_class is ErrorClass.UNCERTAIN
        assert "create_sent_at" in api.state  # the next attempt reconciles first
        with pytest.raises(DeliveryError) as upload:
            await api.send(PlatformRequest("POST", "https://api.x.com/2/media/upload", json={}))
    assert upload.value.error_class is ErrorClass.RETRYABLE  # not the creating request: just retried


async def test_nothing_listening_is_retryable_and_unmarks_the_creating_request(storage) -> None:
    dead = Server()
    dead.close()
    api, client = live(dead, storage)
    async with client:
        with pytest.raises(DeliveryError) as caught:
            await api.send(tweet(creates_post=True))
    assert caught.value.error_class is ErrorClass.RETRYABLE and "create_sent_at" not in api.state


async def test_multipart_and_raw_bodies_stream_exact_ranges_from_storage(server, storage) -> None:
    data = bytes(range(256)) * 40_000  # 10,240,000 bytes
    path = storage.path("org_a/med_v")
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    media = video(size_bytes=len(data), storage_key="org_a/med_v")
    api, client = live(server, storage)
    async with client:
        await api.send(
            PlatformRequest(
                "POST",
                "https://api.x.com/2/media/upload/1/append",
                multipart={"media": MediaBytes(media, 5_000_000, 10_000_000), "segment_index": "1"},
            )
        )
        await api.send(PlatformRequest("PUT", "https://api.x.com/upload", content=MediaBytes(media, 10)))
    _, _, headers, body = server.requests[0]
    boundary = headers["content-type"].split("boundary=")[1].encode()
    parts = body.split(b"--" + boundary)
    file_part = next(p for p in parts if b'name="media"' in p)
    payload = file_part.split(b"\r\n\r\n", 1)[1][: -len(b"\r\n")]
    assert hashlib.sha256(payload).digest() == hashlib.sha256(data[5_000_000:10_000_000]).digest()
    assert int(headers["content-length"]) == len(body)
    assert b'name="segment_index"\r\n\r\n1\r\n' in body
    _, _, headers, raw = server.requests[1]
    assert raw == data[10:] and int(headers["content-length"]) == len(data) - 10
    assert "bytes_of" in json.dumps(api.requests)  # the outbox describes the bytes, never holds them


async def test_hosts_users_name_cannot_reach_private_addresses() -> None:
    endpoints = PlatformEndpoints({})
    async with endpoints.client(timeout=2) as client:
        for url in ("http://127.0.0.1:9/", "http://localhost:9/", "http://10.1.2.3/", "http://[::1]:9/"):
            with pytest.raises(httpx2.ConnectError) as caught:
                await client.get(url)
            assert isinstance(caught.value, BlockedAddress), url


async def test_fetch_is_capped_and_never_fatal(server, storage) -> None:
    server.answer = lambda *_: (200, {"Content-Type": "text/html"}, b"<html>" + b"x" * 5000)
    api, client = live(server, storage)
    async with client:
        page = await api.fetch("https://api.x.com/page", max_bytes=10_000)
        assert page is not None and page.body.startswith(b"<html>") and page.header("content-type") == "text/html"
        assert await api.fetch("https://api.x.com/page", max_bytes=1000) is None
        server.answer = lambda *_: (404, {}, b"")
        assert await api.fetch("https://api.x.com/gone", max_bytes=1000) is None


async def test_an_answer_longer_than_the_cap_fails_the_attempt_unread(server, storage) -> None:
    """A host that answers without end (a user-named Mastodon instance or PDS can) costs at most
    the transport's cap: the request fails retryable (the creating one uncertain: it was sent)."""
    server.answer = lambda *_: (200, {}, b'{"data": "' + b"x" * 20_000 + b'"}')
    api, client = live(server, storage, max_response_bytes=10_000)
    async with client:
        with pytest.raises(DeliveryError) as caught:
            await api.send(PlatformRequest("GET", "https://api.x.com/2/users/me"))
        assert caught.value.error_class is ErrorClass.RETRYABLE
        with pytest.raises(DeliveryError) as caught:
            await api.send(tweet(creates_post=True), expect=(201,))
        assert caught.value.error_class is ErrorClass.UNCERTAIN
