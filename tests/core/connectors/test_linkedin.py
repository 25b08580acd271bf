"""LinkedIn: image and video uploads (parts resumed by their saved ETags), the post with its
commentary in little text (hashtag templates, reserved characters escaped), and the resend whose
DUPLICATE_POST refusal names our post (docs/live-publishing.md, "What LinkedIn receives")."""

from __future__ import annotations

import pytest

from core.connectors.base import Account, DeliveryError, ErrorClass, MediaBytes
from harness.fakes.platforms.linkedin import read_little
from tests.core.connectors.factories import calls, connector_for, image, post, sandboxed, scripted, video
from tests.core.connectors.scripted import reply

L = connector_for("linkedin")
REST = "https://api.linkedin.com/rest"
AUTHOR = "urn:li:person:AbC-123"
VIDEO = "urn:li:video:C5F10AQ"
VIDEO_GET = f"{REST}/videos/urn%3Ali%3Avideo%3AC5F10AQ"
MIB = 1024 * 1024


def duplicate(urn: str) -> dict[str, object]:
    return {"status": 422, "message": f"ERROR :: /commentary :: DUPLICATE_POST Content is a duplicate of {urn}"}


def video_init(size: int, part: int = 4 * MIB) -> dict[str, object]:
    parts = [
        {
            "uploadUrl": f"https://www.linkedin.com/dms-uploads/sp/v/part{i}",
            "firstByte": f,
            "lastByte": min(size, f + part) - 1,
        }
        for i, f in enumerate(range(0, size, part))
    ]
    return {"value": {"video": VIDEO, "uploadToken": "tok-1", "uploadInstructions": parts}}


async def test_text_only_is_one_versioned_post_and_its_id_is_the_restli_header() -> None:
    p = post("linkedin")
    api = await sandboxed(p)
    assert calls(api) == [("POST", f"{REST}/posts")]
    request = api.requests[0]
    assert request["headers"]["LinkedIn-Version"].isdigit()
    assert request["headers"]["X-Restli-Protocol-Version"] == "2.0.0"
    assert request["json"] == {
        "author": AUTHOR,
        "commentary": "hi",
        "visibility": "PUBLIC",
        "distribution": {"feedDistribution": "MAIN_FEED", "targetEntities": [], "thirdPartyDistributionChannels": []},
        "lifecycleState": "PUBLISHED",
        "isReshareDisabledByAuthor": False,
    }
    assert api.delivery.platform_post_id.startswith("urn:li:share:")


async def test_the_delivery_is_the_urn_linkedin_answers_with() -> None:
    p = post("linkedin")
    api = scripted(p, [("POST", r"/rest/posts$", reply(201, None, **{"x-restli-id": "urn:li:ugcPost:7"}))])
    delivery = await L.deliver(p, api)
    assert (delivery.platform_post_id, delivery.url) == (
        "urn:li:ugcPost:7",
        "https://www.linkedin.com/feed/update/urn:li:ugcPost:7/",
    )
    assert api.requests[0].creates_post


