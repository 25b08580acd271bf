"""Connectors run live (core/connectors/live.py, real HTTP) against the fake platforms
(harness/fakes/platforms) the way the publisher runs them: one LiveAPI per delivery key, an attempt
that may have sent its creating request reconciles before anything is sent again, a first
comment goes through `deliver_comment`. Platform hosts are sent to the fake by the transport's
host overrides; a user-named host (a Mastodon instance) is the fake's own loopback URL."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from core.connectors.base import Connector, Delivery, DeliveryError, ErrorClass, OutgoingPost
from core.connectors.live import LiveAPI
from core.connectors.transport import PlatformEndpoints
from core.storage.local import LocalStorage


class Token:
    def __init__(self, value: str) -> None:
        self.value = value

    def authorization(self, scheme: str) -> str:
        return f"{scheme} {self.value}"

    async def refresh(self) -> None:
        raise DeliveryError(ErrorClass.NEEDS_REAUTH, "these tests do not refresh tokens")


class Progress:
    async def save(self, state: Mapping[str, Any]) -> None:
        pass

    async def keepalive(self) -> None:
        pass


class Runner:
    """Delivers posts, thread items and comments of one account live; `state` keeps each delivery
    key's progress across attempts, as the publisher's outbox does."""

    def __init__(
        self,
        connector: Connector,
        token: str,
        overrides: Mapping[str, str] | None = None,
        *,
        storage: LocalStorage | None = None,
        timeout: float = 5.0,
    ) -> None:
        self.connector = connector
        self.token = Token(token)
        self.storage = storage
        self.client = PlatformEndpoints(overrides or {}, allow_private=True).client(timeout=timeout)
        self.state: dict[str, dict[str, Any]] = {}
        self.requests: dict[str, list[dict[str, Any]]] = {}

    async def __aenter__(self) -> Runner:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.aclose()

    async def deliver(self, post: OutgoingPost, *, comment: bool = False) -> Delivery:
        """One attempt at the delivery of `post` (its progress kept under its delivery key)."""
        api = LiveAPI(self.client, self.connector, self.token, self._read, Progress(), {})
        api.state = self.state.setdefault(post.delivery_key, {})
        self.requests[post.delivery_key] = api.requests
        delivery = None
        if "create_sent_at" in api.state:
            delivery = await self.connector.reconcile(post, api)
            if delivery is None:
                await api.save(create_sent_at=None)
        if delivery is None:
            send = self.connector.deliver_comment if comment else self.connector.deliver
            delivery = await send(post, api)
        return delivery

    def _read(self, key: str, start: int, end: int | None, generation: int | None) -> Any:
        assert self.storage is not None, "this runner has no storage to read media from"
        return self.storage.read(key, start=start, end=end, generation=generation)


@contextmanager
def web_page(body: bytes, content_type: str) -> Iterator[str]:
    """A URL on loopback that answers `body` (media Meta fetches from our storage's URL)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/media"
    finally:
        server.shutdown()
        server.server_close()
