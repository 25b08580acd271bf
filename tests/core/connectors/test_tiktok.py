"""TikTok: creator info, the video and photo inits TikTok pulls by URL, the privacy level and
interactions each post chooses among what creator_info offers (and their defaults), the errors
it answers with 200, the status poll, resumption by publish_id and reconcile (TikTok's Content
Posting API, https://developers.tiktok.com/doc/content-posting-api-reference-direct-post)."""

from __future__ import annotations

from typing import Any

import pytest

from core.connectors.base import DeliveryError, ErrorClass, TikTokOptions
from core.connectors.common import JSON_UTF8
from tests.core.connectors.factories import calls, connector_for, image, post, sandboxed, scripted, video
from tests.core.connectors.scripted import reply

T = connector_for("tiktok")
BASE = "https://open.tiktokapis.com/v2/post/publish"
CREATOR, VIDEO_INIT, PHOTO_INIT, STATUS = (
    f"{BASE}/creator_info/query/",
    f"{BASE}/video/init/",
    f"{BASE}/content/init/",
    f"{BASE}/status/fetch/",
)
PUBLISH_ID = "v_pub_url~v2.123456789"


def envelope(data: Any = None, code: str = "ok", message: str = "") -> dict[str, Any]:
    return {"data": data or {}, "error": {"code": code, "message": message, "log_id": "L1"}}


def creator(*levels: str, **disabled: bool) -> dict[str, Any]:
    data = {"privacy_level_options": list(levels), "comment_disabled": False, "duet_disabled": False}
    return envelope(data | {"stitch_disabled": False, "creator_username": "acme"} | disabled)


def status(state: str, **fields: Any) -> dict[str, Any]:
    return envelope({"status": state, **fields})


async def test_a_video_is_creator_info_then_init_by_url_then_the_status() -> None:
    p = post("tiktok", content="Launch day", media=(video(),))
    api = await sandboxed(p)
    assert calls(api) == [("POST", CREATOR), ("POST", VIDEO_INIT), ("POST", STATUS)]
    assert all(r["headers"] == JSON_UTF8 for r in api.requests)
    assert api.requests[1]["json"] == {
        "post_info": {
            "title": "Launch day",
            # Nothing chosen: the most private level offered, every interaction off.
            "privacy_level": "SELF_ONLY",
            "disable_comment": True,
            "disable_duet": True,
            "disable_stitch": True,
        },
        "source_info": {"source": "PULL_FROM_URL", "video_url": "https://storage.example/v9.mp4?sig=s"},
    }
    assert api.requests[2]["json"] == {"publish_id": api.state["publish_id"]}


async def test_images_make_a_photo_post_with_the_text_as_description() -> None:
    chosen = TikTokOptions(privacy_level="PUBLIC_TO_EVERYONE", disable_comment=False)
    p = post("tiktok", content="Two views", media=(image(1), image(2)), title="Views", tiktok=chosen)
    api = scripted(p)
    delivery = await T.deliver(p, api)
    assert calls(api) == [("POST", CREATOR), ("POST", PHOTO_INIT), ("POST", STATUS)]
    init = api.requests[1]
    assert init.creates_post and not any(r.creates_post for r in api.requests if r is not init)
    assert init.json == {
        "post_info": {
            "title": "Views",
            "description": "Two views",
            "privacy_level": "PUBLIC_TO_EVERYONE",  # chosen, and offered
            "disable_comment": False,
            "auto_add_music": False,  # never turned on unless chosen
        },
        "source_info": {
            "source": "PULL_FROM_URL",
            "photo_images": ["https://storage.example/m1.jpg?sig=s", "https://storage.example/m2.jpg?sig=s"],
            "photo_cover_index": 0,
        },
        "post_mode": "DIRECT_POST",
        "media_type": "PHOTO",
    }
    assert delivery.url == f"https://www.tiktok.com/@acme/photo/{delivery.platform_post_id}"


