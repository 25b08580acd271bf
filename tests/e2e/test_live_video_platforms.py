"""Live publishing end to end to TikTok, YouTube and LinkedIn (docs/live-publishing.md): accounts
connected through the REST API and a browser's redirects, posts delivered by a real `herald
worker` to fake platforms over HTTP (harness/fakes/platforms), with their faults: an expired TikTok
token (refreshed, the rotated refresh token kept), a failed TikTok publish, YouTube's quota, a
YouTube upload lost half way (resumed from where the session stopped) or answered 503, a
removed Google grant, and LinkedIn's answer lost after the post was made (the resend's
DUPLICATE_POST names the post); then disconnecting, which revokes at each platform.

The stack is this module's own: HERALD_PUBLISH_MODE=live, every host of the three platforms
overridden to its fake, a 2 s platform deadline. TikTok pulls media from the stack's own storage
server through the signed read URLs Herald gives it."""

from __future__ import annotations

import hashlib
import io
import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

import httpx
import pytest
from PIL import Image

from core.platform_accounts.vault import KEY_FILE, TokenVault
from core.storage.signing import load_or_create_key_file
from harness.fakes.platforms.base import Request
from harness.fakes.platforms.linkedin import FakeLinkedIn, little_text
from harness.fakes.platforms.tiktok import SCOPES as TIKTOK_SCOPES
from harness.fakes.platforms.tiktok import FakeTikTok
from harness.fakes.platforms.youtube import SCOPES as YOUTUBE_SCOPES
from harness.fakes.platforms.youtube import UPLOAD_PATH, FakeYouTube, Video, quota_exceeded, service_unavailable
from harness.live import (
    Connected,
    Live,
    balance,
    connect,
    marker,
    outcome,
    png,
    profile,
    profile_row,
    settled,
    upload,
)
from harness.live import live_stack as live_stack_of
from harness.stack import Stack

pytestmark = pytest.mark.one_backend

PLATFORM_TIMEOUT = 2.0  # HERALD_PLATFORM_TIMEOUT_SECONDS: a hung request fails after this
LINKEDIN_PART_BYTES = 64 * 1024  # LinkedIn's parts are 4 MiB; small ones make a small video multi-part
TIKTOK_STATUS = "/v2/post/publish/status/fetch/"
TIKTOK_CREATOR_INFO = "/v2/post/publish/creator_info/query/"
LINKEDIN_VERSION_HEADERS = {"linkedin-version": "202607", "x-restli-protocol-version": "2.0.0"}
# core/posts/rules.py PLATFORM_LIMITS["tiktok"] names no mime_types: a PNG photo post is taken,
# although TikTok's photo posts take JPEG and WebP only (content-posting-api-media-transfer-guide).


def mp4(size: int, tag: str = "") -> bytes:
    """An MP4 file's first box, then `tag` (so a fault can match the upload's body), then random
    bytes (every upload differs): `size` bytes in all."""
    head = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + tag.encode()
    return head + secrets.token_bytes(size - len(head))


def jpeg(color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), color).save(buf, "JPEG")
    return buf.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- the stack ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fake_tiktok(backend: str) -> Iterator[FakeTikTok]:
    with FakeTikTok(client_key="herald-tiktok-key", client_secret="herald-tiktok-secret") as server:
        yield server


@pytest.fixture(scope="module")
def fake_youtube(backend: str) -> Iterator[FakeYouTube]:
    with FakeYouTube(client_id="herald.apps.googleusercontent.com", client_secret="GOCSPX-herald") as server:
        yield server


@pytest.fixture(scope="module")
def fake_linkedin(backend: str) -> Iterator[FakeLinkedIn]:
    with FakeLinkedIn(
        client_id="86herald", client_secret="herald-linkedin-secret", video_part_bytes=LINKEDIN_PART_BYTES
    ) as server:
        yield server


@pytest.fixture(scope="module")
def live_stack(
    backend: str,
    fake_tiktok: FakeTikTok,
    fake_youtube: FakeYouTube,
    fake_linkedin: FakeLinkedIn,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Stack]:
    with live_stack_of(
        backend,
        tmp_path_factory.mktemp(f"live-video-{backend}"),
        fakes=(fake_tiktok, fake_youtube, fake_linkedin),
        HERALD_PLATFORM_TIMEOUT_SECONDS=str(PLATFORM_TIMEOUT),
    ) as stack:
        # The app's verified media domain: the storage Herald's signed read URLs point at.
        fake_tiktok.verified_url_prefixes = (f"{stack.storage_url}/",)
        yield stack


