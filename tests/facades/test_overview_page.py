"""The overview over HTTP (docs/dashboard.md, "Overview"), its four sections with seeded data: a post
group scheduled tomorrow (one item, a link per destination) and a post the day after, soonest
first, but neither a post in 8 days nor a draft; a failed and a partly published post with their
reasons, but not a failure of 40 days ago; a needs_reauth profile and a token Herald cannot renew
ending in 3 days, but not a token it renews; the balance; times in the organization's zone; and
an organization without a plan."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import update

from core.db.models import posts
from harness.live import settled
from tests.conftest import Org
from tests.connected_profiles import set_connection
from tests.dashboard_forms import signed_in

ZONE = "Europe/Paris"


def at(days: float) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


async def create(http: httpx.AsyncClient, org: Org, body: dict[str, Any]) -> list[dict[str, Any]]:
    created = await http.post("/v1/posts", json=body, headers=org.auth)
    assert created.status_code == 201, created.text
    return created.json()["posts"]


async def failed_long_ago(engine, post_id: str, status: str, days: int, reason: str = "platform_rejected") -> None:
    """A post that failed `days` ago, as the publisher leaves one (failure reason, last change)."""
    async with engine.begin() as conn:
        await conn.execute(
            update(posts)
            .where(posts.c.id == post_id)
            .values(status=status, failure_reason=reason, updated_at=datetime.now(UTC) - timedelta(days=days))
        )


def local(stamp: str) -> str:
    """An API instant as the dashboard shows it in ZONE."""
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(ZoneInfo(ZONE))
    return f"{moment.strftime('%Y-%m-%d %H:%M')} ({ZONE})"


def section(page: str, list_id: str) -> str:
    found = re.search(rf'<(?:ol|ul) class="parts" id="{list_id}">(.*?)</(?:ol|ul)>\s*(?:<p|{{|</section>)', page, re.S)
    assert found, list_id
    return found.group(1)


@pytest.mark.usefixtures("worker")
async def test_the_overview_shows_what_needs_a_person_and_links_to_where_it_is_fixed(stack, http, orgs, engine) -> None:
    org = await orgs.with_profiles("x", "bluesky", "mastodon", "linkedin", "tiktok", "threads", credits=0)
    assert (await http.patch("/v1/organization", json={"time_zone": ZONE}, headers=org.auth)).status_code == 200
    group = await create(
        http, org, {"content": "Launch tomorrow, everywhere", "profiles": ["acme-x", "acme-bsky"], "schedule_at": at(1)}
    )
    (single,) = await create(
        http, org, {"content": "Mastodon only", "profiles": ["acme-mastodon"], "schedule_at": at(2)}
    )
    (far,) = await create(http, org, {"content": "Next week and a day", "profiles": ["acme-x"], "schedule_at": at(8)})
    (draft,) = await create(
        http, org, {"content": "A draft", "profiles": ["acme-x"], "schedule_at": at(1), "draft": True}
    )
    # Failures: one for real (no credits when it went out), one partly published, one too old.
    (failed,) = await create(http, org, {"content": "Out of credits", "profiles": ["acme-li"]})
    assert (await settled(http, org.auth, failed["id"]))["failure_reason"] == "insufficient_credits"
    (partial,) = await create(http, org, {"content": "Half out", "profiles": ["acme-threads"], "schedule_at": at(30)})
    await failed_long_ago(engine, partial["id"], "partially_published", days=1)
    (old,) = await create(
        http, org, {"content": "Failed long ago", "profiles": ["acme-threads"], "schedule_at": at(30)}
    )
    await failed_long_ago(engine, old["id"], "failed", days=40)
    # Connections: refused; ending in 3 days unrenewable; ending in an hour but renewed; never ending.
    await set_connection(engine, org, "acme-li", status="needs_reauth", error="The platform refused the token.")
    ending = await set_connection(engine, org, "acme-x", expires_in=timedelta(days=3))
    await set_connection(engine, org, "acme-tiktok", expires_in=timedelta(hours=1), renewable=True)
    await set_connection(engine, org, "acme-mastodon", expires_in=None)

    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as browser_like:
        await signed_in(browser_like, org.email)
        answered = await browser_like.get("/dashboard")
    assert answered.status_code == 200
    page = answered.text
    assert 'aria-current="page">Overview</a>' in page

    upcoming = section(page, "upcoming")
    groups = re.findall(r'<li data-group="([^"]+)">', upcoming)
    assert groups == [group[0]["group_id"], single["group_id"]]  # soonest first, the group once
    first = upcoming.split(f'data-group="{single["group_id"]}"')[0]
    assert local(group[0]["schedule_at"]) in first and "to 2 profiles" in first
    for post in group:
        assert f'href="/dashboard/posts/{post["id"]}"' in first
    assert f'href="/dashboard/posts/{single["id"]}"' in upcoming and local(single["schedule_at"]) in upcoming
    assert far["id"] not in page and draft["id"] not in page

    failures = section(page, "failures")
    # Latest first: the failure of just now, then the one of yesterday.
    assert re.findall(r'<li data-post="([^"]+)" data-status="([a-z_]+)">', failures) == [
        (failed["id"], "failed"),
        (partial["id"], "partially_published"),
    ]
    assert "insufficient_credits" in failures and "platform_rejected" in failures
    assert f'href="/dashboard/posts/{failed["id"]}"' in failures
    assert old["id"] not in page

    reconnect = section(page, "to-reconnect")
    assert re.findall(r'<li data-slug="([^"]+)" data-status="([a-z_]+)">', reconnect) == [
        ("acme-li", "needs_reauth"),
        ("acme-x", "connected"),
    ]
    assert 'href="/dashboard/profiles/acme-li"' in reconnect and 'href="/dashboard/profiles/acme-x"' in reconnect
    assert "The platform refused the token." in reconnect
    assert local(ending.isoformat()) in reconnect

    assert 'id="balance">0<' in page and '<span class="badge">low</span>' in page
    assert 'href="/dashboard/credits"' in page


async def test_an_empty_organization_and_one_without_a_plan(stack, orgs) -> None:
    empty = await orgs.with_profiles("x")
    without = await orgs(plan="none")
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as browser_like:
        await signed_in(browser_like, empty.email)
        page = (await browser_like.get("/dashboard")).text
        for quiet in ("upcoming-none", "failures-none", "reconnect-none"):
            assert f'id="{quiet}"' in page, quiet
        assert "Nothing is scheduled in the next 7 days" in page and 'href="/dashboard/compose"' in page

    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as browser_like:
        await signed_in(browser_like, without.email)
        answered = await browser_like.get("/dashboard")
    assert answered.status_code == 200
    assert answered.text.count("Posts are shown once the organization has a plan.") == 2
    assert 'id="plan-note"' in answered.text and 'id="plan">none<' in answered.text
