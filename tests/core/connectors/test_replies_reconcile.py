"""A thread item or a first comment whose answer was lost: what each platform lets `reconcile`
tell (docs/posts.md, "Threads, first comments and versions"; docs/platforms.md), with scripted answers."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.connectors.base import Delivery, DeliveryError, ErrorClass
from core.db.types import utcnow
from tests.core.connectors.factories import connector_for, reply_post, scripted
from tests.core.connectors.scripted import reply

SENT = {"create_sent_at": "2026-11-24T12:00:00+00:00"}
MAIN = Delivery("1859", "https://x.com/acme/status/1859")
ITEM = Delivery("1860", "https://x.com/acme/status/1860")


async def test_x_finds_a_reply_by_its_text_and_the_post_it_answers() -> None:
    item = reply_post(ITEM, MAIN, "x", "part 3", "dk_item_2")
    elsewhere = {"type": "replied_to", "id": "42"}
    tweets = {
        "data": [
            {"id": "1870", "text": "part 3", "referenced_tweets": [elsewhere]},  # same text, another thread
            {"id": "1871", "text": "part 3"},  # same text, no reply
            {"id": "1872", "text": "part 3", "referenced_tweets": [{"type": "replied_to", "id": "1860"}]},
        ]
    }
    api = scripted(item, [("GET", r"/users/2244994945/tweets\?", reply(200, tweets))], state=dict(SENT))
    found = await connector_for("x").reconcile(item, api)
    assert found is not None and found.platform_post_id == "1872"
    assert "tweet.fields=created_at,entities,referenced_tweets" in api.requests[0].url
    # A post that is no reply is not taken for one that is.
    main = scripted(item, [("GET", r"/tweets\?", reply(200, {"data": tweets["data"][:1]}))], state=dict(SENT))
    assert await connector_for("x").reconcile(item, main) is None


async def test_bluesky_finds_a_reply_by_its_record_key_with_its_cid() -> None:
    root = Delivery("at://did:plc:abc123/app.bsky.feed.post/3lroot", "https://bsky.app/x", "bafyroot")
    item = reply_post(root, root, "bluesky", "part 2", "dk_item_1")
    record = {"uri": "at://did:plc:abc123/app.bsky.feed.post/3lnew", "cid": "bafyreal", "value": {}}
    state = {**SENT, "record_time": "2026-11-24T12:00:00+00:00"}
    api = scripted(item, [("GET", r"getRecord\?", reply(200, record))], state=state)
    found = await connector_for("bluesky").reconcile(item, api)
    assert found == Delivery(record["uri"], "https://bsky.app/profile/acme.bsky.social/post/3lnew", "bafyreal")


async def test_bluesky_reads_the_cid_of_a_post_recorded_without_one() -> None:
    root = Delivery("at://did:plc:abc123/app.bsky.feed.post/3lroot", "https://bsky.app/x")  # no cid
    item = reply_post(root, root, "bluesky", "part 2", "dk_item_1")
    answered = {"uri": root.platform_post_id, "cid": "bafyfound", "value": {}}
    api = scripted(
        item,
        [("GET", r"getRecord\?repo=did:plc:abc123&collection=app.bsky.feed.post&rkey=3lroot$", reply(200, answered))],
    )
    await connector_for("bluesky").deliver(item, api)
    record = api.only("POST", r"createRecord$").json["record"]
    assert record["reply"]["root"] == record["reply"]["parent"] == {"uri": root.platform_post_id, "cid": "bafyfound"}
    with pytest.raises(DeliveryError) as caught:  # not an at:// uri: nothing to reply to
        await connector_for("bluesky").deliver(reply_post(MAIN, MAIN, "bluesky", "x", "dk_x"), scripted(item))
    assert caught.value.code == "NO_PARENT"


async def test_mastodon_resends_a_reply_under_its_idempotency_key() -> None:
    item = reply_post(ITEM, MAIN, "mastodon", "part 3", "dk_item_2")
    recent = {"create_sent_at": (utcnow() - timedelta(minutes=5)).isoformat()}
    assert await connector_for("mastodon").reconcile(item, scripted(item, state=recent)) is None


async def test_a_published_threads_reply_cannot_be_looked_up_an_unpublished_one_is_sent_again() -> None:
    item = reply_post(ITEM, MAIN, "threads", "part 3", "dk_item_2")
    published = [("GET", r"fields=status,error_message", reply(200, {"status": "PUBLISHED", "id": "77"}))]
    with pytest.raises(DeliveryError) as caught:
        await connector_for("threads").reconcile(item, scripted(item, published, state={**SENT, "container": "77"}))
    assert caught.value.error_class is ErrorClass.UNCERTAIN and "threads_read_replies" in str(caught.value)
    finished = [("GET", r"fields=status,error_message", reply(200, {"status": "FINISHED", "id": "77"}))]
    api = scripted(item, finished, state={**SENT, "container": "77"})
    assert await connector_for("threads").reconcile(item, api) is None


MEDIA = Delivery("17900", "https://www.instagram.com/p/abc/")


async def test_instagram_finds_a_lost_comment_among_the_medias_comments() -> None:
    comment = reply_post(MEDIA, MEDIA, "instagram", "link in bio", "dk_c")
    comments = {
        "data": [
            {"id": "1", "text": "link in bio", "username": "someone_else"},
            {"id": "2", "text": "link in bio", "username": "acme"},
        ],
        "paging": {},
    }
    api = scripted(comment, [("GET", r"/17900/comments\?", reply(200, comments))], state=dict(SENT))
    found = await connector_for("instagram").reconcile(comment, api)
    assert found == Delivery("2", MEDIA.url)
    assert api.requests[0].url == (
        "https://graph.instagram.com/v25.0/17900/comments?fields=id,text,username,timestamp&limit=50"
    )


async def test_instagram_comments_again_only_when_it_saw_every_comment() -> None:
    comment = reply_post(MEDIA, MEDIA, "instagram", "link in bio", "dk_c")
    ig = connector_for("instagram")
    none = scripted(comment, [("GET", r"/comments\?", reply(200, {"data": [], "paging": {}}))], state=dict(SENT))
    assert await ig.reconcile(comment, none) is None
    more = {"data": [{"id": "1", "text": "other", "username": "acme"}], "paging": {"next": "https://…&after=x"}}
    with pytest.raises(DeliveryError) as caught:
        await ig.reconcile(comment, scripted(comment, [("GET", r"/comments\?", reply(200, more))], state=dict(SENT)))
    assert caught.value.error_class is ErrorClass.UNCERTAIN
    gone = {"error": {"message": "Unsupported get request", "type": "OAuthException", "code": 100}}
    with pytest.raises(DeliveryError) as caught:
        await ig.reconcile(comment, scripted(comment, [("GET", r"/comments\?", reply(400, gone))], state=dict(SENT)))
    assert caught.value.error_class is ErrorClass.UNCERTAIN


VIDEO = Delivery("dQw4w9WgXcQ", "https://www.youtube.com/watch?v=dQw4w9WgXcQ")


def _thread(thread_id: str, text: str, author: str) -> dict:
    top = {"textOriginal": text, "textDisplay": text, "authorChannelId": {"value": author}}
    return {"id": thread_id, "snippet": {"topLevelComment": {"id": thread_id, "snippet": top}}}


async def test_youtube_finds_a_lost_comment_among_the_videos_newest_threads() -> None:
    comment = reply_post(VIDEO, VIDEO, "youtube", "Chapters", "dk_c")
    threads = {"items": [_thread("Ugz1", "Chapters", "UCother"), _thread("Ugz2", "Chapters", "UC123")]}
    api = scripted(comment, [("GET", r"/commentThreads\?", reply(200, threads))], state=dict(SENT))
    found = await connector_for("youtube").reconcile(comment, api)
    assert found == Delivery("Ugz2", "https://www.youtube.com/watch?v=dQw4w9WgXcQ&lc=Ugz2")
    assert api.requests[0].url == (
        "https://www.googleapis.com/youtube/v3/commentThreads?part=snippet&videoId=dQw4w9WgXcQ"
        "&order=time&maxResults=100&textFormat=plainText"
    )
    none = scripted(comment, [("GET", r"/commentThreads\?", reply(200, {"items": []}))], state=dict(SENT))
    assert await connector_for("youtube").reconcile(comment, none) is None
    more = {"items": [_thread("Ugz1", "other", "UC123")], "nextPageToken": "t2"}
    with pytest.raises(DeliveryError) as caught:
        await connector_for("youtube").reconcile(
            comment, scripted(comment, [("GET", r"/commentThreads\?", reply(200, more))], state=dict(SENT))
        )
    assert caught.value.error_class is ErrorClass.UNCERTAIN


async def test_a_lost_linkedin_comment_cannot_be_looked_up() -> None:
    post_urn = Delivery("urn:li:share:7300", "https://www.linkedin.com/feed/update/urn:li:share:7300/")
    comment = reply_post(post_urn, post_urn, "linkedin", "more", "dk_c")
    api = scripted(comment, state=dict(SENT))
    with pytest.raises(DeliveryError) as caught:
        await connector_for("linkedin").reconcile(comment, api)
    assert caught.value.error_class is ErrorClass.UNCERTAIN and not api.requests
    assert "resending" not in api.state  # a post's DUPLICATE_POST mark is no comment's


async def test_a_linkedin_comment_answered_without_its_urn_is_named_by_its_id() -> None:
    post_urn = Delivery("urn:li:share:7300", "https://www.linkedin.com/feed/update/urn:li:share:7300/")
    comment = reply_post(post_urn, post_urn, "linkedin", "more", "dk_c")
    api = scripted(comment, [("POST", r"/socialActions/", reply(201, None, **{"x-restli-id": "99"}))])
    delivery = await connector_for("linkedin").deliver_comment(comment, api)
    assert delivery.platform_post_id == "urn:li:comment:(urn:li:share:7300,99)"
    assert delivery.url.endswith("?commentUrn=urn%3Ali%3Acomment%3A%28urn%3Ali%3Ashare%3A7300%2C99%29")
    assert api.requests[0].creates_post and "create_sent_at" in api.state
