"""The platform connectors build the requests PLATFORMS.md documents, never with a credential,
and classify each documented error (DESIGN 9)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

from core.connectors.base import (
    Account,
    DeliveryError,
    ErrorClass,
    OutgoingMedia,
    OutgoingPost,
    PlatformRequest,
)
from core.connectors.bluesky import text_facets
from core.connectors.linkedin import escape_commentary
from core.connectors.registry import CONNECTORS, connector_for

RETRYABLE, REAUTH, PERMANENT = ErrorClass.RETRYABLE, ErrorClass.NEEDS_REAUTH, ErrorClass.PERMANENT

ACCOUNTS = {
    "x": Account("acme-x", handle="acme", platform_user_id="2244994945"),
    "bluesky": Account("acme-bsky", handle="acme.bsky.social", platform_user_id="did:plc:abc123"),
    "mastodon": Account("acme-masto", handle="acme", platform_user_id="1", instance_url="https://fosstodon.org/"),
    "threads": Account("acme-threads", handle="acme", platform_user_id="1789"),
    "instagram": Account("acme-ig", handle="acme", platform_user_id="17841400000000000"),
    "tiktok": Account("acme-tt", handle="acme", platform_user_id="open-id"),
    "youtube": Account("acme-yt", handle="acme", platform_user_id="UC123"),
    "linkedin": Account("acme-li", handle="acme", platform_user_id="AbC-123"),
}


def image(n: int = 1, **kw: Any) -> OutgoingMedia:
    fields: dict[str, Any] = {
        "media_id": f"med_{n}",
        "kind": "image",
        "mime_type": "image/jpeg",
        "size_bytes": 1000,
        "url": f"https://cdn.example/m{n}.jpg",
    }
    return OutgoingMedia(**(fields | kw))


def video(n: int = 9, **kw: Any) -> OutgoingMedia:
    fields: dict[str, Any] = {
        "kind": "video",
        "mime_type": "video/mp4",
        "size_bytes": 3000,
        "url": f"https://cdn.example/v{n}.mp4",
    }
    return image(n, **(fields | kw))


def post(key: str, content: str = "hi", media: tuple[OutgoingMedia, ...] = (), **kw: Any) -> OutgoingPost:
    fields: dict[str, Any] = {
        "post_id": "pst_1",
        "delivery_key": "dk_1",
        "connector": key,
        "content": content,
        "post_type": "post",
        "account": ACCOUNTS[key],
        "media": media,
    }
    return OutgoingPost(**(fields | kw))


def all_requests(p: OutgoingPost) -> list[PlatformRequest]:
    connector = connector_for(p.connector)
    return connector.media_requests(p) + connector.publish_requests(p)


def only(requests: list[PlatformRequest]) -> PlatformRequest:
    assert len(requests) == 1, requests
    return requests[0]


# --- registry and the rules every connector keeps ---------------------------------------------


def test_registry_has_one_connector_per_platform_key() -> None:
    from core.posts.rules import PLATFORM_LIMITS

    assert list(CONNECTORS) == list(PLATFORM_LIMITS)  # one list of platform keys: the rules table's
    assert sorted(CONNECTORS) == sorted(ACCOUNTS)
    assert all(connector.key == key for key, connector in CONNECTORS.items())
    with pytest.raises(KeyError):
        connector_for("myspace")


SAMPLES = [
    post("x"),
    post("x", media=(image(1, alt_text="a cat"), image(2))),
    post("x", media=(video(size_bytes=12 * 1024 * 1024),)),
    post("bluesky"),
    post("bluesky", media=(image(),)),
    post("bluesky", media=(video(),)),
    post("mastodon"),
    post("mastodon", media=(video(),)),
    post("threads"),
    post("threads", media=(image(1), video(2))),
    post("instagram", media=(image(),)),
    post("instagram", media=(image(1), image(2))),
    post("tiktok", media=(video(),)),
    post("tiktok", media=(image(1), image(2))),
    post("youtube", media=(video(),), title="Launch"),
    post("linkedin"),
    post("linkedin", media=(image(1), image(2))),
    post("linkedin", media=(video(),)),
]
_TOKENISH = re.compile(r"authorization|token|secret|bearer|api[-_]?key|cookie|oauth", re.IGNORECASE)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: f"{p.connector}-{len(p.media)}")
def test_no_request_carries_a_credential(sample: OutgoingPost) -> None:
    requests = all_requests(sample)
    assert requests
    for request in requests:
        assert not any(_TOKENISH.search(name) for name in request.headers), request.headers
        assert not any(_TOKENISH.search(value) for value in request.headers.values()), request.headers
        assert "access_token=" not in request.url
        assert request.url.startswith("https://") or request.url.startswith("{upload_url:")
        assert request.as_dict()["method"] in ("GET", "POST", "PUT")


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: f"{p.connector}-{len(p.media)}")
def test_a_profile_without_platform_ids_still_builds_its_requests(sample: OutgoingPost) -> None:
    # What the sandbox publisher knows of a profile: its slug and display name only.
    bare = replace(sample, account=Account("acme", handle="Acme"))
    requests = all_requests(bare)
    assert len(requests) == len(all_requests(sample))
    if sample.connector in ("bluesky", "threads", "instagram", "linkedin"):
        assert "{platform_user_id}" in repr([r.as_dict() for r in requests])


def test_bluesky_link_inside_parentheses_and_before_punctuation() -> None:
    facets = text_facets("docs (https://example.com/x) and https://a.example/b!")
    assert [f["features"][0]["uri"] for f in facets] == ["https://example.com/x", "https://a.example/b"]
    assert facets[0]["index"] == {"byteStart": 6, "byteEnd": 27}


@pytest.mark.parametrize("key", sorted(ACCOUNTS))
def test_sandbox_delivery_is_deterministic_per_delivery_key(key: str) -> None:
    connector = connector_for(key)
    first = connector.sandbox_delivery(post(key))
    assert first == connector.sandbox_delivery(post(key, content="other text"))
    other = connector.sandbox_delivery(post(key, delivery_key="dk_2"))
    assert other.platform_post_id != first.platform_post_id and other.url != first.url
    assert first.url.startswith("https://")


def test_mastodon_sandbox_url_is_on_the_profiles_instance() -> None:
    delivery = connector_for("mastodon").sandbox_delivery(post("mastodon"))
    assert delivery.url.startswith("https://fosstodon.org/")


def test_media_already_on_the_platform_is_not_uploaded_again() -> None:
    uploaded = image(platform_media_id="1455952740635586573")
    p = post("x", media=(uploaded,))
    assert connector_for("x").media_requests(p) == []
    assert only(connector_for("x").publish_requests(p)).json["media"] == {"media_ids": ["1455952740635586573"]}


# --- X ----------------------------------------------------------------------------------------


def test_x_text_only() -> None:
    request = only(connector_for("x").publish_requests(post("x")))
    assert (request.method, request.url, request.json) == ("POST", "https://api.x.com/2/tweets", {"text": "hi"})
    assert connector_for("x").media_requests(post("x")) == []


def test_x_images_upload_then_tweet_with_media_ids() -> None:
    p = post("x", media=(image(1, alt_text="a cat"), image(2)))
    media = connector_for("x").media_requests(p)
    assert [(r.method, r.url) for r in media] == [
        ("POST", "https://api.x.com/2/media/upload"),
        ("POST", "https://api.x.com/2/media/metadata"),
        ("POST", "https://api.x.com/2/media/upload"),
    ]
    assert media[0].form == {"media": "https://cdn.example/m1.jpg", "media_category": "tweet_image"}
    assert media[1].json == {"id": "{media:med_1}", "metadata": {"alt_text": {"text": "a cat"}}}
    tweet = only(connector_for("x").publish_requests(p))
    assert tweet.json == {"text": "hi", "media": {"media_ids": ["{media:med_1}", "{media:med_2}"]}}


def test_x_video_is_chunked_in_5mb_segments() -> None:
    p = post("x", media=(video(size_bytes=12 * 1024 * 1024),))
    requests = connector_for("x").media_requests(p)
    base = "https://api.x.com/2/media/upload"
    assert [(r.method, r.url) for r in requests] == [
        ("POST", f"{base}/initialize"),
        ("POST", f"{base}/{{media:med_9}}/append"),
        ("POST", f"{base}/{{media:med_9}}/append"),
        ("POST", f"{base}/{{media:med_9}}/append"),
        ("POST", f"{base}/{{media:med_9}}/finalize"),
        ("GET", f"{base}?command=STATUS&media_id={{media:med_9}}"),
    ]
    assert requests[0].json == {"media_type": "video/mp4", "total_bytes": 12582912, "media_category": "tweet_video"}
    assert [r.form for r in requests[1:4]] == [
        {"media": "https://cdn.example/v9.mp4", "segment_index": i} for i in range(3)
    ]


def test_x_gif_uses_the_gif_category() -> None:
    p = post("x", media=(image(kind="gif", mime_type="image/gif"),))
    assert connector_for("x").media_requests(p)[0].json["media_category"] == "tweet_gif"


# --- Bluesky ----------------------------------------------------------------------------------


def test_bluesky_text_only_record() -> None:
    request = only(connector_for("bluesky").publish_requests(post("bluesky")))
    assert (request.method, request.url) == ("POST", "https://bsky.social/xrpc/com.atproto.repo.createRecord")
    assert request.json == {
        "repo": "did:plc:abc123",
        "collection": "app.bsky.feed.post",
        "record": {"$type": "app.bsky.feed.post", "text": "hi", "createdAt": "{created_at}"},
    }


def test_bluesky_link_facet_counts_utf8_bytes() -> None:
    text = "🎉 see https://example.com/a."
    facets = text_facets(text)
    start = len("🎉 see ".encode())
    assert start == 9  # the emoji is 4 bytes but 1 code point (2 UTF-16 units)
    assert facets == [
        {
            "index": {"byteStart": 9, "byteEnd": 9 + len("https://example.com/a")},
            "features": [{"$type": "app.bsky.richtext.facet#link", "uri": "https://example.com/a"}],
        }
    ]
    record = only(connector_for("bluesky").publish_requests(post("bluesky", text))).json["record"]
    assert record["facets"] == facets


def test_bluesky_hashtag_facets_and_no_facet_for_plain_text() -> None:
    assert text_facets("plain text, no links") == []
    assert text_facets("café #launch #2026") == [
        {
            "index": {"byteStart": 6, "byteEnd": 13},
            "features": [{"$type": "app.bsky.richtext.facet#tag", "tag": "launch"}],
        }
    ]


def test_bluesky_images_upload_blobs_and_embed_with_alt_and_aspect_ratio() -> None:
    p = post("bluesky", media=(image(1, alt_text="a cat", width=1200, height=800), image(2, mime_type="image/png")))
    uploads = connector_for("bluesky").media_requests(p)
    assert [(r.method, r.url, r.headers) for r in uploads] == [
        ("POST", "https://bsky.social/xrpc/com.atproto.repo.uploadBlob", {"Content-Type": "image/jpeg"}),
        ("POST", "https://bsky.social/xrpc/com.atproto.repo.uploadBlob", {"Content-Type": "image/png"}),
    ]
    assert uploads[0].form == {"bytes_from": "https://cdn.example/m1.jpg"}
    embed = only(connector_for("bluesky").publish_requests(p)).json["record"]["embed"]
    assert embed == {
        "$type": "app.bsky.embed.images",
        "images": [
            {
                "image": {"$type": "blob", "ref": {"$link": "{media:med_1}"}, "mimeType": "image/jpeg", "size": 1000},
                "alt": "a cat",
                "aspectRatio": {"width": 1200, "height": 800},
            },
            {
                "image": {"$type": "blob", "ref": {"$link": "{media:med_2}"}, "mimeType": "image/png", "size": 1000},
                "alt": "",
            },
        ],
    }


def test_bluesky_video_goes_through_the_video_service_on_the_accounts_pds() -> None:
    account = replace(ACCOUNTS["bluesky"], instance_url="https://pds.example.org")
    p = post("bluesky", media=(video(alt_text="demo"),), account=account)
    requests = connector_for("bluesky").media_requests(p)
    assert [(r.method, r.url) for r in requests] == [
        (
            "GET",
            "https://pds.example.org/xrpc/com.atproto.server.getServiceAuth"
            "?aud=did:web:pds.example.org&lxm=com.atproto.repo.uploadBlob&exp={expires_at}",
        ),
        ("POST", "https://video.bsky.app/xrpc/app.bsky.video.uploadVideo?did=did:plc:abc123&name=med_9.mp4"),
        ("GET", "https://video.bsky.app/xrpc/app.bsky.video.getJobStatus?jobId={job:med_9}"),
    ]
    create = only(connector_for("bluesky").publish_requests(p))
    assert create.url == "https://pds.example.org/xrpc/com.atproto.repo.createRecord"
    assert create.json["record"]["embed"] == {
        "$type": "app.bsky.embed.video",
        "video": {"$type": "blob", "ref": {"$link": "{media:med_9}"}, "mimeType": "video/mp4", "size": 3000},
        "alt": "demo",
    }


# --- Mastodon ---------------------------------------------------------------------------------


def test_mastodon_status_carries_the_delivery_key_as_idempotency_key() -> None:
    request = only(connector_for("mastodon").publish_requests(post("mastodon")))
    assert (request.method, request.url) == ("POST", "https://fosstodon.org/api/v1/statuses")
    assert request.headers["Idempotency-Key"] == "dk_1"
    assert request.json == {"status": "hi", "visibility": "public"}


def test_mastodon_media_then_status_with_media_ids() -> None:
    p = post("mastodon", media=(image(1, alt_text="a cat"), video(2)))
    uploads = connector_for("mastodon").media_requests(p)
    assert [(r.method, r.url) for r in uploads] == [
        ("POST", "https://fosstodon.org/api/v2/media"),
        ("POST", "https://fosstodon.org/api/v2/media"),
        ("GET", "https://fosstodon.org/api/v1/media/{media:med_2}"),
    ]
    assert uploads[0].form == {"file": "https://cdn.example/m1.jpg", "description": "a cat"}
    assert uploads[1].form == {"file": "https://cdn.example/v2.mp4"}
    status = only(connector_for("mastodon").publish_requests(p))
    assert status.json == {"status": "hi", "visibility": "public", "media_ids": ["{media:med_1}", "{media:med_2}"]}


# --- Threads ----------------------------------------------------------------------------------

THREADS = "https://graph.threads.net/v1.0/1789"


def test_threads_text_container_then_publish() -> None:
    create, publish = connector_for("threads").publish_requests(post("threads"))
    assert (create.method, create.url, create.form) == (
        "POST",
        f"{THREADS}/threads",
        {"media_type": "TEXT", "text": "hi"},
    )
    assert (publish.method, publish.url) == ("POST", f"{THREADS}/threads_publish?creation_id={{creation_id}}")
    assert publish.json is None and publish.form is None


def test_threads_single_image() -> None:
    p = post("threads", media=(image(alt_text="a cat"),))
    assert connector_for("threads").media_requests(p) == []
    create, status, publish = connector_for("threads").publish_requests(p)
    assert create.form == {
        "media_type": "IMAGE",
        "image_url": "https://cdn.example/m1.jpg",
        "alt_text": "a cat",
        "text": "hi",
    }
    assert (status.method, status.url) == (
        "GET",
        "https://graph.threads.net/v1.0/{creation_id}?fields=status,error_message",
    )
    assert publish.url.endswith("/threads_publish?creation_id={creation_id}")


def test_threads_carousel_items_first_then_carousel_container() -> None:
    p = post("threads", media=(image(1), video(2)))
    items = connector_for("threads").media_requests(p)
    assert [(r.method, r.url, r.form) for r in items] == [
        (
            "POST",
            f"{THREADS}/threads",
            {"media_type": "IMAGE", "image_url": "https://cdn.example/m1.jpg", "is_carousel_item": "true"},
        ),
        (
            "POST",
            f"{THREADS}/threads",
            {"media_type": "VIDEO", "video_url": "https://cdn.example/v2.mp4", "is_carousel_item": "true"},
        ),
    ]
    create = connector_for("threads").publish_requests(p)[0]
    assert create.form == {"media_type": "CAROUSEL", "children": "{media:med_1},{media:med_2}", "text": "hi"}


# --- Instagram --------------------------------------------------------------------------------

IG = "https://graph.facebook.com/v25.0/17841400000000000"


def test_instagram_refuses_text_only() -> None:
    with pytest.raises(DeliveryError) as caught:
        connector_for("instagram").publish_requests(post("instagram"))
    assert caught.value.error_class is PERMANENT and caught.value.code == "MEDIA_REQUIRED"


def test_instagram_image_container_then_publish() -> None:
    p = post("instagram", media=(image(alt_text="a cat"),))
    create, status, publish = connector_for("instagram").publish_requests(p)
    assert (create.method, create.url) == ("POST", f"{IG}/media")
    assert create.form == {"image_url": "https://cdn.example/m1.jpg", "alt_text": "a cat", "caption": "hi"}
    assert status.url == "https://graph.facebook.com/v25.0/{creation_id}?fields=status_code"
    assert (publish.method, publish.url) == ("POST", f"{IG}/media_publish?creation_id={{creation_id}}")


@pytest.mark.parametrize(
    ("post_type", "media", "form"),
    [
        ("reel", video(), {"media_type": "REELS", "video_url": "https://cdn.example/v9.mp4", "caption": "hi"}),
        ("post", video(), {"media_type": "REELS", "video_url": "https://cdn.example/v9.mp4", "caption": "hi"}),
        ("story", image(), {"media_type": "STORIES", "image_url": "https://cdn.example/m1.jpg"}),
        ("story", video(), {"media_type": "STORIES", "video_url": "https://cdn.example/v9.mp4"}),
    ],
)
def test_instagram_reels_and_stories(post_type: str, media: OutgoingMedia, form: dict[str, str]) -> None:
    create = connector_for("instagram").publish_requests(post("instagram", media=(media,), post_type=post_type))[0]
    assert create.form == form


def test_instagram_carousel() -> None:
    p = post("instagram", media=(image(1), video(2)))
    items = connector_for("instagram").media_requests(p)
    assert [r.form for r in items] == [
        {"image_url": "https://cdn.example/m1.jpg", "is_carousel_item": "true"},
        {"media_type": "VIDEO", "video_url": "https://cdn.example/v2.mp4", "is_carousel_item": "true"},
    ]
    assert {r.url for r in items} == {f"{IG}/media"}
    create = connector_for("instagram").publish_requests(p)[0]
    assert create.form == {"media_type": "CAROUSEL", "children": "{media:med_1},{media:med_2}", "caption": "hi"}


# --- TikTok -----------------------------------------------------------------------------------

TIKTOK = "https://open.tiktokapis.com/v2/post/publish"


def test_tiktok_video_pulled_from_url() -> None:
    creator, init, status = connector_for("tiktok").publish_requests(post("tiktok", "dance", (video(),)))
    assert (creator.method, creator.url, creator.json) == ("POST", f"{TIKTOK}/creator_info/query/", None)
    assert (init.method, init.url) == ("POST", f"{TIKTOK}/video/init/")
    assert init.headers == {"Content-Type": "application/json; charset=UTF-8"}
    assert init.json == {
        "post_info": {
            "title": "dance",
            "privacy_level": "PUBLIC_TO_EVERYONE",
            "disable_duet": False,
            "disable_comment": False,
            "disable_stitch": False,
        },
        "source_info": {"source": "PULL_FROM_URL", "video_url": "https://cdn.example/v9.mp4"},
    }
    assert (status.url, status.json) == (f"{TIKTOK}/status/fetch/", {"publish_id": "{publish_id}"})


def test_tiktok_photo_post() -> None:
    p = post("tiktok", "trip", (image(1), image(2)), post_type="photo", title="Alps")
    init = connector_for("tiktok").publish_requests(p)[1]
    assert init.url == f"{TIKTOK}/content/init/"
    assert init.json == {
        "post_info": {
            "title": "Alps",
            "description": "trip",
            "privacy_level": "PUBLIC_TO_EVERYONE",
            "disable_comment": False,
        },
        "source_info": {
            "source": "PULL_FROM_URL",
            "photo_cover_index": 0,
            "photo_images": ["https://cdn.example/m1.jpg", "https://cdn.example/m2.jpg"],
        },
        "post_mode": "DIRECT_POST",
        "media_type": "PHOTO",
    }


def test_tiktok_refuses_text_only() -> None:
    with pytest.raises(DeliveryError) as caught:
        connector_for("tiktok").publish_requests(post("tiktok"))
    assert caught.value.error_class is PERMANENT


# --- YouTube ----------------------------------------------------------------------------------


def test_youtube_resumable_session_then_put() -> None:
    p = post("youtube", "Our launch video\nmore words", (video(size_bytes=5_000_000),), title="Launch")
    assert connector_for("youtube").media_requests(p) == []
    start, upload = connector_for("youtube").publish_requests(p)
    assert (start.method, start.url) == (
        "POST",
        "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status",
    )
    assert start.headers == {
        "Content-Type": "application/json; charset=UTF-8",
        "X-Upload-Content-Length": "5000000",
        "X-Upload-Content-Type": "video/mp4",
    }
    assert start.json == {
        "snippet": {"title": "Launch", "description": "Our launch video\nmore words", "categoryId": "22"},
        "status": {"privacyStatus": "public"},
    }
    assert (upload.method, upload.url, upload.form) == (
        "PUT",
        "{upload_url:med_9}",
        {"bytes_from": "https://cdn.example/v9.mp4"},
    )


def test_youtube_title_falls_back_to_the_first_line() -> None:
    start = connector_for("youtube").publish_requests(post("youtube", "First line\nsecond", (video(),)))[0]
    assert start.json["snippet"]["title"] == "First line"


def test_youtube_refuses_a_post_without_video() -> None:
    with pytest.raises(DeliveryError):
        connector_for("youtube").publish_requests(post("youtube", media=(image(),)))


# --- LinkedIn ---------------------------------------------------------------------------------

LI_HEADERS = {"Content-Type": "application/json", "LinkedIn-Version": "202607", "X-Restli-Protocol-Version": "2.0.0"}


def test_linkedin_commentary_escaping() -> None:
    assert escape_commentary("a (b) #c @d") == r"a \(b\) \#c \@d"
    assert escape_commentary(r"\|{}[]<>*_~") == r"\\\|\{\}\[\]\<\>\*\_\~"


def test_linkedin_text_post() -> None:
    request = only(connector_for("linkedin").publish_requests(post("linkedin", "a (b) #c @d")))
    assert (request.method, request.url, request.headers) == ("POST", "https://api.linkedin.com/rest/posts", LI_HEADERS)
    assert request.json == {
        "author": "urn:li:person:AbC-123",
        "commentary": r"a \(b\) \#c \@d",
        "visibility": "PUBLIC",
        "distribution": {"feedDistribution": "MAIN_FEED", "targetEntities": [], "thirdPartyDistributionChannels": []},
        "lifecycleState": "PUBLISHED",
    }


def test_linkedin_images_initialize_put_then_multi_image() -> None:
    p = post("linkedin", media=(image(1, alt_text="a cat"), image(2)))
    uploads = connector_for("linkedin").media_requests(p)
    assert [(r.method, r.url) for r in uploads] == [
        ("POST", "https://api.linkedin.com/rest/images?action=initializeUpload"),
        ("PUT", "{upload_url:med_1}"),
        ("POST", "https://api.linkedin.com/rest/images?action=initializeUpload"),
        ("PUT", "{upload_url:med_2}"),
    ]
    assert uploads[0].json == {"initializeUploadRequest": {"owner": "urn:li:person:AbC-123"}}
    assert uploads[0].headers == LI_HEADERS
    content = only(connector_for("linkedin").publish_requests(p)).json["content"]
    assert content == {"multiImage": {"images": [{"id": "{media:med_1}", "altText": "a cat"}, {"id": "{media:med_2}"}]}}


def test_linkedin_single_video() -> None:
    p = post("linkedin", media=(video(),))
    init, put, finalize, poll = connector_for("linkedin").media_requests(p)
    assert init.url == "https://api.linkedin.com/rest/videos?action=initializeUpload"
    assert init.json["initializeUploadRequest"]["fileSizeBytes"] == 3000
    assert put.method == "PUT"
    assert finalize.json == {
        "finalizeUploadRequest": {
            "video": "{media:med_9}",
            "uploadToken": "{upload_token:med_9}",
            "uploadedPartIds": "{part_ids:med_9}",
        }
    }
    assert poll.method == "GET"
    assert only(connector_for("linkedin").publish_requests(p)).json["content"] == {"media": {"id": "{media:med_9}"}}


def test_linkedin_organization_author_is_kept() -> None:
    account = replace(ACCOUNTS["linkedin"], platform_user_id="urn:li:organization:5515715")
    request = only(connector_for("linkedin").publish_requests(post("linkedin", account=account)))
    assert request.json["author"] == "urn:li:organization:5515715"


# --- classify ---------------------------------------------------------------------------------

X_DUPLICATE = {
    "detail": "You are not allowed to create a Tweet with duplicate content.",
    "title": "Forbidden",
    "status": 403,
}
GRAPH_TOKEN = {"error": {"message": "Error validating access token", "type": "OAuthException", "code": 190}}


def graph(code: int, subcode: int | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"message": "m", "type": "OAuthException", "code": code, "fbtrace_id": "A"}
    if subcode is not None:
        error["error_subcode"] = subcode
    return {"error": error}


def tiktok(code: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": "m", "log_id": "L"}}


def google(reason: str) -> dict[str, Any]:
    return {"error": {"code": 403, "message": "m", "errors": [{"domain": "youtube.quota", "reason": reason}]}}


CASES = [
    ("x", 401, {"title": "Unauthorized"}, REAUTH),
    ("x", 403, X_DUPLICATE, PERMANENT),
    ("x", 400, {"detail": "Your media IDs are invalid."}, PERMANENT),
    ("x", 429, None, RETRYABLE),
    ("x", 503, "Service Unavailable", RETRYABLE),
    ("bluesky", 400, {"error": "ExpiredToken", "message": "Token has expired"}, REAUTH),
    (
        "bluesky",
        400,
        {"error": "InvalidRequest", "message": "Record/text must not be longer than 300 graphemes"},
        PERMANENT,
    ),
    ("bluesky", 413, {"error": "PayloadTooLarge"}, PERMANENT),
    ("bluesky", 429, {"error": "RateLimitExceeded"}, RETRYABLE),
    ("mastodon", 401, {"error": "The access token is invalid"}, REAUTH),
    ("mastodon", 422, {"error": "Validation failed: Text character limit of 500 exceeded"}, PERMANENT),
    ("mastodon", 429, {"error": "Too many requests"}, RETRYABLE),
    ("mastodon", 500, None, RETRYABLE),
    ("threads", 400, GRAPH_TOKEN, REAUTH),
    ("threads", 400, graph(4), RETRYABLE),
    ("threads", 400, graph(17), RETRYABLE),
    ("threads", 400, graph(32), RETRYABLE),
    ("threads", 400, graph(613), RETRYABLE),
    ("threads", 400, graph(100), PERMANENT),
    ("instagram", 400, GRAPH_TOKEN, REAUTH),
    ("instagram", 400, graph(9, 2207042), RETRYABLE),
    ("instagram", 400, graph(9007, 2207027), RETRYABLE),
    ("instagram", 400, graph(36004, 2207010), PERMANENT),
    ("instagram", 400, graph(9004, 2207052), PERMANENT),
    ("instagram", 403, graph(4), RETRYABLE),
    ("tiktok", 401, tiktok("access_token_invalid"), REAUTH),
    ("tiktok", 429, tiktok("rate_limit_exceeded"), RETRYABLE),
    ("tiktok", 403, tiktok("spam_risk_too_many_posts"), RETRYABLE),
    ("tiktok", 400, tiktok("invalid_params"), PERMANENT),
    ("tiktok", 400, tiktok("privacy_level_option_mismatch"), PERMANENT),
    ("youtube", 403, google("quotaExceeded"), RETRYABLE),
    ("youtube", 400, {"error": "invalid_grant", "error_description": "Token has been expired or revoked."}, REAUTH),
    ("youtube", 400, google("uploadLimitExceeded"), RETRYABLE),
    ("youtube", 400, google("invalidTitle"), PERMANENT),
    (
        "linkedin",
        401,
        {"status": 401, "serviceErrorCode": 65601, "message": "The token used in the request has expired"},
        REAUTH,
    ),
    (
        "linkedin",
        422,
        {"status": 422, "message": "ERROR :: /commentary :: DUPLICATE_POST Content is a duplicate of urn:li:share:1"},
        PERMANENT,
    ),
    ("linkedin", 426, {"status": 426, "message": "Requested version 20220101 is not active"}, PERMANENT),
    ("linkedin", 429, None, RETRYABLE),
]


@pytest.mark.parametrize(("key", "status", "body", "expected"), CASES, ids=lambda v: str(v)[:24])
def test_classify_documented_errors(key: str, status: int, body: Any, expected: ErrorClass) -> None:
    assert connector_for(key).classify(status, body) is expected


ODD_BODIES = [
    None,
    "",
    "Rate Limit Exceeded",
    b"\xff\xfe",
    [],
    [1, "x"],
    {"error": None},
    {"error": "x"},
    {"error": [1]},
    42,
    object(),
]


@pytest.mark.parametrize("key", sorted(ACCOUNTS))
@pytest.mark.parametrize("status", [400, 401, 403, 404, 429, 500, 502])
def test_classify_never_raises_on_odd_bodies(key: str, status: int) -> None:
    for body in ODD_BODIES:
        result = connector_for(key).classify(status, body)
        assert isinstance(result, ErrorClass)
        if status in (429, 500, 502):
            assert result is RETRYABLE
