"""Fixtures: every test that needs the service runs once per database backend (SQLite and
PostgreSQL) against the real core and facade processes."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from core import admin
from harness.stack import Stack, database, running_stack, stop_processes

# Fixtures of their own modules, offered to every test: the demo stock provider (`demo`) and the
# OpenAI-compatible fake (`fake_chat`).
pytest_plugins = ["tests.stock_demo", "tests.generation_fake"]

BACKENDS = [b for b in os.environ.get("HERALD_TEST_BACKENDS", "sqlite,postgresql").split(",") if b]
LOW_CREDIT_THRESHOLD = 50


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.hookimpl(tryfirst=True)  # before xdist's loadgroup reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `one_backend` check what no SQL decides (a surface's protocol, its argument
    checks, a client's flow): they run on one backend only (the first, or the one the marker
    names), which keeps CI's time for what the database does decide."""
    keep, dropped = [], []
    for item in items:
        backend = getattr(item, "callspec", None) and item.callspec.params.get("backend")
        one = item.get_closest_marker("one_backend")
        wanted = one.args[0] if one is not None and one.args and one.args[0] in BACKENDS else BACKENDS[0]
        if backend and one is not None and backend != wanted:
            dropped.append(item)
            continue
        keep.append(item)
        if backend:
            # Under `pytest -n 3 --dist loadgroup` (make test) each backend's tests share one
            # worker, so that worker starts one backend's stack. A one-backend module is a group
            # of its own, handed to whichever worker is free (the third from the start, the two
            # backends' once their big groups run out: xdist hands out the largest first): it
            # balances the workers, and its module-scoped stacks start once.
            group = f"{backend}:{item.module.__name__}" if one is not None else backend
            item.add_marker(pytest.mark.xdist_group(group))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.fixture(scope="session")