@dataclass(frozen=True)
class Accounts:
    tiktok: Connected
    youtube: Connected
    linkedin: Connected


@pytest.fixture(scope="module")
async def accounts(live_stack: Stack, live: Live) -> Accounts:
    """The org's TikTok, YouTube and LinkedIn accounts (each fake's first user), connected over REST."""
    async with httpx.AsyncClient(base_url=live_stack.base_url, timeout=30) as client:
        tiktok = await connect(client, live.auth, platform="tiktok")
        youtube = await connect(client, live.auth, platform="youtube")
        linkedin = await connect(client, live.auth, platform="linkedin")
    return Accounts(tiktok, youtube, linkedin)


async def create(
    api: httpx.AsyncClient, auth: dict[str, str], content: str, slug: str, media_ids: list[str] = (), **extra: Any
) -> dict:
    """POST /v1/posts to one profile (`extra`: title, post_type); the post created."""
    body: dict[str, Any] = {"content": content, "profiles": [slug], **extra}
    if media_ids:
        body["media_ids"] = list(media_ids)
    response = await api.post("/v1/posts", json=body, headers=auth)
    assert response.status_code == 201, response.text
    (post,) = response.json()["posts"]
    return post


async def sealed_refresh_token(live: Live, slug: str) -> str:
    """The profile's refresh token, opened with the stack's own vault key."""
    row = await profile_row(live.engine, live.org_id, slug)
    key = load_or_create_key_file(live.stack.workdir / "data" / KEY_FILE)
    return TokenVault([("local", key)]).open(row.refresh_token, bound_to=f"{row.id}:refresh").value


# --- an upload lost half way, an answer lost after the post was made ---------------------------


@dataclass(frozen=True)
class Lost:
    post_id: str
    mark: str
    data: bytes = b""


YOUTUBE_KEPT = 512 * 1024  # what the session holds of the dropped upload (2 x 256 KiB)


@pytest.fixture(scope="module")
async def lost(live_stack, live, accounts, fake_youtube, fake_linkedin, live_worker) -> dict[str, Lost]:
    """The scenarios start at once, early (each attempt after a lost answer waits 15 s):
    - youtube: the first PUT of the video's bytes is read half way, then its connection dropped;
    - youtube_503: Google answers the first PUT of the bytes 503 (keeping none of them);
    - linkedin: LinkedIn makes the post and never answers POST /rest/posts."""
    async with httpx.AsyncClient(base_url=live_stack.base_url, timeout=30) as client:
        video = mp4(1_100_000)
        media = await upload(client, live.auth, video, "video/mp4", "long.mp4")
        mark = marker()
        fake_youtube.drop_upload_after(YOUTUBE_KEPT, title_contains=mark)
        post = await create(
            client, live.auth, f"Resumed {mark}", accounts.youtube.slug, [media], title=f"Resumed {mark}"
        )
        started = {"youtube": Lost(post["id"], mark, video)}

        mark = marker()
        video = mp4(300_000, tag=mark)
        media = await upload(client, live.auth, video, "video/mp4", "busy.mp4")
        fake_youtube.fail("PUT", UPLOAD_PATH, *service_unavailable(), body_contains=mark)
        post = await create(client, live.auth, f"Busy {mark}", accounts.youtube.slug, [media], title=f"Busy {mark}")
        started["youtube_503"] = Lost(post["id"], mark, video)

        image = await upload(client, live.auth, png(color=(7, 7, 7)), "image/png", "lost.png")
        mark = marker()
        fake_linkedin.hang_after_receive("POST", "/rest/posts", seconds=PLATFORM_TIMEOUT + 3, body_contains=mark)
        post = await create(client, live.auth, f"Lost answer {mark}", accounts.linkedin.slug, [image])
        started["linkedin"] = Lost(post["id"], mark)
    return started


# --- connecting --------------------------------------------------------------------------------


