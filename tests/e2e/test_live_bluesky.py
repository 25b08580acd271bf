"""Bluesky end to end against a real PDS (docs/live-publishing.md): an account made on
`@atproto/pds` (harness/fakes/pds.py, with its in-memory PLC), connected through REST with an app
password, posts delivered by a real `herald worker`, and every record read back
from the PDS (getRecord, sync.getBlob): facets, an image with its alt text, a link card with its
thumbnail, an expired session refreshed, a disconnect that ends the session at the PDS.

The stack is this module's own: live mode, private addresses allowed (the PDS and the link-card
page are on loopback), a token key the tests know (to open and replace what Herald sealed)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from sqlalchemy import MetaData, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.models import profiles
from core.platform_accounts.vault import TokenVault
from harness.fakes.pds import POST, LivePDS, PdsAccount, jwt_claims
from harness.live import (
    create_post,
    live_org,
    live_stack,
    outcome,
    png,
    profile,
    profile_events,
    profile_row,
    settled,
    upload,
    workers,
)
from harness.stack import Stack, free_port

pytestmark = pytest.mark.one_backend

TOKEN_KEY = os.urandom(32)  # HERALD_PLATFORM_TOKEN_KEYS: the tests open and seal with it too
TOKEN_KEYS = f"bsky:{base64.urlsafe_b64encode(TOKEN_KEY).rstrip(b'=').decode()}"
CREATE, REFRESH = "com.atproto.repo.createRecord", "com.atproto.server.refreshSession"
ALLOWED = timedelta(minutes=2)  # a record's createdAt is the time it was sent


# --- the PDS, a page with a link card, the stack -------------------------------------------------


@pytest.fixture(scope="module")
def pds(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LivePDS]:
    with LivePDS(tmp_path_factory.mktemp("pds")) as server:
        yield server


@dataclass
class Pages:
    """A web server on loopback with one page that has a link card (Open Graph) and its picture."""

    base_url: str
    thumb: bytes
    hits: list[str]

    @property
    def article(self) -> str:
        return f"{self.base_url}/article"


ARTICLE_TITLE = "Herald ships live publishing"
ARTICLE_DESCRIPTION = "Posts go out to the accounts you connect, once, with their media."


@pytest.fixture(scope="module")
def pages() -> Iterator[Pages]:
    thumb = png(120, 63, (200, 80, 20))
    html = (
        "<!doctype html><html><head><meta charset='utf-8'><title>ignored</title>"
        f"<meta property='og:title' content='{ARTICLE_TITLE}'>"
        f"<meta property='og:description' content='{ARTICLE_DESCRIPTION}'>"
        "<meta property='og:image' content='/thumb.png'>"
        "</head><body><p>The article.</p></body></html>"
    ).encode()
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            found = {"/article": (html, "text/html; charset=utf-8"), "/thumb.png": (thumb, "image/png")}
            body, mime = found.get(self.path, (b"not found", "text/plain"))
            self.send_response(200 if self.path in found else 404)
            self.send_header("Content-Type", mime)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield Pages(f"http://127.0.0.1:{server.server_address[1]}", thumb, hits)
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def bsky_stack(backend: str, pds: LivePDS, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with (
        live_stack(
            backend,
            tmp_path_factory.mktemp(f"live-bluesky-{backend}"),
            HERALD_PLATFORM_TOKEN_KEYS=TOKEN_KEYS,
            HERALD_PLATFORM_TIMEOUT_SECONDS="5",
        ) as stack,
        workers(stack, "bluesky"),
    ):
        yield stack


@dataclass(frozen=True)
class Live:
    auth: dict[str, str]
    org_id: str
    engine: AsyncEngine
    vault: TokenVault


@pytest.fixture(scope="module")
async def live(bsky_stack: Stack) -> AsyncIterator[Live]:
    async with live_org(bsky_stack, "bsky") as org:
        yield Live(org.auth, org.org_id, org.engine, TokenVault([("bsky", TOKEN_KEY)]))


@pytest.fixture
async def api(bsky_stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=bsky_stack.base_url, timeout=30) as client:
        yield client


@dataclass(frozen=True)
class Accounts:
    alice: PdsAccount  # the account Herald posts as
    bob: PdsAccount  # another account on the PDS, mentioned
    app_password: str  # alice's, given to Herald once
    slug: str
    connected: dict[str, Any]  # the profile connectBluesky answered


@pytest.fixture(scope="module")
async def accounts(bsky_stack: Stack, live: Live, pds: LivePDS) -> Accounts:
    alice = pds.create_account(f"alice-{uuid.uuid4().hex[:6]}.test")
    bob = pds.create_account(f"bob-{uuid.uuid4().hex[:6]}.test")
    app_password = pds.create_app_password(alice, "herald")
    async with httpx.AsyncClient(base_url=bsky_stack.base_url, timeout=30) as client:
        response = await client.post(
            "/v1/profiles:connectBluesky",
            json={"identifier": alice.handle, "app_password": app_password, "pds_url": pds.url, "tags": ["sky"]},
            headers=live.auth,
        )
    assert response.status_code == 201, response.text
    connected = response.json()
    return Accounts(alice, bob, app_password, connected["slug"], connected)


def marker() -> str:
    return uuid.uuid4().hex[:10]


def rkey_of(post: dict) -> str:
    """The record key of a post's `platform_post_id` (at://did/app.bsky.feed.post/rkey)."""
    _, collection, rkey = post["platform_post_id"].removeprefix("at://").split("/")
    assert collection == POST
    return rkey


