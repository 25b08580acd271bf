"""The posts page over plain HTTP with a session (docs/dashboard.md, "Posts"): one row per post
group with its destinations, upcoming soonest first then history; the filters (status, profile
and tag chosen from lists, a date range in the organization's zone); Next and Previous pages
without a duplicate or a gap; "Reschedule" and "Cancel post" for a whole group (the CSRF check,
a refusal shown on the page with its code, another organization's and malformed group ids 404)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape
from zoneinfo import ZoneInfo

import httpx
import pytest

from core.db.models import posts
from tests.conftest import Org
from tests.dashboard_forms import form_token, signed_in

ROW = re.compile(r'<li class="group" data-group="(grp_[0-9a-z]+)" data-section="(upcoming|history)">')
DESTINATION = re.compile(r'<li data-post="(pst_[0-9a-z]+)" data-status="([a-z_]+)"( data-matching="true")?>')
ALERT_CODE = re.compile(r'role="alert" id="posts-error" data-code="([A-Z_]+)"')
NEXT = re.compile(r'<a href="([^"]+)" rel="next">Next page</a>')
PREVIOUS = re.compile(r'<a href="([^"]+)" rel="prev">Previous page</a>')


def ahead(hours: float) -> datetime:
    return (datetime.now(UTC) + timedelta(hours=hours)).replace(second=0, microsecond=0)


def listed(page: str) -> list[tuple[str, str]]:
    """(group id, section) of each row, in page order."""
    return ROW.findall(page)


def destinations(page: str, group_id: str) -> list[tuple[str, str, bool]]:
    """(post id, status, matching) of each destination of one row."""
    start = page.index(f'data-group="{group_id}"')
    end = page.find('<li class="group"', start + 1)
    return [(p, s, bool(m)) for p, s, m in DESTINATION.findall(page[start : end if end > 0 else len(page)])]


def disabled_with_reason(page: str, group_id: str, name: str) -> bool:
    """Whether the row's button `name` is there, disabled, described by a reason on the page."""
    start = page.index(f'data-group="{group_id}"')
    end = page.find('<li class="group"', start + 1)
    row = page[start : end if end > 0 else len(page)]
    found = re.search(
        rf'<button type="submit"[^>]* disabled aria-describedby="([a-z0-9_-]+)"[^>]*>{name}</button>', row
    )
    return found is not None and re.search(rf'id="{found.group(1)}">[^<]+</p>', row) is not None


async def create(http: httpx.AsyncClient, org: Org, profiles: list[str], at: datetime, **body) -> list[dict]:
    body = {"content": f"Hello at {at:%H:%M}", "profiles": profiles, "schedule_at": at.isoformat(), **body}
    response = await http.post("/v1/posts", json=body, headers=org.auth)
    assert response.status_code == 201, response.text
    return response.json()["posts"]


async def publish(orgs, post: dict, at: datetime) -> None:
    """The post as the publisher leaves it once out (the page only reads it)."""
    async with orgs.engine.begin() as conn:
        await conn.execute(
            posts.update()
            .where(posts.c.id == post["id"])
            .values(status="published", schedule_at=at, due_at=at, published_at=at)
        )


@pytest.fixture
async def org(orgs):
    org = await orgs(credits=100)
    await orgs.profile(org, "p-x", "x", tags=("launch",))
    await orgs.profile(org, "p-masto", "mastodon", tags=("launch", "support"))
    await orgs.profile(org, "p-bsky", "bluesky")
    return org


