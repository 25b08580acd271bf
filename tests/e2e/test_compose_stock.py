"""Stock photos added from inside compose (docs/dashboard.md, "Compose", Media): the media page's
picker, in the compose form, searches (its previews under the page's policy), and "Add to this
post" sources the checked photos (charged per photo delivered) and brings the form back as it
was, the photos attached, for a new post and for one being edited. Over plain HTTP: the form
without its script keeps what was typed through the search and each refusal (nothing checked,
no credits), and the CSRF check comes first.

The stack is this module's own, its providers pointed at the demo stock server (core/stock/demo.py,
started by tests/stock_demo.py), on the session's database."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from playwright.async_api import expect

from core.stock.demo import DemoStockServer
from harness.stack import Stack, running_stack
from tests.dashboard_forms import signed_in
from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in
from tests.stock_demo import demo_providers

pytestmark = pytest.mark.one_backend

QUERY = "coffee city"  # three portrait photos in the demo catalogue (tests/e2e/test_media_page.py)
ZONE = "Europe/Paris"
REF_FIELD = re.compile(r'name="source_ref" value="([^"]+)"')
CHECKED_MEDIA = re.compile(r'<input type="checkbox" id="media-(med_[0-9a-z]+)" name="media_ids"[^>]* checked>')


@pytest.fixture(scope="module")
def stock_stack(database_url: str, demo: DemoStockServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    settings = {"HERALD_LOW_CREDIT_THRESHOLD": "0", **demo_providers(demo)}
    with running_stack(database_url, tmp_path_factory.mktemp("compose-stock"), **settings) as stack:
        yield stack


@pytest.fixture
async def tab(browser, stock_stack: Stack) -> AsyncIterator[object]:
    context = await browser.new_context(base_url=stock_stack.base_url)
    page = await context.new_page()
    yield page
    await context.close()


@pytest.fixture
async def client(stock_stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=stock_stack.base_url, timeout=60) as http:
        yield http


async def _org(orgs, client: httpx.AsyncClient, credits: int):
    org = await orgs(credits=credits)
    await orgs.profile(org, "stock-x", "x")
    zone = await client.patch("/v1/organization", json={"time_zone": ZONE}, headers=org.auth)
    assert zone.status_code == 200, zone.text
    return org


async def _balance(client: httpx.AsyncClient, org) -> int:
    answer = await client.get("/v1/credits", headers=org.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()["balance"]


def _button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


async def _search(page, provider: str, preset: str) -> None:
    """Searches from compose's picker with Enter, as a human would; the page comes back."""
    await page.get_by_label("Provider", exact=True).select_option(provider)
    await page.get_by_label("Preset").select_option(preset)
    async with page.expect_response(lambda r: r.url.endswith("/dashboard/compose") and r.request.method == "POST"):
        await page.get_by_label("Search photos").press("Enter")
    await page.wait_for_load_state()


