"""Live publishing end to end (docs/live-publishing.md): accounts connected through the REST API
and a browser's redirects, posts delivered by a real `herald worker` to fake X and Mastodon
servers over HTTP (harness/fakes/platforms), with the platforms' faults: an expired token, a
refused refresh, throttling, server errors, and an answer lost after the post was made.

The stack is this module's own (HERALD_PUBLISH_MODE=live, X's hosts overridden to the fake,
private addresses allowed for the Mastodon instance on loopback, a 2 s platform deadline)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from harness.fakes.platforms import FakeMastodon, FakeX
from harness.fakes.platforms.x import SCOPES as X_SCOPES
from harness.live import (
    RETURN_TO,
    Connected,
    Live,
    balance,
    connect,
    create_post,
    marker,
    outcome,
    png,
    profile,
    profile_events,
    profile_row,
    settled,
    upload,
)
from harness.live import live_stack as live_stack_of
from harness.stack import Stack

# On PostgreSQL, the production database, only: what the backends do differently for delivery
# (the claim, the lease, the outcome's writes) runs on both in tests/core/test_publisher_*.py and
# tests/facades/test_posts_threads.py; what this module adds is the connectors' HTTP.
pytestmark = pytest.mark.one_backend("postgresql")

PLATFORM_TIMEOUT = 2.0  # HERALD_PLATFORM_TIMEOUT_SECONDS: a hung request fails after this
MASTODON_SCOPES = {"read:accounts", "write:statuses", "write:media", "read:statuses"}
MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"\x00" * 1000


@pytest.fixture(scope="module")
def fake_x(backend: str) -> Iterator[FakeX]:
    """One per backend's stack: what a test counts at the fake is its stack's doing only."""
    with FakeX(client_id="herald-test-client", client_secret="herald-test-secret") as server:
        yield server


@pytest.fixture(scope="module")
def fake_mastodon(backend: str) -> Iterator[FakeMastodon]:
    with FakeMastodon() as server:
        yield server


@pytest.fixture(scope="module")
def live_stack(
    backend: str, fake_x: FakeX, fake_mastodon: FakeMastodon, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    with live_stack_of(
        backend,
        tmp_path_factory.mktemp(f"live-{backend}"),
        fakes=(fake_x,),
        HERALD_PLATFORM_TIMEOUT_SECONDS=str(PLATFORM_TIMEOUT),
    ) as stack:
        yield stack


@dataclass(frozen=True)
class Accounts:
    x: Connected
    mastodon: Connected


@pytest.fixture(scope="module")
async def accounts(live_stack: Stack, live: Live, fake_mastodon: FakeMastodon) -> Accounts:
    """The org's X account (the fake's first user) and Mastodon account, connected over REST."""
    async with httpx.AsyncClient(base_url=live_stack.base_url, timeout=30) as client:
        x = await connect(client, live.auth, platform="x", tags=["launch"])
        mastodon = await connect(client, live.auth, platform="mastodon", instance_url=fake_mastodon.base_url)
    return Accounts(x, mastodon)


# --- connecting ------------------------------------------------------------------------------


async def test_x_connects_over_rest_and_its_tokens_stay_sealed(api, live, accounts, fake_x, live_stack) -> None:
    connected = accounts.x
    assert connected.location.startswith(f"{RETURN_TO}?")
    assert connected.query == {"profile": connected.slug, "connection": "connected"}
    user = fake_x.user("herald_fake")
    found = await profile(api, live.auth, connected.slug)
    connection = found["connection"]
    assert (found["connector"], found["tags"]) == ("x", ["launch"])
    assert (connection["status"], connection["handle"], connection["platform_account_id"]) == (
        "connected",
        "herald_fake",
        user.id,
    )
    assert set(connection["scopes"]) == set(X_SCOPES)
    assert connection["avatar_url"] == user.profile_image_url
    assert connection["token_expires_at"] and connection["connected_at"] and connection["error"] is None
    # What the fake checked: PKCE S256 against the verifier, HTTP Basic client authentication.
    authorize = fake_x.seen("GET", "/i/oauth2/authorize")[0]
    assert authorize.query["code_challenge_method"] == "S256"
    assert authorize.query["redirect_uri"] == f"{live_stack.base_url}/connect/callback"
    assert set(authorize.query["scope"].split()) == set(X_SCOPES)
    exchange = fake_x.seen("POST", "/2/oauth2/token")[0]
    assert exchange.status == 200 and exchange.headers["authorization"].startswith("Basic ")
    assert exchange.form["grant_type"] == "authorization_code" and "client_secret" not in exchange.form
    # Tokens never leave the core, and are sealed at rest.
    listed = (await api.get("/v1/profiles", headers=live.auth)).text
    row = await profile_row(live.engine, live.org_id, connected.slug)
    assert row.access_token.startswith("v1.") and row.refresh_token.startswith("v1.")
    for token in fake_x.issued_tokens():
        assert token not in listed and token not in row.access_token and token not in row.refresh_token


async def test_mastodon_connects_and_its_app_is_registered_once(api, live, accounts, fake_mastodon, live_stack) -> None:
    connected = accounts.mastodon
    assert connected.query == {"profile": connected.slug, "connection": "connected"}
    account = fake_mastodon.account("herald")
    connection = (await profile(api, live.auth, connected.slug))["connection"]
    assert (connection["status"], connection["handle"], connection["platform_account_id"]) == (
        "connected",
        "herald",
        account.id,
    )
    assert connection["instance_url"] == fake_mastodon.base_url and set(connection["scopes"]) == MASTODON_SCOPES
    (registration,) = fake_mastodon.seen("POST", "/api/v1/apps")
    assert registration.form["redirect_uris"] == f"{live_stack.base_url}/connect/callback"
    assert set(registration.form["scopes"].split()) == MASTODON_SCOPES and registration.form["client_name"] == "Herald"

    again = await connect(api, live.auth, platform="mastodon", instance_url=fake_mastodon.base_url)

    assert again.slug == connected.slug  # the same account updates its profile
    assert len(fake_mastodon.seen("POST", "/api/v1/apps")) == 1  # the app is reused
    assert [r.status for r in fake_mastodon.seen("POST", "/oauth/token")][-2:] == [200, 200]
    row = await profile_row(live.engine, live.org_id, connected.slug)
    assert row.access_token.startswith("v1.") and row.refresh_token is None
    assert all(token not in row.access_token for token in fake_mastodon.issued_tokens())


async def test_a_refused_sign_in_sends_the_browser_back_with_an_error(api, live, fake_x) -> None:
    fake_x.deny_next = True  # the user clicks "Cancel" on X

    refused = await connect(api, live.auth, platform="x")  # X's page sends the browser back

    assert refused.location == f"{RETURN_TO}?error=CONNECTION_FAILED"


# --- delivering ------------------------------------------------------------------------------


async def test_publish_now_to_x_with_an_image_and_to_mastodon(
    api, live, accounts, fake_x, fake_mastodon, live_worker
) -> None:
    data = png()
    media_id = await upload(api, live.auth, data, "image/png", "launch.png")
    mark = marker()
    text = f"Launch day {mark} https://herald.example/launch"
    before = await balance(api, live.auth)

    created = await create_post(api, live.auth, text, [accounts.x.slug, accounts.mastodon.slug], [media_id])

    done = {p["connector"]: await settled(api, live.auth, p["id"]) for p in created}
    assert {c: p["status"] for c, p in done.items()} == {"x": "published", "mastodon": "published"}, {
        c: outcome(p) for c, p in done.items()
    }
    (tweet,) = fake_x.tweets_by(fake_x.user("herald_fake").id, containing=mark)
    assert tweet.posted_text == text and len(tweet.media_ids) == 1
    assert fake_x.media[tweet.media_ids[0]].sha256 == [hashlib.sha256(data).hexdigest()]  # the bytes, streamed
    assert done["x"]["platform_post_id"] == tweet.id
    assert done["x"]["url"] == f"https://x.com/herald_fake/status/{tweet.id}"
    (status,) = fake_mastodon.statuses_by(fake_mastodon.account("herald").id, containing=mark)
    assert status.text == text and status.visibility == "public" and len(status.media_ids) == 1
    assert fake_mastodon.media[status.media_ids[0]].sha256 == hashlib.sha256(data).hexdigest()
    assert status.idempotency_key  # the delivery key
    assert (done["mastodon"]["platform_post_id"], done["mastodon"]["url"]) == (
        status.id,
        fake_mastodon.status_url(status),
    )
    assert await balance(api, live.auth) == before - 2
    for post in created:
        (entry,) = (await api.get(f"/v1/posts/{post['id']}/outbox", headers=live.auth)).json()["entries"]
        assert entry["mode"] == "live" and entry["platform_post_id"] == done[post["connector"]]["platform_post_id"]
        assert all("authorization" not in {k.lower() for k in r["headers"]} for r in entry["requests"])


async def test_a_mastodon_video_is_waited_for_while_the_instance_processes_it(
    api, live, accounts, fake_mastodon, live_worker
) -> None:
    media_id = await upload(api, live.auth, MP4, "video/mp4", "clip.mp4")
    mark = marker()

    (post,) = await create_post(api, live.auth, f"A clip {mark}", [accounts.mastodon.slug], [media_id])

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    (status,) = fake_mastodon.statuses_by(fake_mastodon.account("herald").id, containing=mark)
    attachment = status.media_ids[0]
    assert fake_mastodon.media[attachment].type == "video"
    assert [r.status for r in fake_mastodon.seen("POST", "/api/v2/media")][-1] == 202
    assert [r.status for r in fake_mastodon.seen("GET", f"/api/v1/media/{attachment}")] == [206, 200]


async def test_an_expired_token_is_refreshed_once_and_the_post_delivered(
    api, live, accounts, fake_x, live_worker
) -> None:
    user = fake_x.user("herald_fake")
    before = await profile_row(live.engine, live.org_id, accounts.x.slug)
    refreshes = fake_x.grant_count("refresh_token", user.id)
    fake_x.expire_access_tokens(user.id)
    mark = marker()

    (post,) = await create_post(api, live.auth, f"After the refresh {mark}", [accounts.x.slug])

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    assert fake_x.grant_count("refresh_token", user.id) == refreshes + 1
    assert [r.status for r in fake_x.seen("POST", "/2/tweets", body_contains=mark)] == [401, 201]
    assert len(fake_x.tweets_by(user.id, containing=mark)) == 1
    after = await profile_row(live.engine, live.org_id, accounts.x.slug)
    assert after.token_version == before.token_version + 1
    assert after.refresh_token != before.refresh_token  # X rotated it; the new one is kept
    assert after.connection_status == "connected"


async def test_a_token_about_to_end_is_refreshed_before_the_delivery(api, live, fake_x, live_worker) -> None:
    brief = fake_x.add_user("brief_tokens")
    fake_x.access_token_lifetime = 30  # within the minute Herald refreshes ahead of a delivery
    try:
        with fake_x.signed_in_as(brief.id):
            connected = await connect(api, live.auth, platform="x")
    finally:
        fake_x.access_token_lifetime = 7200
    first_token = next(t for t, g in fake_x.access_tokens.items() if g.subject == brief.id)
    mark = marker()

    (post,) = await create_post(api, live.auth, f"Fresh token {mark}", [connected.slug])

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    assert fake_x.grant_count("refresh_token", brief.id) >= 1
    (send,) = fake_x.seen("POST", "/2/tweets", body_contains=mark)
    assert send.status == 201 and send.bearer != first_token  # never sent with the ending token


async def test_a_refused_refresh_needs_reauth_fails_the_post_and_refunds(api, live, fake_x, live_worker) -> None:
    doomed = fake_x.add_user("doomed_account")
    with fake_x.signed_in_as(doomed.id):
        connected = await connect(api, live.auth, platform="x")
    fake_x.expire_access_tokens(doomed.id)
    fake_x.revoke_refresh_tokens(doomed.id)  # the user removed the app on X
    before = await balance(api, live.auth)

    (post,) = await create_post(api, live.auth, f"Never out {marker()}", [connected.slug])

    done = await settled(api, live.auth, post["id"])
    assert (done["status"], done["failure_reason"]) == ("failed", "needs_reauth"), outcome(done)
    assert await balance(api, live.auth) == before  # charged, then refunded
    assert fake_x.tweets_by(doomed.id) == []
    connection = (await profile(api, live.auth, connected.slug))["connection"]
    assert connection["status"] == "needs_reauth" and connection["error"]
    refused = await api.post("/v1/posts", json={"content": "again", "profiles": [connected.slug]}, headers=live.auth)
    assert (refused.status_code, refused.json()["code"]) == (409, "PROFILE_NOT_CONNECTED")

    with fake_x.signed_in_as(doomed.id):
        again = await connect(api, live.auth, platform="x")  # a human connects it again

    assert again.slug == connected.slug
    assert (await profile(api, live.auth, connected.slug))["connection"]["status"] == "connected"
    assert await profile_events(live, connected.slug) == [  # each change once, with the profile as it became
        ("profile.connected", "connected"),
        ("profile.needs_reauth", "needs_reauth"),
        ("profile.connected", "connected"),
    ]


@pytest.mark.parametrize("platform", ["x", "mastodon"])
async def test_throttling_is_waited_out_and_the_post_delivered_once(
    api, live, accounts, fake_x, fake_mastodon, live_worker, platform: str
) -> None:
    mark = marker()
    wait = 2
    if platform == "x":
        fake, path, slug = fake_x, "/2/tweets", accounts.x.slug
        body = {"title": "Too Many Requests", "detail": "Too Many Requests", "type": "about:blank", "status": 429}
        fake.fail("POST", path, 429, body, {"Retry-After": str(wait)}, body_contains=mark)
    else:  # Mastodon (rack-attack) says when in X-RateLimit-Reset, an ISO 8601 time
        fake, path, slug = fake_mastodon, "/api/v1/statuses", accounts.mastodon.slug
        reset = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(time.time() + wait + 1))
        headers = {"X-RateLimit-Limit": "300", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}
        fake.fail("POST", path, 429, {"error": "Too many requests"}, headers, body_contains=mark)

    (post,) = await create_post(api, live.auth, f"Throttled {mark}", [slug])

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published" and done["attempts"] == 2, outcome(done)
    sends = fake.seen("POST", path, body_contains=mark)
    assert [r.status for r in sends] == [429, 200 if platform == "mastodon" else 201]
    assert sends[1].at - sends[0].at >= wait - 0.5  # not before the platform said


@pytest.mark.parametrize("platform", ["x", "mastodon"])
async def test_a_server_error_is_retried_and_the_post_delivered_once(
    api, live, accounts, fake_x, fake_mastodon, live_worker, platform: str
) -> None:
    fake, path, slug = (
        (fake_x, "/2/media/upload", accounts.x.slug)
        if platform == "x"
        else (fake_mastodon, "/api/v2/media", accounts.mastodon.slug)
    )
    media_id = await upload(
        api, live.auth, png(color=(1, 2, 3) if platform == "x" else (3, 2, 1)), "image/png", "p.png"
    )
    count = len(fake.seen("POST", path))
    fake.fail("POST", path, 503, "<html><body>Service Unavailable</body></html>")
    mark = marker()

    (post,) = await create_post(api, live.auth, f"Retried {mark}", [slug], [media_id])

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published" and done["attempts"] == 2, outcome(done)
    assert [r.status for r in fake.seen("POST", path)[count:]] == [503, 200]
    posted = (
        fake_x.tweets_by(fake_x.user("herald_fake").id, containing=mark)
        if platform == "x"
        else fake_mastodon.statuses_by(fake_mastodon.account("herald").id, containing=mark)
    )
    assert len(posted) == 1


# --- an answer lost after the post was made ----------------------------------------------------


@dataclass(frozen=True)
class Uncertain:
    post_id: str
    mark: str
    sends: list[int | None]  # what the fake answered each request that creates the post


@pytest.fixture(scope="module")
async def uncertain(live_stack, live, accounts, fake_x, fake_mastodon, live_worker) -> dict[str, Uncertain]:
    """Starts every scenario at once (each waits ~15 s before it is looked up again):
    - x_hang_text: X makes the post and never answers; the text has a link (t.co on X);
    - x_hang_image: the same with an image (X appends the image's t.co link to the text);
    - x_503: X answers 503 to POST /2/tweets without making the post;
    - mastodon_hang: the instance makes the status and never answers."""
    async with httpx.AsyncClient(base_url=live_stack.base_url, timeout=30) as client:
        image = await upload(client, live.auth, png(color=(9, 9, 9)), "image/png", "u.png")
        scenarios = {
            "x_hang_text": (accounts.x.slug, "https://herald.example/docs", [], [None]),
            "x_hang_image": (accounts.x.slug, "", [image], [None]),
            "x_503": (accounts.x.slug, "", [], [503, 201]),
            "mastodon_hang": (accounts.mastodon.slug, "", [image], [None, 200]),
        }
        started = {}
        for name, (slug, extra, media, sends) in scenarios.items():
            mark = marker()
            if name == "x_503":
                fake_x.fail("POST", "/2/tweets", 503, {"title": "Service Unavailable"}, body_contains=mark)
            elif name.startswith("x_"):
                fake_x.hang_after_receive("POST", "/2/tweets", seconds=PLATFORM_TIMEOUT + 3, body_contains=mark)
            else:
                fake_mastodon.hang_after_receive(
                    "POST", "/api/v1/statuses", seconds=PLATFORM_TIMEOUT + 3, body_contains=mark
                )
            (post,) = await create_post(client, live.auth, f"Lost answer {mark} {extra}".strip(), [slug], media)
            started[name] = Uncertain(post["id"], mark, sends)
    return started


@pytest.mark.parametrize(
    "scenario",
    [
        "x_hang_text",
        "x_hang_image",
        "x_503",
        "mastodon_hang",
    ],
)
async def test_an_answer_lost_after_sending_is_looked_up_not_posted_twice(
    api, live, uncertain, fake_x, fake_mastodon, scenario: str
) -> None:
    case = uncertain[scenario]

    done = await settled(api, live.auth, case.post_id, within=60)

    assert done["status"] == "published", outcome(done)
    if scenario.startswith("x_"):
        user = fake_x.user("herald_fake")
        (tweet,) = fake_x.tweets_by(user.id, containing=case.mark)
        assert done["platform_post_id"] == tweet.id
        sends = fake_x.seen("POST", "/2/tweets", body_contains=case.mark)
        lookups = [r for r in fake_x.seen("GET", f"/2/users/{user.id}/tweets") if r.at > sends[0].at]
        assert lookups, "the next attempt looks the post up in the account's recent posts first"
    else:
        (status,) = fake_mastodon.statuses_by(fake_mastodon.account("herald").id, containing=case.mark)
        assert done["platform_post_id"] == status.id
        sends = fake_mastodon.seen("POST", "/api/v1/statuses", body_contains=case.mark)
        assert len({r.headers["idempotency-key"] for r in sends}) == 1  # the same key: the first status
    assert [r.status for r in sends] == case.sends


# --- disconnecting -----------------------------------------------------------------------------


@pytest.mark.parametrize("platform", ["x", "mastodon"])
async def test_disconnect_revokes_at_the_platform_and_forgets_the_tokens(
    api, live, accounts, fake_x, fake_mastodon, platform: str
) -> None:
    if platform == "x":
        fake: FakeX | FakeMastodon = fake_x
        account_id = fake_x.add_user(f"leaving_{marker()}").id
        body = {"platform": "x"}
    else:
        fake = fake_mastodon
        account_id = fake_mastodon.add_account(f"leaving_{marker()}").id
        body = {"platform": "mastodon", "instance_url": fake_mastodon.base_url}
    with fake.signed_in_as(account_id):
        connected = await connect(api, live.auth, **body)
    revoked_before = len(fake.revoked)

    response = await api.post(f"/v1/profiles/{connected.slug}/disconnect", headers=live.auth)

    assert response.status_code == 200, response.text
    out = response.json()
    assert out["revoked"] is True and out["profile"]["connection"]["status"] == "disconnected"
    assert len(fake.revoked) == revoked_before + 1
    (token,) = fake.revoked[revoked_before:]
    if platform == "x":
        assert fake_x.refresh_tokens[token].subject == account_id  # the grant, by its refresh token
        call = fake_x.seen("POST", "/2/oauth2/revoke")[-1]
        assert call.headers["authorization"].startswith("Basic ") and call.form["token_type_hint"] == "refresh_token"
    else:
        assert fake_mastodon.access_tokens[token].subject == account_id
    row = await profile_row(live.engine, live.org_id, connected.slug)
    assert (row.access_token, row.refresh_token, row.token_expires_at) == (None, None, None)
    assert (row.connection_status, row.platform_account_id) == ("disconnected", account_id)
    refused = await api.post("/v1/posts", json={"content": "hi", "profiles": [connected.slug]}, headers=live.auth)
    assert (refused.status_code, refused.json()["code"]) == (409, "PROFILE_NOT_CONNECTED")


async def test_no_platform_token_reaches_a_log(live_stack, fake_x, fake_mastodon, accounts) -> None:
    logs = "".join(p.read_text(errors="replace") for p in live_stack.workdir.glob("*.log"))
    tokens = fake_x.issued_tokens() + fake_mastodon.issued_tokens()
    assert tokens and not [t for t in tokens if t in logs]
