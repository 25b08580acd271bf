"""YouTube: the resumable session and the upload that makes the video, resumption from the
session's Range, and the session status that reconciles a lost answer (docs/platforms.md, "YouTube")."""

from __future__ import annotations

import pytest

from core.connectors.base import DeliveryError, ErrorClass, MediaBytes, OutgoingPost
from tests.core.connectors.factories import calls, connector_for, image, post, sandboxed, scripted, video
from tests.core.connectors.scripted import reply

Y = connector_for("youtube")
START = "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status"
SESSION = f"{START}&upload_id=xa298sd_f"
VIDEO = {"kind": "youtube#video", "id": "dQw4w9WgXcQ", "status": {"uploadStatus": "uploaded"}}
SAVED = {"upload_url": SESSION}


def google(status: int, reason: str) -> dict[str, object]:
    return {"error": {"code": status, "message": "m", "errors": [{"domain": "youtube.quota", "reason": reason}]}}


async def test_a_session_is_started_with_the_metadata_then_the_bytes_make_the_video() -> None:
    p = post("youtube", content="Our launch\nmore words", media=(video(),), title="Launch")
    api = scripted(p, [("POST", r"uploadType=resumable", reply(200, None, Location=SESSION))])
    delivery = await Y.deliver(p, api)
    assert calls(api) == [("POST", START), ("PUT", SESSION)]
    start, upload = api.requests
    assert start.headers == {
        "Content-Type": "application/json; charset=UTF-8",
        "X-Upload-Content-Length": "3000",
        "X-Upload-Content-Type": "video/mp4",
    }
    assert start.json == {
        "snippet": {"title": "Launch", "description": "Our launch\nmore words", "categoryId": "22"},
        "status": {"privacyStatus": "public", "selfDeclaredMadeForKids": False},
    }
    assert not start.creates_post and upload.creates_post and upload.auth == "Bearer"
    assert (upload.content, upload.headers) == (MediaBytes(p.media[0]), {"Content-Type": "video/mp4"})
    # the session is saved before the upload, so a lost answer can be asked about
    assert api.saves[0] == {"upload_url": SESSION}
    assert delivery.url == f"https://www.youtube.com/watch?v={delivery.platform_post_id}"


async def test_the_sandbox_run_finishes_with_the_watch_url() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    api = await sandboxed(p)
    assert [r["method"] for r in api.requests] == ["POST", "PUT"]
    assert api.requests[1]["url"] == api.state["upload_url"]


async def test_without_a_title_the_first_line_of_the_content_is_cut_to_100_chars() -> None:
    p = post("youtube", content="x" * 150 + "\nrest", media=(video(),))
    api = await sandboxed(p)
    assert api.requests[0]["json"]["snippet"]["title"] == "x" * 100


@pytest.mark.parametrize(
    "sample",
    [
        post("youtube", media=(), title="t"),
        post("youtube", media=(image(),), title="t"),
        post("youtube", media=(video(1), video(2)), title="t"),
        post("youtube", content="", media=(video(),)),
        post("youtube", content="a <b>", media=(video(),), title="t"),
        post("youtube", media=(video(),), title="1 < 2"),
        post("youtube", content="é" * 2501, media=(video(),), title="t"),
    ],
    ids=["no-media", "image", "two-videos", "no-title", "angle-description", "angle-title", "long-description"],
)
async def test_posts_youtube_cannot_take_are_refused_before_sending(sample: OutgoingPost) -> None:
    api = scripted(sample)
    with pytest.raises(DeliveryError) as caught:
        await Y.deliver(sample, api)
    assert caught.value.error_class is ErrorClass.PERMANENT and not api.requests


async def test_a_saved_session_is_asked_how_far_it_got_and_resumed_from_there() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    api = scripted(p, [("PUT", r"upload_id=", reply(308, None, Range="bytes=0-999"))], state=dict(SAVED))
    await Y.deliver(p, api)
    assert calls(api) == [("PUT", SESSION), ("PUT", SESSION)]
    query, resume = api.requests
    assert query.headers == {"Content-Length": "0", "Content-Range": "bytes */3000"}
    assert query.content is None and not query.creates_post
    assert resume.creates_post and resume.content == MediaBytes(p.media[0], 1000)
    assert resume.headers == {"Content-Type": "video/mp4", "Content-Range": "bytes 1000-2999/3000"}


async def test_a_saved_session_that_received_nothing_is_uploaded_whole() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    api = scripted(p, [("PUT", r"upload_id=", reply(308, None))], state=dict(SAVED))
    await Y.deliver(p, api)
    assert api.requests[1].content == MediaBytes(p.media[0]) and "Content-Range" not in api.requests[1].headers


