"""Threads and first comments in the sandbox (docs/posts.md, "Threads, first comments and versions"): a main post,
three thread items and a first comment, each delivered on its own delivery key the way the
publisher delivers them; every reply names the ids the sandbox answered for the post before it,
and each platform's comment request has its documented shape."""

from __future__ import annotations

from typing import Any

import pytest

from core.connectors.base import Delivery, DeliveryError, ErrorClass, OutgoingPost
from core.connectors.registry import CONNECTORS
from core.connectors.sandbox import sandbox_comment, sandbox_delivery
from core.platform_accounts.platforms import OAUTH_PLATFORMS
from tests.core.connectors.factories import HERALD, connector_for, image, page_of, post, reply_post, video

THREADING = ("x", "bluesky", "threads", "mastodon")


async def thread(key: str, **kw: Any) -> list[tuple[Delivery, list[dict[str, Any]]]]:
    """The sandbox runs of a main post, its 3 thread items and its first comment, in order."""
    connector = connector_for(key)
    first = post(key, "the main post", delivery_key="dk_main", **kw)
    main = await sandbox_delivery(connector, first, page_of(first))
    runs = [main]
    for n in (1, 2, 3):
        item = reply_post(runs[-1][0], main[0], key, f"item {n}", f"dk_item_{n}")
        runs.append(await sandbox_delivery(connector, item, page_of(item, "thread", n - 1)))
    comment = reply_post(runs[-1][0], main[0], key, "the first comment", "dk_comment")
    runs.append(await sandbox_comment(connector, comment, page_of(comment, "first_comment")))
    return runs


def creating(requests: list[dict[str, Any]], url_end: str) -> dict[str, Any]:
    (found,) = [r for r in requests if r["method"] == "POST" and r["url"].endswith(url_end)]
    return found


def test_each_platform_says_what_it_can_carry_and_what_it_needs() -> None:
    assert {k for k, c in CONNECTORS.items() if c.threads} == set(THREADING)
    assert {k for k, c in CONNECTORS.items() if not c.first_comment} == {"tiktok"}
    assert CONNECTORS["threads"].reply_scopes == CONNECTORS["threads"].comment_scopes == ("threads_manage_replies",)
    assert CONNECTORS["instagram"].comment_scopes == ("instagram_business_manage_comments",)
    assert CONNECTORS["youtube"].comment_scopes == ("https://www.googleapis.com/auth/youtube.force-ssl",)
    for key in ("x", "bluesky", "mastodon", "linkedin", "tiktok"):
        assert CONNECTORS[key].reply_scopes == CONNECTORS[key].comment_scopes == (), key
    # Connecting an account asks for every scope a thread or a first comment needs.
    for key, platform in OAUTH_PLATFORMS.items():
        needed = set(CONNECTORS[key].reply_scopes) | set(CONNECTORS[key].comment_scopes)
        assert needed <= set(platform.scopes), key
    youtube = OAUTH_PLATFORMS["youtube"].scopes
    assert {
        "https://www.googleapis.com/auth/youtube.upload",
        "https://www.googleapis.com/auth/youtube.readonly",
    } <= set(youtube)


async def test_x_chains_each_reply_to_the_post_before_it() -> None:
    runs = await thread("x")
    bodies = [creating(requests, "/2/tweets")["json"] for _, requests in runs]
    assert "reply" not in bodies[0]
    for (before, _), body in zip(runs, bodies[1:], strict=False):
        assert body["reply"] == {"in_reply_to_tweet_id": before.platform_post_id}
    assert [b["text"] for b in bodies] == ["the main post", "item 1", "item 2", "item 3", "the first comment"]
    assert len({d.platform_post_id for d, _ in runs}) == 5 and all(d.cid == "" for d, _ in runs)


