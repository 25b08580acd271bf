"""Threads and first comments live, over HTTP, against the fake X, Mastodon, Threads and
Instagram (harness/fakes/platforms): what each fake received and made, the refusals it answers
like the platform would, and an answer lost in flight, told by `reconcile` before anything is
sent again."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from core.connectors.base import Account, Delivery, DeliveryError, ErrorClass
from core.connectors.instagram import InstagramConnector
from core.connectors.mastodon import MastodonConnector
from core.connectors.threads import ThreadsConnector
from core.connectors.x import XConnector
from harness.fakes.platforms.graph import LONG_LIVED, FakeInstagram, FakeThreads
from harness.fakes.platforms.mastodon import FakeMastodon
from harness.fakes.platforms.x import SCOPES as X_SCOPES
from harness.fakes.platforms.x import FakeX
from tests.core.connectors.factories import image, post, reply_post
from tests.core.connectors.live_fakes import Runner, web_page

ITEMS = ("part 1 of 3", "part 2 of 3", "part 3 of 3")


async def publish(run: Runner, key: str, account: Account, **main: Any) -> list[Delivery]:
    """A main post, its three thread items (if the platform threads) and its first comment."""
    first = await run.deliver(post(key, "the main post", delivery_key="dk_main", account=account, **main))
    out = [first]
    for n, text in enumerate(ITEMS if run.connector.threads else ()):
        out.append(await run.deliver(reply_post(out[-1], first, key, text, f"dk_item_{n}", account=account)))
    comment = reply_post(out[-1], first, key, "the first comment", "dk_comment", account=account)
    out.append(await run.deliver(comment, comment=True))
    return out


# --- X ---------------------------------------------------------------------------------------


async def test_x_publishes_a_reply_chain_then_the_first_comment() -> None:
    with FakeX() as fake:
        user = fake.user("herald_fake")
        account = Account("acme-x", handle=user.username, platform_user_id=user.id)
        token = fake.grant_access(user.id, X_SCOPES, lifetime=fake.access_token_lifetime)
        async with Runner(XConnector(), token, {"api.x.com": fake.base_url}) as run:
            deliveries = await publish(run, "x", account)
            tweets = [next(t for t in fake.tweets if t.id == d.platform_post_id) for d in deliveries]
            assert [t.posted_text for t in tweets] == ["the main post", *ITEMS, "the first comment"]
            assert [t.in_reply_to for t in tweets] == [None, *[d.platform_post_id for d in deliveries[:-1]]]
            gone = Delivery("1", "https://x.com/i/status/1")
            with pytest.raises(DeliveryError) as caught:
                await run.deliver(reply_post(gone, deliveries[0], "x", "to nothing", "dk_gone", account=account))
    assert (caught.value.error_class, caught.value.status) == (ErrorClass.PERMANENT, 403)
    assert "deleted or not visible" in str(caught.value)


async def test_an_x_reply_whose_answer_was_lost_is_found_not_sent_again() -> None:
    with FakeX() as fake:
        user = fake.user("herald_fake")
        account = Account("acme-x", handle=user.username, platform_user_id=user.id)
        token = fake.grant_access(user.id, X_SCOPES, lifetime=fake.access_token_lifetime)
        async with Runner(XConnector(), token, {"api.x.com": fake.base_url}, timeout=0.5) as run:
            main = await run.deliver(post("x", "the main post", delivery_key="dk_main", account=account))
            fake.hang_after_receive("POST", r"/2/tweets", seconds=3, body_contains="in_reply_to_tweet_id")
            item = reply_post(main, main, "x", "part 1", "dk_item_0", account=account)
            with pytest.raises(DeliveryError) as caught:
                await run.deliver(item)
            assert caught.value.error_class is ErrorClass.UNCERTAIN
            found = await run.deliver(item)
        (made,) = fake.replies_to(main.platform_post_id)
        assert found.platform_post_id == made.id
        assert [r["method"] for r in run.requests["dk_item_0"]] == ["GET"]  # the lookup, nothing sent again


# --- Mastodon --------------------------------------------------------------------------------


def mastodon(fake: FakeMastodon) -> tuple[Account, str]:
    account = fake.account("herald")
    token = fake.grant_access(account.id, ["read:accounts", "write:statuses", "write:media"])
    return Account("acme-masto", handle="herald", platform_user_id=account.id, instance_url=fake.base_url), token


async def test_mastodon_replies_in_reply_to_the_post_before_keeping_its_visibility() -> None:
    with FakeMastodon() as fake:
        account, token = mastodon(fake)
        async with Runner(MastodonConnector(), token) as run:
            deliveries = await publish(run, "mastodon", account)
            statuses = [next(s for s in fake.statuses if s.id == d.platform_post_id) for d in deliveries]
            assert [s.in_reply_to_id for s in statuses] == [None, *[d.platform_post_id for d in deliveries[:-1]]]
            assert {s.visibility for s in statuses} == {"public"}
            assert deliveries[1].url == fake.status_url(statuses[1])
            gone = Delivery("1", "")
            with pytest.raises(DeliveryError) as caught:
                await run.deliver(reply_post(gone, deliveries[0], "mastodon", "to nothing", "dk_gone", account=account))
    assert (caught.value.error_class, caught.value.status) == (ErrorClass.PERMANENT, 404)


async def test_a_mastodon_reply_resent_after_a_lost_answer_is_the_same_status() -> None:
    with FakeMastodon() as fake:
        account, token = mastodon(fake)
        async with Runner(MastodonConnector(), token, timeout=0.5) as run:
            main = await run.deliver(post("mastodon", "the main post", delivery_key="dk_main", account=account))
            fake.hang_after_receive("POST", r"/api/v1/statuses", seconds=3, body_contains="in_reply_to_id")
            item = reply_post(main, main, "mastodon", "part 1", "dk_item_0", account=account)
            with pytest.raises(DeliveryError) as caught:
                await run.deliver(item)
            assert caught.value.error_class is ErrorClass.UNCERTAIN
            again = await run.deliver(item)  # the same Idempotency-Key answers the first status
        (made,) = fake.replies_to(main.platform_post_id)
        assert again.platform_post_id == made.id


# --- Threads ---------------------------------------------------------------------------------


def graph_account(fake: FakeThreads | FakeInstagram, key: str, scopes: tuple[str, ...]) -> tuple[Account, str]:
    user = fake.user("herald_fake")
    access = fake.grant_access(user.id, scopes, lifetime=LONG_LIVED, long_lived=True)
    return Account(f"acme-{key}", handle=user.username, platform_user_id=user.id), access


async def test_threads_publishes_reply_containers_in_a_chain() -> None:
    with FakeThreads() as fake:
        account, token = graph_account(fake, "threads", fake.scopes)
        async with Runner(ThreadsConnector(), token, {"graph.threads.net": fake.base_url}) as run:
            deliveries = await publish(run, "threads", account)
        posts = [fake.posts[d.platform_post_id] for d in deliveries]
        assert [p.text for p in posts] == ["the main post", *ITEMS, "the first comment"]
        assert [p.reply_to for p in posts] == ["", *[d.platform_post_id for d in deliveries[:-1]]]
        assert {fake.root_of(p).id for p in posts} == {deliveries[0].platform_post_id}
        assert [p.id for p in fake.replies_to(deliveries[0].platform_post_id)] == [deliveries[1].platform_post_id]
        assert all(d.url.startswith("https://www.threads.net/@herald_fake/post/") for d in deliveries)


async def test_threads_refuses_a_reply_without_threads_manage_replies() -> None:
    with FakeThreads() as fake:
        account, token = graph_account(fake, "threads", fake.scopes[:2])
        async with Runner(ThreadsConnector(), token, {"graph.threads.net": fake.base_url}) as run:
            main = await run.deliver(post("threads", "the main post", delivery_key="dk_main", account=account))
            with pytest.raises(DeliveryError) as caught:
                await run.deliver(reply_post(main, main, "threads", "part 1", "dk_item_0", account=account))
    assert (caught.value.error_class, caught.value.status) == (ErrorClass.PERMANENT, 403)
    assert len(fake.posts) == 1


# --- Instagram -------------------------------------------------------------------------------


def jpeg() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (32, 32), (200, 40, 40)).save(buf, "JPEG")
    return buf.getvalue()


async def test_instagram_comments_on_the_published_media() -> None:
    with FakeInstagram() as fake, web_page(jpeg(), "image/jpeg") as url:
        account, token = graph_account(fake, "instagram", fake.scopes)
        async with Runner(InstagramConnector(), token, {"graph.instagram.com": fake.base_url}) as run:
            main, comment = await publish(run, "instagram", account, media=(image(url=url),))
        (made,) = fake.comments_on(main.platform_post_id)
        assert (made.id, made.text, made.username) == (comment.platform_post_id, "the first comment", "herald_fake")
        assert comment.url == main.url == fake.posts[main.platform_post_id].permalink


async def test_an_instagram_comment_whose_answer_was_lost_is_found_not_sent_again() -> None:
    with FakeInstagram() as fake, web_page(jpeg(), "image/jpeg") as url:
        account, token = graph_account(fake, "instagram", fake.scopes)
        overrides = {"graph.instagram.com": fake.base_url}
        async with Runner(InstagramConnector(), token, overrides, timeout=0.5) as run:
            main = await run.deliver(post("instagram", "c", media=(image(url=url),), account=account))
            fake.hang_after_receive("POST", r"/v[\d.]+/\d+/comments", seconds=3)
            comment = reply_post(main, main, "instagram", "link in bio", "dk_comment", account=account)
            with pytest.raises(DeliveryError) as caught:
                await run.deliver(comment, comment=True)
            assert caught.value.error_class is ErrorClass.UNCERTAIN
            found = await run.deliver(comment, comment=True)
            (made,) = fake.comments_on(main.platform_post_id)
            assert found.platform_post_id == made.id
            assert [r["method"] for r in run.requests["dk_comment"]] == ["GET"]  # looked up, not sent again
            # Without the permission, Instagram refuses the comment (and so its lookup) for good.
            account, limited = graph_account(fake, "instagram", fake.scopes[:2])
            run.token.value = limited
            other = reply_post(main, main, "instagram", "second", "dk_other", account=account)
            with pytest.raises(DeliveryError) as refused:
                await run.deliver(other, comment=True)
    assert (refused.value.error_class, refused.value.status) == (ErrorClass.PERMANENT, 403)
