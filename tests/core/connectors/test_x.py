"""X: uploads (simple and chunked), alt text, the post, processing polls, resumption and the
lookup that replaces a resend (docs/platforms.md, "X")."""

from __future__ import annotations

import pytest

from core.connectors.base import DeliveryError, ErrorClass, MediaBytes
from tests.core.connectors.factories import calls, connector_for, image, post, sandboxed, scripted, video
from tests.core.connectors.scripted import reply

X = connector_for("x")
BASE = "https://api.x.com/2"


async def test_text_only_is_one_request() -> None:
    api = await sandboxed(post("x"))
    assert calls(api) == [("POST", f"{BASE}/tweets")]
    assert api.requests[0]["json"] == {"text": "hi"}


async def test_images_upload_then_alt_text_then_the_post_with_their_ids() -> None:
    p = post("x", media=(image(1, alt_text="a cat"), image(2)))
    api = scripted(p)
    delivery = await X.deliver(p, api)
    assert calls(api) == [
        ("POST", f"{BASE}/media/upload"),
        ("POST", f"{BASE}/media/metadata"),
        ("POST", f"{BASE}/media/upload"),
        ("POST", f"{BASE}/tweets"),
    ]
    upload = api.requests[0]
    assert upload.multipart == {"media": MediaBytes(p.media[0]), "media_category": "tweet_image"}
    first, second = api.state["media"]["med_1"], api.state["media"]["med_2"]
    assert api.requests[1].json == {"id": first, "metadata": {"alt_text": {"text": "a cat"}}}
    assert api.requests[3].json == {"text": "hi", "media": {"media_ids": [first, second]}}
    assert api.requests[3].creates_post
    assert delivery.url == f"https://x.com/acme/status/{delivery.platform_post_id}"


async def test_video_is_chunked_in_5mb_segments_then_polled_until_processed() -> None:
    size = 12 * 1024 * 1024
    p = post("x", media=(video(size_bytes=size),))
    processing = {"data": {"processing_info": {"state": "in_progress", "check_after_secs": 1}}}
    api = scripted(
        p,
        [
            ("POST", r"/finalize$", reply(200, processing)),
            ("GET", r"command=STATUS", reply(200, processing)),
        ],
    )
    await X.deliver(p, api)
    media_id = api.state["media"]["med_9"]
    assert calls(api) == [
        ("POST", f"{BASE}/media/upload/initialize"),
        ("POST", f"{BASE}/media/upload/{media_id}/append"),
        ("POST", f"{BASE}/media/upload/{media_id}/append"),
        ("POST", f"{BASE}/media/upload/{media_id}/append"),
        ("POST", f"{BASE}/media/upload/{media_id}/finalize"),
        ("GET", f"{BASE}/media/upload?command=STATUS&media_id={media_id}"),
        ("GET", f"{BASE}/media/upload?command=STATUS&media_id={media_id}"),
        ("POST", f"{BASE}/tweets"),
    ]
    assert api.requests[0].json == {"media_type": "video/mp4", "total_bytes": size, "media_category": "tweet_video"}
    segments = [r.multipart["media"] for r in api.requests[1:4]]
    assert [(s.start, s.end) for s in segments] == [(0, 5 << 20), (5 << 20, 10 << 20), (10 << 20, size)]
    assert [r.multipart["segment_index"] for r in api.requests[1:4]] == ["0", "1", "2"]


async def test_gif_uses_the_gif_category_and_gets_alt_text() -> None:
    p = post("x", media=(image(4, kind="gif", mime_type="image/gif", alt_text="loop"),))
    api = await sandboxed(p)
    assert api.requests[0]["json"]["media_category"] == "tweet_gif"
    assert any(r["url"].endswith("/media/metadata") for r in api.requests)


async def test_processing_failure_fails_the_post_for_good() -> None:
    p = post("x", media=(video(),))
    failed = {"data": {"processing_info": {"state": "failed", "error": {"message": "InvalidMedia"}}}}
    api = scripted(p, [("POST", r"/finalize$", reply(200, failed))])
    with pytest.raises(DeliveryError) as caught:
        await X.deliver(p, api)
    assert caught.value.error_class is ErrorClass.PERMANENT
    assert not any(r.creates_post for r in api.requests)