async def publish(api: httpx.AsyncClient, live: Live, accounts: Accounts, text: str, media: list[str] = ()) -> dict:
    (post,) = await create_post(api, live.auth, text, [accounts.slug], list(media))
    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    return done


def check_record(pds: LivePDS, accounts: Accounts, done: dict, text: str) -> dict[str, Any]:
    """The record the post made, read back from the PDS; checks what every post's record has."""
    rkey = rkey_of(done)
    assert done["platform_post_id"] == f"at://{accounts.alice.did}/{POST}/{rkey}"
    assert done["url"] == f"https://bsky.app/profile/{accounts.alice.handle}/post/{rkey}"
    record = pds.get_record(accounts.alice.did, rkey)
    assert record["uri"] == done["platform_post_id"]
    value = record["value"]
    assert value["$type"] == POST and value["text"] == text
    created = datetime.fromisoformat(value["createdAt"].replace("Z", "+00:00"))
    assert value["createdAt"].endswith("Z") and abs(datetime.now(UTC) - created) < ALLOWED
    return value


def span(text: str, part: str) -> dict[str, int]:
    """The UTF-8 byte range of `part` in `text` (a facet's index)."""
    start = text.encode().index(part.encode())
    return {"byteStart": start, "byteEnd": start + len(part.encode())}


async def stored_tokens(live: Live, slug: str) -> tuple[Any, str, str]:
    """The profile row and its tokens, opened with the stack's key."""
    row = await profile_row(live.engine, live.org_id, slug)
    access = live.vault.open(row.access_token, bound_to=f"{row.id}:access").value
    refresh = live.vault.open(row.refresh_token, bound_to=f"{row.id}:refresh").value
    return row, access, refresh


async def database_text(engine: AsyncEngine) -> str:
    """Every row of every table, as text (what a database dump would show)."""
    metadata = MetaData()
    async with engine.connect() as conn:
        await conn.run_sync(metadata.reflect)
        rows = []
        for table in metadata.sorted_tables:
            rows += [repr(tuple(row)) for row in (await conn.execute(select(table))).all()]
    return "\n".join(rows)


# --- connecting ----------------------------------------------------------------------------------