def database_url(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with database(backend, tmp_path_factory.mktemp(f"db-{backend}")) as url:
        yield url


@pytest.fixture(scope="session")
def stack(database_url: str, backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    workdir = tmp_path_factory.mktemp(f"stack-{backend}")
    with running_stack(database_url, workdir, HERALD_LOW_CREDIT_THRESHOLD=str(LOW_CREDIT_THRESHOLD)) as s:
        yield s


def stack_of_its_own(name: str, **settings: str) -> object:
    """A module-scoped fixture for a module that needs settings the shared stack does not have
    (small rate limits, sign-up closed): a core and a facade of the module's own on the
    session's database, started with `settings`. Assign it to the fixture's name:
    `limited = stack_of_its_own("oauth-limits", HERALD_RATE_LIMIT_OAUTH_CLIENT="3/60")`."""

    @pytest.fixture(scope="module")
    def fixture(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
        with running_stack(database_url, tmp_path_factory.mktemp(name), **settings) as stack:
            yield stack

    return fixture


@pytest.fixture(scope="session")
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    eng = (
        create_async_engine(database_url, pool_size=5)
        if "postgresql" in database_url
        else create_async_engine(database_url)
    )
    yield eng
    await eng.dispose()


@pytest.fixture
async def http(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as client:
        yield client


@pytest.fixture(scope="session")
async def channel(stack: Stack) -> AsyncIterator[grpc.aio.Channel]:
    ch = grpc.aio.insecure_channel(stack.core_target)
    yield ch
    await ch.close()


SHORT_SLUGS = {"bluesky": "bsky", "linkedin": "li", "instagram": "ig", "youtube": "yt"}


@dataclass(frozen=True)
class Org:
    slug: str
    org_id: str
    user_id: str
    email: str
    api_key: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.api_key}"),)


class OrgFactory:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def __call__(self, *, credits: int = 1000, plan: str = "active", email: str | None = None) -> Org:
        slug = f"org-{uuid.uuid4().hex[:10]}"
        email = email or f"{slug}@example.com"
        out = await admin.bootstrap(
            self.engine, email=email, password="correct horse battery", org=slug, credits_=credits, plan=plan
        )
        return Org(slug, out["org_id"], out["user_id"], email, out["api_key"])

    async def new_key(self, org: Org) -> str:
        out = await admin.bootstrap(
            self.engine, email=org.email, password="correct horse battery", org=org.slug, credits_=None, plan=None
        )
        return out["api_key"]

    async def member(self, org: Org, role: str, *, email: str | None = None) -> Org:
        """Another person in `org` with `role` and an API key of their own (as an owner's bootstrap
        of the same organization makes them, then given the role in the membership's row)."""
        from core.db.models import memberships

        email = email or f"{role}-{uuid.uuid4().hex[:8]}@example.com"
        out = await admin.bootstrap(
            self.engine, email=email, password="correct horse battery", org=org.slug, credits_=None, plan=None
        )
        async with self.engine.begin() as conn:
            await conn.execute(
                memberships.update()
                .where(memberships.c.org_id == org.org_id, memberships.c.user_id == out["user_id"])
                .values(role=role)
            )
        return Org(org.slug, org.org_id, out["user_id"], email, out["api_key"])

    async def profile(self, org: Org, slug: str, platform: str = "x", tags: tuple[str, ...] = ()) -> dict:
        return await admin.add_profile(self.engine, org=org.slug, slug=slug, platform=platform, tags=list(tags))

    async def with_profiles(self, *platforms: str, credits: int = 100) -> Org:
        """A new organization with a sandbox profile per platform, each `acme-<slug>`
        (`acme-bsky` for bluesky, `acme-li` for linkedin, `acme-ig` for instagram, `acme-yt` for
        youtube, else `acme-<platform>`)."""
        org = await self(credits=credits)
        for platform in platforms:
            await self.profile(org, f"acme-{SHORT_SLUGS.get(platform, platform)}", platform)
        return org

    async def media(
        self,
        org: Org,
        kind: str = "image",
        *,
        status: str = "confirmed",
        mime_type: str | None = None,
        size_bytes: int = 200_000,
        width: int | None = 1080,
        height: int | None = 1080,
    ) -> str:
        """A media library row, as the upload flow (issue 4) will leave it."""
        from core.db.models import media
        from core.db.types import utcnow
        from core.ids import new_id

        mime = mime_type or {"image": "image/jpeg", "gif": "image/gif", "video": "video/mp4"}[kind]
        media_id = new_id("med")
        async with self.engine.begin() as conn:
            await conn.execute(
                media.insert().values(
                    id=media_id,
                    org_id=org.org_id,
                    kind=kind,
                    mime_type=mime,
                    size_bytes=size_bytes,
                    name=f"{media_id}.bin",
                    description="",
                    tags="",
                    status=status,
                    content_hash=None,
                    width=width,
                    height=height,
                    storage_key=f"test/{media_id}",
                    created_at=utcnow(),
                    confirmed_at=utcnow() if status == "confirmed" else None,
                )
            )
        return media_id


@pytest.fixture
def orgs(engine: AsyncEngine) -> OrgFactory:
    return OrgFactory(engine)


@pytest.fixture
def artifacts_dir() -> Path:
    path = Path(__file__).resolve().parent.parent / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture
def http_sync(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.base_url, timeout=30) as client:
        yield client


@pytest.fixture(scope="session")
def worker(stack: Stack) -> Iterator[None]:
    """One publisher process on the stack's database, polling fast."""
    proc = stack.spawn("core", "worker", log_name="worker", env={"HERALD_PUBLISH_POLL_SECONDS": "0.05"})
    yield
    stop_processes([proc])


CHROMIUM = os.environ.get("HERALD_TEST_CHROMIUM", "/usr/bin/chromium")
# Flags for a closed network (no background calls home) and a root user in a container.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[object]:
    """Debian's chromium, headless, driven by Playwright (never a downloaded browser)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        instance = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield instance
        await instance.close()


@pytest.fixture
async def page(browser, stack: Stack) -> AsyncIterator[object]:  # playwright Browser
    """A fresh browser context (no cookies) on the stack's base URL."""
    context = await browser.new_context(base_url=stack.base_url)
    tab = await context.new_page()
    yield tab
    await context.close()
