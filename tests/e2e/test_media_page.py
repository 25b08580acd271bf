"""The dashboard's media page in Chromium (issues 16 and 31): the library, and the stock picker a
human uses to search, pick, choose a preset and source licensed photos; its errors shown on the
page with their status; the page refused without a session, the form without its CSRF token.
Uploads from the browser (docs/dashboard.md, "Media"): a file chosen or dropped goes straight to
the storage with its progress shown and appears with its thumbnail; the same file again is not
uploaded; a file over its type's limit is refused before any request; a storage refusal or a
dropped connection mid-upload shows its code and leaves no media behind, not even a pending one.

The stack is this module's own, its providers pointed at the demo stock server (core/stock/demo.py,
started by tests/stock_demo.py); previews load from the demo's loopback origin."""

from __future__ import annotations

import base64
import io
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import av
import httpx
import pytest
from PIL import Image
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from core import admin
from core.db.models import media as media_table
from core.db.models import organizations
from core.stock.demo import DemoStockServer
from harness.stack import Stack
from tests.dashboard_forms import PASSWORD, signed_in
from tests.e2e.accessibility import check_page
from tests.stock_demo import stack_with_demo_stock

pytestmark = pytest.mark.one_backend
MEDIA = "/dashboard/media"
# "coffee" alone finds one portrait photo in the demo catalogue; "city" adds two more.
QUERY = "coffee city"
REF_FIELD = re.compile(r'name="source_ref" value="([^"]+)"')