async def test_one_row_per_group_upcoming_soonest_first_then_history(stack, orgs, org) -> None:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        at = ahead(5)
        three = await create(http, org, ["p-x", "p-masto", "p-bsky"], at)
        sooner = await create(http, org, ["p-x"], ahead(2))
        old = await create(http, org, ["p-masto", "p-bsky"], ahead(1))
        older = await create(http, org, ["p-bsky"], ahead(1))
        for post in old:
            await publish(orgs, post, ahead(-3))
        await publish(orgs, older[0], ahead(-30))
        await signed_in(http, org.email)
        page = (await http.get("/dashboard/posts")).text

    assert listed(page) == [
        (sooner[0]["group_id"], "upcoming"),
        (three[0]["group_id"], "upcoming"),
        (old[0]["group_id"], "history"),
        (older[0]["group_id"], "history"),
    ]
    assert page.index('id="upcoming-title"') < page.index('id="history-title"')
    # The post written once for three profiles: one row, three destinations, each to its page.
    group_id = three[0]["group_id"]
    assert page.count(f'data-group="{group_id}"') == 1
    assert [d[:2] for d in destinations(page, group_id)] == [(p["id"], "scheduled") for p in three]
    for post in three:
        assert f'href="/dashboard/posts/{post["id"]}"' in page
    row = page[page.index(f'data-group="{group_id}"') :]
    assert f"{at:%Y-%m-%d %H:%M} (UTC)" in row[: row.index("</h3>")]
    assert "Hello at" in row and "3 destinations" in row
    # Upcoming: both actions can act; history (published): both disabled, with the reason.
    assert f'action="/dashboard/post-groups/{group_id}/cancel"' in page
    assert not disabled_with_reason(page, group_id, "Cancel post")
    assert not disabled_with_reason(page, group_id, "Reschedule")
    assert disabled_with_reason(page, old[0]["group_id"], "Cancel post")
    assert disabled_with_reason(page, old[0]["group_id"], "Reschedule")
    # The datetime-local field holds the row's time, in the organization's zone.
    assert f'value="{at:%Y-%m-%dT%H:%M}"' in row


async def test_filters_choose_from_lists_and_keep_whole_groups(stack, orgs, org) -> None:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        both = await create(http, org, ["p-x", "p-bsky"], ahead(3))
        masto = await create(http, org, ["p-masto"], ahead(4))
        far_at = ahead(24 * 3)
        bsky = await create(http, org, ["p-bsky"], far_at)
        await publish(orgs, both[0], ahead(-2))  # p-x published, p-bsky still scheduled
        await signed_in(http, org.email)

        async def groups(**query) -> list[str]:
            response = await http.get("/dashboard/posts", params=query)
            assert response.status_code == 200, response.text
            return [g for g, _ in listed(response.text)]

        page = (await http.get("/dashboard/posts")).text
        # Profile and tag are chosen from the organization's own, never typed.
        for slug, platform in (("p-x", "x"), ("p-masto", "mastodon"), ("p-bsky", "bluesky")):
            assert f'<option value="{slug}" >{slug} ({platform})</option>' in page
        assert re.findall(r'<option value="([a-z-]+)" >\1</option>', page[page.index('id="posts-tag"') :]) == [
            "launch",
            "support",
        ]
        form = page[page.index('id="posts-filters"') :]
        assert '<input type="text"' not in form[: form.index("</form>")]

        assert await groups(status="published") == [both[0]["group_id"]]
        assert await groups(status="scheduled") == [both[0]["group_id"], masto[0]["group_id"], bsky[0]["group_id"]]
        assert await groups(profile="p-masto") == [masto[0]["group_id"]]
        assert await groups(tag="support") == [masto[0]["group_id"]]
        assert await groups(tag="launch") == [masto[0]["group_id"], both[0]["group_id"]]  # p-x's post is history
        today = f"{datetime.now(UTC):%Y-%m-%d}"
        far = f"{far_at:%Y-%m-%d}"
        assert bsky[0]["group_id"] not in await groups(to=today)
        assert await groups(**{"from": far, "to": far}) == [bsky[0]["group_id"]]

        # A row shows every destination, the ones the filters match marked.
        filtered = (await http.get("/dashboard/posts", params={"profile": "p-x"})).text
        assert destinations(filtered, both[0]["group_id"]) == [
            (both[0]["id"], "published", True),
            (both[1]["id"], "scheduled", False),
        ]
        assert "(not matching the filters)" in filtered
        assert '<option value="p-x" selected>' in filtered  # the filter stays chosen

        # A date the page cannot read is refused in place, once, with the filters still there.
        refused = await http.get("/dashboard/posts", params={"from": "tomorrow"})
        assert refused.status_code == 400
        assert ALERT_CODE.findall(refused.text) == ["VALIDATION_ERROR"]
        assert refused.text.count('role="alert"') == 1 and 'id="posts-filters"' in refused.text
        for dates in ({"from": far, "to": today}, {"to": "9999-12-31"}):
            refused = await http.get("/dashboard/posts", params=dates)
            assert refused.status_code == 400 and ALERT_CODE.findall(refused.text) == ["VALIDATION_ERROR"], dates
        nothing = await http.get("/dashboard/posts", params={"profile": "p-masto", "status": "failed"})
        assert nothing.status_code == 200 and "No posts match" in nothing.text