async def test_a_photo_post_without_a_title_sends_none() -> None:
    p = post("tiktok", media=(image(),))
    api = await sandboxed(p)
    assert "title" not in api.requests[1]["json"]["post_info"]


async def test_nothing_chosen_is_the_most_private_offered_level_interactions_off_and_no_music() -> None:
    offered = creator("PUBLIC_TO_EVERYONE", "FOLLOWER_OF_CREATOR", "MUTUAL_FOLLOW_FRIENDS")
    p = post("tiktok", media=(video(),))
    api = scripted(p, [("POST", r"/creator_info/query/$", reply(200, offered))])
    await T.deliver(p, api)
    post_info = api.only("POST", r"/video/init/$").json["post_info"]
    assert post_info["privacy_level"] == "MUTUAL_FOLLOW_FRIENDS"  # SELF_ONLY is not offered here
    assert (post_info["disable_comment"], post_info["disable_duet"], post_info["disable_stitch"]) == (True, True, True)
    assert "auto_add_music" not in post_info  # a video has no such field
    photos = post("tiktok", media=(image(),))
    api = scripted(photos, [("POST", r"/creator_info/query/$", reply(200, offered))])
    await T.deliver(photos, api)
    post_info = api.only("POST", r"/content/init/$").json["post_info"]
    assert (post_info["disable_comment"], post_info["auto_add_music"]) == (True, False)
    assert "disable_duet" not in post_info and "disable_stitch" not in post_info  # a photo post has neither


async def test_the_chosen_level_and_interactions_are_sent_as_chosen() -> None:
    chosen = TikTokOptions("FOLLOWER_OF_CREATOR", disable_comment=False, disable_duet=True, disable_stitch=False)
    p = post("tiktok", media=(video(),), tiktok=chosen)
    offered = creator("PUBLIC_TO_EVERYONE", "FOLLOWER_OF_CREATOR", "SELF_ONLY")
    api = scripted(p, [("POST", r"/creator_info/query/$", reply(200, offered))])
    await T.deliver(p, api)
    post_info = api.only("POST", r"/video/init/$").json["post_info"]
    assert post_info == {
        "title": "hi",
        "privacy_level": "FOLLOWER_OF_CREATOR",
        "disable_comment": False,
        "disable_duet": True,
        "disable_stitch": False,
    }
    music = post("tiktok", media=(image(),), tiktok=TikTokOptions(auto_add_music=True))
    api = scripted(music, [("POST", r"/creator_info/query/$", reply(200, offered))])
    await T.deliver(music, api)
    assert api.only("POST", r"/content/init/$").json["post_info"]["auto_add_music"] is True


async def test_a_level_the_creator_is_not_offered_fails_before_the_init_naming_what_is() -> None:
    p = post("tiktok", media=(video(),), tiktok=TikTokOptions(privacy_level="PUBLIC_TO_EVERYONE"))
    api = scripted(p, [("POST", r"/creator_info/query/$", reply(200, creator("SELF_ONLY")))])
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, api)
    assert (caught.value.error_class, caught.value.code) == (ErrorClass.PERMANENT, "PRIVACY_LEVEL_UNAVAILABLE")
    assert "PUBLIC_TO_EVERYONE" in str(caught.value) and "SELF_ONLY" in str(caught.value)
    assert calls(api) == [("POST", CREATOR)]


