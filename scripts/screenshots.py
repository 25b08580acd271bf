"""The dashboard's screenshots in docs/images/ (docs/dashboard.md, "Screenshots"), taken again.

    make screenshots                                   # or:
    .venv/bin/python scripts/screenshots.py [--out docs/images] [--keep]

Starts Herald on a SQLite database of its own (harness/stack.py: the core, the facade, the
storage and a worker, on free loopback ports), seeds a demo organization through /v1 as a
customer would (acme, in Europe/Paris: four sandbox profiles, three images made with Pillow, a
dozen posts around today: grouped ones, a thread with a first comment, one failed for lack of
credits, several published in the sandbox), then opens each page in Debian's chromium through
Playwright and writes one PNG per page. Posts can only be scheduled in the future, so the
published and failed ones are published now and then moved back to their day in the database:
the one thing done behind the API's back, so that the month holds a past as well as a future.

Each screenshot is the top of a page (`TALLEST` pixels at most) in a 1280 x 800 window, and one
at 390 px (a phone), written as optimized PNGs, quantized to 256 colours when larger than
`LIMIT`. The dates are today's: every run shows the month it runs in.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "generated")]

import httpx  # noqa: E402
from PIL import Image, ImageDraw, ImageFont  # noqa: E402

from harness.live import settled  # noqa: E402
from harness.stack import database, running_stack  # noqa: E402

ORG = "acme"
EMAIL = "camille@example.com"
PASSWORD = "a long demo password"
ZONE = ZoneInfo("Europe/Paris")
CHROMIUM = os.environ.get("HERALD_TEST_CHROMIUM", "/usr/bin/chromium")
# The browser tests' flags (tests/conftest.py): a closed network, a root user in a container.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TALLEST = 1400  # pixels of a page a screenshot shows, from its top
LIMIT = 250_000  # bytes a PNG may take before it is quantized

PROFILES = (
    # slug, platform, display name, tags
    ("acme-x", "x", "Acme on X", ("launch", "news")),
    ("acme-bsky", "bluesky", "Acme on Bluesky", ("launch", "news")),
    ("acme-li", "linkedin", "Acme (company page)", ("launch", "corporate")),
    ("acme-ig", "instagram", "Acme Workshop", ("launch", "visual")),
)

# name: (label, top colour, bottom colour, description, tags, added: days from today at 16:00)
IMAGES = {
    "autumn-collection.jpg": (
        "Autumn collection",
        (183, 65, 14),
        (240, 179, 76),
        "Three jackets in rust, ochre and olive on a wooden rail",
        "autumn,collection",
        -26,
    ),
    "workshop.jpg": (
        "In the workshop",
        (30, 64, 110),
        (120, 180, 210),
        "A tailor cutting denim on a long table in the Montreuil workshop",
        "workshop,behind-the-scenes",
        -25,
    ),
    "winter-collection.jpg": (
        "Winter collection",
        (60, 40, 110),
        (200, 200, 235),
        "A quilted coat and a wool scarf in the snow",
        "winter,collection,launch",
        -2,
    ),
}


@dataclass(frozen=True)
class Seed:
    """One request of POST /v1/posts, on a day (from today, in Paris) at a local time."""

    days: int
    at: str
    body: dict
    name: str = ""


THREAD = Seed(
    -17,
    "10:00",
    {
        "content": "Our autumn collection is here: six pieces, 61% recycled fibre, made in Montreuil. "
        "A short thread on how we made it.",
        "profiles": ["acme-x"],
        "media": ["autumn-collection.jpg"],
        "thread": [
            {"content": "The denim comes from offcuts of our own workshop: nothing bought new for the trousers."},
            {"content": "Every seam is double-stitched, and every jacket comes with free repairs for life."},
        ],
        "first_comment": "Sizes, prices and the lookbook: https://acme.example/autumn",
    },
    "thread",
)
PUBLISHED = (
    Seed(
        -24,
        "09:00",
        {
            "content": "We're hiring: two backend engineers for the Paris workshop team. Python, PostgreSQL, "
            "and a love of well-made things. https://acme.example/jobs",
            "profiles": ["acme-x", "acme-bsky", "acme-li"],
        },
    ),
    Seed(
        -21,
        "12:30",
        {
            "content": "Behind the scenes: every jacket is cut and sewn in our workshop in Montreuil.",
            "profiles": ["acme-ig"],
            "media": ["workshop.jpg"],
            "first_comment": "Workshop tours every Saturday: link in bio",
        },
    ),
    THREAD,
    Seed(
        -14,
        "18:00",
        {
            "content": "Office hours tonight at 19:00: ask us anything about sizing, repairs and care.",
            "profiles": ["acme-bsky"],
        },
    ),
    Seed(
        -10,
        "09:30",
        {
            "content": "Our impact report for the third quarter is out: 61% recycled fibre across the range, "
            "up from 48% a year ago.",
            "profiles": ["acme-li"],
        },
    ),
    Seed(
        -7,
        "11:00",
        {
            "content": "Repair week: bring any Acme jacket to the shop and we mend it for free.",
            "profiles": ["acme-x", "acme-bsky", "acme-ig"],
            "media": ["workshop.jpg"],
        },
    ),
    Seed(
        -3,
        "14:00",
        {
            "content": "Ten years of Acme. Thank you for wearing, mending and passing on our clothes.",
            "profiles": ["acme-x", "acme-li"],
        },
    ),
)
# Created while the balance is 0: the worker fails it with insufficient_credits.
FAILED = Seed(
    -1,
    "08:00",
    {
        "content": "Black Friday at Acme: nothing on sale, but every repair is free until Sunday.",
        "profiles": ["acme-x"],
    },
)
SCHEDULED = (
    Seed(
        1,
        "09:00",
        {
            "content": "The winter collection lands on Monday: quilted coats, wool scarves, and the return of "
            "the fisherman's jumper.",
            "profiles": ["acme-x", "acme-bsky", "acme-li", "acme-ig"],
            "media": ["winter-collection.jpg"],
        },
    ),
    Seed(
        2,
        "17:30",
        {
            "content": "Join our webinar on circular fashion: how we design clothes to be repaired, not replaced.",
            "profiles": ["acme-li"],
        },
    ),
    Seed(
        3,
        "08:30",
        {
            "content": "December newsletter: the repair café, gift cards, opening hours.",
            "profiles": ["acme-x"],
            "draft": True,
        },
    ),
    Seed(
        5,
        "10:00",
        {
            "content": "Five ways to make a wool jumper last twenty years.",
            "profiles": ["acme-bsky"],
            "thread": [
                {"content": "1. Wash it rarely, by hand, and dry it flat."},
                {"content": "2. Fold it: a hanger stretches the shoulders."},
            ],
        },
    ),
    Seed(
        8,
        "12:00",
        {
            "content": "Holiday opening hours: the shop is open every day until the 24th, 10:00 to 19:00.",
            "profiles": ["acme-x", "acme-bsky"],
        },
    ),
)


def local_instant(days: int, at: str) -> datetime:
    """`at` (HH:MM) in Paris, `days` from today's Paris date."""
    day = datetime.now(ZONE).date() + timedelta(days=days)
    hour, minute = (int(part) for part in at.split(":"))
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=ZONE)


