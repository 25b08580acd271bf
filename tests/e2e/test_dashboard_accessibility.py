"""Every dashboard page passes axe-core's WCAG 2.2 A and AA rules at a desktop width and at
390 px, with its lists filled and with an alert showing (docs/dashboard.md, "How a page is
built"). A new page adds its path here, or calls check_page in its own browser test."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

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
    "calendar": "/dashboard/calendar",
    "analytics": "/dashboard/analytics",
    "posts-filtered": "/dashboard/posts?tag=launch&status=scheduled&profile=a11y-bsky",
    "compose": "/dashboard/compose",
    "brand-voice": "/dashboard/brand-voice",
    "webhooks": "/dashboard/webhooks",
    "credits": "/dashboard/credits",
    "settings": "/dashboard/settings",
    "members": "/dashboard/members",
    "notifications": "/dashboard/notifications",
    "notifications-unread": "/dashboard/notifications?show=unread",
    "audit": "/dashboard/audit",
    # A refused input: the page with its alert.
    "posts-refused": "/dashboard/posts?page=not-a-page-token",
    "notifications-refused": "/dashboard/notifications?page=not-a-page-token",
    "audit-refused": "/dashboard/audit?from=not-a-date",
    "analytics-refused": "/dashboard/analytics?from=not-a-date",
}


async def test_every_page_passes_axe_at_desktop_and_phone_widths(
    page, http, orgs, worker, artifacts_dir, backend
) -> None:
    for name, path in SIGNED_OUT.items():
        await page.goto(path)
        await check_page(page, artifacts_dir, backend, f"a11y-{name}")

    org = await orgs()
    await orgs.profile(org, "a11y-x", "x", tags=("launch",))
    await orgs.profile(org, "a11y-bsky", "bluesky", tags=("launch",))
    created = await http.post(
        "/v1/posts", json={"content": "Hello from the a11y test.", "profiles": ["a11y-x"]}, headers=org.auth
    )
    assert created.status_code in (200, 201), created.text
    hook = await http.post(
        "/v1/webhooks", json={"url": "https://example.com/hooks/herald", "events": ["*"]}, headers=org.auth
    )
    assert hook.status_code == 201, hook.text
    # The members page with an open invitation; its link's page as a member signed in as another email.
    invited = await http.post(
        "/v1/invitations", json={"email": "a11y-invitee@example.com", "role": "editor"}, headers=org.auth
    )
    assert invited.status_code == 201, invited.text
    # A post's page with everything it can show: media, a thread, a first comment, the outbox
    # (published by the worker), and one whose "Cancel post" is enabled.
    threaded = await http.post(
        "/v1/posts",
        json={
            "content": "A post with a thread, a first comment and a photo: " + "long-unbroken-words" * 8,
            "profiles": ["a11y-x"],
            "media_ids": [await orgs.media(org)],
            "customizations": {"a11y-x": {"thread": [{"content": "Item one"}, {"content": "Item two"}]}},
            "first_comment": "The first comment.",
        },
        headers=org.auth,
    )
    assert threaded.status_code == 201, threaded.text
    threaded_id = threaded.json()["posts"][0]["id"]
    scheduled = await http.post(
        "/v1/posts",
        json={
            "content": "Later.",
            "profiles": ["a11y-x"],
            "schedule_at": (datetime.now(UTC) + timedelta(days=30)).isoformat(),
        },
        headers=org.auth,
    )
    assert scheduled.status_code == 201, scheduled.text
    # The posts page with a group of two destinations (its actions enabled) beside published ones.
    grouped = await http.post(
        "/v1/posts",
        json={
            "content": "One post, two destinations.",
            "profiles": ["a11y-x", "a11y-bsky"],
            "schedule_at": (datetime.now(UTC) + timedelta(days=2)).isoformat(),
        },
        headers=org.auth,
    )
    assert grouped.status_code == 201, grouped.text
    # Approvals: a contributor's post waiting (the review form; the overview's "Waiting for
    # approval"), and one rejected (a draft showing its review).
    contributor = await orgs.member(org, "contributor")
    waiting_ids = []
    for text in ("Waiting for a person.", "Rejected by a person."):
        submitted = await http.post(
            "/v1/posts",
            json={
                "content": text,
                "profiles": ["a11y-x"],
                "schedule_at": (datetime.now(UTC) + timedelta(days=3)).isoformat(),
            },
            headers=contributor.auth,
        )
        assert submitted.json()["posts"][0]["status"] == "pending_approval", submitted.text
        waiting_ids.append(submitted.json()["posts"][0]["id"])
    waiting, rejected = waiting_ids
    # The waiting post's comments, one mentioning its author; the worker tells the owner of the
    # waiting posts (the notifications page's list).
    noted = await http.post(
        f"/v1/posts/{waiting}/comments", json={"body": f"Shorter, @{contributor.email}?"}, headers=org.auth
    )
    assert noted.status_code == 201, noted.text
    refused = await http.post(f"/v1/posts/{rejected}/reject", json={"comment": "Not this one."}, headers=org.auth)
    assert refused.status_code == 200, refused.text
    for _ in range(300):
        if (await http.get(f"/v1/posts/{threaded_id}", headers=org.auth)).json()["status"] == "published":
            break
        await asyncio.sleep(0.1)
    pages = SIGNED_IN | {
        "webhook": f"/dashboard/webhooks/{hook.json()['id']}",
        "post": f"/dashboard/posts/{threaded_id}",
        "invitation": urlsplit(invited.json()["url"]).path,
        "post-scheduled": f"/dashboard/posts/{scheduled.json()['posts'][0]['id']}",
        "compose-edit": f"/dashboard/compose?edit={scheduled.json()['posts'][0]['id']}",
        "post-pending": f"/dashboard/posts/{waiting}",
        "post-reviewed": f"/dashboard/posts/{rejected}",
        "posts-pending": "/dashboard/posts?status=pending_approval",
    }

    await page.set_viewport_size({"width": 1280, "height": 800})
    await sign_in(page, org.email)
    for name, path in pages.items():
        await page.goto(path)
        if name in ("post", "post-scheduled"):  # the outbox's requests unfolded: they wrap at 390 px too
            await page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        await check_page(page, artifacts_dir, backend, f"a11y-{name}")