async def test_tiktok_connects_with_its_client_key_and_the_tokens_stay_sealed(
    api, live, accounts, fake_tiktok, live_stack
) -> None:
    user = fake_tiktok.user("herald.fake")
    assert accounts.tiktok.query == {"profile": accounts.tiktok.slug, "connection": "connected"}
    connection = (await profile(api, live.auth, accounts.tiktok.slug))["connection"]
    assert (connection["status"], connection["platform_account_id"], connection["handle"]) == (
        "connected",
        user.open_id,
        "herald.fake",  # the username, from creator_info: user.info.basic does not cover it
    )
    assert set(connection["scopes"]) == set(TIKTOK_SCOPES) and connection["avatar_url"] == user.avatar_url
    (authorize,) = fake_tiktok.seen("GET", "/v2/auth/authorize/")
    assert authorize.query["client_key"] == fake_tiktok.client_key and "client_id" not in authorize.query
    assert authorize.query["scope"] == "user.info.basic,video.publish,video.list,user.info.stats"
    assert authorize.query["redirect_uri"] == f"{live_stack.base_url}/connect/callback"
    exchange = fake_tiktok.seen("POST", "/v2/oauth/token/")[0]
    assert exchange.status == 200 and exchange.form["grant_type"] == "authorization_code"
    assert exchange.form["client_key"] == fake_tiktok.client_key and "client_id" not in exchange.form
    assert [r.status for r in fake_tiktok.seen("GET", "/v2/user/info/")] == [200]
    row = await profile_row(live.engine, live.org_id, accounts.tiktok.slug)
    assert row.access_token.startswith("v1.") and row.refresh_token.startswith("v1.")
    for token in fake_tiktok.issued_tokens():
        assert token not in row.access_token and token not in row.refresh_token


async def test_youtube_connects_offline_with_pkce_and_keeps_googles_refresh_token(
    api, live, accounts, fake_youtube
) -> None:
    channel = fake_youtube.channel("@heraldfake")
    connection = (await profile(api, live.auth, accounts.youtube.slug))["connection"]
    assert (connection["status"], connection["platform_account_id"], connection["handle"]) == (
        "connected",
        channel.id,
        "@heraldfake",
    )
    assert set(connection["scopes"]) == set(YOUTUBE_SCOPES) and connection["avatar_url"] == channel.thumbnail
    (authorize,) = fake_youtube.seen("GET", "/o/oauth2/v2/auth")
    assert (authorize.query["access_type"], authorize.query["prompt"]) == ("offline", "consent")
    assert authorize.query["code_challenge_method"] == "S256"
    (exchange,) = fake_youtube.seen("POST", "/token")
    assert exchange.status == 200 and exchange.form["code_verifier"]
    assert await sealed_refresh_token(live, accounts.youtube.slug) in fake_youtube.refresh_tokens


async def test_linkedin_connects_with_openid_and_has_no_refresh_token(api, live, accounts, fake_linkedin) -> None:
    member = fake_linkedin.member("Herald Fake")
    connection = (await profile(api, live.auth, accounts.linkedin.slug))["connection"]
    assert (connection["status"], connection["platform_account_id"], connection["handle"]) == (
        "connected",
        member.sub,
        "Herald Fake",
    )
    assert set(connection["scopes"]) == {"openid", "profile", "w_member_social"}
    (authorize,) = fake_linkedin.seen("GET", "/oauth/v2/authorization")
    assert "code_challenge" not in authorize.query  # a web app authenticates with its secret
    (exchange,) = fake_linkedin.seen("POST", "/oauth/v2/accessToken")
    assert exchange.status == 200 and exchange.form["client_secret"] == fake_linkedin.client_secret
    row = await profile_row(live.engine, live.org_id, accounts.linkedin.slug)
    assert row.access_token.startswith("v1.") and row.refresh_token is None  # not an approved partner


# --- TikTok ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("lost")  # started here so that their 15 s waits overlap what follows
async def test_a_tiktok_video_is_pulled_from_storage_and_published_once_processed(
    api, live, accounts, fake_tiktok, live_worker
) -> None:
    user = fake_tiktok.user("herald.fake")
    data = mp4(200_000)
    media_id = await upload(api, live.auth, data, "video/mp4", "clip.mp4")
    mark = marker()

    chosen = {"privacy_level": "PUBLIC_TO_EVERYONE", "disable_comment": False}
    post = await create(api, live.auth, f"A clip {mark} #launch", accounts.tiktok.slug, [media_id], tiktok=chosen)

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    (publish,) = fake_tiktok.published(user.open_id, containing=mark)
    assert (publish.media_type, publish.title, publish.privacy_level) == (
        "VIDEO",
        f"A clip {mark} #launch",
        "PUBLIC_TO_EVERYONE",  # chosen by the post, and offered by creator_info
    )
    assert (publish.post_info["disable_comment"], publish.post_info["disable_duet"]) == (False, True)
    (pulled,) = publish.pulled
    assert (pulled.status, pulled.size, pulled.sha256) == (200, len(data), sha256(data))  # the signed URL works
    assert pulled.url.startswith(f"{live.stack.storage_url}/")
    assert [r.status for r in fake_tiktok.seen("POST", TIKTOK_STATUS, body_contains=publish.publish_id)] == [200, 200]
    assert publish.status_fetches == 2  # PROCESSING_DOWNLOAD, then PUBLISH_COMPLETE
    assert (done["platform_post_id"], done["url"]) == (
        str(publish.post_id),
        f"https://www.tiktok.com/@herald.fake/video/{publish.post_id}",
    )


