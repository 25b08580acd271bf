"""Posts, media and accounts for connector unit tests."""

from __future__ import annotations

import importlib
import inspect
from datetime import UTC, datetime
from typing import Any

from contract.post_links import sandbox_url
from core.connectors.base import Account, Connector, Delivery, OutgoingMedia, OutgoingPost, ReplyTo
from core.connectors.sandbox import SandboxAPI, at_page
from tests.core.connectors.scripted import ScriptedAPI

ACCOUNTS = {
    "x": Account("acme-x", handle="acme", platform_user_id="2244994945"),
    "bluesky": Account(
        "acme-bsky", handle="acme.bsky.social", platform_user_id="did:plc:abc123", instance_url="https://pds.example"
    ),
    "mastodon": Account("acme-masto", handle="acme", platform_user_id="1", instance_url="https://fosstodon.org/"),
    "threads": Account("acme-threads", handle="acme", platform_user_id="1789"),
    "instagram": Account("acme-ig", handle="acme", platform_user_id="17841400000000000"),
    "tiktok": Account("acme-tt", handle="acme", platform_user_id="open-id"),
    "youtube": Account("acme-yt", handle="acme", platform_user_id="UC123"),
    "linkedin": Account("acme-li", handle="acme", platform_user_id="AbC-123"),
}
CREATED = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
# The base URL of the Herald a sandbox delivery links to (docs/posts.md, "Sandbox links").
HERALD = "https://herald.example"


def image(n: int = 1, **kw: Any) -> OutgoingMedia:
    fields: dict[str, Any] = {
        "media_id": f"med_{n}",
        "kind": "image",
        "mime_type": "image/jpeg",
        "size_bytes": 1000,
        "url": f"https://storage.example/m{n}.jpg?sig=s",
        "storage_key": f"org/med_{n}",
    }
    return OutgoingMedia(**(fields | kw))


def video(n: int = 9, **kw: Any) -> OutgoingMedia:
    fields: dict[str, Any] = {
        "kind": "video",
        "mime_type": "video/mp4",
        "size_bytes": 3000,
        "url": f"https://storage.example/v{n}.mp4?sig=s",
    }
    return image(n, **(fields | kw))


def post(key: str, content: str = "hi", media: tuple[OutgoingMedia, ...] = (), **kw: Any) -> OutgoingPost:
    fields: dict[str, Any] = {
        "post_id": "pst_1",
        "delivery_key": "dk_1",
        "connector": key,
        "content": content,
        "post_type": "post",
        "account": ACCOUNTS[key],
        "media": media,
        "created_at": CREATED,
    }
    return OutgoingPost(**(fields | kw))


def connector_for(key: str) -> Connector:
    """The connector of platform `key`, from its own module (so each module's tests run on their
    own; the registry has its own test)."""
    module = importlib.import_module(f"core.connectors.{key}")
    (cls,) = [
        c
        for _, c in inspect.getmembers(module, inspect.isclass)
        if issubclass(c, Connector) and c.__module__ == module.__name__
    ]
    return cls()


def reply_post(parent: Delivery, root: Delivery, key: str, content: str, delivery_key: str, **kw: Any) -> OutgoingPost:
    """A thread item or a first comment of `key` answering `parent` in the thread of `root`."""
    return post(key, content, delivery_key=delivery_key, reply_to=ReplyTo(parent, root), **kw)


def page_of(p: OutgoingPost, part: str = "post", position: int = 0) -> str:
    """Herald's page of a sandbox delivery of `p` (or of its part), the URL it answers."""
    return sandbox_url(HERALD, p.post_id, part, position)


async def sandboxed(p: OutgoingPost) -> SandboxAPI:
    """The sandbox run of a post: its recorded requests in `.requests`, its answer in `.delivery`
    (what `sandbox_delivery` answers: the ids the run read, at Herald's page of the post)."""
    connector = connector_for(p.connector)
    api = SandboxAPI(connector, p, page_of(p))
    api.delivery = at_page(await connector.deliver(p, api), page_of(p))
    return api


def scripted(p: OutgoingPost, script: list | None = None, **kw: Any) -> ScriptedAPI:
    return ScriptedAPI(connector_for(p.connector), p, script, **kw)


def calls(api: SandboxAPI | ScriptedAPI) -> list[tuple[str, str]]:
    """(method, URL) of every request, in order."""
    if isinstance(api, SandboxAPI):
        return [(r["method"], r["url"]) for r in api.requests]
    return [(r.method, r.url) for r in api.requests]