async def test_a_saved_session_that_finished_answers_the_video_without_uploading() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    api = scripted(p, [("PUT", r"upload_id=", reply(201, VIDEO))], state=dict(SAVED))
    delivery = await Y.deliver(p, api)
    assert delivery.platform_post_id == "dQw4w9WgXcQ" and len(api.requests) == 1
    assert not api.requests[0].creates_post


async def test_an_expired_session_starts_over() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    new_session = f"{START}&upload_id=new"
    api = scripted(
        p,
        [
            ("PUT", r"upload_id=xa298sd_f", reply(404, None)),
            ("POST", r"resumable", reply(200, None, Location=new_session)),
        ],
        state=dict(SAVED),
    )
    await Y.deliver(p, api)
    assert calls(api) == [("PUT", SESSION), ("POST", START), ("PUT", new_session)]
    assert api.state["upload_url"] == new_session


async def test_an_upload_answered_308_is_resumed_by_the_next_attempt() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    api = scripted(p, [("PUT", r"upload_id=", reply(308, None, Range="bytes=0-99"))])
    with pytest.raises(DeliveryError) as caught:
        await Y.deliver(p, api)
    assert caught.value.error_class is ErrorClass.RETRYABLE
    assert "upload_url" in api.state and "create_sent_at" in api.state


async def test_an_upload_whose_session_expired_drops_it() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    api = scripted(p, [("PUT", r"upload_id=", reply(404, None))])
    with pytest.raises(DeliveryError) as caught:
        await Y.deliver(p, api)
    assert caught.value.error_class is ErrorClass.RETRYABLE and "upload_url" not in api.state


async def test_a_rejected_upload_fails_for_good() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    rejected = {"id": "v1", "status": {"uploadStatus": "rejected", "rejectionReason": "duplicate"}}
    api = scripted(p, [("PUT", r"upload_id=", reply(200, rejected))])
    with pytest.raises(DeliveryError) as caught:
        await Y.deliver(p, api)
    assert caught.value.error_class is ErrorClass.PERMANENT and "duplicate" in str(caught.value)


async def test_a_quota_refusal_is_retried_later() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    api = scripted(p, [("POST", r"resumable", reply(403, google(403, "quotaExceeded")))])
    with pytest.raises(DeliveryError) as caught:
        await Y.deliver(p, api)
    assert caught.value.error_class is ErrorClass.RETRYABLE and "upload_url" not in api.state


async def test_reconcile_without_a_session_resends() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    api = scripted(p, state={"create_sent_at": "2026-11-24T12:00:00+00:00"})
    assert await Y.reconcile(p, api) is None and not api.requests


async def test_reconcile_finds_the_video_of_a_finished_upload() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    api = scripted(p, [("PUT", r"upload_id=", reply(200, VIDEO))], state=dict(SAVED))
    found = await Y.reconcile(p, api)
    assert found is not None and found.url == "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
    assert api.requests[0].headers["Content-Range"] == "bytes */3000"


async def test_reconcile_leaves_an_unfinished_session_for_deliver_to_resume() -> None:
    p = post("youtube", media=(video(),), title="Launch")
    api = scripted(p, [("PUT", r"upload_id=", reply(308, None, Range="bytes=0-499"))], state=dict(SAVED))
    assert await Y.reconcile(p, api) is None
    assert api.state["upload_url"] == SESSION


@pytest.mark.parametrize("status", [404, 410])
async def test_reconcile_drops_an_expired_session(status: int) -> None:
    p = post("youtube", media=(video(),), title="Launch")
    api = scripted(p, [("PUT", r"upload_id=", reply(status, None))], state=dict(SAVED))
    assert await Y.reconcile(p, api) is None
    assert "upload_url" not in api.state


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (403, google(403, "quotaExceeded"), ErrorClass.RETRYABLE),
        (403, google(403, "rateLimitExceeded"), ErrorClass.RETRYABLE),
        (403, google(403, "userRateLimitExceeded"), ErrorClass.RETRYABLE),
        (400, google(400, "uploadLimitExceeded"), ErrorClass.RETRYABLE),
        (400, google(400, "invalidTitle"), ErrorClass.PERMANENT),
        (403, google(403, "forbidden"), ErrorClass.PERMANENT),
        (400, {"error": "invalid_grant"}, ErrorClass.NEEDS_REAUTH),
        (401, google(401, "authError"), ErrorClass.NEEDS_REAUTH),
        (400, {"error": {"errors": [{"reason": ["quotaExceeded"]}, "x", None]}}, ErrorClass.PERMANENT),
        (400, {"error": {"errors": "quotaExceeded"}}, ErrorClass.PERMANENT),
        (503, google(503, "backendError"), ErrorClass.RETRYABLE),
    ],
)
def test_classify(status: int, body: object, expected: ErrorClass) -> None:
    assert Y.classify(status, body) is expected