async def test_tiktok_photos_go_out_as_a_photo_post(api, live, accounts, fake_tiktok, live_worker) -> None:
    user = fake_tiktok.user("herald.fake")
    photos = [jpeg((200, 10, 10)), jpeg((10, 200, 10))]
    media_ids = [await upload(api, live.auth, p, "image/jpeg", f"p{i}.jpg") for i, p in enumerate(photos)]
    mark = marker()

    post = await create(api, live.auth, f"Two photos {mark}", accounts.tiktok.slug, media_ids)

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    (publish,) = fake_tiktok.published(user.open_id, containing=mark)
    assert publish.media_type == "PHOTO" and publish.text == f"Two photos {mark}"
    assert [p.sha256 for p in publish.pulled] == [sha256(p) for p in photos]  # in order, cover first
    # Nothing chosen: the most private level offered, comments off, and no music added.
    assert (publish.privacy_level, publish.post_info["disable_comment"]) == ("SELF_ONLY", True)
    assert publish.post_info["auto_add_music"] is False
    assert publish.post_id is None and done["url"] == "https://www.tiktok.com/@herald.fake"  # private: no post page


async def test_a_tiktok_video_without_settings_is_private_with_interactions_off(
    api, live, accounts, fake_tiktok, live_worker
) -> None:
    user = fake_tiktok.user("herald.fake")
    media_id = await upload(api, live.auth, mp4(30_000), "video/mp4", "quiet.mp4")
    mark = marker()

    post = await create(api, live.auth, f"Quiet {mark}", accounts.tiktok.slug, [media_id])

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    (publish,) = fake_tiktok.published(user.open_id, containing=mark)
    info = publish.post_info
    assert (info["privacy_level"], info["disable_comment"], info["disable_duet"], info["disable_stitch"]) == (
        "SELF_ONLY",
        True,
        True,
        True,
    )
    assert "auto_add_music" not in info  # a video post has no such field
    assert (done["platform_post_id"], done["url"]) == (publish.publish_id, "https://www.tiktok.com/@herald.fake")


async def test_a_tiktok_level_the_creator_is_not_offered_fails_refunded_and_nothing_is_sent(
    api, live, accounts, fake_tiktok, live_worker
) -> None:
    user = fake_tiktok.user("herald.fake")
    assert "FOLLOWER_OF_CREATOR" not in user.privacy_level_options
    media_id = await upload(api, live.auth, mp4(20_000), "video/mp4", "followers.mp4")
    inits = len(fake_tiktok.seen("POST", "/v2/post/publish/video/init/"))
    before = await balance(api, live.auth)
    mark = marker()

    post = await create(
        api,
        live.auth,
        f"Followers {mark}",
        accounts.tiktok.slug,
        [media_id],
        tiktok={"privacy_level": "FOLLOWER_OF_CREATOR"},
    )

    done = await settled(api, live.auth, post["id"])
    assert (done["status"], done["failure_reason"]) == ("failed", "platform_rejected"), outcome(done)
    assert await balance(api, live.auth) == before  # charged, then refunded
    assert len(fake_tiktok.seen("POST", "/v2/post/publish/video/init/")) == inits  # no init was sent


async def test_tiktok_comments_the_creator_turned_off_cannot_be_allowed(
    api, live, accounts, fake_tiktok, live_worker
) -> None:
    user = fake_tiktok.user("herald.fake")
    media_id = await upload(api, live.auth, mp4(20_000), "video/mp4", "comments.mp4")
    user.comment_disabled = True
    try:
        mark = marker()
        allowed = await create(
            api, live.auth, f"Talk {mark}", accounts.tiktok.slug, [media_id], tiktok={"disable_comment": False}
        )
        failed = await settled(api, live.auth, allowed["id"])
        assert (failed["status"], failed["failure_reason"]) == ("failed", "platform_rejected"), outcome(failed)
        quiet = await create(api, live.auth, f"Quiet talk {mark}", accounts.tiktok.slug, [media_id])
        done = await settled(api, live.auth, quiet["id"])
    finally:
        user.comment_disabled = False
    assert done["status"] == "published", outcome(done)
    assert fake_tiktok.publishes_by(user.open_id, containing=f"Talk {mark}") == []
    (publish,) = fake_tiktok.published(user.open_id, containing=f"Quiet talk {mark}")
    assert publish.post_info["disable_comment"] is True