@pytest.mark.parametrize("interaction", ["comment", "duet", "stitch"])
async def test_allowing_what_the_creator_turned_off_fails_before_the_init(interaction: str) -> None:
    chosen = TikTokOptions(**{f"disable_{interaction}": False})
    p = post("tiktok", media=(video(),), tiktok=chosen)
    offered = creator("SELF_ONLY", **{f"{interaction}_disabled": True})
    api = scripted(p, [("POST", r"/creator_info/query/$", reply(200, offered))])
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, api)
    assert (caught.value.error_class, caught.value.code) == (ErrorClass.PERMANENT, "INTERACTION_UNAVAILABLE")
    assert calls(api) == [("POST", CREATOR)]
    # Left to the default (off), or turned off, it goes out.
    for quiet in (TikTokOptions(), TikTokOptions(**{f"disable_{interaction}": True})):
        p = post("tiktok", media=(video(),), tiktok=quiet)
        api = scripted(p, [("POST", r"/creator_info/query/$", reply(200, offered))])
        await T.deliver(p, api)
        assert api.only("POST", r"/video/init/$").json["post_info"][f"disable_{interaction}"] is True


async def test_an_unaudited_app_posts_privately_and_gets_the_publish_id_and_profile() -> None:
    p = post("tiktok", media=(video(),))
    api = scripted(
        p,
        [
            ("POST", r"/creator_info/query/$", reply(200, creator("SELF_ONLY"))),
            ("POST", r"/video/init/$", reply(200, envelope({"publish_id": PUBLISH_ID}))),
            ("POST", r"/status/fetch/$", reply(200, status("PUBLISH_COMPLETE"))),
        ],
    )
    delivery = await T.deliver(p, api)
    assert api.requests[1].json["post_info"]["privacy_level"] == "SELF_ONLY"
    assert (delivery.platform_post_id, delivery.url) == (PUBLISH_ID, "https://www.tiktok.com/@acme")


async def test_no_privacy_level_offered_is_refused_before_the_init() -> None:
    p = post("tiktok", media=(video(),))
    api = scripted(p, [("POST", r"/creator_info/query/$", reply(200, creator()))])
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, api)
    assert (caught.value.error_class, caught.value.code) == (ErrorClass.PERMANENT, "PRIVACY_LEVEL_UNAVAILABLE")
    assert calls(api) == [("POST", CREATOR)]


@pytest.mark.parametrize(
    ("media", "post_type", "code"),
    [
        ((), "video", "MEDIA_REQUIRED"),
        ((video(1), image(2)), "video", "MEDIA_KIND"),
        ((video(1), video(2)), "video", "MEDIA_KIND"),
        ((video(),), "photo", "MEDIA_KIND"),
        ((image(1, kind="gif", mime_type="image/gif"),), "video", "MEDIA_KIND"),
        (tuple(image(n) for n in range(36)), "photo", "MEDIA_COUNT"),
    ],
    ids=["text-only", "mixed", "two-videos", "video-as-photo", "gif", "36-images"],
)
async def test_what_tiktok_cannot_take_is_refused_before_sending(media: tuple, post_type: str, code: str) -> None:
    p = post("tiktok", media=media, post_type=post_type)
    api = scripted(p)
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, api)
    assert (caught.value.error_class, caught.value.code) == (ErrorClass.PERMANENT, code)
    assert api.requests == []


async def test_the_video_title_is_cut_to_2200_utf16_units_never_inside_an_emoji() -> None:
    p = post("tiktok", content="a" + "😀" * 1100, media=(video(),))
    api = await sandboxed(p)
    assert api.requests[1]["json"]["post_info"]["title"] == "a" + "😀" * 1099


async def test_the_publish_id_is_saved_before_the_first_status_poll() -> None:
    p = post("tiktok", media=(video(),))
    api = scripted(p, [("POST", r"/video/init/$", reply(200, envelope({"publish_id": PUBLISH_ID})))])
    await T.deliver(p, api)
    assert api.saves[-1]["publish_id"] == PUBLISH_ID and "create_sent_at" in api.saves[-1]
    assert api.only("POST", r"/status/fetch/$").json == {"publish_id": PUBLISH_ID}


