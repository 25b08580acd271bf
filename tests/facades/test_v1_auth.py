"""docs/api.md, "Authentication" and "Errors", at /v1: every route refuses missing, malformed, revoked and non-`svc_`
credentials with 401 and a resource-metadata challenge, answers 402 without a plan, and checks
the credential, then the plan, then the request."""

from __future__ import annotations

import re

import pytest

from facades.app import create_app
from facades.settings import FacadeSettings

# That every route takes the /v1 credential rule is the facade's; the SQL behind revocation, plans
# and key lookups runs on both backends in tests/core (test_grpc_surface, test_credentials).
pytestmark = pytest.mark.one_backend


def v1_routes() -> list[tuple[str, str]]:
    """Every /v1 route the facade serves, read from its router so a new route is covered here
    the day it is added. Path parameters get a placeholder value."""
    app = create_app(FacadeSettings(), name="route_listing")
    routes = set()
    for route in app.router.routes:
        path = "/" + route.path.lstrip("/")
        if not path.startswith("/v1/"):
            continue
        # A custom method's segment is a one-value pattern (`/v1/posts:validate`); others a value.
        path = re.sub(r"<custom_method:([^>]*)>", lambda m: m.group(1).replace("\\", ""), path)
        path = re.sub(r"<[^>]+>", "placeholder", path)
        for method in route.methods:
            if method not in ("HEAD", "OPTIONS"):
                routes.add((method, path))
    return sorted(routes)


ROUTES = v1_routes()


def test_the_route_list_is_not_empty() -> None:
    assert ("GET", "/v1/profiles") in ROUTES and ("GET", "/v1/credits") in ROUTES


def assert_unauthorized(response, *, with_error: bool) -> None:
    assert response.status_code == 401, response.text
    assert response.json()["code"] == "UNAUTHORIZED"
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert 'resource_metadata="http://127.0.0.1:' in challenge
    assert challenge.endswith('/.well-known/oauth-protected-resource"')
    assert ('error="invalid_token"' in challenge) is with_error


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_missing_key_is_401(http, method: str, path: str) -> None:
    assert_unauthorized(await http.request(method, path), with_error=False)


@pytest.mark.parametrize(("method", "path"), ROUTES)
@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer",
        "Basic dXNlcjpwYXNz",
        "svc_abc",  # no scheme
        "Bearer svc_",
        "Bearer svc_tooshort",
        "Bearer svc_" + "A" * 59,  # right length, unknown key
        "Bearer ya29.an-oauth-access-token",  # non-svc_ token (an OAuth token belongs at /mcp)
        "Bearer sk_live_1234567890",
    ],
)
async def test_malformed_unknown_or_foreign_credential_is_401(http, method: str, path: str, authorization: str) -> None:
    assert_unauthorized(await http.request(method, path, headers={"Authorization": authorization}), with_error=True)


@pytest.mark.parametrize(("method", "path"), ROUTES)
@pytest.mark.parametrize(
    "raw",
    [
        b"Bearer svc_\x01" + b"a" * 58,  # a control character
        "Bearer svc_\u00fc".encode("latin-1") + b"a" * 58,  # a non-ASCII byte
        b"Bearer svc_" + b"a" * 29 + b" " + b"a" * 29,  # two tokens
    ],
)
async def test_credentials_with_bytes_no_key_has_are_401_not_500(http, method: str, path: str, raw: bytes) -> None:
    assert_unauthorized(await http.request(method, path, headers={"Authorization": raw}), with_error=True)


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_two_authorization_headers_are_401(http, orgs, method: str, path: str) -> None:
    org = await orgs()
    headers = [("Authorization", f"Bearer {org.api_key}"), ("Authorization", f"Bearer {org.api_key}")]
    assert_unauthorized(await http.request(method, path, headers=headers), with_error=True)


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_revoked_key_is_401_on_the_very_next_request(http, orgs, method: str, path: str) -> None:
    from core.db.models import api_keys
    from core.db.types import utcnow
    from core.identity.credentials import parse_api_key

    org = await orgs()
    first = await http.get("/v1/credits", headers=org.auth)
    assert first.status_code == 200
    async with orgs.engine.begin() as conn:
        await conn.execute(
            api_keys.update().where(api_keys.c.key_id == parse_api_key(org.api_key)).values(revoked_at=utcnow())
        )
    assert_unauthorized(await http.request(method, path, headers=org.auth), with_error=True)


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_a_key_with_a_wrong_secret_is_401(http, orgs, method: str, path: str) -> None:
    org = await orgs()
    tampered = org.api_key[:-4] + ("AAAA" if not org.api_key.endswith("AAAA") else "BBBB")
    response = await http.request(method, path, headers={"Authorization": f"Bearer {tampered}"})
    assert_unauthorized(response, with_error=True)


@pytest.mark.parametrize(("method", "path"), ROUTES)
@pytest.mark.parametrize("plan", ["none"])
async def test_no_plan_is_402_before_anything_else(http, orgs, method: str, path: str, plan: str) -> None:
    org = await orgs(plan=plan)
    response = await http.request(method, path, headers=org.auth, params={"page_size": "not-a-number"})
    assert response.status_code == 402, response.text
    assert response.json()["code"] == "SUBSCRIPTION_REQUIRED"


@pytest.mark.parametrize("plan", ["active", "trialing"])
async def test_active_and_trialing_plans_are_served(http, orgs, plan: str) -> None:
    org = await orgs(plan=plan)
    response = await http.get("/v1/profiles", headers=org.auth)
    assert response.status_code == 200
    assert response.headers["x-credits-remaining"] == "1000"


async def test_order_is_credential_then_plan_then_request(http, orgs) -> None:
    bad_request = {"page_size": "x"}
    assert (await http.get("/v1/profiles", params=bad_request)).status_code == 401
    no_plan = await orgs(plan="none")
    assert (await http.get("/v1/profiles", params=bad_request, headers=no_plan.auth)).status_code == 402
    ok = await orgs()
    response = await http.get("/v1/profiles", params=bad_request, headers=ok.auth)
    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_ERROR"


async def test_scheme_is_case_insensitive(http, orgs) -> None:
    org = await orgs()
    response = await http.get("/v1/profiles", headers={"Authorization": f"bearer {org.api_key}"})
    assert response.status_code == 200


async def test_plan_change_takes_effect_on_the_next_request(http, orgs) -> None:
    org = await orgs()
    assert (await http.get("/v1/profiles", headers=org.auth)).status_code == 200
    await __import__("core.admin", fromlist=["set_plan"]).set_plan(orgs.engine, org=org.slug, plan="none")
    assert (await http.get("/v1/profiles", headers=org.auth)).status_code == 402