async def test_a_201_without_the_post_urn_is_retried() -> None:
    api = scripted(post("linkedin"), [("POST", r"/rest/posts$", reply(201, None))])
    with pytest.raises(DeliveryError) as caught:
        await L.deliver(post("linkedin"), api)
    assert caught.value.error_class is ErrorClass.RETRYABLE


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        ("#launch today", r"{hashtag|\#|launch} today"),
        ("today #launch", r"today {hashtag|\#|launch}"),
        ("a #launch b", r"a {hashtag|\#|launch} b"),
        ("Hi (#launch), #news! and #end.", r"Hi \({hashtag|\#|launch}\), {hashtag|\#|news}! and {hashtag|\#|end}."),
        ("line\n#two", "line\n{hashtag|\\#|two}"),
        ("#Café #日本語 #हिन्दी ＃タグ", r"{hashtag|\#|Café} {hashtag|\#|日本語} {hashtag|\#|हिन्दी} {hashtag|＃|タグ}"),
        # A hashtag ends where LinkedIn ends it: at punctuation, `_` included.
        ("#open-source #v1.2 #my_tag", r"{hashtag|\#|open}-source {hashtag|\#|v1}.2 {hashtag|\#|my}\_tag"),
        # No hashtag: inside a word, only digits, no tag at all.
        ("issue#12 C# we're #1 # &#123;", r"issue\#12 C\# we're \#1 \# &\#123;"),
        ("##tag", r"\#{hashtag|\#|tag}"),
        # A `#` inside a link is its fragment; the link's reserved characters are escaped, so
        # LinkedIn shows (and links) it as written.
        (
            "see https://en.wikipedia.org/wiki/Rust_(lang)#History, www.example.com/#/x_y #docs",
            r"see https://en.wikipedia.org/wiki/Rust\_\(lang\)\#History, www.example.com/\#/x\_y {hashtag|\#|docs}",
        ),
        (
            "Hi @bob *now* _x_ ~y~ [a]{b}<c>|\\ ok",
            r"Hi \@bob \*now\* \_x\_ \~y\~ \[a\]\{b\}\<c\>\|\\ ok",
        ),
    ],
)
async def test_commentary_is_little_text_with_hashtag_templates(text: str, sent: str) -> None:
    api = await sandboxed(post("linkedin", content=text))
    commentary = api.requests[0]["json"]["commentary"]
    assert commentary == sent
    shown, hashtags = read_little(commentary)  # what LinkedIn shows: the text as written, nothing cut
    assert shown == text
    assert len(hashtags) == sent.count("{hashtag|")


async def test_an_organization_urn_posts_as_the_organization() -> None:
    account = Account("acme-li", handle="acme", platform_user_id="urn:li:organization:5515715")
    api = await sandboxed(post("linkedin", account=account))
    assert api.requests[0]["json"]["author"] == "urn:li:organization:5515715"


async def test_a_profile_without_member_id_is_refused_before_sending() -> None:
    p = post("linkedin", account=Account("acme-li", handle="acme"))
    api = scripted(p)
    with pytest.raises(DeliveryError) as caught:
        await L.deliver(p, api)
    assert caught.value.error_class is ErrorClass.PERMANENT and not api.requests


async def test_images_upload_then_a_multi_image_post_with_alt_text() -> None:
    p = post("linkedin", media=(image(1, alt_text="a cat"), image(2)))
    api = scripted(
        p,
        [
            (
                "POST",
                r"/images\?action=initializeUpload$",
                reply(
                    200, {"value": {"uploadUrl": "https://www.linkedin.com/dms-uploads/i1", "image": "urn:li:image:1"}}
                ),
            ),
            (
                "POST",
                r"/images\?action=initializeUpload$",
                reply(
                    200, {"value": {"uploadUrl": "https://www.linkedin.com/dms-uploads/i2", "image": "urn:li:image:2"}}
                ),
            ),
        ],
    )
    await L.deliver(p, api)
    assert calls(api) == [
        ("POST", f"{REST}/images?action=initializeUpload"),
        ("PUT", "https://www.linkedin.com/dms-uploads/i1"),
        ("POST", f"{REST}/images?action=initializeUpload"),
        ("PUT", "https://www.linkedin.com/dms-uploads/i2"),
        ("POST", f"{REST}/posts"),
    ]
    assert api.requests[0].json == {"initializeUploadRequest": {"owner": AUTHOR}}
    put = api.requests[1]
    assert (put.content, put.auth, put.headers) == (MediaBytes(p.media[0]), "Bearer", {"Content-Type": "image/jpeg"})
    assert api.state["media"] == {"med_1": "urn:li:image:1", "med_2": "urn:li:image:2"}
    assert api.requests[-1].json["content"] == {
        "multiImage": {"images": [{"id": "urn:li:image:1", "altText": "a cat"}, {"id": "urn:li:image:2"}]}
    }


async def test_one_image_goes_in_content_media_and_an_earlier_upload_is_reused() -> None:
    p = post("linkedin", media=(image(1, alt_text="a cat"),))
    api = scripted(p, state={"media": {"med_1": "urn:li:image:9"}})
    await L.deliver(p, api)
    assert calls(api) == [("POST", f"{REST}/posts")]
    assert api.requests[0].json["content"] == {"media": {"id": "urn:li:image:9", "altText": "a cat"}}


