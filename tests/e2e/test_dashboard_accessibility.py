"""Every dashboard page passes axe-core's WCAG 2.2 A and AA rules at a desktop width and at
390 px, with its lists filled and with an alert showing (docs/dashboard.md, "How a page is
built"). A new page adds its path here, or calls check_page in its own browser test."""

from __future__ import annotations

import pytest

from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in

# What axe-core finds depends on the templates, not on SQL.
pytestmark = pytest.mark.one_backend

SIGNED_OUT = {"landing": "/", "login": "/login", "signup": "/signup"}
SIGNED_IN = {
    "overview": "/dashboard",
    "keys": "/dashboard/keys",
    "agents": "/dashboard/agents",
    "profiles": "/dashboard/profiles",
    "media": "/dashboard/media",
    "posts": "/dashboard/posts",
    "brand-voice": "/dashboard/brand-voice",
    "webhooks": "/dashboard/webhooks",
    "credits": "/dashboard/credits",
    "settings": "/dashboard/settings",
    # A refused input: the page with its alert.
    "posts-refused": "/dashboard/posts?page=not-a-page-token",
}


async def test_every_page_passes_axe_at_desktop_and_phone_widths(page, http, orgs, artifacts_dir, backend) -> None:
    for name, path in SIGNED_OUT.items():
        await page.goto(path)
        await check_page(page, artifacts_dir, backend, f"a11y-{name}")

    org = await orgs()
    await orgs.profile(org, "a11y-x", "x")
    created = await http.post(
        "/v1/posts", json={"content": "Hello from the a11y test.", "profiles": ["a11y-x"]}, headers=org.auth
    )
    assert created.status_code in (200, 201), created.text
    hook = await http.post(
        "/v1/webhooks", json={"url": "https://example.com/hooks/herald", "events": ["*"]}, headers=org.auth
    )
    assert hook.status_code == 201, hook.text
    pages = SIGNED_IN | {"webhook": f"/dashboard/webhooks/{hook.json()['id']}"}

    await page.set_viewport_size({"width": 1280, "height": 800})
    await sign_in(page, org.email)
    for name, path in pages.items():
        await page.goto(path)
        await check_page(page, artifacts_dir, backend, f"a11y-{name}")
