"""Helpers of the live publishing tests: a live-mode stack of a module's own with its workers and
organization, connecting an account the way a user's browser does, uploading media, waiting for a
post to settle (the sandbox's tests wait with `settled` too), reading a profile's stored row."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
from PIL import Image
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from core import admin
from core.db.models import profiles, webhook_events
from harness.fakes.platforms.oauth import OAuthPlatform
from harness.stack import Stack, stack_on_own_database

RETURN_TO = "https://app.example/done"
SETTLED = ("published", "partially_published", "failed", "canceled")
# What every live stack of the tests runs with; a module adds its platforms' apps and overrides.
LIVE_ENV = {
    "HERALD_PUBLISH_MODE": "live",
    "HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES": "true",  # fakes and the PDS listen on loopback
    "HERALD_CONNECT_RETURN_ORIGINS": "https://app.example",  # RETURN_TO's: the REST caller's app
    "HERALD_PLATFORM_TIMEOUT_SECONDS": "2",  # a hung request fails after this
    "HERALD_PUBLISH_POLL_SECONDS": "0.05",
    "HERALD_PUBLISH_BACKOFF_SECONDS": "0.3",
    "HERALD_PUBLISH_LEASE_SECONDS": "20",
    "HERALD_LOW_CREDIT_THRESHOLD": "0",
    "HERALD_LOG_LEVEL": "INFO",  # what the no-token-in-logs checks read
}


@contextmanager
def live_stack(
    backend: str,
    workdir: Path,
    overrides: Mapping[str, str] | None = None,
    *,
    fakes: Sequence[OAuthPlatform] = (),
    **env: str,
) -> Iterator[Stack]:
    """A live-mode stack on a database of its own: each of `fakes` is the operator's app on its
    platform and receives the platform's hosts; `overrides` sends other hosts elsewhere."""
    apps = {key: value for fake in fakes for key, value in fake.app_settings().items()}
    extra = {**LIVE_ENV, **apps, **env}
    hosts = {host: fake.base_url for fake in fakes for host in fake.hosts} | dict(overrides or {})
    if hosts:
        extra["HERALD_PLATFORM_HOST_OVERRIDES"] = json.dumps(hosts)
    with stack_on_own_database(backend, workdir, **extra) as stack:
        yield stack


@contextmanager
def workers(stack: Stack, name: str, count: int = 1) -> Iterator[list[subprocess.Popen]]:
    """`count` `herald worker` processes, stopped at the end."""
    procs = [stack.spawn("core", "worker", log_name=f"worker-{name}-{n}") for n in range(count)]
    try:
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            proc.wait(timeout=10)


@dataclass(frozen=True)
class Live:
    """The organization a module publishes for: its API key's header, its id, the database, the
    stack it lives on."""

    auth: dict[str, str]
    org_id: str
    engine: AsyncEngine
    stack: Stack


@asynccontextmanager
async def live_org(stack: Stack, name: str, credits: int = 200) -> AsyncIterator[Live]:
    engine = create_async_engine(stack.database_url)
    try:
        out = await admin.bootstrap(
            engine,
            email=f"{name}@example.com",
            password="correct horse battery",
            org=name,
            credits_=credits,
            plan="active",
        )
        yield Live({"Authorization": f"Bearer {out['api_key']}"}, out["org_id"], engine, stack)
    finally:
        await engine.dispose()


@asynccontextmanager
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as api:
        yield api


def marker() -> str:
    """A run-unique word to put in a post's text and find it by at the fake."""
    return uuid.uuid4().hex[:10]


@dataclass(frozen=True)
class Connected:
    """Where the browser was sent at the end of a connection, and what it said."""

    location: str
    query: dict[str, str]

    @property
    def slug(self) -> str:
        return self.query["profile"]


async def connect(api: httpx.AsyncClient, auth: dict[str, str], **body: Any) -> Connected:
    """POST /v1/profiles:connect, then the browser: the platform's page (which approves at once)
    redirects to Herald's callback, which redirects to `return_to`."""
    started = await api.post("/v1/profiles:connect", json={"return_to": RETURN_TO, **body}, headers=auth)
    assert started.status_code == 200, started.text
    async with httpx.AsyncClient(timeout=15) as browser:  # a browser: no API key, no session
        at_platform = await browser.get(started.json()["authorization_url"])
        assert at_platform.status_code == 302, at_platform.text
        callback = at_platform.headers["location"]
        assert callback.startswith(f"{api.base_url}/connect/callback?"), callback
        back = await browser.get(callback)
    assert back.status_code == 303, back.text
    location = back.headers["location"]
    query = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
    return Connected(location, query)


def png(width: int = 64, height: int = 48, color: tuple[int, int, int] = (10, 120, 200)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, "PNG")
    return buf.getvalue()


async def upload(api: httpx.AsyncClient, auth: dict[str, str], data: bytes, mime: str, name: str) -> str:
    response = await api.post("/v1/media", files={"file": (name, data, mime)}, headers=auth)
    assert response.status_code == 201, response.text
    return response.json()["media_id"]


async def create_post(
    api: httpx.AsyncClient, auth: dict[str, str], content: str, profiles_: list[str], media_ids: list[str] = ()
) -> list[dict]:
    body: dict[str, Any] = {"content": content, "profiles": profiles_}
    if media_ids:
        body["media_ids"] = list(media_ids)
    response = await api.post("/v1/posts", json=body, headers=auth)
    assert response.status_code == 201, response.text
    return response.json()["posts"]


async def settled(api: httpx.AsyncClient, auth: dict[str, str], post_id: str, within: float = 30) -> dict:
    """The post once it is published, failed or canceled (polled; fails after `within` seconds)."""
    deadline = time.monotonic() + within
    while True:
        post = (await api.get(f"/v1/posts/{post_id}", headers=auth)).json()
        if post["status"] in SETTLED:
            return post
        if time.monotonic() > deadline:
            raise AssertionError(f"post {post_id} did not settle within {within}s: {post}")
        await asyncio.sleep(0.1)


async def profile(api: httpx.AsyncClient, auth: dict[str, str], slug: str) -> dict:
    found = [p for p in (await api.get("/v1/profiles", headers=auth)).json()["profiles"] if p["slug"] == slug]
    assert len(found) == 1, found
    return found[0]


async def profile_row(engine: AsyncEngine, org_id: str, slug: str) -> Any:
    async with engine.connect() as conn:
        return (await conn.execute(select(profiles).where(profiles.c.org_id == org_id, profiles.c.slug == slug))).one()


async def profile_events(live: Live, slug: str) -> list[tuple[str, str]]:
    """The profile's webhook events written so far, oldest first: (type, the connection status
    its `data` carries). Each `data` is the profile as GET /v1/profiles/{slug} renders it."""
    async with live.engine.connect() as conn:
        rows = await conn.execute(
            select(webhook_events.c.body)
            .where(webhook_events.c.org_id == live.org_id, webhook_events.c.type.like("profile.%"))
            .order_by(webhook_events.c.created_at, webhook_events.c.id)
        )
        events = [json.loads(r.body) for r in rows]
    return [(e["type"], e["data"]["connection"]["status"]) for e in events if e["data"]["slug"] == slug]


async def balance(api: httpx.AsyncClient, auth: dict[str, str]) -> int:
    return (await api.get("/v1/credits", headers=auth)).json()["balance"]


def outcome(post: dict) -> str:
    """A post's outcome in one line, for assertion messages."""
    fields = ("status", "attempts", "failure_reason", "failure_detail", "platform_error", "platform_post_id")
    return " | ".join(f"{k}={post.get(k)!r}" for k in fields)