def image_bytes(label: str, top: tuple[int, int, int], bottom: tuple[int, int, int]) -> bytes:
    """A 1200 x 1200 JPEG: a vertical gradient with its label."""
    size = 1200
    gradient = Image.new("RGB", (1, size))
    for y in range(size):
        t = y / (size - 1)
        gradient.putpixel((0, y), tuple(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True)))
    image = gradient.resize((size, size))
    draw = ImageDraw.Draw(image)
    try:
        font = ImageFont.truetype("DejaVuSans-Bold.ttf", 96)
    except OSError:
        font = ImageFont.load_default(size=96)
    draw.text((size / 2, size / 2), label, font=font, fill=(255, 255, 255), anchor="mm")
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


async def expect_status(response: httpx.Response, *statuses: int) -> dict:
    if response.status_code not in statuses:
        raise RuntimeError(f"{response.request.method} {response.request.url}: {response.status_code} {response.text}")
    return response.json()


async def upload(http: httpx.AsyncClient, name: str) -> str:
    """Presign, PUT to the storage, confirm, then the description and tags (docs/media.md)."""
    label, top, bottom, description, tags, _ = IMAGES[name]
    data = image_bytes(label, top, bottom)
    ticket = await expect_status(
        await http.post(
            "/v1/media/presign", json={"filename": name, "mime_type": "image/jpeg", "size_bytes": len(data)}
        ),
        201,
    )
    async with httpx.AsyncClient(timeout=30) as storage:
        put = await storage.put(ticket["upload_url"], content=data, headers={"Content-Type": "image/jpeg"})
        if put.status_code >= 300:
            raise RuntimeError(f"PUT {name}: {put.status_code} {put.text}")
    media = await expect_status(await http.post(f"/v1/media/{ticket['media_id']}/confirm"), 200)
    await expect_status(
        await http.patch(f"/v1/media/{media['media_id']}", json={"description": description, "tags": tags}), 200
    )
    return media["media_id"]


def request_body(seed: Seed, media: dict[str, str], *, now: bool) -> dict:
    body = {k: v for k, v in seed.body.items() if k != "media"}
    if seed.body.get("media"):
        body["media_ids"] = [media[name] for name in seed.body["media"]]
    if not now:
        body["schedule_at"] = local_instant(seed.days, seed.at).isoformat()
    return body


