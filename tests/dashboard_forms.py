"""Driving the dashboard's HTML forms with plain HTTP, as a browser does: every form carries a
CSRF token (docs/dashboard.md), which `form_token` reads; `signed_in` signs in through /login."""

from __future__ import annotations

import re

import httpx

from harness.oauth_flow import PASSWORD  # what the tests' organizations are bootstrapped with

TOKEN_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


def form_token(page: httpx.Response) -> str:
    """The CSRF token of the page's forms."""
    found = TOKEN_FIELD.search(page.text)
    assert found, page.text[:500]
    return found.group(1)


async def signed_in(http: httpx.AsyncClient, email: str, page: str = "/dashboard/keys") -> str:
    """Signs in through the /login form; returns the CSRF token of `page`, a signed-in page."""
    token = form_token(await http.get("/login"))
    response = await http.post("/login", data={"csrf_token": token, "email": email, "password": PASSWORD})
    assert response.status_code == 303, response.text
    assert http.cookies.get("herald_session", "").startswith("hss_")
    return form_token(await http.get(page))