async def test_bluesky_replies_carry_strong_refs_to_the_root_and_the_parent() -> None:
    runs = await thread("bluesky")
    records = [creating(requests, "com.atproto.repo.createRecord")["json"] for _, requests in runs]
    main = runs[0][0]
    for (delivery, _), body in zip(runs, records, strict=True):
        # The delivery is the record the request made: its uri names the record key sent, its cid the answer's.
        assert delivery.platform_post_id == f"at://{body['repo']}/app.bsky.feed.post/{body['rkey']}"
        assert delivery.cid.startswith("bafyrei")
    assert "reply" not in records[0]["record"]
    for (before, _), body in zip(runs, records[1:], strict=False):
        assert body["record"]["reply"] == {
            "root": {"uri": main.platform_post_id, "cid": main.cid},
            "parent": {"uri": before.platform_post_id, "cid": before.cid},
        }
    assert len({d.cid for d, _ in runs}) == 5
    again = await thread("bluesky")
    assert [d.cid for d, _ in again] == [d.cid for d, _ in runs]  # deterministic per delivery key


async def test_threads_replies_are_containers_with_reply_to_id_then_published() -> None:
    runs = await thread("threads")
    for n, (delivery, requests) in enumerate(runs):
        container = creating(requests, "/1789/threads")["form"]
        publish = creating(requests, "/1789/threads_publish")["form"]
        assert container["media_type"] == "TEXT" and publish["creation_id"]
        if n == 0:
            assert "reply_to_id" not in container
        else:
            assert container["reply_to_id"] == runs[n - 1][0].platform_post_id
        assert delivery.platform_post_id == connector_for("threads").sandbox_post_id(_post_of(n, "threads"))


async def test_threads_reply_items_may_carry_media_like_posts() -> None:
    connector = connector_for("threads")
    first = post("threads", "main", delivery_key="dk_main")
    main, _ = await sandbox_delivery(connector, first, page_of(first))
    item = reply_post(main, main, "threads", "two pictures", "dk_item_1", media=(image(1), video(2)))
    _, requests = await sandbox_delivery(connector, item, page_of(item, "thread", 0))
    containers = [r["form"] for r in requests if r["method"] == "POST" and r["url"].endswith("/threads")]
    assert [c.get("is_carousel_item") for c in containers] == ["true", "true", None]
    assert containers[-1]["media_type"] == "CAROUSEL" and containers[-1]["reply_to_id"] == main.platform_post_id
    assert all("reply_to_id" not in c for c in containers[:2])


async def test_mastodon_replies_keep_the_visibility_and_their_own_idempotency_key() -> None:
    runs = await thread("mastodon")
    statuses = [creating(requests, "/api/v1/statuses") for _, requests in runs]
    assert {s["json"]["visibility"] for s in statuses} == {statuses[0]["json"]["visibility"]} == {"public"}
    assert "in_reply_to_id" not in statuses[0]["json"]
    for (before, _), status in zip(runs, statuses[1:], strict=False):
        assert status["json"]["in_reply_to_id"] == before.platform_post_id
    keys = [s["headers"]["Idempotency-Key"] for s in statuses]
    assert keys == ["dk_main", "dk_item_1", "dk_item_2", "dk_item_3", "dk_comment"]


@pytest.mark.parametrize("key", THREADING)
async def test_each_part_links_to_its_own_outbox_entry_on_herald(key: str) -> None:
    # The platform ids chain the replies; the URLs are Herald's page of the post, one anchor a part.
    runs = await thread(key)
    page = f"{HERALD}/dashboard/posts/pst_1"
    assert [d.url for d, _ in runs] == [
        f"{page}#outbox-post",
        f"{page}#outbox-thread-0",
        f"{page}#outbox-thread-1",
        f"{page}#outbox-thread-2",
        f"{page}#outbox-first-comment",
    ]


@pytest.mark.parametrize("key", THREADING)
async def test_a_chain_is_the_same_every_time(key: str) -> None:
    first, second = await thread(key), await thread(key)
    if key == "bluesky":  # record keys are made from the time a record is sent
        assert [d.cid for d, _ in first] == [d.cid for d, _ in second]
    else:
        assert first == second


