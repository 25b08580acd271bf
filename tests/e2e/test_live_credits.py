"""Credits follow what is published (docs/posts.md "Credits"), end to end in live mode: posts
created at /v1/posts, delivered by real `herald worker` processes to a fake Mastodon instance
(harness/fakes/platforms/mastodon.py) that fails chosen requests, balances and ledgers read back
over /v1 (and SQL where a count needs it).

- A claim holds the price of what its attempt may deliver; a transient failure of a post nothing
  of which is out gives the hold back (the post waits holding nothing), so it can be canceled for
  nothing and an edit is priced at the next claim; a post part of which is out keeps its hold
  and can no longer be edited or canceled.
- Final failures refund what never went out; a thread whose item k fails for good pays for the
  post and the k-1 items before it.
- 200 posts published at once against 50 credits, with transient failures: the ledger ends equal
  to what the platform received, the balance never below 0, no post out unpaid.
- Each retry and final failure is logged at WARNING with the post, the attempt and the request
  id, and no token.

The stack is this module's own (live mode, fast backoff), two workers; every test has an
organization and a Mastodon account of its own. It runs on every backend: what it checks is
written by the claim's and the outcomes' transactions."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
import pytest
from sqlalchemy import func, select

from core.db.models import credit_ledger, outbox, posts
from harness.fakes.platforms import FakeMastodon
from harness.live import Live, connect, live_org, marker, outcome, settled
from harness.live import live_stack as live_stack_of
from harness.stack import Stack

STATUSES = "/api/v1/statuses"
LIVE_WORKERS = 2  # tests/e2e/conftest.py starts them
TOO_MANY = {"error": "Too many requests"}


@pytest.fixture(scope="module")
def fake_mastodon(backend: str) -> Iterator[FakeMastodon]:
    with FakeMastodon() as server:
        yield server


@pytest.fixture(scope="module")
def live_stack(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with live_stack_of(
        backend,
        tmp_path_factory.mktemp(f"live-credits-{backend}"),
        HERALD_PUBLISH_BACKOFF_SECONDS="0.05",
        HERALD_PUBLISH_MAX_ATTEMPTS="5",
    ) as stack:
        yield stack


@dataclass(frozen=True)
class Account:
    """A test's organization and its Mastodon profile, connected to an account of its own."""

    org: Live
    slug: str
    account_id: str
    credits: int


@asynccontextmanager
async def new_account(api: httpx.AsyncClient, stack: Stack, fake: FakeMastodon, credits: int) -> AsyncIterator[Account]:
    name = f"credits-{marker()}"
    user = fake.add_account(name.replace("-", "_"))
    async with live_org(stack, name, credits=credits) as org:
        with fake.signed_in_as(user.id):
            connected = await connect(api, org.auth, platform="mastodon", instance_url=fake.base_url)
        yield Account(org, connected.slug, user.id, credits)


@pytest.fixture
async def account(api, live_stack, fake_mastodon, live_workers) -> AsyncIterator[Account]:
    async with new_account(api, live_stack, fake_mastodon, 40) as made:
        yield made


@pytest.fixture
async def account_of_50(api, live_stack, fake_mastodon, live_workers) -> AsyncIterator[Account]:
    async with new_account(api, live_stack, fake_mastodon, 50) as made:
        yield made


async def publish(api: httpx.AsyncClient, account: Account, content: str, **body: object) -> httpx.Response:
    response = await api.post(
        "/v1/posts", json={"content": content, "profiles": [account.slug], **body}, headers=account.org.auth
    )
    assert response.status_code == 201, response.text
    return response


async def waiting_after_a_failure(api: httpx.AsyncClient, account: Account, post_id: str) -> httpx.Response:
    """GET /v1/posts/{id} once its first attempt failed and it waits in the queue for the next."""
    deadline = time.monotonic() + 30
    while True:
        response = await api.get(f"/v1/posts/{post_id}", headers=account.org.auth)
        post = response.json()
        if post["status"] == "queued" and post["attempts"] == 1:  # (a new post is `queued` too)
            return response
        assert post["status"] in ("queued", "publishing"), outcome(post)
        assert time.monotonic() < deadline, outcome(post)
        await asyncio.sleep(0.05)


