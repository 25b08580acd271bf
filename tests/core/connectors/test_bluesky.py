"""Bluesky: blobs, the video service and its job, facets with resolved mentions, link cards, and
the record key that makes a resend harmless and getRecord decisive (docs/live-publishing.md,
"What Bluesky receives")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from core.connectors.base import DeliveryError, ErrorClass, MediaBytes
from core.connectors.bluesky_richtext import created_at, page_card, text_facets, tid
from core.db.types import utcnow
from tests.core.connectors.factories import calls, connector_for, image, page_of, post, sandboxed, scripted, video
from tests.core.connectors.scripted import reply

B = connector_for("bluesky")
PDS = "https://pds.example/xrpc"
VIDEO = "https://video.bsky.app/xrpc"
DID = "did:plc:abc123"
RECORD_TIME = "2026-11-24T12:00:00.123456+00:00"
RKEY = tid(datetime.fromisoformat(RECORD_TIME), "dk_1")
NOT_FOUND = reply(400, {"error": "RecordNotFound", "message": "Could not locate record"})


def blob(cid: str, mime: str = "image/jpeg", size: int = 1000) -> dict:
    return {"$type": "blob", "ref": {"$link": cid}, "mimeType": mime, "size": size}


def job(state: str, **extra: object) -> dict:
    return {"jobStatus": {"jobId": "job-1", "did": DID, "state": state, **extra}}


# --- the record -------------------------------------------------------------------------------


def sent_at(request) -> datetime:  # a PlatformRequest
    """The `createdAt` a createRecord request carries."""
    return datetime.fromisoformat(request.json["record"]["createdAt"].replace("Z", "+00:00"))


async def test_text_only_is_one_record_with_our_key_and_time() -> None:
    before = utcnow()
    api = scripted(post("bluesky"))
    delivery = await B.deliver(post("bluesky"), api)
    assert calls(api) == [("POST", f"{PDS}/com.atproto.repo.createRecord")]
    request = api.requests[0]
    assert request.creates_post and request.auth == "Bearer"
    rkey = api.state["record_key"]
    assert request.json == {
        "repo": DID,
        "collection": "app.bsky.feed.post",
        "rkey": rkey,
        "record": {"$type": "app.bsky.feed.post", "text": "hi", "createdAt": created_at(sent_at(request))},
    }
    assert before - timedelta(milliseconds=1) <= sent_at(request) <= utcnow()
    # The key and the request are saved before the record is sent.
    assert api.saves[0] == {"record_key": rkey, "create_request": request.as_dict()}
    assert delivery.platform_post_id == f"at://{DID}/app.bsky.feed.post/{rkey}"
    assert delivery.url == f"https://bsky.app/profile/acme.bsky.social/post/{rkey}"


@pytest.mark.parametrize(
    "failure",
    [
        reply(429, {"error": "RateLimitExceeded", "message": "Rate Limit Exceeded"}),  # refused: nothing written
        reply(503, {"error": "InternalServerError"}),  # may have been written: looked up first
    ],
)
async def test_a_retry_keeps_the_record_key_and_stamps_its_own_time(failure: object, monkeypatch) -> None:
    p = post("bluesky")
    first = scripted(p, [("POST", r"createRecord$", failure)])
    with pytest.raises(DeliveryError):
        await B.deliver(p, first)
    later = utcnow() + timedelta(minutes=3, seconds=30)  # the retry's backoff, as the issue saw it
    second = scripted(p, [("GET", r"getRecord\?", NOT_FOUND)], state=first.state)
    monkeypatch.setattr("core.connectors.bluesky.utcnow", lambda: later)
    assert await B.reconcile(p, second) is None
    await B.deliver(p, second)
    created = second.only("POST", r"createRecord$")
    assert created.json["rkey"] == first.requests[0].json["rkey"] == first.state["record_key"]
    assert sent_at(created) == later.replace(microsecond=later.microsecond // 1000 * 1000)
    assert sent_at(first.requests[0]) < later - timedelta(minutes=3)
    assert second.state["create_request"] == created.as_dict()  # what the outbox shows if it is found later


async def test_a_record_key_saved_as_its_time_is_kept() -> None:
    """A delivery begun before the key itself was saved saved the time it is made from."""
    api = scripted(post("bluesky"), state={"record_time": RECORD_TIME})
    await B.deliver(post("bluesky"), api)
    body = api.requests[0].json
    assert body["rkey"] == RKEY and body["record"]["createdAt"] != "2026-11-24T12:00:00.123Z"


async def test_a_resend_refused_because_the_record_exists_is_the_delivery() -> None:
    exists = reply(400, {"error": "InvalidRequest", "message": "Record already exists"})
    found = {"uri": f"at://{DID}/app.bsky.feed.post/{RKEY}", "cid": "bafyrei1", "value": {"text": "hi"}}
    api = scripted(
        post("bluesky"),
        [("POST", r"createRecord$", exists), ("GET", r"getRecord\?", reply(200, found))],
        state={"record_time": RECORD_TIME},
    )
    delivery = await B.deliver(post("bluesky"), api)
    assert calls(api)[1] == (
        "GET",
        f"{PDS}/com.atproto.repo.getRecord?repo={DID}&collection=app.bsky.feed.post&rkey={RKEY}",
    )
    assert delivery.platform_post_id == found["uri"]


async def test_a_refused_record_that_is_not_there_stays_refused() -> None:
    too_long = reply(400, {"error": "InvalidRequest", "message": "Record/text must not be longer than 300 graphemes"})
    api = scripted(post("bluesky"), [("POST", r"createRecord$", too_long), ("GET", r"getRecord\?", NOT_FOUND)])
    with pytest.raises(DeliveryError) as caught:
        await B.deliver(post("bluesky"), api)
    assert (caught.value.error_class, caught.value.status) == (ErrorClass.PERMANENT, 400)


async def test_an_expired_session_is_not_looked_up() -> None:
    expired = reply(400, {"error": "ExpiredToken", "message": "Token has expired"})
    api = scripted(post("bluesky"), [("POST", r"createRecord$", expired)])
    with pytest.raises(DeliveryError) as caught:
        await B.deliver(post("bluesky"), api)
    assert caught.value.error_class is ErrorClass.NEEDS_REAUTH
    assert len(api.requests) == 1


# --- reconcile --------------------------------------------------------------------------------


async def test_reconcile_without_a_record_key_sends_nothing() -> None:
    api = scripted(post("bluesky"), state={"create_sent_at": "2026-11-24T12:00:00+00:00"})
    assert await B.reconcile(post("bluesky"), api) is None
    assert api.requests == []


async def test_reconcile_finds_the_record_by_its_key() -> None:
    found = {"uri": f"at://{DID}/app.bsky.feed.post/{RKEY}", "cid": "bafyrei1", "value": {"text": "hi"}}
    api = scripted(post("bluesky"), [("GET", r"getRecord\?", reply(200, found))], state={"record_time": RECORD_TIME})
    delivery = await B.reconcile(post("bluesky"), api)
    assert delivery is not None and delivery.platform_post_id == found["uri"]
    assert delivery.url == f"https://bsky.app/profile/acme.bsky.social/post/{RKEY}"
    query = parse_qs(urlsplit(api.requests[0].url).query)
    assert query == {"repo": [DID], "collection": ["app.bsky.feed.post"], "rkey": [RKEY]}


async def test_reconcile_answers_none_when_the_record_is_not_there() -> None:
    api = scripted(post("bluesky"), [("GET", r"getRecord\?", NOT_FOUND)], state={"record_time": RECORD_TIME})
    assert await B.reconcile(post("bluesky"), api) is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (reply(502, "Bad Gateway"), ErrorClass.RETRYABLE),
        (reply(400, {"error": "ExpiredToken", "message": "Token has expired"}), ErrorClass.NEEDS_REAUTH),
    ],
)
async def test_reconcile_that_cannot_tell_raises(answer: object, expected: ErrorClass) -> None:
    api = scripted(post("bluesky"), [("GET", r"getRecord\?", answer)], state={"record_time": RECORD_TIME})
    with pytest.raises(DeliveryError) as caught:
        await B.reconcile(post("bluesky"), api)
    assert caught.value.error_class is expected


# --- images and videos ------------------------------------------------------------------------


async def test_images_are_blobs_embedded_with_alt_and_aspect_ratio() -> None:
    p = post("bluesky", media=(image(1, alt_text="a cat", width=1200, height=800), image(2)))
    api = scripted(
        p,
        [
            ("POST", r"uploadBlob$", reply(200, {"blob": blob("bafkrei1")})),
            ("POST", r"uploadBlob$", reply(200, {"blob": blob("bafkrei2")})),
        ],
    )
    await B.deliver(p, api)
    assert calls(api) == [
        ("POST", f"{PDS}/com.atproto.repo.uploadBlob"),
        ("POST", f"{PDS}/com.atproto.repo.uploadBlob"),
        ("POST", f"{PDS}/com.atproto.repo.createRecord"),
    ]
    upload = api.requests[0]
    assert upload.content == MediaBytes(p.media[0]) and upload.headers == {"Content-Type": "image/jpeg"}
    assert api.state["blobs"] == {"med_1": blob("bafkrei1"), "med_2": blob("bafkrei2")}
    assert api.requests[2].json["record"]["embed"] == {
        "$type": "app.bsky.embed.images",
        "images": [
            {"image": blob("bafkrei1"), "alt": "a cat", "aspectRatio": {"width": 1200, "height": 800}},
            {"image": blob("bafkrei2"), "alt": ""},
        ],
    }


async def test_saved_blobs_are_not_uploaded_again() -> None:
    p = post("bluesky", media=(image(),))
    api = scripted(p, state={"blobs": {"med_1": blob("bafkrei9")}})
    await B.deliver(p, api)
    assert calls(api) == [("POST", f"{PDS}/com.atproto.repo.createRecord")]
    assert api.requests[0].json["record"]["embed"]["images"][0]["image"] == blob("bafkrei9")


@pytest.mark.parametrize("media", [(image(1), video(2)), tuple(image(n) for n in range(1, 6)), (video(1), video(2))])
async def test_media_bluesky_cannot_hold_is_refused_before_sending(media: tuple) -> None:
    api = scripted(post("bluesky", media=media))
    with pytest.raises(DeliveryError) as caught:
        await B.deliver(post("bluesky", media=media), api)
    assert caught.value.error_class is ErrorClass.PERMANENT
    assert api.requests == []


async def test_video_goes_to_the_video_service_with_a_service_token_then_its_job_is_polled() -> None:
    p = post("bluesky", media=(video(alt_text="a demo", width=1920, height=1080),))
    done = job("JOB_STATE_COMPLETED", blob=blob("bafkreiv", "video/mp4", 3000))
    api = scripted(
        p,
        [
            ("GET", r"getServiceAuth\?", reply(200, {"token": "svc-jwt"})),
            ("POST", r"uploadVideo\?", reply(200, job("JOB_STATE_CREATED"))),
            ("GET", r"getJobStatus\?", reply(200, job("JOB_STATE_ENCODING", progress=40))),
            ("GET", r"getJobStatus\?", reply(200, done)),
        ],
    )
    await B.deliver(p, api)
    assert [method for method, _ in calls(api)] == ["GET", "POST", "GET", "GET", "POST"]
    auth = urlsplit(api.requests[0].url)
    assert auth.path == "/xrpc/com.atproto.server.getServiceAuth" and auth.netloc == "pds.example"
    query = parse_qs(auth.query)
    assert query["aud"] == ["did:web:pds.example"] and query["lxm"] == ["com.atproto.repo.uploadBlob"]
    expires = datetime.fromtimestamp(int(query["exp"][0]), UTC) - utcnow()
    assert timedelta(minutes=29) < expires <= timedelta(minutes=30)
    upload = api.requests[1]
    assert upload.url == f"{VIDEO}/app.bsky.video.uploadVideo?did={DID}&name=med_9.mp4"
    assert (upload.auth, upload.bearer) == (None, "svc-jwt")
    assert upload.content == MediaBytes(p.media[0]) and upload.headers == {"Content-Type": "video/mp4"}
    assert "svc-jwt" not in str(upload.as_dict())
    assert api.requests[2].url == f"{VIDEO}/app.bsky.video.getJobStatus?jobId=job-1"
    assert api.requests[2].auth is None and api.requests[2].bearer is None
    assert api.state["jobs"] == {"med_9": "job-1"}
    assert api.waited > 0
    assert api.requests[-1].json["record"]["embed"] == {
        "$type": "app.bsky.embed.video",
        "video": blob("bafkreiv", "video/mp4", 3000),
        "alt": "a demo",
        "aspectRatio": {"width": 1920, "height": 1080},
    }


async def test_a_gif_is_posted_as_video() -> None:
    p = post("bluesky", media=(image(4, kind="gif", mime_type="image/gif"),))
    api = await sandboxed(p)
    assert api.requests[1]["url"].endswith("&name=med_4.gif")
    assert api.requests[-1]["json"]["record"]["embed"]["$type"] == "app.bsky.embed.video"


async def test_a_video_the_service_already_has_answers_its_blob_at_once() -> None:
    p = post("bluesky", media=(video(),))
    exists = {"jobId": "job-0", "did": DID, "state": "JOB_STATE_COMPLETED", "error": "already_exists"}
    api = scripted(p, [("POST", r"uploadVideo\?", reply(409, exists | {"blob": blob("bafkreiz", "video/mp4")}))])
    await B.deliver(p, api)
    assert not any("getJobStatus" in url for _, url in calls(api))
    assert api.state["blobs"]["med_9"] == blob("bafkreiz", "video/mp4")


async def test_a_failed_video_job_fails_the_post_for_good() -> None:
    p = post("bluesky", media=(video(),))
    failed = job("JOB_STATE_FAILED", error="unsupported", message="Video codec not supported")
    api = scripted(p, [("GET", r"getJobStatus\?", reply(200, failed))])
    with pytest.raises(DeliveryError) as caught:
        await B.deliver(p, api)
    assert caught.value.error_class is ErrorClass.PERMANENT
    assert not any(r.creates_post for r in api.requests)


async def test_processing_that_outlasts_the_attempt_is_resumed_not_uploaded_again() -> None:
    p = post("bluesky", media=(video(),))
    encoding = reply(200, job("JOB_STATE_ENCODING"))
    first = scripted(p, [("GET", r"getJobStatus\?", encoding)] * B.poll_limit)
    with pytest.raises(DeliveryError) as caught:
        await B.deliver(p, first)
    assert caught.value.error_class is ErrorClass.RETRYABLE
    second = scripted(p, state=first.state)
    await B.deliver(p, second)
    assert [url.split("?")[0].rsplit("/", 1)[-1] for _, url in calls(second)] == [
        "app.bsky.video.getJobStatus",
        "com.atproto.repo.createRecord",
    ]


# --- facets -----------------------------------------------------------------------------------


async def test_links_and_tags_are_facets_at_utf8_byte_offsets() -> None:
    text = "🚀 Launch: https://example.com/a (see #news)."
    api = await sandboxed(post("bluesky", content=text))
    assert api.requests[0]["json"]["record"]["facets"] == [
        {
            "index": {"byteStart": 13, "byteEnd": 34},
            "features": [{"$type": "app.bsky.richtext.facet#link", "uri": "https://example.com/a"}],
        },
        {
            "index": {"byteStart": 40, "byteEnd": 45},
            "features": [{"$type": "app.bsky.richtext.facet#tag", "tag": "news"}],
        },
    ]


async def test_mentions_are_resolved_to_dids_and_unresolvable_ones_stay_text() -> None:
    text = "thanks @Alice.bsky.social and @ghost.bsky.app!"
    p = post("bluesky", content=text)
    api = scripted(
        p,
        [
            ("GET", r"handle=alice\.bsky\.social$", reply(200, {"did": "did:plc:alice"})),
            (
                "GET",
                r"handle=ghost\.bsky\.app$",
                reply(400, {"error": "InvalidRequest", "message": "Unable to resolve"}),
            ),
        ],
    )
    await B.deliver(p, api)
    assert calls(api)[:2] == [
        ("GET", f"{PDS}/com.atproto.identity.resolveHandle?handle=alice.bsky.social"),
        ("GET", f"{PDS}/com.atproto.identity.resolveHandle?handle=ghost.bsky.app"),
    ]
    assert api.requests[-1].json["record"]["facets"] == [
        {
            "index": {"byteStart": 7, "byteEnd": 25},
            "features": [{"$type": "app.bsky.richtext.facet#mention", "did": "did:plc:alice"}],
        }
    ]


def test_facets_skip_numeric_tags_emails_and_text_inside_links() -> None:
    text = "#2024 mail me@example.com or see https://x.example/#top @bob.test."
    facets = text_facets(text, {"bob.test": "did:plc:bob"})
    features = [f["features"][0] for f in facets]
    assert features == [
        {"$type": "app.bsky.richtext.facet#link", "uri": "https://x.example/#top"},
        {"$type": "app.bsky.richtext.facet#mention", "did": "did:plc:bob"},
    ]
    assert facets[1]["index"] == {"byteStart": 56, "byteEnd": 65}


# --- link cards -------------------------------------------------------------------------------

PAGE_URL = "https://example.com/launch"
PAGE = b"""<html><head><title>Fallback</title>
<meta property="og:title" content="Launch &amp; more">
<meta property="og:description" content="  What we shipped  today ">
<meta property="og:image" content="/img/card.png"></head><body>...</body></html>"""


async def test_a_link_without_media_gets_a_card_with_its_picture_uploaded() -> None:
    p = post("bluesky", content=f"Read {PAGE_URL}")
    pages = {
        PAGE_URL: reply(200, PAGE, **{"content-type": "text/html; charset=utf-8"}),
        "https://example.com/img/card.png": reply(200, b"\x89PNG....", **{"content-type": "image/png"}),
    }
    api = scripted(p, [("POST", r"uploadBlob$", reply(200, {"blob": blob("bafkreit", "image/png", 8)}))], pages=pages)
    await B.deliver(p, api)
    assert calls(api) == [
        ("POST", f"{PDS}/com.atproto.repo.uploadBlob"),
        ("POST", f"{PDS}/com.atproto.repo.createRecord"),
    ]
    assert api.requests[0].content == b"\x89PNG...." and api.requests[0].headers == {"Content-Type": "image/png"}
    card = {
        "uri": PAGE_URL,
        "title": "Launch & more",
        "description": "What we shipped today",
        "thumb": blob("bafkreit", "image/png", 8),
    }
    assert api.requests[1].json["record"]["embed"] == {"$type": "app.bsky.embed.external", "external": card}
    assert api.state["card"] == card
    # a later attempt uses the saved card: nothing is fetched or uploaded again
    again = scripted(p, state=api.state)
    await B.deliver(p, again)
    assert calls(again) == [("POST", f"{PDS}/com.atproto.repo.createRecord")]
    assert again.requests[0].json["record"]["embed"]["external"] == card


async def test_a_card_whose_picture_cannot_be_had_has_none() -> None:
    p = post("bluesky", content=f"Read {PAGE_URL}")
    api = scripted(p, pages={PAGE_URL: reply(200, PAGE, **{"content-type": "text/html"})})
    await B.deliver(p, api)
    assert calls(api) == [("POST", f"{PDS}/com.atproto.repo.createRecord")]
    assert "thumb" not in api.requests[0].json["record"]["embed"]["external"]


async def test_no_card_when_the_page_cannot_be_had_or_the_post_has_media() -> None:
    unreachable = await sandboxed(post("bluesky", content=f"Read {PAGE_URL}"))
    assert "embed" not in unreachable.requests[-1]["json"]["record"]
    assert unreachable.state["card"] == {}
    p = post("bluesky", content=f"Read {PAGE_URL}", media=(image(),))
    api = scripted(p, pages={PAGE_URL: reply(200, PAGE)})
    await B.deliver(p, api)
    assert api.requests[-1].json["record"]["embed"]["$type"] == "app.bsky.embed.images"
    assert "card" not in api.state


def test_page_card_falls_back_to_the_title_and_description_meta() -> None:
    page = "<title> Caf\xe9\n news </title><meta name=description content='Fresh'>".encode("latin-1")
    card = page_card(page, "https://example.com/a", "text/html; charset=ISO-8859-1")
    assert card is not None and (card.title, card.description, card.image) == ("Caf\xe9 news", "Fresh", None)
    assert page_card(b"<html><body>no head</body></html>", "https://example.com/") is None
    assert page_card(b"\xff\xfe<meta property='og:title' content='x'>", "https://e.example/", "text/html; charset=nope")


# --- the record key and errors ----------------------------------------------------------------


def test_record_keys_are_tids_from_the_time_and_the_delivery() -> None:
    at = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    key = tid(at, "dk_1")
    assert len(key) == 13 and key[0] in "234567ab" and set(key) <= set("234567abcdefghijklmnopqrstuvwxyz")
    assert key == tid(at, "dk_1") != tid(at, "dk_2")
    assert key[:11] == tid(at, "dk_2")[:11]  # same time, different clock id
    assert tid(at, "dk_1") < tid(at + timedelta(microseconds=1), "dk_1")  # sortable by time
    assert tid(datetime(2023, 6, 30, 15, 3, 1, 887007, tzinfo=UTC), "x")[:11] == "3jzfcijpj2z"


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (400, {"error": "InvalidToken"}, ErrorClass.NEEDS_REAUTH),
        (401, {"error": "AuthenticationRequired"}, ErrorClass.NEEDS_REAUTH),
        (400, {"error": "RecordNotFound"}, ErrorClass.PERMANENT),
        (429, {"error": "ExpiredToken"}, ErrorClass.RETRYABLE),
        (503, {"error": "ExpiredToken"}, ErrorClass.RETRYABLE),
    ],
)
def test_classify(status: int, body: object, expected: ErrorClass) -> None:
    assert B.classify(status, body) is expected


async def test_the_sandbox_answers_a_whole_video_delivery() -> None:
    sample = post("bluesky", content="hi @alice.bsky.social", media=(video(),))
    api = await sandboxed(sample)
    names = [urlsplit(r["url"]).path.rsplit("/", 1)[-1] for r in api.requests]
    assert names == [
        "com.atproto.server.getServiceAuth",
        "app.bsky.video.uploadVideo",
        "app.bsky.video.getJobStatus",
        "com.atproto.identity.resolveHandle",
        "com.atproto.repo.createRecord",
    ]
    record = api.requests[-1]["json"]["record"]
    assert record["facets"][0]["features"][0]["did"].startswith("did:plc:")
    assert api.delivery.url == page_of(sample)
