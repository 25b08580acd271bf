"""A post's page in the dashboard over plain HTTP (docs/dashboard.md, "Post detail"): the post, its
thread and first comment, its media and its outbox; a sandbox delivery's `url` (the post's, each
thread item's, the outbox entries') is that page at the part's entry (docs/posts.md, "Sandbox
links"), and it answers the signed-in owner; "Cancel post" and "Retry" work, refuse a form
without its CSRF token, and show a refusal (INVALID_POST_STATE) on the page; another
organization's post, an unknown and a malformed id are 404 on every page and action."""

from __future__ import annotations

import re

import httpx
import pytest

from core import admin
from harness.live import settled
from tests.conftest import Org
from tests.dashboard_forms import form_token, signed_in
from tests.posts_api import create, later

ALERT_CODE = re.compile(r'role="alert" id="post-error" data-code="([A-Z_]+)"')


async def status_of(http: httpx.AsyncClient, org: Org, post_id: str) -> str:
    return (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json()["status"]


def disabled_with_reason(page: str, name: str) -> bool:
    """Whether the button named `name` is there, disabled, and described by a reason shown on the page."""
    found = re.search(rf'<button type="submit"[^>]*disabled aria-describedby="([a-z-]+)"[^>]*>{name}</button>', page)
    return found is not None and re.search(rf'id="{found.group(1)}">[^<]+</p>', page) is not None


def enabled(page: str, name: str) -> bool:
    found = re.search(rf'<button type="submit"([^>]*)>{name}</button>', page)
    return found is not None and "disabled" not in found.group(1)


@pytest.mark.usefixtures("worker")
async def test_a_sandbox_post_links_to_its_page_which_shows_its_parts_and_outbox(stack, orgs) -> None:
    org = await orgs.with_profiles("x")
    image = await orgs.media(org)
    body = {
        "content": "Launch day\nwith two lines",
        "profiles": ["acme-x"],
        "media_ids": [image],
        "customizations": {"acme-x": {"thread": [{"content": "Item one"}, {"content": "Item two"}]}},
        "first_comment": "And a first comment",
    }
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        post_id = await create(http, org, body)
        post = await settled(http, org.auth, post_id)
        assert post["status"] == "published", post

        # The post's, each thread item's and each outbox entry's url: this page, at the part's entry.
        page_url = f"{stack.base_url}/dashboard/posts/{post_id}"
        assert post["url"] == f"{page_url}#outbox-post"
        assert [t["url"] for t in post["thread"]] == [f"{page_url}#outbox-thread-0", f"{page_url}#outbox-thread-1"]
        entries = (await http.get(f"/v1/posts/{post_id}/outbox", headers=org.auth)).json()["entries"]
        assert [(e["part"], e["url"]) for e in entries] == [
            ("post", f"{page_url}#outbox-post"),
            ("thread", f"{page_url}#outbox-thread-0"),
            ("thread", f"{page_url}#outbox-thread-1"),
            ("first_comment", f"{page_url}#outbox-first-comment"),
        ]
        # The platform ids stay the sandbox's: each reply names the one before it.
        assert post["platform_post_id"] and all(t["platform_post_id"] for t in post["thread"])

        await signed_in(http, org.email)
        shown = await http.get(post["url"])  # the fragment stays in the browser
        assert shown.status_code == 200, shown.text
        page = shown.text
        for anchor in ("outbox-post", "outbox-thread-0", "outbox-thread-1", "outbox-first-comment"):
            assert page.count(f'id="{anchor}"') == 1, anchor
            assert f'href="#{anchor}"' in page, anchor  # each part links to its own entry
        assert 'id="post-status" data-status="published"' in page
        assert "Launch day\nwith two lines" in page  # the text as written
        assert "Item one" in page and "Item two" in page and "And a first comment" in page
        assert f'data-media="{image}"' in page and f"{image}.bin" in page  # id, type and name
        assert "https://api.x.com/2/tweets" in page  # the requests X would have received
        # Published: nothing to cancel or retry, and the page says why.
        assert disabled_with_reason(page, "Cancel post") and disabled_with_reason(page, "Retry")

        # The posts list links each post to its page, and a sandbox post to its outbox entry.
        listed = (await http.get("/dashboard/posts")).text
        assert f'href="/dashboard/posts/{post_id}"' in listed
        assert f'href="/dashboard/posts/{post_id}#outbox-post"' in listed


@pytest.mark.one_backend
async def test_cancel_post_cancels_a_scheduled_post_and_refuses_a_form_without_its_token(stack, orgs) -> None:
    org = await orgs.with_profiles("x")
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        post_id = await create(http, org, {"content": "Later", "profiles": ["acme-x"], "schedule_at": later()})
        token = await signed_in(http, org.email, f"/dashboard/posts/{post_id}")
        page = (await http.get(f"/dashboard/posts/{post_id}")).text
        assert enabled(page, "Cancel post") and disabled_with_reason(page, "Retry")

        async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as stranger:
            foreign = await signed_in(stranger, (await orgs()).email)
        for wrong in (None, "", "x" * 43, foreign, token + "x"):
            data = {} if wrong is None else {"csrf_token": wrong}
            for action in ("cancel", "retry"):
                refused = await http.post(f"/dashboard/posts/{post_id}/{action}", data=data)
                assert refused.status_code == 403, (action, wrong)
        assert await status_of(http, org, post_id) == "scheduled"

        done = await http.post(f"/dashboard/posts/{post_id}/cancel", data={"csrf_token": token})
        assert done.status_code == 303
        assert done.headers["location"] == f"/dashboard/posts/{post_id}?notice=post-canceled"
        assert await status_of(http, org, post_id) == "canceled"
        after = (await http.get(done.headers["location"])).text
        assert 'class="flash" role="status"' in after and 'data-status="canceled"' in after
        assert disabled_with_reason(after, "Cancel post")


@pytest.mark.one_backend
async def test_a_refused_action_is_shown_on_the_page_and_changes_nothing(stack, orgs) -> None:
    org = await orgs.with_profiles("x")
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        post_id = await create(http, org, {"content": "Later", "profiles": ["acme-x"], "schedule_at": later()})
        token = await signed_in(http, org.email)
        # A scheduled post is not failed: Retry is refused by the core, on the page.
        refused = await http.post(f"/dashboard/posts/{post_id}/retry", data={"csrf_token": token})
        assert refused.status_code == 409
        assert ALERT_CODE.findall(refused.text) == ["INVALID_POST_STATE"]
        assert refused.text.count('role="alert"') == 1
        assert 'data-status="scheduled"' in refused.text  # the post as it is
        # Canceled twice: the second is refused the same way.
        assert (await http.post(f"/dashboard/posts/{post_id}/cancel", data={"csrf_token": token})).status_code == 303
        again = await http.post(f"/dashboard/posts/{post_id}/cancel", data={"csrf_token": token})
        assert again.status_code == 409 and ALERT_CODE.findall(again.text) == ["INVALID_POST_STATE"]
        assert await status_of(http, org, post_id) == "canceled"


@pytest.mark.usefixtures("worker")
async def test_cancel_is_refused_for_a_published_post_and_retry_requeues_a_failed_one(stack, orgs, engine) -> None:
    org = await orgs.with_profiles("x", credits=0)
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        post_id = await create(http, org, {"content": "Out of credits", "profiles": ["acme-x"]})
        failed = await settled(http, org.auth, post_id)
        assert (failed["status"], failed["failure_reason"]) == ("failed", "insufficient_credits")
        token = await signed_in(http, org.email)
        page = (await http.get(f"/dashboard/posts/{post_id}")).text
        assert 'id="post-failure" data-code="insufficient_credits"' in page
        assert enabled(page, "Retry") and disabled_with_reason(page, "Cancel post")

        await admin.add_credits(engine, org=org.slug, amount=5)
        retried = await http.post(f"/dashboard/posts/{post_id}/retry", data={"csrf_token": token})
        assert retried.status_code == 303
        assert retried.headers["location"] == f"/dashboard/posts/{post_id}?notice=post-retried"
        published = await settled(http, org.auth, post_id)
        assert published["status"] == "published", published

        refused = await http.post(f"/dashboard/posts/{post_id}/cancel", data={"csrf_token": token})
        assert refused.status_code == 409
        assert ALERT_CODE.findall(refused.text) == ["INVALID_POST_STATE"]
        assert await status_of(http, org, post_id) == "published"
        assert (await http.get("/v1/credits", headers=org.auth)).json()["balance"] == 4  # charged once, kept


@pytest.mark.one_backend
async def test_another_organizations_post_and_unknown_or_malformed_ids_are_404(stack, orgs) -> None:
    owner = await orgs.with_profiles("x")
    other = await orgs.with_profiles("x")
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        theirs = await create(http, owner, {"content": "Not yours", "profiles": ["acme-x"], "schedule_at": later()})
        token = await signed_in(http, other.email)
        for post_id in (theirs, "pst_00000000000000000000000000", "not-a-post", "pst_%00", "pst_" + "a" * 200):
            page = await http.get(f"/dashboard/posts/{post_id}")
            assert page.status_code == 404, post_id
            assert page.headers["content-type"].startswith("text/html")
            assert "Not yours" not in page.text
            for action in ("cancel", "retry"):
                refused = await http.post(f"/dashboard/posts/{post_id}/{action}", data={"csrf_token": token})
                assert refused.status_code == 404, (post_id, action)
        assert await status_of(http, owner, theirs) == "scheduled"
        # Signed out: the sign-in page, then back here.
        http.cookies.clear()
        away = await http.get(f"/dashboard/posts/{theirs}")
        assert away.status_code == 303 and away.headers["location"].startswith("/login?next=")
        assert form_token(await http.get("/login"))