async def test_a_refused_tiktok_token_is_refreshed_and_the_rotated_refresh_token_kept(
    api, live, accounts, fake_tiktok, live_worker
) -> None:
    user = fake_tiktok.user("herald.fake")
    before = await profile_row(live.engine, live.org_id, accounts.tiktok.slug)
    refreshes = fake_tiktok.grant_count("refresh_token", user.open_id)
    creator_calls = len(fake_tiktok.seen("POST", TIKTOK_CREATOR_INFO))
    old_refresh = fake_tiktok.live_refresh_token(user.open_id)
    fake_tiktok.expire_access_tokens(user.open_id)
    media_id = await upload(api, live.auth, mp4(50_000), "video/mp4", "after.mp4")
    mark = marker()

    post = await create(api, live.auth, f"After the refresh {mark}", accounts.tiktok.slug, [media_id])

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published" and done["attempts"] == 1, outcome(done)
    assert fake_tiktok.grant_count("refresh_token", user.open_id) == refreshes + 1
    refresh = fake_tiktok.seen("POST", "/v2/oauth/token/")[-1]
    assert (refresh.status, refresh.form["grant_type"], refresh.form["refresh_token"]) == (
        200,
        "refresh_token",
        old_refresh,
    )
    assert refresh.form["client_key"] == fake_tiktok.client_key and "client_id" not in refresh.form
    assert [r.status for r in fake_tiktok.seen("POST", TIKTOK_CREATOR_INFO)[creator_calls:]] == [401, 200]
    assert len(fake_tiktok.published(user.open_id, containing=mark)) == 1
    after = await profile_row(live.engine, live.org_id, accounts.tiktok.slug)
    assert after.token_version == before.token_version + 1 and after.connection_status == "connected"
    assert after.refresh_token.startswith("v1.") and after.refresh_token != before.refresh_token
    new_refresh = fake_tiktok.live_refresh_token(user.open_id)
    assert new_refresh != old_refresh and fake_tiktok.refresh_tokens[old_refresh].revoked  # rotated
    assert await sealed_refresh_token(live, accounts.tiktok.slug) == new_refresh  # the new one, sealed
    assert new_refresh not in after.refresh_token


async def test_a_tiktok_publish_that_fails_fails_the_post_and_refunds(
    api, live, accounts, fake_tiktok, live_worker
) -> None:
    user = fake_tiktok.user("herald.fake")
    media_id = await upload(api, live.auth, mp4(20_000), "video/mp4", "spam.mp4")
    fake_tiktok.fail_next_publish("spam_risk_text")
    before = await balance(api, live.auth)
    mark = marker()

    post = await create(api, live.auth, f"Refused {mark}", accounts.tiktok.slug, [media_id])

    done = await settled(api, live.auth, post["id"])
    assert (done["status"], done["failure_reason"]) == ("failed", "platform_rejected"), outcome(done)
    assert "spam_risk_text" in json.dumps(done["platform_error"])
    assert await balance(api, live.auth) == before  # charged, then refunded
    assert fake_tiktok.published(user.open_id, containing=mark) == []


async def test_a_png_photo_for_tiktok_is_refused_when_the_post_is_created(
    api, live, accounts, fake_tiktok, live_worker
) -> None:
    """TikTok's photo posts take JPEG and WebP only: the post is refused at creation (and by
    its dry run), never charged, never sent."""
    media_id = await upload(api, live.auth, png(color=(3, 30, 90)), "image/png", "photo.png")
    inits = len(fake_tiktok.seen("POST", "/v2/post/publish/content/init/"))
    before = await balance(api, live.auth)
    body = {"content": f"A PNG {marker()}", "profiles": [accounts.tiktok.slug], "media_ids": [media_id]}

    response = await api.post("/v1/posts", json=body, headers=live.auth)
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_MEDIA_COMBINATION"), response.text
    dry_run = await api.post("/v1/posts:validate", json=body, headers=live.auth)
    assert dry_run.status_code == 200 and dry_run.json()["valid"] is False, dry_run.text
    (check,) = dry_run.json()["profiles"]
    assert [p["code"] for p in check["problems"]] == ["INVALID_MEDIA_COMBINATION"], check
    assert await balance(api, live.auth) == before
    assert len(fake_tiktok.seen("POST", "/v2/post/publish/content/init/")) == inits


