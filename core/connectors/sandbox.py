"""The sandbox API (HERALD_PUBLISH_MODE=sandbox, the embedded default): a connector's requests
are recorded, not sent, and answered by the connector's own `sandbox_answer`. Ids are
deterministic per delivery key (`SandboxIds`), and the delivery answered carries the ids the
connector read from those answers, so a thread item or a first comment delivered after it names
them exactly as it would name a live post's. Its URL is the one the publisher gives the run:
Herald's page of the post, at that part's outbox entry, since nothing is on the platform
(contract/post_links.py; docs/posts.md, "Sandbox links")."""

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

    def __init__(self, connector: Connector, post: OutgoingPost, page: str = "") -> None:
        self.connector = connector
        self.ids = SandboxIds(connector.sandbox_post_id(post), post.delivery_key, page)
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


async def sandbox_delivery(
    connector: Connector, post: OutgoingPost, page: str
) -> tuple[Delivery, list[dict[str, Any]]]:
    """Runs the connector against the sandbox: the delivery it answers with (the ids it read from
    the sandbox's answers, at `page`, Herald's page of the delivery) and the requests a live
    delivery would have sent, in order. A thread item (`post.reply_to` set) is delivered the same
    way; its requests name the ids the sandbox answered for the posts it replies to."""
    api = SandboxAPI(connector, post, page)
    delivered = await connector.deliver(post, api)
    return at_page(delivered, page), api.requests


async def sandbox_comment(
    connector: Connector, comment: OutgoingPost, page: str
) -> tuple[Delivery, list[dict[str, Any]]]:
    """A first comment (`comment.reply_to` set) run against the sandbox like a post: the comment
    the connector answers with, at `page`, and the requests a live delivery would have sent."""
    api = SandboxAPI(connector, comment, page)
    delivered = await connector.deliver_comment(comment, api)
    return at_page(delivered, page), api.requests


def at_page(delivered: Delivery, page: str) -> Delivery:
    """What a sandbox run answers: the id (and cid) the connector read from the sandbox's
    answers, which is what a later thread item or comment names, and Herald's page as its URL
    (a connector's own URL would name a platform page that does not exist)."""
    return Delivery(delivered.platform_post_id, page, delivered.cid)