async def test_an_instagram_first_comment_goes_on_the_media() -> None:
    connector = connector_for("instagram")
    first = post("instagram", "caption", media=(image(),), delivery_key="dk_main")
    main, _ = await sandbox_delivery(connector, first, page_of(first))
    comment = reply_post(main, main, "instagram", "link in bio", "dk_comment")
    delivery, requests = await sandbox_comment(connector, comment, page_of(comment, "first_comment"))
    assert requests == [
        {
            "method": "POST",
            "url": f"https://graph.instagram.com/v25.0/{main.platform_post_id}/comments",
            "headers": {},
            "form": {"message": "link in bio"},
        }
    ]
    assert delivery.platform_post_id == connector.sandbox_post_id(comment)
    assert delivery.url == page_of(comment, "first_comment")


async def test_a_youtube_first_comment_is_a_comment_thread_on_the_video() -> None:
    connector = connector_for("youtube")
    upload = post("youtube", "description", media=(video(),), title="Launch", delivery_key="dk_main")
    main, _ = await sandbox_delivery(connector, upload, page_of(upload))
    comment = reply_post(main, main, "youtube", "Chapters: …", "dk_c")
    delivery, requests = await sandbox_comment(connector, comment, page_of(comment, "first_comment"))
    (request,) = requests
    assert (request["method"], request["url"]) == (
        "POST",
        "https://www.googleapis.com/youtube/v3/commentThreads?part=snippet",
    )
    assert request["json"] == {
        "snippet": {
            "channelId": "UC123",
            "videoId": main.platform_post_id,
            "topLevelComment": {"snippet": {"textOriginal": "Chapters: …"}},
        }
    }
    assert delivery.platform_post_id.startswith("Ugz") and delivery.url == page_of(comment, "first_comment")


async def test_a_linkedin_first_comment_goes_to_the_posts_social_actions() -> None:
    connector = connector_for("linkedin")
    first = post("linkedin", "news", delivery_key="dk_main")
    main, _ = await sandbox_delivery(connector, first, page_of(first))
    comment = reply_post(main, main, "linkedin", "more: (link)", "dk_c")
    delivery, requests = await sandbox_comment(connector, comment, page_of(comment, "first_comment"))
    (request,) = requests
    encoded = main.platform_post_id.replace(":", "%3A")
    assert request["url"] == f"https://api.linkedin.com/rest/socialActions/{encoded}/comments"
    assert request["headers"]["LinkedIn-Version"] and request["headers"]["X-Restli-Protocol-Version"] == "2.0.0"
    # A comment's text is not "little text": nothing is escaped.
    assert request["json"] == {
        "actor": "urn:li:person:AbC-123",
        "object": main.platform_post_id,
        "message": {"text": "more: (link)"},
    }
    assert delivery.platform_post_id.startswith(f"urn:li:comment:({main.platform_post_id},")
    assert delivery.url == page_of(comment, "first_comment")


async def test_tiktok_refuses_a_first_comment_before_sending_anything() -> None:
    connector = connector_for("tiktok")
    main = Delivery("7301", "https://www.tiktok.com/@acme/video/7301")
    with pytest.raises(DeliveryError) as caught:
        await sandbox_comment(connector, reply_post(main, main, "tiktok", "hello", "dk_c"), "")
    assert (caught.value.error_class, caught.value.code) == (ErrorClass.PERMANENT, "COMMENTS_UNSUPPORTED")


@pytest.mark.parametrize("key", ["instagram", "youtube", "linkedin"])
async def test_a_comment_needs_its_post_and_its_text(key: str) -> None:
    connector = connector_for(key)
    with pytest.raises(DeliveryError) as caught:
        await sandbox_comment(connector, post(key, "orphan", delivery_key="dk_c"), "")
    assert (caught.value.error_class, caught.value.code) == (ErrorClass.PERMANENT, "NO_PARENT")
    main = Delivery("1", "https://example.com/1")
    with pytest.raises(DeliveryError) as caught:
        await sandbox_comment(connector, reply_post(main, main, key, "  ", "dk_c"), "")
    assert caught.value.code == "TEXT_REQUIRED"


def _post_of(n: int, key: str) -> OutgoingPost:
    keys = ["dk_main", "dk_item_1", "dk_item_2", "dk_item_3", "dk_comment"]
    return post(key, delivery_key=keys[n])
