"""Connecting X and Mastodon accounts the way a human does (issue 12): signed in to the dashboard
in Chromium, "Connect x" and a Mastodon instance, the platforms' sign-in pages (the fake
platforms of harness/fakes/platforms approve at once) and back to the profiles page; tokens sealed
in the database; a callback carried to another browser refused; disconnect from the page; the
posts page linking each delivered post to the platform's own and naming why one failed.

The stack is this module's own: X's hosts are sent to the fake X, the Mastodon instance is the
fake's loopback address (private addresses allowed, as for a private instance)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from core import admin
from core.db.models import platform_apps, profiles
from harness.fakes.platforms import FakeMastodon, FakeX
from harness.live import live_stack, workers
from harness.stack import Stack

pytestmark = pytest.mark.one_backend
PASSWORD = "correct horse battery"
PROFILES = "/dashboard/profiles"


@pytest.fixture(scope="module")
def fake_x() -> Iterator[FakeX]:
    with FakeX(client_id="browser-client", client_secret="browser-secret") as server:
        yield server


@pytest.fixture(scope="module")
def fake_mastodon() -> Iterator[FakeMastodon]:
    with FakeMastodon() as server:
        yield server


@pytest.fixture(scope="module")
def connect_stack(
    backend: str, fake_x: FakeX, fake_mastodon: FakeMastodon, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    with (
        live_stack(
            backend,
            tmp_path_factory.mktemp(f"connect-{backend}"),
            fakes=(fake_x,),
            HERALD_PUBLISH_MAX_ATTEMPTS="1",
        ) as stack,
        workers(stack, "connect"),
    ):
        yield stack


@pytest.fixture(scope="module")
async def engine(connect_stack: Stack) -> AsyncIterator[AsyncEngine]:
    engine = create_async_engine(connect_stack.database_url)
    yield engine
    await engine.dispose()


@pytest.fixture(scope="module")
async def human(engine: AsyncEngine) -> dict:
    return await admin.bootstrap(
        engine, email="human@example.com", password=PASSWORD, org="human", credits_=10, plan="active"
    )


@pytest.fixture
async def tab(browser, connect_stack: Stack) -> AsyncIterator[object]:  # playwright Browser
    context = await browser.new_context(base_url=connect_stack.base_url)
    page = await context.new_page()
    yield page
    await context.close()


async def sign_in(page, email: str = "human@example.com") -> None:
    await page.goto("/login")
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url("**/dashboard")


async def shot(page, artifacts_dir: Path, name: str) -> None:
    folder = artifacts_dir / "screenshots"
    folder.mkdir(exist_ok=True)
    await page.screenshot(path=str(folder / f"connect-{name}.png"), full_page=True)


async def row_of(engine: AsyncEngine, org_id: str, connector: str):
    async with engine.connect() as conn:
        return (
            await conn.execute(select(profiles).where(profiles.c.org_id == org_id, profiles.c.connector == connector))
        ).one()


async def test_a_human_connects_x_and_mastodon_and_disconnects(
    tab, human, engine, fake_x, fake_mastodon, artifacts_dir
) -> None:
    page = tab
    await sign_in(page)
    await page.goto(PROFILES)
    await shot(page, artifacts_dir, "before")

    # X: one click, the platform's sign-in page, back on the profiles page.
    await page.locator("#connect-x").click()
    await page.wait_for_url(f"**{PROFILES}?*connection=connected*")
    notice = await page.locator("#connected-notice").inner_text()
    x_row = await row_of(engine, human["org_id"], "x")
    assert x_row.slug in notice
    cell = page.locator(f'tr[data-slug="{x_row.slug}"] td.connection')
    assert await cell.get_attribute("data-status") == "connected"
    x_user = fake_x.user("herald_fake")
    assert x_user.username in await cell.inner_text()
    authorize = fake_x.seen("GET", "/i/oauth2/authorize")[-1]
    assert authorize.query["code_challenge_method"] == "S256" and authorize.query["state"]

    # Mastodon: the human names the instance; Herald registers itself there first.
    await page.get_by_label("Mastodon instance").fill(fake_mastodon.base_url)
    await page.locator("#connect-mastodon").click()
    await page.wait_for_url(f"**{PROFILES}?*connection=connected*")
    m_row = await row_of(engine, human["org_id"], "mastodon")
    m_cell = page.locator(f'tr[data-slug="{m_row.slug}"] td.connection')
    assert await m_cell.get_attribute("data-status") == "connected"
    assert fake_mastodon.base_url.split("://", 1)[1] in await m_cell.inner_text()
    await shot(page, artifacts_dir, "connected")

    # Tokens are sealed at rest: never what the platform issued, and bound to their row.
    for row, fake in ((x_row, fake_x), (m_row, fake_mastodon)):
        assert row.access_token.startswith("v1.")
        issued = fake.issued_tokens()
        assert issued and not any(token in str(dict(row._mapping)) for token in issued)
    async with engine.connect() as conn:
        app = (await conn.execute(select(platform_apps))).one()
    assert app.client_secret.startswith("v1.") and app.instance_url == fake_mastodon.base_url

    # Disconnect from the page: revoked at the platform, the tokens forgotten.
    await page.get_by_role("button", name=f"Disconnect {x_row.slug}").click()
    await page.wait_for_url(f"**{PROFILES}?notice=disconnected")
    assert await cell.get_attribute("data-status") == "disconnected"
    assert fake_x.seen("POST", "/2/oauth2/revoke")
    gone = await row_of(engine, human["org_id"], "x")
    assert (gone.access_token, gone.refresh_token, gone.connection_status) == (None, None, "disconnected")


async def test_a_callback_carried_to_another_browser_is_refused(browser, connect_stack, human, tab, fake_x) -> None:
    page = tab
    await sign_in(page)
    await page.goto(PROFILES)
    # This browser starts connecting (its session, its form's CSRF token) and the platform
    # approves; the redirect back is not followed here but carried to another browser.
    csrf = await page.locator('form[action="/dashboard/connect"] input[name="csrf_token"]').first.get_attribute("value")
    started = await page.request.post("/dashboard/connect", form={"csrf_token": csrf, "platform": "x"}, max_redirects=0)
    assert started.status == 303
    approved = await page.request.get(started.headers["location"], max_redirects=0)
    assert approved.status == 302
    callback = approved.headers["location"]
    assert callback.startswith(f"{connect_stack.base_url}/connect/callback?")

    stranger = await browser.new_context(base_url=connect_stack.base_url)
    try:
        other = await stranger.new_page()
        await sign_in(other)  # the same human, but another browser session
        answer = await other.goto(callback)
        assert answer is not None and answer.status == 400
        assert "another browser session" in await other.content()
    finally:
        await stranger.close()

    # The stranger's refusal does not spend the attempt (it cannot be used to block the human):
    # the browser that started it completes it, once.
    done = await page.goto(callback)
    assert done is not None and done.status == 200 and "connection=connected" in page.url
    again = await page.goto(callback)
    assert again is not None and again.status == 400
    assert "already completed" in await page.content()


async def test_the_posts_page_links_each_post_to_the_platform(tab, human, fake_x, fake_mastodon, connect_stack) -> None:
    page = tab
    await sign_in(page)
    await page.goto(PROFILES)
    await page.locator("#connect-x").click()  # connected, or connected again: the same profile
    await page.wait_for_url(f"**{PROFILES}?*connection=connected*")
    x_slug = page.url.split("profile=", 1)[1].split("&", 1)[0]
    await page.get_by_label("Mastodon instance").fill(fake_mastodon.base_url)
    await page.locator("#connect-mastodon").click()
    await page.wait_for_url(f"**{PROFILES}?*connection=connected*")
    m_slug = page.url.split("profile=", 1)[1].split("&", 1)[0]

    fake_mastodon.fail("POST", r"^/api/v1/statuses$", 422, {"error": "Validation failed: Text is too long"})
    auth = {"Authorization": f"Bearer {human['api_key']}"}
    async with httpx.AsyncClient(base_url=connect_stack.base_url, timeout=15) as api:
        thread = [{"content": "Two, on X only"}, {"content": "Three"}]
        created = await api.post(
            "/v1/posts",
            headers=auth,
            json={
                "content": "Shown on the posts page",
                "profiles": [x_slug, m_slug],
                "customizations": {x_slug: {"thread": thread}},
            },
        )
        assert created.status_code == 201, created.text
        ids = {p["profile"]: p["id"] for p in created.json()["posts"]}
        for _ in range(200):
            got = [(await api.get(f"/v1/posts/{i}", headers=auth)).json() for i in ids.values()]
            if all(p["status"] in ("published", "failed") for p in got):
                break
            await page.wait_for_timeout(50)
    by_profile = {p["profile"]: p for p in got}
    assert by_profile[x_slug]["status"] == "published" and by_profile[m_slug]["status"] == "failed"

    await page.get_by_role("link", name="Posts").click()
    await page.wait_for_url("**/dashboard/posts")
    # One row for the request, a destination each (docs/dashboard.md, "Posts").
    out = page.locator(f'li[data-post="{ids[x_slug]}"] a.outcome')
    assert await out.get_attribute("href") == by_profile[x_slug]["url"]
    assert by_profile[x_slug]["url"].startswith("https://x.com/")
    assert "thread 2/2 out" in await page.locator(f'li[data-post="{ids[x_slug]}"]').inner_text()
    failed = page.locator(f'li[data-post="{ids[m_slug]}"]')
    assert await failed.get_attribute("data-status") == "failed"
    assert by_profile[m_slug]["failure_reason"] in await failed.inner_text()
    assert await page.locator("li.group").count() == 1

    await page.get_by_label("Status").select_option("failed")
    await page.get_by_role("button", name="Filter").click()
    await page.wait_for_url("**/dashboard/posts?status=failed*")
    shown = await page.locator("li[data-matching]").evaluate_all("items => items.map(i => i.dataset.status)")
    assert shown and set(shown) == {"failed"}