async def credits_of(api: httpx.AsyncClient, account: Account, post_id: str) -> tuple[int, list[tuple[int, str]]]:
    """The balance, and the post's ledger entries oldest first: (delta, reason)."""
    body = (await api.get("/v1/credits", params={"ledger_limit": "100"}, headers=account.org.auth)).json()
    return body["balance"], [(e["delta"], e["reason"]) for e in reversed(body["ledger"]) if e["reference"] == post_id]


HOLD, RELEASE = (-1, "post_delivery"), (1, "refund")


# --- one post's paths -------------------------------------------------------------------------


async def test_a_transient_failure_gives_the_hold_back_and_the_post_is_charged_once(
    api, account, fake_mastodon, live_stack
) -> None:
    mark = marker()
    fake_mastodon.fail("POST", STATUSES, 429, TOO_MANY, {"Retry-After": "2"}, body_contains=mark)

    created = await publish(api, account, f"Busy instance {mark}")
    (post,) = created.json()["posts"]
    assert created.headers["x-credits-remaining"] == str(account.credits)

    # Waiting for its next attempt, the post holds nothing: the balance is whole again.
    waiting = await waiting_after_a_failure(api, account, post["id"])
    assert waiting.headers["x-credits-remaining"] == str(account.credits)
    assert await credits_of(api, account, post["id"]) == (account.credits, [HOLD, RELEASE])

    done = await settled(api, account.org.auth, post["id"])
    assert (done["status"], done["attempts"]) == ("published", 2), outcome(done)
    assert len(fake_mastodon.statuses_by(account.account_id, containing=mark)) == 1
    assert await credits_of(api, account, post["id"]) == (account.credits - 1, [HOLD, RELEASE, HOLD])

    # The retry is in a worker's log at WARNING: the post, the attempt, the request that made it.
    lines = [
        json.loads(line)
        for log in live_stack.workdir.glob("worker-credits-*.log")
        for line in log.read_text().splitlines()
        if line.startswith("{")
    ]
    (retry,) = [line for line in lines if line.get("post_id") == post["id"] and line["level"] == "WARNING"]
    assert retry["attempt"] == 1 and "retryable" in retry["message"] and post["id"] in retry["message"]
    assert retry["request_id"] == created.headers["x-request-id"]
    text = "\n".join(log.read_text() for log in live_stack.workdir.glob("*.log"))
    secrets = fake_mastodon.issued_tokens() + [app.client_secret for app in fake_mastodon.apps.values()]
    assert secrets and not [s for s in secrets if s in text]


async def test_a_transient_failure_then_a_final_one_costs_nothing(api, account, fake_mastodon) -> None:
    mark = marker()
    fake_mastodon.fail("POST", STATUSES, 429, TOO_MANY, {"Retry-After": "1"}, body_contains=mark)
    refused = {"error": "Validation failed: Text contains a forbidden word"}
    fake_mastodon.fail("POST", STATUSES, 422, refused, body_contains=mark)

    (post,) = (await publish(api, account, f"Refused in the end {mark}")).json()["posts"]

    done = await settled(api, account.org.auth, post["id"])
    assert (done["status"], done["failure_reason"], done["attempts"]) == ("failed", "platform_rejected", 2)
    assert fake_mastodon.statuses_by(account.account_id, containing=mark) == []
    assert await credits_of(api, account, post["id"]) == (account.credits, [HOLD, RELEASE, HOLD, RELEASE])


async def test_a_post_waiting_after_a_transient_failure_is_canceled_for_nothing(api, account, fake_mastodon) -> None:
    mark = marker()
    fake_mastodon.fail("POST", STATUSES, 429, TOO_MANY, {"Retry-After": "60"}, body_contains=mark)
    (post,) = (await publish(api, account, f"Never mind {mark}")).json()["posts"]
    await waiting_after_a_failure(api, account, post["id"])

    canceled = await api.delete(f"/v1/posts/{post['id']}", headers=account.org.auth)

    assert canceled.status_code == 200 and canceled.json()["status"] == "canceled", canceled.text
    assert canceled.headers["x-credits-remaining"] == str(account.credits)
    balance, ledger = await credits_of(api, account, post["id"])
    assert balance == account.credits and sum(delta for delta, _ in ledger) == 0, ledger
    assert fake_mastodon.statuses_by(account.account_id, containing=mark) == []


def thread_of(count: int, mark: str) -> list[dict[str, str]]:
    return [{"content": f"{n + 1}/ more on it {mark}"} for n in range(count)]


