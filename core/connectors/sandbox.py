"""The sandbox API (HERALD_PUBLISH_MODE=sandbox, the embedded default): a connector's requests
are recorded, not sent, and answered by the connector's own `sandbox_answer`. Ids are
deterministic per delivery key (`SandboxIds`), and the delivery answered carries the ids the
connector read from those answers, so a thread item or a first comment delivered after it names
them exactly as it would name a live post's."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from core.connectors.base import (
    Connector,
    Delivery,
    DeliveryError,
    OutgoingPost,
    PlatformRequest,
    PlatformResponse,
    SandboxIds,
)


class SandboxAPI:
    live = False

    def __init__(self, connector: Connector, post: OutgoingPost) -> None:
        self.connector = connector
        self.delivery = connector.sandbox_delivery(post)
        self.ids = SandboxIds(self.delivery.platform_post_id, post.delivery_key)
        self.state: dict[str, Any] = {}
        self.requests: list[dict[str, Any]] = []

    async def send(self, request: PlatformRequest, *, expect: Collection[int] = (200, 201)) -> PlatformResponse:
        self.requests.append(request.as_dict())
        response = self.connector.sandbox_answer(request, self.ids)
        if response.status not in expect:  # a connector whose sandbox disagrees with itself
            raise DeliveryError(
                self.connector.classify(response.status, response.body),
                f"sandbox answer {response.status} to {request.method} {request.url}",
                status=response.status,
            )
        return response

    async def save(self, **progress: Any) -> None:
        for key, value in progress.items():
            if value is None:
                self.state.pop(key, None)
            else:
                self.state[key] = value

    async def wait(self, seconds: float) -> None:
        return None

    async def fetch(self, url: str, *, max_bytes: int) -> PlatformResponse | None:
        return None  # the sandbox reaches nothing outside the machine


async def sandbox_delivery(connector: Connector, post: OutgoingPost) -> tuple[Delivery, list[dict[str, Any]]]:
    """Runs the connector against the sandbox: the delivery it answers with and the requests a
    live delivery would have sent, in order. A thread item (`post.reply_to` set) is delivered
    the same way; its requests name the ids the sandbox answered for the posts it replies to."""
    api = SandboxAPI(connector, post)
    delivered = await connector.deliver(post, api)
    return connector.sandboxed(post, delivered), api.requests


async def sandbox_comment(connector: Connector, comment: OutgoingPost) -> tuple[Delivery, list[dict[str, Any]]]:
    """A first comment (`comment.reply_to` set) run against the sandbox like a post: the comment
    the connector answers with and the requests a live delivery would have sent."""
    api = SandboxAPI(connector, comment)
    delivered = await connector.deliver_comment(comment, api)
    return connector.sandboxed(comment, delivered), api.requests