# --- YouTube -----------------------------------------------------------------------------------


async def test_a_youtube_video_is_uploaded_with_its_title_and_every_byte(
    api, live, accounts, fake_youtube, live_worker
) -> None:
    channel = fake_youtube.channel("@heraldfake")
    data = mp4(300_000)
    media_id = await upload(api, live.auth, data, "video/mp4", "talk.mp4")
    mark = marker()
    title = f"The talk {mark}"

    post = await create(
        api, live.auth, f"Recorded live.\nSlides inside {mark}", accounts.youtube.slug, [media_id], title=title
    )

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    (video,) = fake_youtube.videos_by(channel.id, containing=mark)
    assert (video.title, video.description) == (title, f"Recorded live.\nSlides inside {mark}")
    assert (video.size, video.sha256) == (len(data), sha256(data))  # streamed whole from storage
    assert video.privacy_status == "private"  # an unverified project's uploads stay private
    (start,) = fake_youtube.seen("POST", UPLOAD_PATH, body_contains=mark)
    assert start.headers["x-upload-content-length"] == str(len(data))
    assert start.headers["x-upload-content-type"] == "video/mp4"
    assert fake_youtube.session_of(video).puts == 1
    assert (done["platform_post_id"], done["url"]) == (video.id, f"https://www.youtube.com/watch?v={video.id}")


async def test_youtube_quota_exceeded_is_retried_later_and_the_video_uploaded_once(
    api, live, accounts, fake_youtube, live_worker
) -> None:
    channel = fake_youtube.channel("@heraldfake")
    media_id = await upload(api, live.auth, mp4(40_000), "video/mp4", "quota.mp4")
    mark = marker()
    status, body = quota_exceeded()
    fake_youtube.fail("POST", UPLOAD_PATH, status, body, body_contains=mark)

    post = await create(api, live.auth, f"Over quota {mark}", accounts.youtube.slug, [media_id], title=f"Quota {mark}")

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published" and done["attempts"] == 2, outcome(done)
    assert [r.status for r in fake_youtube.seen("POST", UPLOAD_PATH, body_contains=mark)] == [403, 200]
    assert len(fake_youtube.videos_by(channel.id, containing=mark)) == 1


async def _published_in_one_session(
    api: httpx.AsyncClient, live: Live, fake_youtube: FakeYouTube, case: Lost
) -> tuple[dict, Video, list[Request]]:
    """The lost upload's post, published at its second attempt as one video holding every byte,
    from one upload session; and that session's PUTs, in order."""
    channel = fake_youtube.channel("@heraldfake")

    done = await settled(api, live.auth, case.post_id, within=60)

    assert done["status"] == "published" and done["attempts"] == 2, outcome(done)
    (video,) = fake_youtube.videos_by(channel.id, containing=case.mark)
    assert (video.size, video.sha256) == (len(case.data), sha256(case.data))
    assert len(fake_youtube.seen("POST", UPLOAD_PATH, body_contains=case.mark)) == 1  # one session
    session = fake_youtube.session_of(video)
    puts = [r for r in fake_youtube.seen("PUT", UPLOAD_PATH) if r.query.get("upload_id") == session.upload_id]
    return done, video, puts


async def test_a_youtube_upload_lost_half_way_is_resumed_where_the_session_stopped(
    api, live, lost, fake_youtube
) -> None:
    case = lost["youtube"]
    done, video, puts = await _published_in_one_session(api, live, fake_youtube, case)
    first, *queries, resumed = puts
    assert first.status is None and "content-range" not in first.headers and len(first.body) == YOUTUBE_KEPT
    assert queries and all(q.headers["content-range"] == f"bytes */{len(case.data)}" for q in queries)
    assert {q.status for q in queries} == {308}
    size = len(case.data)
    assert resumed.headers["content-range"] == f"bytes {YOUTUBE_KEPT}-{size - 1}/{size}"
    assert (resumed.status, len(resumed.body)) == (201, size - YOUTUBE_KEPT)  # only what was missing
    assert done["platform_post_id"] == video.id


