"""What the benches put in a fresh database before they measure, and what they send: an
organization with its API key and profiles (made with the admin code, as `herald admin` does),
an OAuth access token from the real flow, a new post text per request and the check of what
`POST /v1/posts` answers, video bytes to upload.

Several benches send the same `POST /v1/posts` (bench.posts_create measures it beside its floor;
bench.mcp_create_post, bench.mcp_revisions, bench.envoy_cluster and bench.webhooks load the stack
with it), so its organization, its three profiles, its content and its check live here, once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

BENCH_EMAIL = "bench@example.com"  # the user of the organization "bench"
BENCH_PASSWORD = "bench-password-1"
# The organization of the POST /v1/posts benches: three profiles, three platforms.
POSTING_PROFILES = [("p-x", "x"), ("p-bsky", "bluesky"), ("p-li", "linkedin")]
SLUGS = [slug for slug, _ in POSTING_PROFILES]


async def seed_organization(
    database_url: str,
    *,
    org: str = "bench",
    profiles: Sequence[tuple[str, str]] = POSTING_PROFILES,
    tags: Mapping[str, list[str]] | None = None,
    credits: int = 1_000_000,
    email: str = "",
    password: str = BENCH_PASSWORD,
) -> dict[str, Any]:
    """A user (`email`, by default <org>@example.com) and an active organization with `credits`,
    an API key, and its profiles ((slug, platform) pairs; `tags` by slug). Returns what core.admin.bootstrap returns
    (`api_key`, `org_id`...)."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from core import admin

    engine = create_async_engine(database_url)
    try:
        boot = await admin.bootstrap(
            engine,
            email=email or f"{org}@example.com",
            password=password,
            org=org,
            credits_=credits,
            plan="active",
        )
        for slug, platform in profiles:
            await admin.add_profile(engine, org=org, slug=slug, platform=platform, tags=(tags or {}).get(slug, []))
    finally:
        await engine.dispose()
    return boot


async def confirmed_media(database_url: str, org_id: str, files: Sequence[tuple[str, int, int, int]]) -> list[str]:
    """Confirmed media of the organization, written into its table as a confirmed upload leaves
    them, one per (MIME type, size in bytes, width, height), named bench.<subtype>; no bytes are
    stored (the benches that use them only validate and preview posts). Their ids."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from core.db.models import media
    from core.db.types import utcnow
    from core.ids import new_id

    engine = create_async_engine(database_url)
    ids = [new_id("med") for _ in files]
    try:
        async with engine.begin() as conn:
            for media_id, (mime, size, width, height) in zip(ids, files, strict=True):
                kind, subtype = mime.split("/")
                await conn.execute(
                    media.insert().values(
                        id=media_id,
                        org_id=org_id,
                        kind=kind,
                        mime_type=mime,
                        size_bytes=size,
                        width=width,
                        height=height,
                        name=f"bench.{subtype}",
                        description="",
                        tags="",
                        status="confirmed",
                        content_hash=None,
                        storage_key=f"bench/{media_id}",
                        created_at=utcnow(),
                        confirmed_at=utcnow(),
                    )
                )
    finally:
        await engine.dispose()
    return ids


async def oauth_tokens(
    stack: Any, *, email: str = BENCH_EMAIL, password: str = BENCH_PASSWORD, refresh_families: int = 0
) -> dict[str, Any]:
    """An access token for the user through the real OAuth flow (sign-in, client registration,
    the consent page over HTTP, code exchange), the client's id, and `refresh_families` more
    grants' refresh tokens (each its own rotation family)."""
    import grpc
    import httpx

    from harness.oauth_flow import register, sign_in, tokens_for

    async with (
        httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http,
        grpc.aio.insecure_channel(stack.core_target) as channel,
    ):
        session = await sign_in(channel, email, password=password)
        client = await register(http)
        access = await tokens_for(http, session, client["client_id"])
        families = [
            (await tokens_for(http, session, client["client_id"]))["refresh_token"] for _ in range(refresh_families)
        ]
    return {"access_token": access["access_token"], "client_id": client["client_id"], "refresh_tokens": families}


