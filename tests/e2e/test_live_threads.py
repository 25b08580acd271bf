"""Threads on a live X account end to end (docs/posts.md "Threads, first comments and versions"): a post
with a thread of three items and a first comment, delivered by a real `herald worker` to the fake
X (harness/fakes/platforms/x.py) part by part, each a reply to the one before it.

- An item X refuses for good (a duplicate of a post the account already made: 403 "You are not
  allowed to create a Tweet with duplicate content") ends the post `partially_published`: the
  post and the items before it stay out, the refused one is `failed`, what comes after it
  `skipped` and never sent, and the items that did not go out are refunded.
- An item X answers 503 (the post may or may not have been made) sends the post back to the
  queue with its charge; the next attempt looks the item up, sends it once and goes on: every
  part exactly once on X.

The stack is this module's own (live mode, X's hosts overridden to the fake); every test has an
organization with 10 credits and an X account of its own. It runs on every backend: what it
checks is written to the database (a post's status, its parts, the ledger)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import httpx
import pytest

from harness.fakes.platforms import FakeX
from harness.fakes.platforms.x import Tweet, XUser
from harness.live import Live, connect, live_org, marker, outcome, settled
from harness.live import live_stack as live_stack_of
from harness.stack import Stack

CREDITS = 10
POST_COST = 1  # HERALD_POST_COST's default: the post and each thread item cost one, the comment nothing
DUPLICATE = "You are not allowed to create a Tweet with duplicate content."


@pytest.fixture(scope="module")
def fake_x(backend: str) -> Iterator[FakeX]:
    with FakeX(client_id="herald-test-client", client_secret="herald-test-secret") as server:
        yield server


@pytest.fixture(scope="module")
def live_stack(backend: str, fake_x: FakeX, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with live_stack_of(
        backend,
        tmp_path_factory.mktemp(f"live-threads-{backend}"),
        fakes=(fake_x,),
    ) as stack:
        yield stack


@dataclass(frozen=True)
class Account:
    """A test's organization (10 credits) and its X profile, connected to an X user of its own."""

    org: Live
    slug: str
    user: XUser


@pytest.fixture
async def account(api: httpx.AsyncClient, live_stack: Stack, fake_x: FakeX) -> AsyncIterator[Account]:
    name = f"threads-{marker()}"
    user = fake_x.add_user(name.replace("-", "_"))
    async with live_org(live_stack, name, credits=CREDITS) as org:
        with fake_x.signed_in_as(user.id):
            connected = await connect(api, org.auth, platform="x")
        yield Account(org, connected.slug, user)


@dataclass(frozen=True)
class Texts:
    main: str
    items: tuple[str, str, str]
    comment: str

    @property
    def all(self) -> tuple[str, ...]:
        return (self.main, *self.items, self.comment)


def texts() -> Texts:
    mark = marker()
    return Texts(
        f"Launch notes {mark}",
        (f"1/ What is new {mark}", f"2/ What changed {mark}", f"3/ What is next {mark}"),
        f"Questions welcome {mark}",
    )


async def create_thread(api: httpx.AsyncClient, account: Account, t: Texts) -> dict:
    body = {
        "content": t.main,
        "profiles": [account.slug],
        "thread": [{"content": item} for item in t.items],
        "first_comment": t.comment,
    }
    response = await api.post("/v1/posts", json=body, headers=account.org.auth)
    assert response.status_code == 201, response.text
    (post,) = response.json()["posts"]
    return post


def on_x(fake_x: FakeX, user: XUser, text: str) -> list[Tweet]:
    """The user's posts on X whose text is exactly `text` (as sent)."""
    return [t for t in fake_x.tweets_by(user.id) if t.posted_text == text]


async def credits_of(api: httpx.AsyncClient, org: Live) -> tuple[int, list[tuple[int, int, str, str]]]:
    """The balance, and the ledger oldest first: (delta, balance after, reason, reference)."""
    body = (await api.get("/v1/credits", headers=org.auth)).json()
    ledger = [(e["delta"], e["balance_after"], e["reason"], e["reference"]) for e in reversed(body["ledger"])]
    return body["balance"], ledger


async def outbox_of(api: httpx.AsyncClient, org: Live, post_id: str) -> list[tuple[str, int | None, str]]:
    entries = (await api.get(f"/v1/posts/{post_id}/outbox", headers=org.auth)).json()["entries"]
    return [(e["part"], e["position"], e["platform_post_id"]) for e in entries]


