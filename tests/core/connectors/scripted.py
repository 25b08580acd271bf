"""A PlatformAPI for connector unit tests: scripted answers, every request recorded.

Answers come from `script` (method, URL regex, answer), each used once, first match first;
a request no entry matches gets the connector's own sandbox answer, so a test scripts only
what it is about (an error, a processing state, a lookup). Like the live API, an answer outside
`expect` raises the connector's classification, the request creating the post saves
`create_sent_at` first, and progress is kept in `state`."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from core.connectors.base import (
    Connector,
    DeliveryError,
    OutgoingPost,
    PlatformRequest,
    PlatformResponse,
    SandboxIds,
    answer,
)


class ScriptedAPI:
    live = True

    def __init__(
        self,
        connector: Connector,
        post: OutgoingPost,
        script: list[tuple[str, str, PlatformResponse]] | None = None,
        *,
        state: dict[str, Any] | None = None,
        pages: dict[str, PlatformResponse] | None = None,
    ) -> None:
        self.connector = connector
        self.script = list(script or [])
        self.state: dict[str, Any] = dict(state or {})
        self.pages = dict(pages or {})
        self.ids = SandboxIds(connector.sandbox_post_id(post), post.delivery_key)
        self.requests: list[PlatformRequest] = []
        self.saves: list[dict[str, Any]] = []
        self.waited = 0.0

    async def send(self, request: PlatformRequest, *, expect: Collection[int] = (200, 201)) -> PlatformResponse:
        if request.creates_post:
            await self.save(create_sent_at="2026-11-24T12:00:00+00:00")
        self.requests.append(request)
        response = self._answer(request)
        if response.status not in expect:
            raise DeliveryError(
                self.connector.classify(response.status, response.body),
                f"{response.status} from {request.method} {request.url}",
                status=response.status,
            )
        return response

    async def save(self, **progress: Any) -> None:
        for key, value in progress.items():
            if value is None:
                self.state.pop(key, None)
            else:
                self.state[key] = value
        self.saves.append(dict(self.state))

    async def wait(self, seconds: float) -> None:
        self.waited += seconds

    async def fetch(self, url: str, *, max_bytes: int) -> PlatformResponse | None:
        page = self.pages.get(url)
        if page is None or len(page.body) > max_bytes:
            return None
        return page

    def _answer(self, request: PlatformRequest) -> PlatformResponse:
        for index, (method, pattern, response) in enumerate(self.script):
            if method == request.method and re.search(pattern, request.url):
                del self.script[index]
                return response
        return self.connector.sandbox_answer(request, self.ids)

    def only(self, method: str, pattern: str) -> PlatformRequest:
        found = [r for r in self.requests if r.method == method and re.search(pattern, r.url)]
        assert len(found) == 1, [f"{r.method} {r.url}" for r in self.requests]
        return found[0]


def reply(status: int, body: Any = None, **headers: str) -> PlatformResponse:
    return answer(status, body, headers)