async def create(http: httpx.AsyncClient, seed: Seed, media: dict[str, str], *, now: bool) -> list[str]:
    created = await expect_status(await http.post("/v1/posts", json=request_body(seed, media, now=now)), 201)
    return [post["id"] for post in created["posts"]]


async def settle(http: httpx.AsyncClient, post_ids: list[str], status: str) -> None:
    """Waits for the worker to be done with each post, which must then be `status`."""
    for post_id in post_ids:
        post = await settled(http, {}, post_id, within=60)  # the client carries the key
        if post["status"] != status:
            raise RuntimeError(f"{post_id} is {post['status']}, not {status}: {post.get('failure_reason')}")


async def move_back(database_url: str, moves: dict[str, datetime], added: dict[str, datetime]) -> None:
    """Puts published and failed posts (and their outbox entries) on the day they stand for, and
    media on the day they were added."""
    from sqlalchemy import update
    from sqlalchemy.ext.asyncio import create_async_engine

    from core.db.models import post_metric_series
    from core.db.models.posts import Media, OutboxEntry, Post

    engine = create_async_engine(database_url)
    try:
        async with engine.begin() as conn:
            for post_id, at in moves.items():
                out = at + timedelta(seconds=2)
                await conn.execute(
                    update(Post)
                    .where(Post.id == post_id)
                    .values(schedule_at=at, due_at=at, created_at=at - timedelta(days=1), updated_at=out)
                )
                await conn.execute(
                    update(Post).where(Post.id == post_id, Post.published_at.is_not(None)).values(published_at=out)
                )
                # Its metrics' series too: the analytics page sums posts by the day they went out.
                await conn.execute(
                    update(post_metric_series).where(post_metric_series.c.post_id == post_id).values(published_at=out)
                )
                await conn.execute(update(OutboxEntry).where(OutboxEntry.post_id == post_id).values(created_at=out))
            for media_id, at in added.items():
                await conn.execute(update(Media).where(Media.id == media_id).values(created_at=at, confirmed_at=at))
    finally:
        await engine.dispose()