async def test_an_item_x_refuses_for_good_ends_the_post_partially_published_and_refunds_the_rest(
    api, account, fake_x, live_worker
) -> None:
    t = texts()
    refused = t.items[1]
    # The account already posted item 2's text on X (by hand, through another app): X refuses
    # the item as a duplicate, which no retry can change.
    token = next(k for k, g in fake_x.access_tokens.items() if g.subject == account.user.id and not g.revoked)
    async with httpx.AsyncClient(base_url=fake_x.base_url, timeout=10) as by_hand:
        made = await by_hand.post("/2/tweets", json={"text": refused}, headers={"Authorization": f"Bearer {token}"})
    assert made.status_code == 201, made.text
    (earlier,) = on_x(fake_x, account.user, refused)

    post = await create_thread(api, account, t)

    done = await settled(api, account.org.auth, post["id"])

    assert (done["status"], done["failure_reason"]) == ("partially_published", "platform_rejected"), outcome(done)
    assert DUPLICATE in done["platform_error"], outcome(done)  # X's own message, relayed
    # The post is out, with its id and URL; item 1 replies to it.
    (main,) = on_x(fake_x, account.user, t.main)
    assert main.in_reply_to is None
    assert (done["platform_post_id"], done["url"]) == (
        main.id,
        f"https://x.com/{account.user.username}/status/{main.id}",
    )
    assert done["published_at"]
    first, second, third = done["thread"]
    (item,) = on_x(fake_x, account.user, t.items[0])
    assert (first["status"], first["platform_post_id"]) == ("published", item.id)
    assert first["url"] == f"https://x.com/{account.user.username}/status/{item.id}"
    assert item.in_reply_to == main.id
    # Item 2 was refused (the post X holds is the earlier one, no reply); item 3 and the comment
    # were never sent.
    assert (second["status"], second["platform_post_id"], second["url"]) == ("failed", None, None)
    assert (third["status"], third["platform_post_id"], third["url"]) == ("skipped", None, None)
    assert (done["first_comment_status"], done["first_comment_id"]) == ("skipped", None)
    assert on_x(fake_x, account.user, refused) == [earlier] and earlier.in_reply_to is None
    assert [r.status for r in fake_x.seen("POST", "/2/tweets", body_contains=refused)] == [201, 403]
    for never in (t.items[2], t.comment):
        assert fake_x.seen("POST", "/2/tweets", body_contains=never) == []
    # Nothing else on X: the earlier post, the post and item 1.
    assert {tw.id for tw in fake_x.tweets_by(account.user.id)} == {earlier.id, main.id, item.id}
    assert await outbox_of(api, account.org, post["id"]) == [("post", None, main.id), ("thread", 0, item.id)]
    # Charged 4 at the claim (the post and its 3 items), 2 refunded (items 2 and 3 never went out).
    balance, ledger = await credits_of(api, account.org)
    assert balance == CREDITS - 2 * POST_COST
    assert ledger[1:] == [
        (-4 * POST_COST, CREDITS - 4 * POST_COST, "post_delivery", post["id"]),
        (2 * POST_COST, CREDITS - 2 * POST_COST, "refund", post["id"]),
    ]


async def test_an_item_x_fails_once_goes_back_to_the_queue_and_every_part_is_out_once(
    api, account, fake_x, live_worker
) -> None:
    t = texts()
    flaky = t.items[1]
    # X answers 503 to item 2's request without making it: it may have, for all Herald knows.
    fake_x.fail("POST", "/2/tweets", 503, {"title": "Service Unavailable", "status": 503}, body_contains=flaky)

    post = await create_thread(api, account, t)

    # Back in the queue, item 1 out and item 2 not, the charge kept.
    deadline = time.monotonic() + 30
    while True:
        waiting = (await api.get(f"/v1/posts/{post['id']}", headers=account.org.auth)).json()
        if waiting["status"] == "queued" and waiting["attempts"] == 1:  # (a new post is `queued` too)
            break
        assert waiting["status"] in ("scheduled", "queued", "publishing"), outcome(waiting)
        assert time.monotonic() < deadline, outcome(waiting)
        await asyncio.sleep(0.1)
    assert [p["status"] for p in waiting["thread"]] == ["published", "pending", "pending"], waiting
    assert waiting["first_comment_status"] == "pending" and waiting["platform_error"], outcome(waiting)
    assert (await credits_of(api, account.org))[0] == CREDITS - 4 * POST_COST

    done = await settled(api, account.org.auth, post["id"], within=60)

    assert done["status"] == "published" and done["attempts"] == 2, outcome(done)
    assert done["failure_reason"] is None
    # Every part on X exactly once, each replying to the one before it.
    made = []
    for text in t.all:
        (tweet,) = on_x(fake_x, account.user, text)
        made.append(tweet)
    assert len(fake_x.tweets_by(account.user.id)) == 5
    assert [tw.in_reply_to for tw in made] == [None, *(tw.id for tw in made[:-1])]
    assert done["platform_post_id"] == made[0].id
    assert [(p["status"], p["platform_post_id"]) for p in done["thread"]] == [("published", tw.id) for tw in made[1:4]]
    assert (done["first_comment_status"], done["first_comment_id"]) == ("published", made[4].id)
    # What went out before the 503 was not sent again; item 2 was looked up, then sent once more.
    for text in (t.main, t.items[0]):
        assert [r.status for r in fake_x.seen("POST", "/2/tweets", body_contains=text)] == [201]
    sends = fake_x.seen("POST", "/2/tweets", body_contains=flaky)
    assert [r.status for r in sends] == [503, 201]
    lookups = fake_x.seen("GET", f"/2/users/{account.user.id}/tweets")
    assert any(sends[0].at < r.at < sends[1].at for r in lookups), "the item is looked up before it is sent again"
    assert [(part, position) for part, position, _ in await outbox_of(api, account.org, post["id"])] == [
        ("post", None),
        ("thread", 0),
        ("thread", 1),
        ("thread", 2),
        ("first_comment", None),
    ]
    # Charged once, 4 credits, nothing refunded.
    balance, ledger = await credits_of(api, account.org)
    assert balance == CREDITS - 4 * POST_COST
    assert ledger[1:] == [(-4 * POST_COST, CREDITS - 4 * POST_COST, "post_delivery", post["id"])]