async def test_an_app_password_connects_the_account_and_is_never_stored(api, live, accounts, pds, bsky_stack) -> None:
    connected = accounts.connected
    connection = connected["connection"]
    assert (connected["connector"], connected["tags"]) == ("bluesky", ["sky"])
    assert (connection["status"], connection["platform_account_id"], connection["handle"]) == (
        "connected",
        accounts.alice.did,
        accounts.alice.handle,
    )
    assert connection["instance_url"] == pds.url  # the account's PDS, from its DID document
    assert connection["token_expires_at"] and connection["error"] is None
    assert (await profile(api, live.auth, accounts.slug))["connection"]["status"] == "connected"
    assert pds.calls("com.atproto.server.createSession") == [200]
    # The session the PDS made is an app-password session of that account, and Herald holds it.
    row, access, refresh = await stored_tokens(live, accounts.slug)
    claims = jwt_claims(access)
    assert (claims["sub"], claims["scope"]) == (accounts.alice.did, "com.atproto.appPass")
    (session,) = [s for s in pds.refresh_sessions(accounts.alice.did) if s.app_password_name == "herald"]
    assert session.id == jwt_claims(refresh)["jti"]
    assert row.access_token.startswith("v1.") and row.refresh_token.startswith("v1.")
    # Sealed at rest; the app password nowhere: not in any row, any log or any answer.
    dump = await database_text(live.engine)
    assert accounts.app_password not in dump and access not in dump and refresh not in dump
    if bsky_stack.database_url.startswith("sqlite"):
        raw = b"".join(p.read_bytes() for p in bsky_stack.workdir.glob("herald.db*"))
        assert accounts.app_password.encode() not in raw and access.encode() not in raw
    listed = (await api.get("/v1/profiles", headers=live.auth)).text
    assert access not in listed and accounts.app_password not in listed
    logs = "".join(p.read_text(errors="replace") for p in bsky_stack.workdir.glob("*.log"))
    assert accounts.app_password not in logs and access not in logs and refresh not in logs


async def test_a_wrong_app_password_is_refused(api, live, accounts, pds) -> None:
    refused_before = pds.calls("com.atproto.server.createSession").count(401)
    response = await api.post(
        "/v1/profiles:connectBluesky",
        json={"identifier": accounts.bob.handle, "app_password": "aaaa-bbbb-cccc-dddd", "pds_url": pds.url},
        headers=live.auth,
    )

    assert response.status_code >= 400 and response.json()["code"] == "CONNECTION_FAILED", response.text
    # The PDS's AuthenticationRequired. Its log line is written after the answer went out (and
    # other tests' sessions may be logged around it): wait for one more 401 than before.
    deadline = time.monotonic() + 10
    while pds.calls("com.atproto.server.createSession").count(401) == refused_before:
        assert time.monotonic() < deadline, pds.calls("com.atproto.server.createSession")
        await asyncio.sleep(0.05)
    assert accounts.bob.did not in (await api.get("/v1/profiles", headers=live.auth)).text


# --- delivering ----------------------------------------------------------------------------------


async def test_text_with_a_mention_a_tag_and_a_link_has_its_facets(api, live, accounts, pds, pages) -> None:
    mark = marker()
    link = f"{pages.base_url}/nothing-here-{mark}"  # no page: no card, the post goes out anyway
    mention = f"@{accounts.bob.handle}"
    text = f"Grüße 👋 {mention} — launch {mark} #herald see {link}"

    done = await publish(api, live, accounts, text)

    value = check_record(pds, accounts, done, text)
    assert value["facets"] == [
        {
            "index": span(text, mention),
            "features": [{"$type": "app.bsky.richtext.facet#mention", "did": accounts.bob.did}],
        },
        {"index": span(text, "#herald"), "features": [{"$type": "app.bsky.richtext.facet#tag", "tag": "herald"}]},
        {"index": span(text, link), "features": [{"$type": "app.bsky.richtext.facet#link", "uri": link}]},
    ]
    assert "embed" not in value
    assert pds.calls("com.atproto.identity.resolveHandle") == [200]
    assert f"/nothing-here-{mark}" in pages.hits  # the card was looked for