async def seed(base_url: str, database_url: str) -> dict[str, str]:
    """The demo organization; answers the ids the screenshots need."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from core import admin

    engine = create_async_engine(database_url)
    try:
        key = (await admin.bootstrap(engine, email=EMAIL, password=PASSWORD, org=ORG, credits_=0, plan="active"))[
            "api_key"
        ]
        for slug, platform, display_name, tags in PROFILES:
            await admin.add_profile(
                engine, org=ORG, slug=slug, platform=platform, tags=list(tags), display_name=display_name, language="en"
            )
    finally:
        await engine.dispose()
    moves: dict[str, datetime] = {}
    async with httpx.AsyncClient(base_url=base_url, timeout=30, headers={"Authorization": f"Bearer {key}"}) as http:
        await expect_status(await http.patch("/v1/organization", json={"name": "Acme", "time_zone": ZONE.key}), 200)
        failed = await create(http, FAILED, {}, now=True)
        await settle(http, failed, "failed")
        moves |= dict.fromkeys(failed, local_instant(FAILED.days, FAILED.at))
        engine = create_async_engine(database_url)
        try:
            await admin.add_credits(engine, org=ORG, amount=500)
        finally:
            await engine.dispose()
        media = {name: await upload(http, name) for name in IMAGES}
        ids: dict[str, str] = {}
        for item in PUBLISHED:
            post_ids = await create(http, item, media, now=True)
            await settle(http, post_ids, "published")
            moves |= dict.fromkeys(post_ids, local_instant(item.days, item.at))
            if item.name:
                ids[item.name] = post_ids[0]
        for item in SCHEDULED:
            await create(http, item, media, now=False)
        # Their metrics read twice: just out (the sandbox's first numbers), then once moved back
        # to their day (what they grew to), so a post's page has a history to draw.
        published = [post_id for post_id in moves if post_id not in failed]
        await read_metrics(http, published)
    added = {media[name]: local_instant(IMAGES[name][-1], "16:00") for name in IMAGES}
    await move_back(database_url, moves, added)
    async with httpx.AsyncClient(base_url=base_url, timeout=30, headers={"Authorization": f"Bearer {key}"}) as http:
        await read_metrics(http, published)
    return ids


async def readings(http: httpx.AsyncClient, post_id: str) -> int:
    body = await expect_status(await http.get(f"/v1/posts/{post_id}/metrics"), 200)
    return 0 if body["collected_at"] is None else 1 + len(body["history"])


async def read_metrics(http: httpx.AsyncClient, post_ids: list[str]) -> None:
    """One more read of each published post's metrics, now (a refresh each, then the worker's
    read), at the post's age: the sandbox's numbers grow with it."""
    before = {post_id: await readings(http, post_id) for post_id in post_ids}
    for post_id in post_ids:
        await expect_status(await http.post(f"/v1/posts/{post_id}/metrics/refresh"), 202)
    deadline = time.monotonic() + 60
    for post_id in post_ids:
        while await readings(http, post_id) <= before[post_id]:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the metrics of {post_id} were not read within 60 s")
            await asyncio.sleep(0.2)


def save_png(raw: bytes, path: Path) -> int:
    """Writes an optimized PNG, quantized to 256 colours when it would be over LIMIT; its size."""
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    image.save(path, optimize=True)
    if path.stat().st_size > LIMIT:
        image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)
    return path.stat().st_size


async def shoot(base_url: str, ids: dict[str, str], out: Path) -> list[tuple[Path, int]]:
    from playwright.async_api import async_playwright, expect

    written: list[tuple[Path, int]] = []

    async def save(page, name: str, section: str = "") -> None:
        """The page from its top (or from the element `section` names), as wide as the window
        and at most TALLEST pixels tall."""
        await page.wait_for_load_state("networkidle")
        await page.evaluate("() => document.activeElement && document.activeElement.blur()")
        width, full = await page.evaluate("() => [window.innerWidth, document.documentElement.scrollHeight]")
        top = 0
        if section:
            top = max(0, int((await page.locator(section).bounding_box())["y"] + await page.evaluate("scrollY")) - 16)
        clip = {"x": 0, "y": top, "width": width, "height": min(full - top, TALLEST)}
        path = out / f"dashboard-{name}.png"
        written.append((path, save_png(await page.screenshot(full_page=True, clip=clip), path)))

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context(
                base_url=base_url, viewport=DESKTOP, timezone_id=ZONE.key, locale="en-GB"
            )
            page = await context.new_page()
            await page.goto("/login")
            await page.get_by_label("Email").fill(EMAIL)
            await page.get_by_label("Password").fill(PASSWORD)
            await page.get_by_role("button", name="Sign in").click()
            await page.wait_for_url("**/dashboard")
            await save(page, "overview")

            await page.goto("/dashboard/compose")
            await page.get_by_role("textbox", name="Content", exact=True).fill(
                "Gift cards are back: any amount, printed on recycled card, valid for repairs too. "
                "https://acme.example/gifts"
            )
            await page.get_by_role("button", name="Select all of launch", exact=True).click()
            await page.get_by_role("checkbox", name="winter-collection.jpg").check()
            await page.get_by_label("First comment", exact=True).fill("Order by the 18th for delivery before the 24th.")
            await page.get_by_label("Schedule at").fill(local_instant(6, "10:00").strftime("%Y-%m-%dT%H:%M"))
            await page.locator("#compose-summary .verdict").get_by_text("Ready for all 4 destinations").wait_for()
            await expect(page.get_by_role("button", name="Schedule", exact=True)).to_be_enabled()
            await save(page, "compose")

            await page.goto("/dashboard/calendar?view=month")
            await page.locator("#calendar a").first.wait_for()
            await save(page, "calendar")

            await page.goto("/dashboard/posts")
            await save(page, "posts")

            await page.goto(f"/dashboard/posts/{ids['thread']}")
            await save(page, "post")
            await save(page, "post-metrics", "#metrics")

            await page.goto("/dashboard/analytics")
            await page.locator("#daily-chart[data-drawn]").wait_for()
            await save(page, "analytics")

            await page.goto("/dashboard/media")
            await save(page, "media")

            await page.goto("/dashboard/profiles")
            await save(page, "profiles")

            # A phone opens the calendar on its list (docs/dashboard.md, "Calendar").
            await page.set_viewport_size(PHONE)
            await page.goto("/dashboard/calendar")
            await page.locator("#calendar a").first.wait_for()
            await save(page, "calendar-phone")
            await context.close()
        finally:
            await browser.close()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="where the PNGs go")
    parser.add_argument("--keep", action="store_true", help="keep the stack's directory (database, logs)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="herald-screenshots-"))
    try:
        with database("sqlite", workdir) as url, running_stack(url, workdir) as stack:
            stack.start_worker("worker", HERALD_PUBLISH_POLL_SECONDS="0.05", HERALD_METRICS_READ_POLL_SECONDS="0.2")
            try:
                ids = asyncio.run(seed(stack.base_url, url))
                written = asyncio.run(shoot(stack.base_url, ids, args.out))
            except Exception:
                print(stack.logs(), file=sys.stderr)
                raise
    finally:
        if args.keep:
            print(f"stack directory: {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    for path, size in written:
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}  {size / 1000:.0f} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