async def test_a_youtube_grant_removed_by_the_user_needs_reauth_and_refunds(
    api, live, fake_youtube, live_worker
) -> None:
    leaving = fake_youtube.add_channel("Leaving", f"@leaving{marker()}")
    with fake_youtube.signed_in_as(leaving.id):
        connected = await connect(api, live.auth, platform="youtube")
    fake_youtube.expire_access_tokens(leaving.id)
    fake_youtube.revoke_refresh_tokens(leaving.id)  # the user removed Herald's access
    media_id = await upload(api, live.auth, mp4(20_000), "video/mp4", "gone.mp4")
    before = await balance(api, live.auth)

    post = await create(api, live.auth, "Never out", connected.slug, [media_id], title="Never out")

    done = await settled(api, live.auth, post["id"])
    assert (done["status"], done["failure_reason"]) == ("failed", "needs_reauth"), outcome(done)
    assert await balance(api, live.auth) == before
    assert fake_youtube.videos_by(leaving.id) == []
    assert fake_youtube.seen("POST", "/token")[-1].status == 400  # invalid_grant
    connection = (await profile(api, live.auth, connected.slug))["connection"]
    assert connection["status"] == "needs_reauth" and connection["error"]


async def test_a_youtube_upload_answered_503_is_asked_about_then_sent_again_in_the_same_session(
    api, live, lost, fake_youtube
) -> None:
    case = lost["youtube_503"]
    done, video, puts = await _published_in_one_session(api, live, fake_youtube, case)
    first, *queries, again = puts
    assert (first.status, len(first.body)) == (503, len(case.data))
    assert queries and {(q.headers["content-range"], q.status) for q in queries} == {(f"bytes */{len(case.data)}", 308)}
    assert (again.status, len(again.body), again.headers.get("content-range")) == (201, len(case.data), None)


# --- LinkedIn ----------------------------------------------------------------------------------


async def test_linkedin_text_is_escaped_so_it_is_shown_whole(api, live, accounts, fake_linkedin, live_worker) -> None:
    member = fake_linkedin.member("Herald Fake")
    mark = marker()
    text = f"Launch {mark} (today) #news *bold* _it_ ~x~ [a] {{b}} <c> a|b @team back\\slash"

    post = await create(api, live.auth, text, accounts.linkedin.slug)

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    (posted,) = fake_linkedin.posts_by(member.urn, containing=mark)
    assert posted.text == text  # unescaped, LinkedIn would have cut it at "("
    assert little_text(text) != text
    assert (posted.visibility, posted.content) == ("PUBLIC", None)
    (send,) = fake_linkedin.seen("POST", "/rest/posts", body_contains=mark)
    assert send.status == 201 and {k: send.headers[k] for k in LINKEDIN_VERSION_HEADERS} == LINKEDIN_VERSION_HEADERS
    assert (done["platform_post_id"], done["url"]) == (
        posted.urn,
        f"https://www.linkedin.com/feed/update/{posted.urn}/",
    )


async def test_linkedin_two_images_go_up_then_out_as_a_multi_image_post(
    api, live, accounts, fake_linkedin, live_worker
) -> None:
    member = fake_linkedin.member("Herald Fake")
    images = [png(color=(1, 100, 1)), png(color=(100, 1, 1))]
    media_ids = [await upload(api, live.auth, data, "image/png", f"i{i}.png") for i, data in enumerate(images)]
    mark = marker()

    post = await create(api, live.auth, f"Two images {mark}", accounts.linkedin.slug, media_ids)

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    (posted,) = fake_linkedin.posts_by(member.urn, containing=mark)
    assert "multiImage" in posted.content and len(posted.media_ids) == 2
    assert [fake_linkedin.images[urn].sha256 for urn in posted.media_ids] == [sha256(d) for d in images]
    assert all(fake_linkedin.images[urn].owner == member.urn for urn in posted.media_ids)