async def test_processing_that_outlasts_the_attempt_is_resumed_not_uploaded_again() -> None:
    p = post("x", media=(video(),))
    pending = reply(200, {"data": {"processing_info": {"state": "pending"}}})
    script = [("POST", r"/finalize$", pending)] + [("GET", r"command=STATUS", pending)] * X.poll_limit
    first = scripted(p, script)
    with pytest.raises(DeliveryError) as caught:
        await X.deliver(p, first)
    assert caught.value.error_class is ErrorClass.RETRYABLE
    second = scripted(p, state=first.state)
    await X.deliver(p, second)
    assert calls(second)[0][0] == "GET" and "command=STATUS" in calls(second)[0][1]
    assert not any("initialize" in url for _, url in calls(second))


async def test_a_refused_post_keeps_its_platform_code() -> None:
    duplicate = {"detail": "You are not allowed to create a Tweet with duplicate content.", "status": 403}
    api = scripted(post("x"), [("POST", r"/tweets$", reply(403, duplicate))])
    with pytest.raises(DeliveryError) as caught:
        await X.deliver(post("x"), api)
    assert (caught.value.error_class, caught.value.status) == (ErrorClass.PERMANENT, 403)


async def test_reconcile_finds_the_post_with_its_links_expanded() -> None:
    p = post("x", content="Launch day https://example.com/launch")
    tweets = {
        "data": [
            {"id": "1", "text": "something else"},
            {
                "id": "1859",
                "text": "Launch day https://t.co/abc",
                "entities": {"urls": [{"url": "https://t.co/abc", "expanded_url": "https://example.com/launch"}]},
            },
        ]
    }
    api = scripted(p, [("GET", r"/users/2244994945/tweets\?", reply(200, tweets))], state={"create_sent_at": "x"})
    found = await X.reconcile(p, api)
    assert found is not None and found.platform_post_id == "1859"
    assert "start_time=" in api.requests[0].url


async def test_reconcile_drops_the_link_x_appends_for_the_posts_media() -> None:
    p = post("x", content="Our new logo", media=(image(),))
    media_link = {
        "url": "https://t.co/pic",
        "expanded_url": "https://x.com/acme/status/1860/photo/1",
        "display_url": "pic.x.com/pic",
        "media_key": "3_99",
    }
    tweets = {"data": [{"id": "1860", "text": "Our new logo https://t.co/pic", "entities": {"urls": [media_link]}}]}
    api = scripted(p, [("GET", r"/users/2244994945/tweets\?", reply(200, tweets))], state={"create_sent_at": "x"})
    found = await X.reconcile(p, api)
    assert found is not None and found.platform_post_id == "1860"


async def test_reconcile_pages_through_a_busy_account_and_gives_up_when_it_cannot_tell() -> None:
    p = post("x", content="Ours")
    others = {"data": [{"id": "5", "text": "someone else's"}], "meta": {"result_count": 1, "next_token": "t2"}}
    ours = {"data": [{"id": "1861", "text": "Ours"}], "meta": {"result_count": 1}}
    api = scripted(
        p,
        [
            ("GET", r"/tweets\?(?!.*pagination_token)", reply(200, others)),
            ("GET", r"pagination_token=t2", reply(200, ours)),
        ],
        state={"create_sent_at": "2026-11-24T12:00:00+00:00"},
    )
    found = await X.reconcile(p, api)
    assert found is not None and found.platform_post_id == "1861"
    assert "max_results=100" in api.requests[0].url and "end_time=" in api.requests[0].url

    endless = [("GET", r"/tweets\?", reply(200, others))] * 10
    with pytest.raises(DeliveryError) as caught:
        await X.reconcile(p, scripted(p, endless, state={"create_sent_at": "2026-11-24T12:00:00+00:00"}))
    assert caught.value.error_class is ErrorClass.UNCERTAIN


async def test_reconcile_answers_none_when_the_post_is_not_there() -> None:
    api = scripted(post("x"), [("GET", r"/tweets\?", reply(200, {"meta": {"result_count": 0}}))])
    assert await X.reconcile(post("x"), api) is None