# ----------------------------------------------------------------------------- POST /v1/posts


def content_for(tag: str) -> str:
    """A post text of ~110 characters (under every platform's limit), new for each new tag."""
    return f"Bench post {tag}: Herald measures POST /v1/posts with three destinations in one transaction."


def post_arguments(content: str, slugs: Sequence[str] = SLUGS) -> dict[str, Any]:
    """The body of POST /v1/posts, and the arguments of the create_post tool: `content` to
    every profile of `slugs`."""
    return {"content": content, "profiles": list(slugs)}


def check_created(
    body: bytes,
    content: str,
    slugs: Sequence[str] = SLUGS,
    status: str = "queued",
    more: Callable[[list[dict[str, Any]]], str | None] | None = None,
) -> str | None:
    """What is wrong with a POST /v1/posts answer (None: nothing): one post per profile of
    `slugs`, each with `status`, the content sent and an id of its own; then `more(posts)`."""
    try:
        created = json.loads(body)["posts"]
    except (ValueError, KeyError, TypeError) as exc:
        return f"unparseable body ({exc}): {body[:200]!r}"
    if sorted(p["profile"] for p in created) != sorted(slugs):
        return f"unexpected profiles {[p.get('profile') for p in created]}"
    if any(p["status"] != status or p["content"] != content or not p["id"].startswith("pst_") for p in created):
        return f"unexpected posts {created!r}"[:300]
    if len({p["id"] for p in created}) != len(slugs):
        return "duplicate post ids"
    return more(created) if more is not None else None


def new_post_bodies(tag: str) -> Callable[[int, int], tuple[bytes, str]]:
    """The `body_for` of bench.load's body workers for POST /v1/posts: worker k's n-th request
    goes to the 3 profiles with a content of its own (`tag`: bench.load.unique_tag())."""

    def body_for(k: int, n: int) -> tuple[bytes, str]:
        content = content_for(f"{tag}-{k}-{n}")
        return json.dumps(post_arguments(content)).encode(), content

    return body_for


async def posts_load(
    window: Any, *, base_url: str, api_key: str, concurrency: int, duration: float, warmup: float
) -> dict[str, Any]:
    """A load phase (bench.runs.measure): a closed loop of POST /v1/posts to the 3 profiles, a
    new content per request; every answer must be a 201, one body in ten is checked."""
    from bench.load import measured_body_loop, unique_tag

    return await measured_body_loop(
        window,
        base_url=base_url,
        path="/v1/posts",
        headers={
            "Authorization": f"Bearer {api_key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        },
        body_for=new_post_bodies(unique_tag()),
        check=check_created,
        concurrency=concurrency,
        duration=duration,
        warmup=warmup,
    )


def posts_in(database_url: str) -> int:
    """How many posts the bench database holds."""
    from bench.runs import Db

    with Db(database_url) as db:
        return db.one("SELECT count(*) FROM posts")


def successful_requests(*phases: dict[str, Any]) -> int:
    """Requests that succeeded in measured phases, their warm-ups included: each created its
    posts, so the database's counts must match."""
    return sum(
        r["requests"]
        - r["errors"]
        + (r.get("warmup") or {}).get("requests", 0)
        - (r.get("warmup") or {}).get("errors", 0)
        for r in phases
    )


# ----------------------------------------------------------------------------- media

MIB = 1024 * 1024
# An MP4 `ftyp` box: what the core's sniffing recognises as video/mp4.
MP4_HEADER = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"


def video_bytes(size: int, digest: Any, block: int = MIB) -> Iterator[bytes]:
    """An MP4 `ftyp` header then random bytes, `size` in all, `block` at a time, each block
    also fed to `digest` (a hashlib object)."""
    digest.update(MP4_HEADER)
    yield MP4_HEADER
    left = size - len(MP4_HEADER)
    while left > 0:
        chunk = os.urandom(min(block, left))
        digest.update(chunk)
        left -= len(chunk)
        yield chunk