async def test_video_parts_are_put_then_finalized_with_their_etags_then_polled() -> None:
    size = 10 * MIB
    p = post("linkedin", media=(video(size_bytes=size),))
    api = scripted(
        p,
        [
            ("POST", r"/videos\?action=initializeUpload$", reply(200, video_init(size))),
            ("PUT", r"/part0$", reply(200, None, ETag="e0")),
            ("PUT", r"/part1$", reply(200, None, ETag="e1")),
            ("PUT", r"/part2$", reply(200, None, ETag="e2")),
            ("GET", r"/rest/videos/", reply(200, {"id": VIDEO, "status": "PROCESSING"})),
        ],
    )
    delivery = await L.deliver(p, api)
    assert calls(api) == [
        ("POST", f"{REST}/videos?action=initializeUpload"),
        ("PUT", "https://www.linkedin.com/dms-uploads/sp/v/part0"),
        ("PUT", "https://www.linkedin.com/dms-uploads/sp/v/part1"),
        ("PUT", "https://www.linkedin.com/dms-uploads/sp/v/part2"),
        ("POST", f"{REST}/videos?action=finalizeUpload"),
        ("GET", VIDEO_GET),
        ("GET", VIDEO_GET),
        ("POST", f"{REST}/posts"),
    ]
    assert api.requests[0].json == {
        "initializeUploadRequest": {
            "owner": AUTHOR,
            "fileSizeBytes": size,
            "uploadCaptions": False,
            "uploadThumbnail": False,
        }
    }
    assert [r.content for r in api.requests[1:4]] == [
        MediaBytes(p.media[0], 0, 4 * MIB),
        MediaBytes(p.media[0], 4 * MIB, 8 * MIB),
        MediaBytes(p.media[0], 8 * MIB, size),
    ]
    assert api.requests[4].json == {
        "finalizeUploadRequest": {"video": VIDEO, "uploadToken": "tok-1", "uploadedPartIds": ["e0", "e1", "e2"]}
    }
    assert "Content-Type" not in api.requests[5].headers and api.waited > 0
    assert api.requests[-1].json["content"] == {"media": {"id": VIDEO}}
    assert api.state["media"] == {"med_9": VIDEO} and "video_upload" not in api.state
    assert delivery.platform_post_id


async def test_an_interrupted_video_upload_resumes_at_the_first_missing_part() -> None:
    size = 10 * MIB
    p = post("linkedin", media=(video(size_bytes=size),))
    first = scripted(
        p,
        [
            ("POST", r"/videos\?action=initializeUpload$", reply(200, video_init(size))),
            ("PUT", r"/part0$", reply(200, None, ETag="e0")),
            ("PUT", r"/part1$", reply(503, None)),
        ],
    )
    with pytest.raises(DeliveryError) as caught:
        await L.deliver(p, first)
    assert caught.value.error_class is ErrorClass.RETRYABLE
    assert first.state["video_upload"]["etags"] == ["e0"]
    second = scripted(
        p,
        [("PUT", r"/part1$", reply(200, None, ETag="e1")), ("PUT", r"/part2$", reply(201, None, ETag="e2"))],
        state=first.state,
    )
    await L.deliver(p, second)
    assert calls(second)[:3] == [
        ("PUT", "https://www.linkedin.com/dms-uploads/sp/v/part1"),
        ("PUT", "https://www.linkedin.com/dms-uploads/sp/v/part2"),
        ("POST", f"{REST}/videos?action=finalizeUpload"),
    ]
    assert second.requests[2].json["finalizeUploadRequest"]["uploadedPartIds"] == ["e0", "e1", "e2"]


async def test_a_part_answered_without_etag_is_retried() -> None:
    p = post("linkedin", media=(video(),))
    api = scripted(p, [("PUT", r"dms-uploads", reply(200, None))])
    with pytest.raises(DeliveryError) as caught:
        await L.deliver(p, api)
    assert caught.value.error_class is ErrorClass.RETRYABLE