async def test_an_image_is_uploaded_as_a_blob_with_its_alt_text(api, live, accounts, pds) -> None:
    data = png(64, 48, (30, 160, 90))
    media_id = await upload(api, live.auth, data, "image/png", "chart.png")
    alt = "A green rectangle standing in for a chart"
    patched = await api.patch(f"/v1/media/{media_id}", json={"description": alt}, headers=live.auth)
    assert patched.status_code == 200, patched.text
    text = f"With a picture {marker()}"

    done = await publish(api, live, accounts, text, [media_id])

    value = check_record(pds, accounts, done, text)
    embed = value["embed"]
    assert embed["$type"] == "app.bsky.embed.images" and len(embed["images"]) == 1
    (image,) = embed["images"]
    assert image["alt"] == alt
    assert image["image"]["$type"] == "blob" and image["image"]["mimeType"] == "image/png"
    assert image["image"]["size"] == len(data)
    assert image["aspectRatio"] == {"width": 64, "height": 48}
    blob, mime = pds.get_blob(accounts.alice.did, image["image"]["ref"]["$link"])
    assert blob == data and mime.startswith("image/png")


async def test_a_link_gets_a_card_with_the_pages_title_description_and_thumbnail(
    api, live, accounts, pds, pages
) -> None:
    text = f"Read this {marker()}: {pages.article}"

    done = await publish(api, live, accounts, text)

    value = check_record(pds, accounts, done, text)
    assert value["facets"] == [
        {
            "index": span(text, pages.article),
            "features": [{"$type": "app.bsky.richtext.facet#link", "uri": pages.article}],
        }
    ]
    embed = value["embed"]
    assert embed["$type"] == "app.bsky.embed.external"
    card = embed["external"]
    assert (card["uri"], card["title"], card["description"]) == (pages.article, ARTICLE_TITLE, ARTICLE_DESCRIPTION)
    assert card["thumb"]["mimeType"] == "image/png" and card["thumb"]["size"] == len(pages.thumb)
    blob, _ = pds.get_blob(accounts.alice.did, card["thumb"]["ref"]["$link"])
    assert blob == pages.thumb
    assert "/thumb.png" in pages.hits


# --- sessions ------------------------------------------------------------------------------------


async def test_an_expired_access_token_is_refreshed_and_the_post_delivered(api, live, accounts, pds) -> None:
    """The PDS's access JWT lasts two hours: Herald's is replaced by the same token expired (its
    claims re-signed with the PDS's secret), so the PDS answers 400 ExpiredToken as it would."""
    before, access, refresh = await stored_tokens(live, accounts.slug)
    expired = pds.expired_copy(access)
    async with live.engine.begin() as conn:
        await conn.execute(
            update(profiles)
            .where(profiles.c.id == before.id)
            .values(access_token=live.vault.seal(expired, bound_to=f"{before.id}:access"))
        )
    refused = pds.call("com.atproto.repo.createRecord", headers={"Authorization": f"Bearer {expired}"}, json={}).json()
    assert refused["error"] == "ExpiredToken"  # what Herald's worker meets
    creates, refreshes = len(pds.calls(CREATE)), len(pds.calls(REFRESH))
    text = f"After the refresh {marker()}"

    done = await publish(api, live, accounts, text)

    check_record(pds, accounts, done, text)
    # Refused as expired, refreshed once, sent again with the new token.
    assert pds.wait_calls(CREATE, creates + 2)[creates:] == [400, 200]
    assert pds.wait_calls(REFRESH, refreshes + 1)[refreshes:] == [200]
    after, new_access, new_refresh = await stored_tokens(live, accounts.slug)
    assert after.token_version == before.token_version + 1
    assert new_access not in (access, expired) and new_refresh != refresh
    # refreshSession rotated the session at the PDS: the old one points to the new.
    sessions = {s.id: s for s in pds.refresh_sessions(accounts.alice.did)}
    assert sessions[jwt_claims(refresh)["jti"]].next_id == jwt_claims(new_refresh)["jti"]
    assert pds.get("com.atproto.server.getSession", auth={"Authorization": f"Bearer {new_access}"})["did"] == (
        accounts.alice.did
    )
    assert after.token_expires_at is not None and after.connection_status == "connected"


