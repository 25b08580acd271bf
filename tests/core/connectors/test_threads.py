"""Threads: containers (text, media, carousels), their status polls, the publish, the permalink,
resumption and what the saved container tells after a lost publish (docs/platforms.md, "Threads")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.connectors.base import DeliveryError, ErrorClass
from tests.core.connectors.factories import calls, connector_for, image, post, sandboxed, scripted, video
from tests.core.connectors.scripted import reply

T = connector_for("threads")
BASE = "https://graph.threads.net/v1.0"
USER = "1789"
STATUS = r"\?fields=status,error_message$"
SENT = {"create_sent_at": "2026-11-24T12:00:00+00:00"}


def status(value: str, **extra: str) -> dict[str, str]:
    return {"status": value, "id": "c"} | extra


async def test_text_is_a_text_container_polled_then_published() -> None:
    api = await sandboxed(post("threads"))
    container = api.state["container"]
    delivery_id = api.ids.post
    assert calls(api) == [
        ("POST", f"{BASE}/{USER}/threads"),
        ("GET", f"{BASE}/{container}?fields=status,error_message"),
        ("POST", f"{BASE}/{USER}/threads_publish"),
        ("GET", f"{BASE}/{delivery_id}?fields=permalink"),
    ]
    assert api.requests[0]["form"] == {"media_type": "TEXT", "text": "hi"}
    assert api.requests[2]["form"] == {"creation_id": container}


async def test_the_publish_alone_creates_the_post_and_the_url_is_its_permalink() -> None:
    p = post("threads")
    permalink = "https://www.threads.net/@acme/post/DA1b2C3"
    api = scripted(
        p,
        [
            ("POST", r"/threads_publish$", reply(200, {"id": "18031"})),
            ("GET", r"/18031\?fields=permalink$", reply(200, {"id": "18031", "permalink": permalink})),
        ],
    )
    delivery = await T.deliver(p, api)
    assert [r.creates_post for r in api.requests] == [False, False, True, False]
    assert all(r.auth == "Bearer" for r in api.requests)
    assert (delivery.platform_post_id, delivery.url) == ("18031", permalink)


async def test_an_unreadable_permalink_falls_back_to_the_profile() -> None:
    p = post("threads")
    api = scripted(p, [("GET", r"\?fields=permalink$", reply(500, None))])
    delivery = await T.deliver(p, api)
    assert delivery.url == "https://www.threads.net/@acme"


async def test_one_image_is_an_image_container_with_its_url_alt_text_and_text() -> None:
    p = post("threads", media=(image(1, alt_text="a cat"),))
    api = await sandboxed(p)
    assert api.requests[0]["form"] == {
        "media_type": "IMAGE",
        "image_url": "https://storage.example/m1.jpg?sig=s",
        "alt_text": "a cat",
        "text": "hi",
    }


async def test_a_video_container_is_polled_until_finished() -> None:
    p = post("threads", media=(video(),))
    in_progress = reply(200, status("IN_PROGRESS"))
    api = scripted(p, [("GET", STATUS, in_progress), ("GET", STATUS, in_progress)])
    await T.deliver(p, api)
    assert api.requests[0].form == {
        "media_type": "VIDEO",
        "video_url": "https://storage.example/v9.mp4?sig=s",
        "text": "hi",
    }
    assert [m for m, _ in calls(api)] == ["POST", "GET", "GET", "GET", "POST", "GET"]
    assert api.waited == 2 * T.poll_seconds


async def test_several_media_are_carousel_items_then_a_carousel_with_the_text() -> None:
    p = post("threads", media=(image(1), video(2)))
    api = scripted(p)
    await T.deliver(p, api)
    first, second = api.state["containers"]["med_1"], api.state["containers"]["med_2"]
    container = api.state["container"]
    assert calls(api)[:5] == [
        ("POST", f"{BASE}/{USER}/threads"),
        ("POST", f"{BASE}/{USER}/threads"),
        ("GET", f"{BASE}/{second}?fields=status,error_message"),  # only the video item is polled
        ("POST", f"{BASE}/{USER}/threads"),
        ("GET", f"{BASE}/{container}?fields=status,error_message"),
    ]
    assert api.requests[0].form == {
        "media_type": "IMAGE",
        "image_url": "https://storage.example/m1.jpg?sig=s",
        "is_carousel_item": "true",
    }
    assert api.requests[1].form["is_carousel_item"] == "true"
    assert api.requests[3].form == {"media_type": "CAROUSEL", "children": f"{first},{second}", "text": "hi"}
    assert api.requests[5].form == {"creation_id": container}


async def test_saved_items_are_reused_and_a_saved_container_is_polled_not_made_again() -> None:
    p = post("threads", media=(image(1), image(2)))
    api = scripted(p, state={"containers": {"med_1": "11", "med_2": "12"}})
    await T.deliver(p, api)
    assert api.requests[0].form == {"media_type": "CAROUSEL", "children": "11,12", "text": "hi"}
    again = scripted(p, state={"container": "77"})
    await T.deliver(p, again)
    assert calls(again)[:2] == [
        ("GET", f"{BASE}/77?fields=status,error_message"),
        ("POST", f"{BASE}/{USER}/threads_publish"),
    ]
    assert again.requests[1].form == {"creation_id": "77"}


async def test_a_container_in_error_fails_for_good_before_publishing() -> None:
    p = post("threads", media=(image(),))
    failed = reply(200, status("ERROR", error_message="FAILED_DOWNLOADING_IMAGE"))
    api = scripted(p, [("GET", STATUS, failed)])
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, api)
    assert caught.value.error_class is ErrorClass.PERMANENT
    assert "FAILED_DOWNLOADING_IMAGE" in str(caught.value)
    assert not any(r.creates_post for r in api.requests)


async def test_an_expired_container_and_its_items_are_made_again() -> None:
    p = post("threads", media=(image(1), image(2)))
    api = scripted(
        p, [("GET", STATUS, reply(200, status("EXPIRED")))], state={"containers": {"med_1": "11", "med_2": "12"}}
    )
    await T.deliver(p, api)
    posts = [r for r in api.requests if r.method == "POST"]
    assert [r.form.get("media_type") for r in posts] == ["CAROUSEL", "IMAGE", "IMAGE", "CAROUSEL", None]
    assert posts[3].form["children"] == ",".join(api.state["containers"].values())
    assert not {"11", "12"} & set(posts[3].form["children"].split(","))


async def test_a_container_still_processing_after_the_attempt_is_polled_again_next_time() -> None:
    p = post("threads", media=(video(),))
    script = [("GET", STATUS, reply(200, status("IN_PROGRESS")))] * T.poll_limit
    first = scripted(p, script)
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, first)
    assert caught.value.error_class is ErrorClass.RETRYABLE
    second = scripted(p, state=first.state)
    await T.deliver(p, second)
    assert calls(second)[0] == ("GET", f"{BASE}/{first.state['container']}?fields=status,error_message")


async def test_blank_text_without_media_is_refused_before_sending() -> None:
    api = scripted(post("threads", content="  "))
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(post("threads", content="  "), api)
    assert caught.value.error_class is ErrorClass.PERMANENT
    assert api.requests == []


async def test_throttling_on_publish_is_retryable() -> None:
    throttled = {"error": {"message": "Application request limit reached", "code": 4, "type": "OAuthException"}}
    api = scripted(post("threads"), [("POST", r"/threads_publish$", reply(400, throttled))])
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(post("threads"), api)
    assert caught.value.error_class is ErrorClass.RETRYABLE


# --- reconcile --------------------------------------------------------------------------------


async def test_reconcile_without_a_saved_container_resends() -> None:
    api = scripted(post("threads"), state=dict(SENT))
    assert await T.reconcile(post("threads"), api) is None
    assert api.requests == []


async def test_reconcile_of_a_finished_container_publishes_it_again() -> None:
    api = scripted(post("threads"), [("GET", STATUS, reply(200, status("FINISHED")))], state=SENT | {"container": "77"})
    assert await T.reconcile(post("threads"), api) is None
    assert calls(api) == [("GET", f"{BASE}/77?fields=status,error_message")]
    assert api.state["container"] == "77"


@pytest.mark.parametrize("state", ["ERROR", "EXPIRED"])
async def test_reconcile_of_a_failed_container_drops_it_to_be_made_again(state: str) -> None:
    saved = SENT | {"container": "77", "containers": {"med_1": "11"}}
    api = scripted(post("threads"), [("GET", STATUS, reply(200, status(state)))], state=saved)
    assert await T.reconcile(post("threads"), api) is None
    assert "container" not in api.state and "containers" not in api.state


async def test_reconcile_of_a_published_container_finds_the_post_by_its_text() -> None:
    p = post("threads", content="Launch  day\n")
    listed = {
        "data": [
            {"id": "1", "text": "something else", "permalink": "https://www.threads.net/@acme/post/A"},
            {"id": "18031", "text": "Launch day", "permalink": "https://www.threads.net/@acme/post/B"},
        ]
    }
    api = scripted(
        p,
        [("GET", STATUS, reply(200, status("PUBLISHED"))), ("GET", rf"/{USER}/threads\?", reply(200, listed))],
        state=SENT | {"container": "77"},
    )
    found = await T.reconcile(p, api)
    assert found is not None and (found.platform_post_id, found.url) == (
        "18031",
        "https://www.threads.net/@acme/post/B",
    )
    since = int(datetime(2026, 11, 24, 11, 58, tzinfo=UTC).timestamp())
    assert calls(api)[1] == ("GET", f"{BASE}/{USER}/threads?fields=id,text,timestamp,permalink&since={since}")


async def test_reconcile_of_a_published_container_whose_post_is_not_listed_is_uncertain() -> None:
    api = scripted(
        post("threads"), [("GET", STATUS, reply(200, status("PUBLISHED")))], state=SENT | {"container": "77"}
    )
    with pytest.raises(DeliveryError) as caught:
        await T.reconcile(post("threads"), api)
    assert caught.value.error_class is ErrorClass.UNCERTAIN


async def test_reconcile_that_cannot_read_the_container_is_uncertain_unless_throttled() -> None:
    gone = {"error": {"message": "Unsupported get request", "code": 100, "error_subcode": 33}}
    api = scripted(post("threads"), [("GET", STATUS, reply(400, gone))], state=SENT | {"container": "77"})
    with pytest.raises(DeliveryError) as caught:
        await T.reconcile(post("threads"), api)
    assert caught.value.error_class is ErrorClass.UNCERTAIN
    throttled = scripted(post("threads"), [("GET", STATUS, reply(429, None))], state=SENT | {"container": "77"})
    with pytest.raises(DeliveryError) as caught:
        await T.reconcile(post("threads"), throttled)
    assert caught.value.error_class is ErrorClass.RETRYABLE