async def test_failed_video_processing_fails_the_post_for_good() -> None:
    p = post("linkedin", media=(video(),))
    failed = {"id": VIDEO, "status": "PROCESSING_FAILED", "processingFailureReason": "INVALID_FORMAT"}
    api = scripted(p, [("GET", r"/rest/videos/", reply(200, failed))])
    with pytest.raises(DeliveryError) as caught:
        await L.deliver(p, api)
    assert caught.value.error_class is ErrorClass.PERMANENT and "INVALID_FORMAT" in str(caught.value)
    assert not any(r.creates_post for r in api.requests)


async def test_processing_that_outlasts_the_attempt_is_polled_again_not_uploaded_again() -> None:
    p = post("linkedin", media=(video(),))
    processing = reply(200, {"id": VIDEO, "status": "PROCESSING"})
    first = scripted(p, [("GET", r"/rest/videos/", processing)] * L.poll_limit)
    with pytest.raises(DeliveryError) as caught:
        await L.deliver(p, first)
    assert caught.value.error_class is ErrorClass.RETRYABLE
    second = scripted(p, state=first.state)
    await L.deliver(p, second)
    assert [m for m, _ in calls(second)] == ["GET", "POST"] and calls(second)[1][1] == f"{REST}/posts"


async def test_a_video_with_other_media_is_refused_before_sending() -> None:
    p = post("linkedin", media=(video(), image()))
    api = scripted(p)
    with pytest.raises(DeliveryError) as caught:
        await L.deliver(p, api)
    assert caught.value.error_class is ErrorClass.PERMANENT and not api.requests


async def test_reconcile_makes_the_resend_take_a_duplicate_refusal_as_our_post() -> None:
    p = post("linkedin")
    api = scripted(p, [("POST", r"/rest/posts$", reply(422, duplicate("urn:li:share:6844")))])
    assert await L.reconcile(p, api) is None
    assert not api.requests
    await api.save(create_sent_at=None)  # what the publisher does before resending
    delivery = await L.deliver(p, api)
    assert delivery.platform_post_id == "urn:li:share:6844"
    assert delivery.url == "https://www.linkedin.com/feed/update/urn:li:share:6844/"


async def test_a_duplicate_refusal_after_an_earlier_send_names_our_post() -> None:
    p = post("linkedin")
    script = [("POST", r"/rest/posts$", reply(422, duplicate("urn:li:ugcPost:12")))]
    api = scripted(p, script, state={"create_sent_at": "2026-11-24T11:59:00+00:00"})
    assert (await L.deliver(p, api)).platform_post_id == "urn:li:ugcPost:12"


async def test_a_duplicate_refusal_of_a_first_send_is_permanent() -> None:
    api = scripted(post("linkedin"), [("POST", r"/rest/posts$", reply(422, duplicate("urn:li:share:1")))])
    with pytest.raises(DeliveryError) as caught:
        await L.deliver(post("linkedin"), api)
    assert (caught.value.error_class, caught.value.status) == (ErrorClass.PERMANENT, 422)


async def test_another_422_on_a_resend_is_permanent_and_clears_the_sent_mark() -> None:
    too_long = {"status": 422, "message": "ERROR :: /commentary :: length exceeds 3000"}
    api = scripted(post("linkedin"), [("POST", r"/rest/posts$", reply(422, too_long))], state={"resending": True})
    with pytest.raises(DeliveryError) as caught:
        await L.deliver(post("linkedin"), api)
    assert (caught.value.error_class, caught.value.status) == (ErrorClass.PERMANENT, 422)
    assert "create_sent_at" not in api.state


async def test_an_expired_token_needs_reauth() -> None:
    expired = {"status": 401, "serviceErrorCode": 65601, "message": "The token used in the request has expired"}
    api = scripted(post("linkedin"), [("POST", r"/rest/posts$", reply(401, expired))])
    with pytest.raises(DeliveryError) as caught:
        await L.deliver(post("linkedin"), api)
    assert caught.value.error_class is ErrorClass.NEEDS_REAUTH