async def test_a_linkedin_video_goes_up_in_parts_and_is_posted_once_available(
    api, live, accounts, fake_linkedin, live_worker
) -> None:
    member = fake_linkedin.member("Herald Fake")
    data = mp4(200_000)  # 4 parts of at most 64 KiB
    media_id = await upload(api, live.auth, data, "video/mp4", "demo.mp4")
    mark = marker()

    post = await create(api, live.auth, f"A demo {mark}", accounts.linkedin.slug, [media_id])

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    (posted,) = fake_linkedin.posts_by(member.urn, containing=mark)
    (urn,) = posted.media_ids
    video = fake_linkedin.videos[urn]
    assert (video.status, video.sha256, len(video.parts)) == ("AVAILABLE", sha256(data), 4)
    asset = urn.rsplit(":", 1)[-1]
    parts = fake_linkedin.seen("PUT", f"/dms-uploads/sp/v2/{asset}/uploadedVideo")
    assert [(r.query["part"], r.status) for r in parts] == [(str(i), 200) for i in range(4)]
    (finalize,) = fake_linkedin.seen("POST", "/rest/videos", body_contains=urn)
    assert finalize.status == 200
    assert finalize.json["finalizeUploadRequest"]["uploadedPartIds"] == [video.etags[i] for i in range(4)]
    polls = [r.status for r in fake_linkedin.seen("GET", "/rest/videos/.*") if asset in r.path]
    assert polls == [200, 200]  # PROCESSING, then AVAILABLE


async def test_a_linkedin_video_urn_goes_encoded_in_the_status_path(
    api, live, accounts, fake_linkedin, live_worker
) -> None:
    media_id = await upload(api, live.auth, mp4(10_000), "video/mp4", "short.mp4")
    mark = marker()

    post = await create(api, live.auth, f"Encoded {mark}", accounts.linkedin.slug, [media_id])

    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    (posted,) = fake_linkedin.posts_by(fake_linkedin.member("Herald Fake").urn, containing=mark)
    polls = [r.path for r in fake_linkedin.seen("GET", "/rest/videos/.*") if posted.media_ids[0] in unquote(r.path)]
    assert polls and all(p == f"/rest/videos/{quote(posted.media_ids[0], safe='')}" for p in polls)


async def test_a_linkedin_post_whose_answer_was_lost_is_recorded_from_the_duplicate_refusal(
    api, live, lost, fake_linkedin
) -> None:
    case = lost["linkedin"]
    member = fake_linkedin.member("Herald Fake")

    done = await settled(api, live.auth, case.post_id, within=60)

    assert done["status"] == "published", outcome(done)
    (posted,) = fake_linkedin.posts_by(member.urn, containing=case.mark)  # exactly one post
    sends = fake_linkedin.seen("POST", "/rest/posts", body_contains=case.mark)
    assert [r.status for r in sends] == [None, 422]  # never answered, then DUPLICATE_POST
    assert sends[0].json == sends[1].json  # the same post, its image not uploaded again
    assert (done["platform_post_id"], done["url"]) == (
        posted.urn,
        f"https://www.linkedin.com/feed/update/{posted.urn}/",
    )


# --- disconnecting -----------------------------------------------------------------------------


@pytest.mark.parametrize("platform", ["tiktok", "youtube", "linkedin"])
async def test_disconnect_revokes_at_the_platform_and_forgets_the_tokens(
    api, live, fake_tiktok, fake_youtube, fake_linkedin, platform: str
) -> None:
    fake: FakeTikTok | FakeYouTube | FakeLinkedIn
    if platform == "tiktok":
        fake, account = fake_tiktok, fake_tiktok.add_user(f"leaving.{marker()}").open_id
    elif platform == "youtube":
        fake, account = fake_youtube, fake_youtube.add_channel("Leaving", f"@leaving{marker()}").id
    else:
        fake, account = fake_linkedin, fake_linkedin.add_member("Leaving", marker()).sub
    with fake.signed_in_as(account):
        connected = await connect(api, live.auth, platform=platform)
    revoked_before = len(fake.revoked)

    response = await api.post(f"/v1/profiles/{connected.slug}/disconnect", headers=live.auth)

    assert response.status_code == 200, response.text
    assert response.json()["revoked"] is True
    assert len(fake.revoked) == revoked_before + 1
    row = await profile_row(live.engine, live.org_id, connected.slug)
    assert (row.access_token, row.refresh_token, row.connection_status) == (None, None, "disconnected")
    if platform == "tiktok":
        call = fake_tiktok.seen("POST", "/v2/oauth/revoke/")[-1]
        assert call.form["client_key"] == fake_tiktok.client_key and "client_id" not in call.form


# --- logs --------------------------------------------------------------------------------------


async def test_no_platform_token_reaches_a_log(live_stack, fake_tiktok, fake_youtube, fake_linkedin, lost) -> None:
    logs = "".join(p.read_text(errors="replace") for p in live_stack.workdir.glob("*.log"))
    tokens = fake_tiktok.issued_tokens() + fake_youtube.issued_tokens() + fake_linkedin.issued_tokens()
    assert tokens and not [t for t in tokens if t in logs]