async def test_stock_photos_added_to_a_new_post_and_to_an_edited_one(
    tab, client, orgs, demo, artifacts_dir, backend
) -> None:
    page = tab
    org = await _org(orgs, client, credits=10)
    await sign_in(page, org.email)
    await page.goto("/dashboard/compose")
    content = page.get_by_role("textbox", name="Content", exact=True)
    await content.fill("Coffee in the city, from Monday.")
    await page.get_by_role("checkbox", name="stock-x", exact=True).check()
    await _button(page, "Add a thread item").click()
    await page.get_by_label("Thread item 1").fill("Open from eight.")

    # The search comes back with the draft as typed, and the previews the page's policy allows.
    await page.get_by_label("Search photos").fill(QUERY)
    async with page.expect_response(lambda r: r.url.endswith("/dashboard/compose")) as answer:
        await _search(page, "stock_b", "portrait")
    policy = (await answer.value).headers["content-security-policy"]
    assert f"img-src 'self' data: {demo.base_url};" in policy
    results = page.locator("#stock-results li")
    assert await results.count() >= 3
    for n in range(2):
        preview = results.nth(n).get_by_role("img")
        await preview.evaluate("img => img.decode()")
        assert await preview.evaluate("img => img.naturalWidth > 0")
    await expect(content).to_have_value("Coffee in the city, from Monday.")
    await expect(page.get_by_label("Thread item 1")).to_have_value("Open from eight.")
    await expect(page.get_by_role("checkbox", name="stock-x", exact=True)).to_be_checked()
    await check_page(page, artifacts_dir, backend, "compose-stock-results")

    # "Add to this post": charged per photo, in the library, attached, the draft still there.
    await page.set_viewport_size({"width": 1280, "height": 800})
    await results.nth(0).get_by_role("checkbox").check()
    await results.nth(1).get_by_role("checkbox").check()
    await _button(page, "Add to this post").click()
    await expect(page.locator(".flash")).to_have_text("2 photos added to the library and attached to this post.")
    assert await _balance(client, org) == 8
    attached = page.locator('input[name="media_ids"]:checked')
    await expect(attached).to_have_count(2)
    sourced = set(await attached.evaluate_all("boxes => boxes.map(b => b.value)"))
    library = (await client.get("/v1/media", headers=org.auth)).json()["media"]
    assert {m["media_id"] for m in library} == sourced
    await expect(content).to_have_value("Coffee in the city, from Monday.")
    await expect(page.get_by_label("Thread item 1")).to_have_value("Open from eight.")
    await expect(page.locator('article.card[data-profile="stock-x"] .role-content .tile')).to_have_count(2)

    local = (datetime.now(ZoneInfo(ZONE)) + timedelta(days=2)).replace(hour=9, minute=0, second=0, microsecond=0)
    await page.get_by_label("Schedule at").fill(local.strftime("%Y-%m-%dT%H:%M"))
    await expect(_button(page, "Schedule")).to_be_enabled()
    await _button(page, "Schedule").click()
    await page.wait_for_url("**/dashboard/posts?notice=posts-scheduled")
    (post,) = (await client.get("/v1/posts", headers=org.auth)).json()["posts"]
    assert set(post["media_ids"]) == sourced and post["content"] == "Coffee in the city, from Monday."

    # Editing that post: the picker's round trip keeps the edit.
    await page.goto(f"/dashboard/compose?edit={post['id']}")
    await page.get_by_label("Search photos").fill(QUERY)
    await _search(page, "stock_b", "portrait")
    await content.fill("Coffee in the city, from Tuesday.")
    await page.locator("#stock-results li").nth(2).get_by_role("checkbox").check()
    await _button(page, "Add to this post").click()
    await expect(page.locator(".flash")).to_have_text("1 photo added to the library and attached to this post.")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Edit the post to stock-x")
    await expect(content).to_have_value("Coffee in the city, from Tuesday.")
    await expect(page.locator('input[name="media_ids"]:checked')).to_have_count(3)
    await _button(page, "Save changes").click()
    await page.wait_for_url(f"**/dashboard/posts/{post['id']}?notice=post-edited")
    edited = (await client.get(f"/v1/posts/{post['id']}", headers=org.auth)).json()
    assert len(edited["media_ids"]) == 3 and sourced < set(edited["media_ids"])
    assert edited["content"] == "Coffee in the city, from Tuesday."
    assert await _balance(client, org) == 7


# --- plain HTTP -----------------------------------------------------------------------------------


async def test_the_picker_without_a_script_keeps_the_form(client, orgs) -> None:
    org = await _org(orgs, client, credits=10)
    token = await signed_in(client, org.email, "/dashboard/compose")
    typed = {"csrf_token": token, "content": "Kept as typed.", "profiles": "stock-x", "thread": "An item."}
    picker = {"q": QUERY, "provider": "stock_a", "preset": "square"}
    searched = await client.post("/dashboard/compose", data=typed | picker | {"stock_search": "1"})
    assert searched.status_code == 200, searched.text
    refs = REF_FIELD.findall(searched.text)
    assert refs and "Kept as typed." in searched.text and ">An item.</textarea>" in searched.text
    shown = {"searched_query": QUERY, "searched_provider": "stock_a", "searched_preset": "square"}

    # Nothing checked: the page's own check, the form as typed.
    nothing = await client.post("/dashboard/compose/stock", data=typed | picker | shown)
    assert nothing.status_code == 400
    assert 'id="picker-error" data-code="VALIDATION_ERROR"' in nothing.text and "Kept as typed." in nothing.text

    # The CSRF token first: nothing sourced, nothing charged.
    for wrong in ({}, {"csrf_token": token + "x"}):
        data = {k: v for k, v in typed.items() if k != "csrf_token"} | wrong | picker | shown | {"source_ref": refs[0]}
        assert (await client.post("/dashboard/compose/stock", data=data)).status_code == 403
    assert await _balance(client, org) == 10

    added = await client.post("/dashboard/compose/stock", data=typed | picker | shown | {"source_ref": refs[0]})
    assert added.status_code == 200, added.text
    (media_id,) = CHECKED_MEDIA.findall(added.text)
    assert "Kept as typed." in added.text and ">An item.</textarea>" in added.text
    assert await _balance(client, org) == 9
    assert [m["media_id"] for m in (await client.get("/v1/media", headers=org.auth)).json()["media"]] == [media_id]

    # No credits: refused before anything is fetched, the photo still checked, the text kept.
    poor = await _org(orgs, client, credits=0)
    await client.post("/logout", data={"csrf_token": token})
    client.cookies.clear()
    token = await signed_in(client, poor.email, "/dashboard/compose")
    refused = await client.post(
        "/dashboard/compose/stock", data=typed | {"csrf_token": token} | picker | shown | {"source_ref": refs[0]}
    )
    assert refused.status_code == 402
    assert 'data-code="INSUFFICIENT_CREDITS"' in refused.text and "Kept as typed." in refused.text
    assert re.search(rf'name="source_ref" value="{re.escape(refs[0])}" checked', refused.text)
    assert (await client.get("/v1/media", headers=poor.auth)).json()["media"] == []