async def test_date_filters_are_days_in_the_organizations_zone(stack, orgs, org) -> None:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        zoned = await http.patch("/v1/organization", json={"time_zone": "Pacific/Kiritimati"}, headers=org.auth)
        assert zoned.status_code == 200, zoned.text
        zone = ZoneInfo("Pacific/Kiritimati")  # UTC+14: its days start 14 hours before UTC's
        day = (datetime.now(zone) + timedelta(days=2)).date()
        start = datetime(day.year, day.month, day.day, tzinfo=zone)
        inside = await create(http, org, ["p-x"], start.astimezone(UTC))
        before = await create(http, org, ["p-x"], (start - timedelta(minutes=1)).astimezone(UTC))
        await signed_in(http, org.email)
        page = (await http.get("/dashboard/posts", params={"from": str(day), "to": str(day)})).text
        assert [g for g, _ in listed(page)] == [inside[0]["group_id"]]
        assert before[0]["group_id"] not in page
        assert "(Pacific/Kiritimati)" in page and f"{day} 00:00" in page


async def test_next_and_previous_pages_without_duplicates_or_gaps(stack, orgs, org) -> None:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        made = []
        for k in range(28):  # 25 a page: two pages, the second crossing into history
            made.append(await create(http, org, ["p-x", "p-bsky"] if k % 3 else ["p-masto"], ahead(1 + k)))
        for group in made[-4:]:
            for post in group:
                await publish(orgs, post, ahead(-1 - made.index(group)))
        await signed_in(http, org.email)

        first = (await http.get("/dashboard/posts")).text
        assert PREVIOUS.search(first) is None and "First page" not in first
        second_link = unescape(NEXT.search(first).group(1))
        second = (await http.get(second_link)).text
        assert NEXT.search(second) is None
        back_link = unescape(PREVIOUS.search(second).group(1))
        back = (await http.get(back_link)).text

    upcoming = [g[0]["group_id"] for g in made[:24]]
    history = [g[0]["group_id"] for g in made[24:]]  # published an hour apart, the last made the oldest
    whole = [(g, "upcoming") for g in upcoming] + [(g, "history") for g in history]
    assert listed(first) + listed(second) == whole
    assert len(listed(first)) == 25 and listed(first)[-1] == (history[0], "history")
    assert listed(back) == listed(first)
    # The page links keep the filters.
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        await signed_in(http, org.email)
        filtered = (await http.get("/dashboard/posts", params={"profile": "p-x"})).text
    link = NEXT.search(filtered)
    assert link is None or "profile=p-x" in link.group(1)


async def test_group_actions_reschedule_and_cancel_every_destination(stack, orgs, org) -> None:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        zoned = await http.patch("/v1/organization", json={"time_zone": "Europe/Paris"}, headers=org.auth)
        assert zoned.status_code == 200, zoned.text
        made = await create(http, org, ["p-x", "p-masto", "p-bsky"], ahead(5))
        group_id = made[0]["group_id"]
        token = await signed_in(http, org.email, "/dashboard/posts")
        back = "profile=p-x"

        # Without the form's token, or with another's: 403, nothing changes.
        async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as stranger:
            foreign = await signed_in(stranger, (await orgs()).email)
        when = ahead(48).astimezone(ZoneInfo("Europe/Paris"))
        for wrong in (None, "", foreign, token + "x"):
            data = {} if wrong is None else {"csrf_token": wrong}
            for action in ("cancel", "reschedule"):
                form = data | {"schedule_at": f"{when:%Y-%m-%dT%H:%M}", "back": back}
                refused = await http.post(f"/dashboard/post-groups/{group_id}/{action}", data=form)
                assert refused.status_code == 403, (action, wrong)
        group = (await http.get(f"/v1/post-groups/{group_id}", headers=org.auth)).json()
        assert {p["status"] for p in group["posts"]} == {"scheduled"}

        # "Schedule at" is read in the organization's zone.
        moved = await http.post(
            f"/dashboard/post-groups/{group_id}/reschedule",
            data={"csrf_token": token, "schedule_at": f"{when:%Y-%m-%dT%H:%M}", "back": back},
        )
        assert moved.status_code == 303, moved.text
        assert moved.headers["location"] == "/dashboard/posts?profile=p-x&notice=group-rescheduled"
        group = (await http.get(f"/v1/post-groups/{group_id}", headers=org.auth)).json()
        expected = when.astimezone(UTC)
        assert {datetime.fromisoformat(p["schedule_at"].replace("Z", "+00:00")) for p in group["posts"]} == {expected}
        shown = (await http.get(moved.headers["location"])).text
        assert 'class="flash" role="status"' in shown and "rescheduled" in shown
        assert f"{when:%Y-%m-%d %H:%M} (Europe/Paris)" in shown

        # A time the zone skips is refused in place (the last Sunday of March, 02:30 in Paris).
        year = datetime.now(UTC).year + 1
        skipped = max(datetime(year, 3, d) for d in range(25, 32) if datetime(year, 3, d).weekday() == 6)
        refused = await http.post(
            f"/dashboard/post-groups/{group_id}/reschedule",
            data={"csrf_token": token, "schedule_at": f"{skipped:%Y-%m-%d}T02:30", "back": back},
        )
        assert refused.status_code == 400 and ALERT_CODE.findall(refused.text) == ["VALIDATION_ERROR"]

        canceled = await http.post(f"/dashboard/post-groups/{group_id}/cancel", data={"csrf_token": token})
        assert canceled.status_code == 303
        assert canceled.headers["location"] == "/dashboard/posts?notice=group-canceled"
        group = (await http.get(f"/v1/post-groups/{group_id}", headers=org.auth)).json()
        assert {p["status"] for p in group["posts"]} == {"canceled"}
        after = (await http.get(canceled.headers["location"])).text
        assert listed(after) == [(group_id, "history")]
        assert disabled_with_reason(after, group_id, "Cancel post")