async def test_an_edit_into_a_25_item_thread_is_priced_at_the_next_claim(api, account, fake_mastodon) -> None:
    mark, items = marker(), marker()
    fake_mastodon.fail("POST", STATUSES, 429, TOO_MANY, {"Retry-After": "4"}, body_contains=mark)
    (post,) = (await publish(api, account, f"Short at first {mark}")).json()["posts"]
    await waiting_after_a_failure(api, account, post["id"])

    edited = await api.patch(f"/v1/posts/{post['id']}", json={"thread": thread_of(25, items)}, headers=account.org.auth)
    assert edited.status_code == 200, edited.text
    assert edited.headers["x-credits-remaining"] == str(account.credits)  # priced when it goes out

    done = await settled(api, account.org.auth, post["id"], within=60)
    assert done["status"] == "published" and [p["status"] for p in done["thread"]] == ["published"] * 25
    assert len(fake_mastodon.statuses_by(account.account_id, containing=items)) == 25
    balance, ledger = await credits_of(api, account, post["id"])
    assert balance == account.credits - 26 and ledger == [HOLD, RELEASE, (-26, "post_delivery")]


async def test_an_edit_of_a_25_item_thread_back_to_one_post_is_priced_at_the_next_claim(
    api, account, fake_mastodon
) -> None:
    mark, items = marker(), marker()
    fake_mastodon.fail("POST", STATUSES, 429, TOO_MANY, {"Retry-After": "4"}, body_contains=mark)
    (post,) = (await publish(api, account, f"Long at first {mark}", thread=thread_of(25, items))).json()["posts"]
    await waiting_after_a_failure(api, account, post["id"])
    assert (await credits_of(api, account, post["id"]))[1] == [(-26, "post_delivery"), (26, "refund")]

    edited = await api.patch(f"/v1/posts/{post['id']}", json={"thread": []}, headers=account.org.auth)
    assert edited.status_code == 200 and edited.json()["thread"] == [], edited.text

    done = await settled(api, account.org.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    assert len(fake_mastodon.statuses_by(account.account_id, containing=mark)) == 1
    assert fake_mastodon.statuses_by(account.account_id, containing=items) == []
    balance, ledger = await credits_of(api, account, post["id"])
    assert balance == account.credits - 1 and ledger == [(-26, "post_delivery"), (26, "refund"), HOLD]


async def test_a_post_part_of_which_is_out_can_no_longer_be_edited_or_canceled(api, account, fake_mastodon) -> None:
    """Its thread finishes on the hold its claim took (never half a thread for want of credits)."""
    mark = marker()
    items = thread_of(3, mark)
    fake_mastodon.fail("POST", STATUSES, 429, TOO_MANY, {"Retry-After": "4"}, body_contains=items[1]["content"])
    (post,) = (await publish(api, account, f"Half out {mark}", thread=items)).json()["posts"]
    waiting = (await waiting_after_a_failure(api, account, post["id"])).json()
    assert [p["status"] for p in waiting["thread"]] == ["published", "pending", "pending"], waiting

    for change in (
        api.patch(f"/v1/posts/{post['id']}", json={"content": f"Rewritten {mark}"}, headers=account.org.auth),
        api.patch(f"/v1/posts/{post['id']}", json={"thread": []}, headers=account.org.auth),
        api.delete(f"/v1/posts/{post['id']}", headers=account.org.auth),
    ):
        refused = await change
        assert refused.status_code == 409 and refused.json()["code"] == "INVALID_POST_STATE", refused.text
    assert await credits_of(api, account, post["id"]) == (account.credits - 4, [(-4, "post_delivery")])

    done = await settled(api, account.org.auth, post["id"])
    assert done["status"] == "published" and done["content"] == f"Half out {mark}", outcome(done)
    assert len(fake_mastodon.statuses_by(account.account_id, containing=mark)) == 4
    assert await credits_of(api, account, post["id"]) == (account.credits - 4, [(-4, "post_delivery")])


async def test_a_thread_whose_item_k_fails_for_good_pays_for_the_post_and_the_items_before_it(
    api, account, fake_mastodon
) -> None:
    mark, k = marker(), 3
    items = thread_of(5, mark)
    failing = items[k - 1]["content"]
    fake_mastodon.fail("POST", STATUSES, 429, TOO_MANY, {"Retry-After": "1"}, body_contains=failing)
    fake_mastodon.fail("POST", STATUSES, 422, {"error": "Validation failed"}, body_contains=failing)

    (post,) = (await publish(api, account, f"Item {k} fails {mark}", thread=items)).json()["posts"]

    done = await settled(api, account.org.auth, post["id"])
    assert (done["status"], done["failure_reason"]) == ("partially_published", "platform_rejected"), outcome(done)
    assert [p["status"] for p in done["thread"]] == ["published"] * (k - 1) + ["failed"] + ["skipped"] * (5 - k)
    assert len(fake_mastodon.statuses_by(account.account_id, containing=mark)) == k  # the post and k-1 items
    balance, ledger = await credits_of(api, account, post["id"])
    assert balance == account.credits - k and sum(delta for delta, _ in ledger) == -k, ledger


# --- many at once -----------------------------------------------------------------------------


async def test_200_publishes_at_once_against_50_credits_with_transient_failures(
    api, account_of_50, fake_mastodon
) -> None:
    """Every post ends published or failed; exactly what the instance received is charged; the
    balance never goes below 0; no post went out unpaid, none paid without going out."""
    account = account_of_50
    run = marker()
    texts = [f"Burst {i} {run}" for i in range(200)]
    for i, text in enumerate(texts):
        if i % 5 == 0:  # refused at once, nothing made: the hold is given back
            fake_mastodon.fail("POST", STATUSES, 429, TOO_MANY, body_contains=text)
        elif i % 5 == 1:
            fake_mastodon.fail("POST", STATUSES, 429, TOO_MANY, body_contains=text, times=2)
        elif i % 10 == 2:  # a server error after the request was sent: it may be out, and keeps its hold
            fake_mastodon.fail("POST", STATUSES, 503, "<html>Bad gateway</html>", body_contains=text)
    seen: list[int] = []
    done = asyncio.Event()

    async def watch() -> None:
        while not done.is_set():
            seen.append((await api.get("/v1/credits", headers=account.org.auth)).json()["balance"])
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch())
    try:
        created = await asyncio.gather(*(publish(api, account, text) for text in texts))
        seen += [int(r.headers["x-credits-remaining"]) for r in created]
        ids = [r.json()["posts"][0]["id"] for r in created]
        deadline = time.monotonic() + 120
        while True:
            async with account.org.engine.connect() as conn:
                statuses = dict(
                    (
                        await conn.execute(
                            select(posts.c.status, func.count())
                            .where(posts.c.org_id == account.org.org_id)
                            .group_by(posts.c.status)
                        )
                    ).all()
                )
            if set(statuses) <= {"published", "failed"}:
                break
            assert time.monotonic() < deadline, statuses
            await asyncio.sleep(0.2)
    finally:
        done.set()
        await watcher
        fake_mastodon.clear_faults()

    async with account.org.engine.connect() as conn:
        rows = (
            await conn.execute(select(posts.c.id, posts.c.status, posts.c.failure_reason).where(posts.c.id.in_(ids)))
        ).all()
        delivered = dict(
            (
                await conn.execute(
                    select(outbox.c.post_id, func.count()).where(outbox.c.post_id.in_(ids)).group_by(outbox.c.post_id)
                )
            ).all()
        )
        net = dict(
            (
                await conn.execute(
                    select(credit_ledger.c.reference, func.sum(credit_ledger.c.delta))
                    .where(credit_ledger.c.org_id == account.org.org_id, credit_ledger.c.reference.in_(ids))
                    .group_by(credit_ledger.c.reference)
                )
            ).all()
        )
        lowest = await conn.scalar(
            select(func.min(credit_ledger.c.balance_after)).where(credit_ledger.c.org_id == account.org.org_id)
        )
    balance = (await api.get("/v1/credits", headers=account.org.auth)).json()["balance"]

    published = {r.id for r in rows if r.status == "published"}
    assert {r.failure_reason for r in rows if r.status == "failed"} <= {"insufficient_credits"}
    on_instance = fake_mastodon.statuses_by(account.account_id, containing=run)
    assert len(on_instance) == len({s.text for s in on_instance}) == len(published) == 50  # each once
    assert set(delivered) == published and set(delivered.values()) == {1}
    # What each post paid, net of its refunds: one credit if it went out, nothing otherwise.
    assert {post_id: -net.get(post_id, 0) for post_id in ids} == {p: int(p in published) for p in ids}
    assert balance == 50 - len(published) == 0
    assert lowest >= 0 and min(seen) >= 0, (lowest, min(seen))