async def test_a_token_past_its_expiry_is_refreshed_before_the_delivery(api, live, accounts, pds) -> None:
    before, access, refresh = await stored_tokens(live, accounts.slug)
    async with live.engine.begin() as conn:
        await conn.execute(
            update(profiles)
            .where(profiles.c.id == before.id)
            .values(token_expires_at=datetime.now(UTC) - timedelta(minutes=5))
        )
    creates, refreshes = len(pds.calls(CREATE)), len(pds.calls(REFRESH))
    text = f"Fresh session {marker()}"

    done = await publish(api, live, accounts, text)

    check_record(pds, accounts, done, text)
    assert pds.wait_calls(REFRESH, refreshes + 1)[refreshes:] == [200]
    assert pds.wait_calls(CREATE, creates + 1)[creates:] == [200]  # never sent with the old token
    after, new_access, new_refresh = await stored_tokens(live, accounts.slug)
    # (The access JWT has no id of its own: one issued in the same second as the last is equal.)
    assert after.token_version > before.token_version and new_refresh != refresh
    assert jwt_claims(new_access)["exp"] >= jwt_claims(access)["exp"]
    assert after.token_expires_at.replace(tzinfo=UTC) > datetime.now(UTC) + timedelta(minutes=100)
    sessions = {s.id: s for s in pds.refresh_sessions(accounts.alice.did)}
    assert sessions[jwt_claims(refresh)["jti"]].next_id is not None


async def test_every_post_is_one_record_in_the_repo(api, live, accounts, pds) -> None:
    """Nothing was posted twice: each published post is exactly one record, under its own key."""
    listed = (await api.get("/v1/posts", params={"profiles": accounts.slug}, headers=live.auth)).json()["posts"]
    published = {p["platform_post_id"] for p in listed if p["status"] == "published"}
    records = [r["uri"] for r in pds.list_records(accounts.alice.did)]
    assert len(published) >= 5 and sorted(records) == sorted(published)


async def test_disconnect_ends_the_session_at_the_pds_and_forgets_the_tokens(
    api, live, accounts, pds, bsky_stack
) -> None:
    _, access, refresh = await stored_tokens(live, accounts.slug)
    jti = jwt_claims(refresh)["jti"]
    assert jti in {s.id for s in pds.refresh_sessions(accounts.alice.did)}

    response = await api.post(f"/v1/profiles/{accounts.slug}/disconnect", headers=live.auth)

    assert response.status_code == 200, response.text
    out = response.json()
    assert out["revoked"] is True and out["profile"]["connection"]["status"] == "disconnected"
    assert pds.wait_calls("com.atproto.server.deleteSession", 1) == [200]
    assert jti not in {s.id for s in pds.refresh_sessions(accounts.alice.did)}
    again = pds.call("com.atproto.server.refreshSession", headers={"Authorization": f"Bearer {refresh}"})
    assert again.status_code == 400 and again.json()["error"] in ("ExpiredToken", "InvalidToken"), again.text
    row = await profile_row(live.engine, live.org_id, accounts.slug)
    assert (row.access_token, row.refresh_token, row.token_expires_at) == (None, None, None)
    assert (row.connection_status, row.platform_account_id) == ("disconnected", accounts.alice.did)
    assert (await profile_events(live, accounts.slug))[-1] == ("profile.disconnected", "disconnected")
    refused = await api.post("/v1/posts", json={"content": "hi", "profiles": [accounts.slug]}, headers=live.auth)
    assert (refused.status_code, refused.json()["code"]) == (409, "PROFILE_NOT_CONNECTED")
    logs = "".join(p.read_text(errors="replace") for p in bsky_stack.workdir.glob("*.log"))
    assert accounts.app_password not in logs and access not in logs and refresh not in logs
    assert accounts.app_password not in await database_text(live.engine)
    assert access not in json.dumps(out) and refresh not in json.dumps(out)