async def test_a_refused_group_action_is_shown_on_the_page(stack, orgs, org) -> None:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        made = await create(http, org, ["p-x", "p-bsky"], ahead(5))
        await publish(orgs, made[1], ahead(-1))  # one destination out: the group cannot change as a whole
        token = await signed_in(http, org.email, "/dashboard/posts")
        page = (await http.get("/dashboard/posts")).text
        assert disabled_with_reason(page, made[0]["group_id"], "Cancel post")
        for action, form in (("cancel", {}), ("reschedule", {"schedule_at": f"{ahead(30):%Y-%m-%dT%H:%M}"})):
            refused = await http.post(
                f"/dashboard/post-groups/{made[0]['group_id']}/{action}",
                data={"csrf_token": token, "back": "status=published", **form},
            )
            assert refused.status_code == 409, action
            assert ALERT_CODE.findall(refused.text) == ["INVALID_POST_STATE"]
            assert refused.text.count('role="alert"') == 1
            assert listed(refused.text) == [(made[0]["group_id"], "history")]  # the list it was on
        group = (await http.get(f"/v1/post-groups/{made[0]['group_id']}", headers=org.auth)).json()
        assert [p["status"] for p in group["posts"]] == ["scheduled", "published"]


@pytest.mark.one_backend
async def test_another_organizations_and_malformed_group_ids_are_404(stack, orgs, org) -> None:
    other = await orgs(credits=100)
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        theirs = await create(http, org, ["p-x"], ahead(5))
        token = await signed_in(http, other.email, "/dashboard/posts")
        page = (await http.get("/dashboard/posts")).text
        assert theirs[0]["group_id"] not in page and "No posts yet" in page
        for group_id in (
            theirs[0]["group_id"],
            "grp_00000000000000000000000000",
            theirs[0]["id"],
            "grp_%00",
            "x" * 300,
        ):
            for action, form in (("cancel", {}), ("reschedule", {"schedule_at": f"{ahead(30):%Y-%m-%dT%H:%M}"})):
                refused = await http.post(
                    f"/dashboard/post-groups/{group_id}/{action}", data={"csrf_token": token, **form}
                )
                assert refused.status_code == 404, (group_id, action)
                assert refused.headers["content-type"].startswith("text/html")
        group = (await http.get(f"/v1/post-groups/{theirs[0]['group_id']}", headers=org.auth)).json()
        assert group["posts"][0]["status"] == "scheduled"

        # Signed out: the actions go to the sign-in page and change nothing.
        async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as anonymous:
            gone = await anonymous.post(f"/dashboard/post-groups/{theirs[0]['group_id']}/cancel", data={})
        assert gone.status_code == 303 and gone.headers["location"].startswith("/login")


@pytest.mark.one_backend
async def test_a_page_token_the_core_refuses_is_shown_once(stack, orgs, org) -> None:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        await signed_in(http, org.email)
        refused = await http.get("/dashboard/posts", params={"page": "not-a-page-token", "profile": "p-x"})
    assert refused.status_code == 400
    assert ALERT_CODE.findall(refused.text) == ["VALIDATION_ERROR"]
    assert form_token(refused)  # the page, with its forms
