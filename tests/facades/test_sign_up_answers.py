"""POST /signup answers the same for a new email and for one that has an account (nothing in
the status, the headers or the body tells them apart), the new account then signs in to its
organization with its starter credits, and the other attempt changes nothing. A taken
organization slug is a 409 whatever the email."""

from __future__ import annotations

import re
import uuid

import httpx
import pytest
from sqlalchemy import select

from core.db.models import organizations
from tests.dashboard_forms import PASSWORD, form_token

# Different on every answer by nature: the clock and the request's id.
PER_REQUEST = {"date", "x-request-id"}


def shape(response: httpx.Response) -> tuple:
    """Everything an observer sees, but the per-request headers and the cookies' values."""
    headers = sorted((k, v) for k, v in response.headers.multi_items() if k not in PER_REQUEST | {"set-cookie"})
    cookies = sorted(
        (c.split("=", 1)[0], sorted(a.strip().lower() for a in c.split(";")[1:]))
        for c in response.headers.get_list("set-cookie")
    )
    return response.status_code, headers, cookies, response.content


def slug() -> str:
    return f"su-{uuid.uuid4().hex[:10]}"


@pytest.fixture
async def browser_like(stack) -> httpx.AsyncClient:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as client:
        yield client


async def test_sign_up_answers_alike_for_a_new_and_a_taken_email(browser_like, orgs, engine) -> None:
    http = browser_like
    existing = await orgs()
    token = form_token(await http.get("/signup"))
    new_slug, unused_slug = slug(), slug()
    new_email = f"{new_slug}@example.com"
    new = await http.post(
        "/signup", data={"csrf_token": token, "email": new_email, "password": PASSWORD, "organization": new_slug}
    )
    taken = await http.post(
        "/signup",
        data={
            "csrf_token": token,
            "email": existing.email.upper(),
            "password": "another password",
            "organization": unused_slug,
        },
    )
    assert new.status_code == 303
    assert new.headers["location"] == "/login?notice=signed-up"
    assert shape(new) == shape(taken)
    assert "herald_session" not in http.cookies

    # The sign-in page speaks to both cases, with the email filled in.
    http.cookies.clear()
    http.cookies.set("herald_signup_email", new.cookies["herald_signup_email"])
    page = await http.get(new.headers["location"])
    assert page.status_code == 200
    assert 'role="status"' in page.text and "If this email is new" in page.text
    assert f'value="{new_email}"' in page.text

    # The new account signs in and lands in its organization, with its starter credits.
    signed_in = await http.post(
        "/login", data={"csrf_token": form_token(page), "email": new_email, "password": PASSWORD}
    )
    assert signed_in.status_code == 303 and signed_in.headers["location"] == "/dashboard"
    overview = await http.get("/dashboard")
    assert f'id="organization">{new_slug}<' in overview.text
    assert 'id="balance">100<' in overview.text  # HERALD_SIGNUP_CREDITS

    # The taken email's attempt created nothing and changed nothing.
    async with engine.connect() as conn:
        assert await conn.scalar(select(organizations.c.id).where(organizations.c.slug == unused_slug)) is None
    async with httpx.AsyncClient(base_url=str(http.base_url), timeout=30) as other:
        login = form_token(await other.get("/login"))
        wrong = await other.post(
            "/login", data={"csrf_token": login, "email": existing.email, "password": "another password"}
        )
        assert wrong.status_code == 401
        right = await other.post("/login", data={"csrf_token": login, "email": existing.email, "password": PASSWORD})
        assert right.status_code == 303


async def test_a_taken_slug_is_a_conflict_whatever_the_email(browser_like, orgs) -> None:
    http = browser_like
    existing = await orgs()
    token = form_token(await http.get("/signup"))
    answers = [
        await http.post(
            "/signup",
            data={"csrf_token": token, "email": email, "password": PASSWORD, "organization": existing.slug},
        )
        for email in (f"{slug()}@example.com", existing.email)
    ]
    assert [a.status_code for a in answers] == [409, 409]
    alerts = [re.search(r'role="alert">([^<]*)<', a.text).group(1) for a in answers]
    assert alerts[0] == alerts[1]


async def test_the_sign_up_page_shows_the_form_while_sign_up_is_open(browser_like) -> None:
    page = await browser_like.get("/signup")
    assert page.status_code == 200
    assert 'action="/signup"' in page.text and 'data-signup="closed"' not in page.text
