"""Mastodon: media with async processing, the status with the delivery key as Idempotency-Key,
and why a resend inside the key's hour is safe (docs/platforms.md, "Mastodon")."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.connectors.base import DeliveryError, ErrorClass, MediaBytes
from core.db.types import utcnow
from tests.core.connectors.factories import calls, connector_for, image, page_of, post, sandboxed, scripted, video
from tests.core.connectors.scripted import reply

M = connector_for("mastodon")
INSTANCE = "https://fosstodon.org"


async def test_status_goes_to_the_profiles_instance_with_the_delivery_key() -> None:
    api = await sandboxed(post("mastodon"))
    assert calls(api) == [("POST", f"{INSTANCE}/api/v1/statuses")]
    request = api.requests[0]
    assert request["headers"]["Idempotency-Key"] == "dk_1"
    assert request["json"] == {"status": "hi", "visibility": "public"}
    assert api.delivery.url == page_of(post("mastodon"))


async def test_media_with_alt_text_then_the_status_with_their_ids() -> None:
    p = post("mastodon", media=(image(1, alt_text="a cat"), image(2)))
    api = scripted(p)
    delivery = await M.deliver(p, api)
    assert calls(api) == [
        ("POST", f"{INSTANCE}/api/v2/media"),
        ("POST", f"{INSTANCE}/api/v2/media"),
        ("POST", f"{INSTANCE}/api/v1/statuses"),
    ]
    assert api.requests[0].multipart == {"file": MediaBytes(p.media[0]), "description": "a cat"}
    assert api.requests[1].multipart == {"file": MediaBytes(p.media[1])}
    assert api.requests[2].json["media_ids"] == [api.state["media"]["med_1"], api.state["media"]["med_2"]]
    assert delivery.platform_post_id


async def test_a_video_answered_202_is_polled_until_ready() -> None:
    p = post("mastodon", media=(video(),))
    api = scripted(
        p,
        [
            ("POST", r"/api/v2/media$", reply(202, {"id": "77", "url": None})),
            ("GET", r"/api/v1/media/77$", reply(206, {"id": "77", "url": None})),
            ("GET", r"/api/v1/media/77$", reply(200, {"id": "77", "url": "https://files.example/77.mp4"})),
        ],
    )
    await M.deliver(p, api)
    assert calls(api) == [
        ("POST", f"{INSTANCE}/api/v2/media"),
        ("GET", f"{INSTANCE}/api/v1/media/77"),
        ("GET", f"{INSTANCE}/api/v1/media/77"),
        ("POST", f"{INSTANCE}/api/v1/statuses"),
    ]
    assert api.requests[-1].json["media_ids"] == ["77"]
    assert api.waited > 0


async def test_an_earlier_attempts_upload_is_reused() -> None:
    p = post("mastodon", media=(image(),))
    api = scripted(p, state={"media": {"med_1": "55"}})
    await M.deliver(p, api)
    assert calls(api) == [("POST", f"{INSTANCE}/api/v1/statuses")]
    assert api.requests[0].json["media_ids"] == ["55"]


async def test_resending_within_the_idempotency_hour_is_safe_and_later_is_not() -> None:
    recent = {"create_sent_at": (utcnow() - timedelta(minutes=5)).isoformat()}
    assert await M.reconcile(post("mastodon"), scripted(post("mastodon"), state=recent)) is None
    old = {"create_sent_at": (utcnow() - timedelta(hours=2)).isoformat()}
    with pytest.raises(DeliveryError) as caught:
        await M.reconcile(post("mastodon"), scripted(post("mastodon"), state=old))
    assert caught.value.error_class is ErrorClass.UNCERTAIN


async def test_validation_refusal_is_permanent() -> None:
    too_long = {"error": "Validation failed: Text character limit of 500 exceeded"}
    api = scripted(post("mastodon"), [("POST", r"/statuses$", reply(422, too_long))])
    with pytest.raises(DeliveryError) as caught:
        await M.deliver(post("mastodon"), api)
    assert caught.value.error_class is ErrorClass.PERMANENT