async def test_processing_states_are_polled_until_published() -> None:
    p = post("tiktok", media=(video(),))
    api = scripted(
        p,
        [
            ("POST", r"/status/fetch/$", reply(200, status("PROCESSING_DOWNLOAD", downloaded_bytes=10))),
            ("POST", r"/status/fetch/$", reply(200, status("PROCESSING_UPLOAD"))),
            ("POST", r"/status/fetch/$", reply(200, status("SEND_TO_USER_INBOX"))),
            ("POST", r"/status/fetch/$", reply(200, status("PUBLISH_COMPLETE", publicaly_available_post_id=[7311]))),
        ],
    )
    delivery = await T.deliver(p, api)
    assert calls(api).count(("POST", STATUS)) == 4
    assert api.waited == 3 * T.poll_seconds
    assert (delivery.platform_post_id, delivery.url) == ("7311", "https://www.tiktok.com/@acme/video/7311")


async def test_a_failed_publish_fails_for_good_with_its_reason() -> None:
    p = post("tiktok", media=(video(),))
    failed = status("FAILED", fail_reason="video_pull_failed")
    api = scripted(p, [("POST", r"/status/fetch/$", reply(200, failed))])
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, api)
    assert caught.value.error_class is ErrorClass.PERMANENT
    assert "video_pull_failed" in str(caught.value)


async def test_publishing_that_outlasts_the_attempt_resumes_by_publish_id_without_a_new_init() -> None:
    p = post("tiktok", media=(video(),))
    processing = reply(200, status("PROCESSING_DOWNLOAD"))
    first = scripted(p, [("POST", r"/status/fetch/$", processing)] * T.poll_limit)
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, first)
    assert caught.value.error_class is ErrorClass.RETRYABLE
    second = scripted(p, state=first.state)
    delivery = await T.deliver(p, second)
    assert calls(second) == [("POST", STATUS)]
    assert second.requests[0].json == {"publish_id": first.state["publish_id"]}
    assert delivery.platform_post_id


@pytest.mark.parametrize(
    ("url", "code", "expected"),
    [
        (r"/creator_info/query/$", "access_token_invalid", ErrorClass.NEEDS_REAUTH),
        (r"/creator_info/query/$", "spam_risk_too_many_posts", ErrorClass.RETRYABLE),
        (r"/video/init/$", "privacy_level_option_mismatch", ErrorClass.PERMANENT),
        (r"/video/init/$", "url_ownership_unverified", ErrorClass.PERMANENT),
        (r"/video/init/$", "rate_limit_exceeded", ErrorClass.RETRYABLE),
        (r"/status/fetch/$", "internal_error", ErrorClass.RETRYABLE),
    ],
)
async def test_an_error_answered_with_200_is_classified_by_its_code(url: str, code: str, expected: ErrorClass) -> None:
    p = post("tiktok", media=(video(),))
    api = scripted(p, [("POST", url, reply(200, envelope(code=code, message="m")))])
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, api)
    assert (caught.value.error_class, caught.value.code, caught.value.status) == (expected, code, 200)


async def test_an_init_refused_with_200_clears_the_creation_mark() -> None:
    p = post("tiktok", media=(video(),))
    refused = envelope(code="unaudited_client_can_only_post_to_private_accounts")
    api = scripted(p, [("POST", r"/video/init/$", reply(200, refused))])
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, api)
    assert caught.value.error_class is ErrorClass.PERMANENT
    assert "create_sent_at" not in api.state and "publish_id" not in api.state


async def test_an_init_answer_without_a_publish_id_keeps_the_creation_mark() -> None:
    p = post("tiktok", media=(video(),))
    api = scripted(p, [("POST", r"/video/init/$", reply(200, envelope({})))])
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, api)
    assert caught.value.error_class is ErrorClass.RETRYABLE
    assert "create_sent_at" in api.state  # the next attempt reconciles: it may have been made


async def test_an_http_error_keeps_tiktoks_status() -> None:
    p = post("tiktok", media=(video(),))
    api = scripted(p, [("POST", r"/video/init/$", reply(403, envelope(code="spam_risk_user_banned_from_posting")))])
    with pytest.raises(DeliveryError) as caught:
        await T.deliver(p, api)
    assert (caught.value.error_class, caught.value.status) == (ErrorClass.PERMANENT, 403)


