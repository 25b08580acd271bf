"""Instagram (Instagram Login): container shapes (image, reel, story, carousel), status polls,
media_publish, the permalink, Instagram's own error pairs and reconciliation (docs/platforms.md,
Instagram)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.connectors.base import DeliveryError, ErrorClass
from tests.core.connectors.factories import calls, connector_for, image, post, sandboxed, scripted, video
from tests.core.connectors.scripted import reply

IG = connector_for("instagram")
BASE = "https://graph.instagram.com/v25.0"
USER = "17841400000000000"
STATUS = r"\?fields=status_code,status$"
SENT = {"create_sent_at": "2026-11-24T12:00:00+00:00"}


def status(code: str, message: str = "") -> dict[str, str]:
    return {"status_code": code, "status": message or code, "id": "c"}


def graph_error(code: int, subcode: int) -> dict[str, object]:
    return {"error": {"message": "m", "type": "OAuthException", "code": code, "error_subcode": subcode}}


async def test_one_image_is_a_container_polled_published_and_linked() -> None:
    p = post("instagram", media=(image(1, alt_text="a cat"),))
    api = await sandboxed(p)
    container, published = api.state["container"], api.ids.post
    assert calls(api) == [
        ("POST", f"{BASE}/{USER}/media"),
        ("GET", f"{BASE}/{container}?fields=status_code,status"),
        ("POST", f"{BASE}/{USER}/media_publish"),
        ("GET", f"{BASE}/{published}?fields=permalink"),
    ]
    assert api.requests[0]["form"] == {
        "image_url": "https://storage.example/m1.jpg?sig=s",
        "alt_text": "a cat",
        "caption": "hi",
    }
    assert api.requests[2]["form"] == {"creation_id": container}


async def test_the_url_is_the_permalink_else_the_profile() -> None:
    p = post("instagram", media=(image(),))
    permalink = "https://www.instagram.com/p/DA1b2C3/"
    api = scripted(
        p,
        [
            ("POST", r"/media_publish$", reply(200, {"id": "17920"})),
            ("GET", r"/17920\?fields=permalink$", reply(200, {"id": "17920", "permalink": permalink})),
        ],
    )
    delivery = await IG.deliver(p, api)
    assert (delivery.platform_post_id, delivery.url) == ("17920", permalink)
    assert [r.creates_post for r in api.requests] == [False, False, True, False]
    refused = scripted(p, [("GET", r"\?fields=permalink$", reply(400, graph_error(100, 33)))])
    assert (await IG.deliver(p, refused)).url == "https://www.instagram.com/acme/"


async def test_text_only_is_refused_before_sending() -> None:
    api = scripted(post("instagram"))
    with pytest.raises(DeliveryError) as caught:
        await IG.deliver(post("instagram"), api)
    assert (caught.value.error_class, caught.value.code) == (ErrorClass.PERMANENT, "MEDIA_REQUIRED")
    assert api.requests == []


@pytest.mark.parametrize(
    ("media", "post_type", "code"),
    [
        (tuple(image(n) for n in range(1, 12)), "feed", "MEDIA_COUNT"),
        ((image(),), "reel", "MEDIA_KIND"),
        ((image(1), image(2)), "story", "MEDIA_COUNT"),
    ],
)
async def test_shapes_instagram_cannot_take_are_refused(media: tuple, post_type: str, code: str) -> None:
    p = post("instagram", media=media, post_type=post_type)
    api = scripted(p)
    with pytest.raises(DeliveryError) as caught:
        await IG.deliver(p, api)
    assert (caught.value.error_class, caught.value.code) == (ErrorClass.PERMANENT, code)
    assert api.requests == []


async def test_one_video_is_a_reel_polled_until_finished() -> None:
    p = post("instagram", media=(video(),))
    in_progress = reply(200, status("IN_PROGRESS"))
    api = scripted(p, [("GET", STATUS, in_progress), ("GET", STATUS, in_progress)])
    await IG.deliver(p, api)
    assert api.requests[0].form == {
        "media_type": "REELS",
        "video_url": "https://storage.example/v9.mp4?sig=s",
        "caption": "hi",
    }
    assert [m for m, _ in calls(api)] == ["POST", "GET", "GET", "GET", "POST", "GET"]
    assert api.waited == 2 * IG.poll_seconds


async def test_a_story_has_no_caption() -> None:
    api = await sandboxed(post("instagram", media=(video(),), post_type="story"))
    assert api.requests[0]["form"] == {"media_type": "STORIES", "video_url": "https://storage.example/v9.mp4?sig=s"}


async def test_a_carousel_is_items_then_a_carousel_container_with_the_caption() -> None:
    p = post("instagram", media=(image(1, alt_text="a cat"), video(2)))
    api = scripted(p)
    await IG.deliver(p, api)
    first, second = api.state["containers"]["med_1"], api.state["containers"]["med_2"]
    container = api.state["container"]
    assert calls(api) == [
        ("POST", f"{BASE}/{USER}/media"),
        ("POST", f"{BASE}/{USER}/media"),
        ("GET", f"{BASE}/{second}?fields=status_code,status"),
        ("POST", f"{BASE}/{USER}/media"),
        ("GET", f"{BASE}/{container}?fields=status_code,status"),
        ("POST", f"{BASE}/{USER}/media_publish"),
        ("GET", f"{BASE}/{api.ids.post}?fields=permalink"),
    ]
    assert api.requests[0].form == {
        "image_url": "https://storage.example/m1.jpg?sig=s",
        "alt_text": "a cat",
        "is_carousel_item": "true",
    }
    assert api.requests[1].form == {
        "media_type": "VIDEO",
        "video_url": "https://storage.example/v2.mp4?sig=s",
        "is_carousel_item": "true",
    }
    assert api.requests[3].form == {"media_type": "CAROUSEL", "children": f"{first},{second}", "caption": "hi"}


async def test_an_earlier_attempts_container_is_published_without_making_another() -> None:
    p = post("instagram", media=(image(),))
    api = scripted(p, state={"container": "55"})
    await IG.deliver(p, api)
    assert calls(api)[:2] == [("GET", f"{BASE}/55?fields=status_code,status"), ("POST", f"{BASE}/{USER}/media_publish")]
    assert api.requests[1].form == {"creation_id": "55"}


async def test_a_container_in_error_fails_for_good() -> None:
    p = post("instagram", media=(image(),))
    api = scripted(p, [("GET", STATUS, reply(200, status("ERROR", "Error: media could not be fetched")))])
    with pytest.raises(DeliveryError) as caught:
        await IG.deliver(p, api)
    assert caught.value.error_class is ErrorClass.PERMANENT
    assert "could not be fetched" in str(caught.value)
    assert not any(r.creates_post for r in api.requests)


async def test_an_expired_container_is_made_again() -> None:
    p = post("instagram", media=(image(),))
    api = scripted(p, [("GET", STATUS, reply(200, status("EXPIRED")))], state={"container": "55"})
    await IG.deliver(p, api)
    assert [m for m, _ in calls(api)][:3] == ["GET", "POST", "GET"]
    assert api.state["container"] != "55"
    assert api.only("POST", r"/media_publish$").form == {"creation_id": api.state["container"]}


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (graph_error(9007, 2207027), ErrorClass.RETRYABLE),  # the container is not ready yet
        (graph_error(9, 2207042), ErrorClass.RETRYABLE),  # the daily publishing limit
        (graph_error(36004, 2207010), ErrorClass.PERMANENT),  # the caption is too long
    ],
)
async def test_instagrams_own_error_pairs_on_publish(error: dict[str, object], expected: ErrorClass) -> None:
    p = post("instagram", media=(image(),))
    api = scripted(p, [("POST", r"/media_publish$", reply(400, error))])
    with pytest.raises(DeliveryError) as caught:
        await IG.deliver(p, api)
    assert caught.value.error_class is expected


# --- reconcile --------------------------------------------------------------------------------


async def test_reconcile_without_a_container_or_with_a_finished_one_resends() -> None:
    p = post("instagram", media=(image(),))
    assert await IG.reconcile(p, scripted(p, state=dict(SENT))) is None
    api = scripted(p, [("GET", STATUS, reply(200, status("FINISHED")))], state=SENT | {"container": "55"})
    assert await IG.reconcile(p, api) is None
    assert api.state["container"] == "55"


@pytest.mark.parametrize("state", ["ERROR", "EXPIRED"])
async def test_reconcile_drops_a_failed_container(state: str) -> None:
    p = post("instagram", media=(image(1), image(2)))
    saved = SENT | {"container": "55", "containers": {"med_1": "1", "med_2": "2"}}
    api = scripted(p, [("GET", STATUS, reply(200, status(state)))], state=saved)
    assert await IG.reconcile(p, api) is None
    assert "container" not in api.state and "containers" not in api.state


async def test_reconcile_of_a_published_container_finds_the_post_by_its_caption() -> None:
    p = post("instagram", content="New drop 🌿", media=(image(),))
    listed = {
        "data": [
            {"id": "17920", "caption": "New drop 🌿 ", "permalink": "https://www.instagram.com/p/DA1/"},
            {"id": "17800", "caption": "older"},
        ],
        "paging": {},
    }
    api = scripted(
        p,
        [("GET", STATUS, reply(200, status("PUBLISHED"))), ("GET", rf"/{USER}/media\?", reply(200, listed))],
        state=SENT | {"container": "55"},
    )
    found = await IG.reconcile(p, api)
    assert found is not None and (found.platform_post_id, found.url) == ("17920", "https://www.instagram.com/p/DA1/")
    since = int(datetime(2026, 11, 24, 11, 58, tzinfo=UTC).timestamp())
    assert calls(api)[1] == ("GET", f"{BASE}/{USER}/media?fields=id,caption,timestamp,permalink&since={since}")


async def test_reconcile_of_a_published_container_not_listed_is_uncertain() -> None:
    p = post("instagram", media=(image(),), post_type="story")  # stories are never listed
    api = scripted(p, [("GET", STATUS, reply(200, status("PUBLISHED")))], state=SENT | {"container": "55"})
    with pytest.raises(DeliveryError) as caught:
        await IG.reconcile(p, api)
    assert caught.value.error_class is ErrorClass.UNCERTAIN