@pytest.fixture(scope="module")
def media_stack(backend: str, demo: DemoStockServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    workdir = tmp_path_factory.mktemp(f"media-page-{backend}")
    with stack_with_demo_stock(backend, demo, workdir, HERALD_STOCK_TIMEOUT_SECONDS="2") as stack:
        yield stack


@pytest.fixture(scope="module")
async def media_engine(media_stack: Stack) -> AsyncIterator[AsyncEngine]:
    engine = create_async_engine(media_stack.database_url)
    yield engine
    await engine.dispose()


@pytest.fixture
async def tab(browser, media_stack: Stack) -> AsyncIterator[object]:  # playwright Browser
    context = await browser.new_context(base_url=media_stack.base_url)
    page = await context.new_page()
    yield page
    await context.close()


@pytest.fixture
async def client(media_stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=media_stack.base_url, timeout=60) as http:
        yield http


@dataclass(frozen=True)
class Human:
    email: str
    auth: dict[str, str]


async def human(engine: AsyncEngine, credits: int = 10) -> Human:
    slug = f"media-{uuid.uuid4().hex[:8]}"
    out = await admin.bootstrap(
        engine, email=f"{slug}@example.com", password=PASSWORD, org=slug, credits_=credits, plan="active"
    )
    return Human(f"{slug}@example.com", {"Authorization": f"Bearer {out['api_key']}"})


async def balance(http: httpx.AsyncClient, who: Human) -> int:
    answer = await http.get("/v1/credits", headers=who.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()["balance"]


async def screenshot(page, artifacts_dir: Path, backend: str, name: str) -> None:
    folder = artifacts_dir / "screenshots"
    folder.mkdir(exist_ok=True)
    await page.screenshot(path=str(folder / f"{backend}-{name}.png"), full_page=True)


def library(page):  # a playwright Page
    """The library's items (each a listitem named by its media's name)."""
    return (
        page.get_by_role("list", name=re.compile("^Library of"))
        .get_by_role("listitem")
        .filter(has=page.get_by_role("heading"))
    )


async def sign_in(page, email: str) -> None:
    await page.goto("/login")
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url("**/dashboard")


async def search(page, query: str, provider: str, preset: str) -> None:
    await page.goto(MEDIA)
    await page.get_by_label("Search photos").fill(query)
    await page.get_by_label("Provider", exact=True).select_option(provider)
    await page.get_by_label("Preset").select_option(preset)
    await page.get_by_role("button", name="Search", exact=True).click()
    await page.wait_for_url("**/dashboard/media?q=*")


async def source(page, expected_status: int) -> None:
    async with page.expect_response(f"**{MEDIA}/source") as answer:
        await page.get_by_role("button", name="Add to library").click()
    assert (await answer.value).status == expected_status


async def test_search_pick_and_source_photos(tab, client, media_engine, demo, artifacts_dir, backend) -> None:
    page = tab
    who = await human(media_engine, credits=10)
    await sign_in(page, who.email)
    opened = await page.goto(MEDIA)
    assert opened.status == 200
    assert await page.locator("nav a[aria-current=page]").text_content() == "Media"
    assert await page.locator("#no-media").is_visible()
    assert await page.locator("#media-balance").text_content() == "10"

    await search(page, QUERY, "stock_b", "portrait")
    results = page.locator("#stock-results li")
    assert await results.count() >= 2
    # The previews come from the demo's loopback origin, which the page's policy names.
    policy = (await page.request.get(page.url)).headers["content-security-policy"]
    assert f"img-src 'self' data: {demo.base_url};" in policy
    for n in range(await results.count()):
        item = results.nth(n)
        image = item.locator("img")
        assert (await image.get_attribute("alt")).strip()
        await image.evaluate("img => img.decode()")
        assert await image.evaluate("img => img.complete && img.naturalWidth > 0")
        credit = item.locator(".attribution")
        assert re.fullmatch(r"Photo by .+ on Unsplash", " ".join((await credit.text_content()).split()))
        for link in await credit.get_by_role("link").all():
            assert "noopener" in await link.get_attribute("rel")
            assert (await link.get_attribute("href")).startswith("https://")
    await screenshot(page, artifacts_dir, backend, "media-picker")

    before = await balance(client, who)
    await results.nth(0).get_by_role("checkbox").check()
    await results.nth(1).get_by_role("checkbox").check()
    await page.get_by_role("button", name="Add to library").click()
    await page.wait_for_url("**/dashboard/media?notice=sourced*")
    assert parse_qs(urlsplit(page.url).query)["count"] == ["2"]
    assert "2 photos" in await page.get_by_role("status").first.text_content()
    rows = library(page)
    assert await rows.count() == 2
    for n in range(2):
        facts = " ".join((await rows.nth(n).inner_text()).split())
        assert re.search(r"Type image image/jpeg", facts) and re.search(r"Dimensions \d+ × \d+", facts)
        # A sourced photo gets its thumbnail as an upload does.
        assert await rows.nth(n).get_by_role("img").get_attribute("data-thumbnail") == "made"
    assert await balance(client, who) == before - 2
    assert await page.locator("#media-balance").text_content() == str(before - 2)
    # The picker kept its search after the redirect.
    assert await page.get_by_label("Search photos").input_value() == QUERY
    await screenshot(page, artifacts_dir, backend, "media")


async def test_picker_errors_are_shown_on_the_page(tab, client, media_engine, artifacts_dir, backend) -> None:
    page = tab
    who = await human(media_engine, credits=10)
    await sign_in(page, who.email)

    # Nothing checked: the form's own check, nothing asked of the provider.
    await search(page, QUERY, "stock_a", "square")
    await source(page, 400)
    alert = page.get_by_role("alert")
    assert await alert.get_attribute("data-code") == "VALIDATION_ERROR"

    # A story crop cannot go to Instagram: refused before anything is fetched or charged.
    await search(page, QUERY, "stock_a", "story")
    await page.locator("#stock-results li").nth(0).get_by_role("checkbox").check()
    await page.get_by_label("Destination").select_option("instagram")
    await source(page, 400)
    assert await alert.get_attribute("data-code") == "PRESET_DESTINATION"
    assert await page.locator("#valid-for").text_content() == "x, bluesky, mastodon, threads"
    # The choice is kept for another try.
    assert await page.locator("#stock-results li").nth(0).get_by_role("checkbox").is_checked()
    await screenshot(page, artifacts_dir, backend, "media-preset-destination")
    assert await balance(client, who) == 10

    # An organization without credits.
    poor = await human(media_engine, credits=0)
    await page.context.clear_cookies()
    await sign_in(page, poor.email)
    await search(page, QUERY, "stock_b", "portrait")
    await page.locator("#stock-results li").nth(0).get_by_role("checkbox").check()
    await source(page, 402)
    assert await alert.get_attribute("data-code") == "INSUFFICIENT_CREDITS"
    assert await library(page).count() == 0
    assert await balance(client, poor) == 0


# --- plain HTTP -----------------------------------------------------------------------------------


async def test_pages_refuse_without_a_session_or_a_token(client, media_engine) -> None:
    opened = await client.get(MEDIA, params={"q": "coffee"})
    assert opened.status_code == 303
    assert opened.headers["location"] == "/login?next=%2Fdashboard%2Fmedia%3Fq%3Dcoffee"
    posted = await client.post(f"{MEDIA}/source", data={"source_ref": "1"})
    assert (posted.status_code, posted.headers["location"].split("?")[0]) == (303, "/login")

    who = await human(media_engine, credits=10)
    token = await signed_in(client, who.email, MEDIA)
    page = await client.get(MEDIA, params={"q": "coffee", "provider": "stock_a"})
    assert page.status_code == 200
    refs = REF_FIELD.findall(page.text)
    assert refs
    for sent in (None, "", "x" * 43, token + "x"):
        data = {"source_ref": refs[0]} | ({} if sent is None else {"csrf_token": sent})
        refused = await client.post(f"{MEDIA}/source", data=data)
        assert refused.status_code == 403
    assert await balance(client, who) == 10

    done = await client.post(f"{MEDIA}/source", data={"csrf_token": token, "source_ref": refs[0], "query": "coffee"})
    assert done.status_code == 303
    assert parse_qs(urlsplit(done.headers["location"]).query)["count"] == ["1"]
    assert await balance(client, who) == 9


async def test_provider_failures_are_pages_with_their_status(client, media_engine, demo) -> None:
    who = await human(media_engine, credits=10)
    token = await signed_in(client, who.email, MEDIA)
    query = f"coffee {uuid.uuid4().hex[:6]}"  # not in the core's search cache
    page = await client.get(MEDIA, params={"q": query, "provider": "stock_a"})
    refs = REF_FIELD.findall(page.text)
    assert len(refs) >= 2

    # One of two photos fails: the other is delivered and charged, the failure named.
    demo.image_fault(refs[1], "not-an-image")
    try:
        partly = await client.post(f"{MEDIA}/source", data={"csrf_token": token, "source_ref": refs[:2]})
    finally:
        demo.clear_faults()
    assert partly.status_code == 303
    shown = await client.get(partly.headers["location"])
    assert 'id="source-failures"' in shown.text and "NOT_AN_IMAGE" in shown.text
    assert await balance(client, who) == 9

    # Every photo fails: 502 on the page, nothing charged.
    demo.image_fault(refs[0], "not-an-image")
    try:
        failed = await client.post(f"{MEDIA}/source", data={"csrf_token": token, "source_ref": refs[0]})
    finally:
        demo.clear_faults()
    assert failed.status_code == 502
    assert 'data-code="SOURCE_FAILED"' in failed.text and 'role="alert"' in failed.text
    assert await balance(client, who) == 9

    # The provider's limit on a search.
    demo.fail_next("pexels", "429", endpoint="search", seconds=4)
    limited = await client.get(MEDIA, params={"q": f"coffee {uuid.uuid4().hex[:6]}"})
    assert limited.status_code == 429
    assert 'data-code="RATE_LIMITED"' in limited.text

    # Values no form offers: the core's own codes.
    unknown = await client.get(MEDIA, params={"q": "coffee", "preset": "banner"})
    assert unknown.status_code == 400 and 'data-code="UNKNOWN_PRESET"' in unknown.text
    unknown = await client.post(
        f"{MEDIA}/source", data={"csrf_token": token, "source_ref": refs[0], "provider": "stock_z"}
    )
    assert unknown.status_code == 400 and 'data-code="UNKNOWN_PROVIDER"' in unknown.text


async def test_a_human_turns_a_provider_off_for_the_organization(tab, media_engine) -> None:
    page = tab
    who = await human(media_engine, credits=5)
    await sign_in(page, who.email)
    await page.goto(MEDIA)
    assert await page.get_by_label("stock_b (Unsplash)").is_checked()
    await page.get_by_label("stock_b (Unsplash)").uncheck()
    await page.get_by_role("button", name="Save providers").click()
    await page.wait_for_url("**/dashboard/media?notice=providers")
    assert not await page.get_by_label("stock_b (Unsplash)").is_checked()
    assert await page.get_by_label("stock_a (Pexels)").is_checked()

    await search(page, QUERY, "stock_b", "square")
    alert = page.get_by_role("alert")
    assert await alert.get_attribute("data-code") == "STOCK_NOT_CONFIGURED"

    await page.get_by_label("stock_b (Unsplash)").check()
    await page.get_by_role("button", name="Save providers").click()
    await page.wait_for_url("**/dashboard/media?notice=providers")
    await search(page, QUERY, "stock_b", "square")
    assert await page.locator("#stock-results li").count() >= 1


# --- uploads from the browser ---------------------------------------------------------------------


def png(width: int, height: int, color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, "PNG")
    return buf.getvalue()


def mp4(seconds: int = 2, width: int = 96, height: int = 64) -> bytes:
    """A tiny H.264 MP4 made with PyAV (its wheels bundle the encoder)."""
    buf = io.BytesIO()
    with av.open(buf, "w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=10)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        for n in range(seconds * 10):
            frame = av.VideoFrame.from_image(Image.new("RGB", (width, height), (20 * n % 255, 120, 200)))
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return buf.getvalue()


def upload_row(page, name: str):  # a playwright Locator
    """The upload's row: the list item whose progress bar is named by the file's name."""
    return (
        page.get_by_role("list", name="Uploads")
        .get_by_role("listitem")
        .filter(has=page.get_by_role("progressbar", name=name, exact=True))
    )


async def settled_row(page, name: str) -> tuple[str, str, str]:
    """(state, code, status text) of the upload's row once it is done."""
    row = upload_row(page, name).first
    await row.and_(page.locator('[data-state="uploaded"], [data-state="duplicate"], [data-state="failed"]')).wait_for()
    status = row.locator("[id$=-status]")
    return (
        await row.get_attribute("data-state"),
        await status.get_attribute("data-code") or "",
        " ".join((await status.text_content()).split()),
    )


async def media_rows(engine: AsyncEngine, who: Human) -> list[tuple[str, str]]:
    """(name, status) of every media record of the human's organization, confirmed or not."""
    slug = who.email.split("@")[0]
    async with engine.connect() as conn:
        rows = await conn.execute(
            select(media_table.c.name, media_table.c.status)
            .join(organizations, organizations.c.id == media_table.c.org_id)
            .where(organizations.c.slug == slug)
            .order_by(media_table.c.id)
        )
        return [(r.name, r.status) for r in rows]


async def test_upload_from_the_browser_with_progress_thumbnails_and_dedupe(
    tab, media_engine, media_stack, artifacts_dir, backend, tmp_path
) -> None:
    page = tab
    who = await human(media_engine)
    await sign_in(page, who.email)
    await page.goto(MEDIA)
    # The policy lets the script reach the dashboard and the storage's origin, nothing else.
    policy = (await page.request.get(MEDIA)).headers["content-security-policy"]
    assert f"connect-src 'self' {media_stack.storage_url};" in policy

    sunset = tmp_path / "sunset.png"
    sunset.write_bytes(png(800, 600, (230, 120, 40)))
    storage_requests: list[str] = []
    page.on(
        "request", lambda r: storage_requests.append(r.method) if r.url.startswith(media_stack.storage_url) else None
    )
    await page.get_by_label("Upload", exact=True).set_input_files(str(sunset))
    assert await settled_row(page, "sunset.png") == ("uploaded", "", "Uploaded.")
    assert await upload_row(page, "sunset.png").get_by_role("progressbar").evaluate("bar => bar.value") == 100
    assert "PUT" in storage_requests
    # The item is in the list at once, its thumbnail made by the core and shown under the page's policy.
    item = library(page).filter(has=page.get_by_role("heading", name="sunset.png"))
    await item.wait_for()
    thumb = item.get_by_role("img")
    await thumb.evaluate("img => img.decode()")
    assert await thumb.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [320, 240]
    assert await thumb.get_attribute("data-thumbnail") == "made"
    assert "Dimensions 800 × 600" in " ".join((await item.inner_text()).split())

    # The same file again: found by its SHA-256 before any byte moves; no second item.
    storage_requests.clear()
    await page.get_by_label("Upload", exact=True).set_input_files(str(sunset))
    rows = upload_row(page, "sunset.png")
    await rows.nth(1).wait_for()
    state = await rows.first.get_attribute("data-state")
    assert state in ("duplicate", "checking", "uploading")
    await rows.first.and_(page.locator('[data-state="duplicate"]')).wait_for()
    assert "Already in the library as sunset.png" in await rows.first.text_content()
    assert "PUT" not in storage_requests
    assert await library(page).count() == 1

    # Dropped on the drop zone: a video, whose thumbnail is a frame of it.
    clip = base64.b64encode(mp4()).decode()
    await page.get_by_text("Choose files, or drop them here").evaluate(
        """(hint, data) => {
            const bytes = Uint8Array.from(atob(data), c => c.charCodeAt(0));
            const dropped = new DataTransfer();
            dropped.items.add(new File([bytes], "clip.mp4", {type: "video/mp4"}));
            hint.closest("[data-dropzone]").dispatchEvent(new DragEvent("drop", {dataTransfer: dropped, bubbles: true, cancelable: true}));
        }""",
        clip,
    )
    assert (await settled_row(page, "clip.mp4"))[0] == "uploaded"
    video = library(page).filter(has=page.get_by_role("heading", name="clip.mp4"))
    assert await video.get_by_role("img").get_attribute("data-thumbnail") == "made"
    await video.get_by_role("img").evaluate("img => img.decode()")
    assert await video.get_by_role("img").evaluate("img => img.naturalWidth") == 96
    assert await media_rows(media_engine, who) == [("sunset.png", "confirmed"), ("clip.mp4", "confirmed")]

    # After a reload too; and the page passes axe with its uploads and items.
    await check_page(page, artifacts_dir, backend, "media-uploads")
    await page.reload()
    assert await library(page).count() == 2
    # Each item's edit and delete forms, open.
    await page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    await check_page(page, artifacts_dir, backend, "media-library")


async def test_a_file_over_its_limit_is_refused_before_any_request(tab, media_engine, tmp_path) -> None:
    page = tab
    who = await human(media_engine)
    await sign_in(page, who.email)
    await page.goto(MEDIA)
    big = tmp_path / "huge.png"
    with big.open("wb") as out:  # 60 MB, sparse: the check reads the size, never the bytes
        out.truncate(60_000_000)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(f"{r.method} {r.url}") if r.method != "GET" else None)
    await page.get_by_label("Upload", exact=True).set_input_files(str(big))
    state, code, text = await settled_row(page, "huge.png")
    assert (state, code) == ("failed", "FILE_TOO_LARGE")
    assert "limited to 50 MB; this one is 60 MB" in text
    assert sent == []  # neither the presign endpoint nor the storage was asked anything
    assert await media_rows(media_engine, who) == []


async def test_a_storage_refusal_mid_upload_leaves_nothing_behind(tab, media_engine, media_stack, tmp_path) -> None:
    page = tab
    who = await human(media_engine)
    await sign_in(page, who.email)
    await page.goto(MEDIA)

    # The storage refuses the PUT: its URL altered on the way, the real server answers 403.
    async def altered(route) -> None:
        if route.request.method == "PUT":
            await route.continue_(url=route.request.url.replace("sig=", "sig=0"))
        else:
            await route.continue_()

    await page.route(f"{media_stack.storage_url}/**", altered)
    refused = tmp_path / "refused.png"
    refused.write_bytes(png(64, 64, (1, 200, 3)))
    await page.get_by_label("Upload", exact=True).set_input_files(str(refused))
    state, code, text = await settled_row(page, "refused.png")
    assert (state, code) == ("failed", "UPLOAD_URL_INVALID")
    assert text.endswith("Nothing was kept.")
    await page.unroute(f"{media_stack.storage_url}/**")

    # The connection drops mid-upload.
    await page.route(f"{media_stack.storage_url}/**", lambda route: route.abort("connectionreset"))
    dropped = tmp_path / "dropped.png"
    dropped.write_bytes(png(64, 64, (4, 5, 250)))
    await page.get_by_label("Upload", exact=True).set_input_files(str(dropped))
    state, code, _ = await settled_row(page, "dropped.png")
    assert (state, code) == ("failed", "UPLOAD_FAILED")

    # Nothing half-made: no media listed, and no record at all, pending ones included.
    assert await media_rows(media_engine, who) == []
    await page.reload()
    assert await library(page).count() == 0
    assert await page.locator("#no-media").is_visible()