# --- reconcile -----------------------------------------------------------------------------------

SENT = {"create_sent_at": "2026-11-24T12:00:00+00:00"}


async def test_reconcile_without_a_publish_id_is_uncertain_and_sends_nothing() -> None:
    p = post("tiktok", media=(video(),))
    api = scripted(p, state=dict(SENT))
    with pytest.raises(DeliveryError) as caught:
        await T.reconcile(p, api)
    assert caught.value.error_class is ErrorClass.UNCERTAIN
    assert api.requests == []


async def test_reconcile_finds_a_published_post_by_its_publish_id() -> None:
    p = post("tiktok", media=(image(1), image(2)))
    done = status("PUBLISH_COMPLETE", publicaly_available_post_id=[7312])
    api = scripted(p, [("POST", r"/status/fetch/$", reply(200, done))], state=SENT | {"publish_id": PUBLISH_ID})
    found = await T.reconcile(p, api)
    assert found is not None
    assert (found.platform_post_id, found.url) == ("7312", "https://www.tiktok.com/@acme/photo/7312")
    assert calls(api) == [("POST", STATUS)]


async def test_reconcile_leaves_a_post_still_processing_to_deliver_which_never_inits_again() -> None:
    p = post("tiktok", media=(video(),))
    state = SENT | {"publish_id": PUBLISH_ID}
    api = scripted(p, [("POST", r"/status/fetch/$", reply(200, status("PROCESSING_UPLOAD")))], state=state)
    assert await T.reconcile(p, api) is None
    delivery = await T.deliver(p, api)
    assert calls(api) == [("POST", STATUS), ("POST", STATUS)]
    assert delivery.platform_post_id


async def test_reconcile_of_a_failed_publish_fails_for_good() -> None:
    p = post("tiktok", media=(video(),))
    failed = status("FAILED", fail_reason="spam_risk_text")
    api = scripted(p, [("POST", r"/status/fetch/$", reply(200, failed))], state=SENT | {"publish_id": PUBLISH_ID})
    with pytest.raises(DeliveryError) as caught:
        await T.reconcile(p, api)
    assert caught.value.error_class is ErrorClass.PERMANENT


# --- classify ------------------------------------------------------------------------------------


def error(code: str) -> dict[str, Any]:
    return envelope(code=code, message="m")


@pytest.mark.parametrize(
    ("status_code", "body", "expected"),
    [
        (401, error("scope_not_authorized"), ErrorClass.NEEDS_REAUTH),
        (401, error("scope_permission_missed"), ErrorClass.NEEDS_REAUTH),
        (200, error("access_token_invalid"), ErrorClass.NEEDS_REAUTH),
        (401, None, ErrorClass.NEEDS_REAUTH),
        (403, error("spam_risk_too_many_pending_share"), ErrorClass.RETRYABLE),
        (403, error("reached_active_user_cap"), ErrorClass.RETRYABLE),
        (200, error("internal_error"), ErrorClass.RETRYABLE),
        (500, error("invalid_params"), ErrorClass.RETRYABLE),
        (403, error("spam_risk_user_banned_from_posting"), ErrorClass.PERMANENT),
        (403, error("unaudited_client_can_only_post_to_private_accounts"), ErrorClass.PERMANENT),
        (403, error("url_ownership_unverified"), ErrorClass.PERMANENT),
        (200, error("privacy_level_option_mismatch"), ErrorClass.PERMANENT),
        (400, "error: rate_limit_exceeded", ErrorClass.RETRYABLE),
        (400, {"error": {"code": 7}}, ErrorClass.PERMANENT),
    ],
)
def test_classify(status_code: int, body: Any, expected: ErrorClass) -> None:
    assert T.classify(status_code, body) is expected
