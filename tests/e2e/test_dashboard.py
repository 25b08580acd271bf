"""The dashboard in Chromium: sign-up, sign-in and sign-out, API keys, connected agents,
profiles, credits and the organization switcher, with a full-page screenshot of each page
kept under test-artifacts/screenshots/."""

from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import grpc
import pytest
from herald.identity.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    identity_pb2,
    identity_pb2_grpc,
    oauth_pb2,
    oauth_pb2_grpc,
)

from core import admin

# One backend: the pages' behaviour; what their SQL decides is tested at /v1 on both databases.
pytestmark = pytest.mark.one_backend

PASSWORD = "correct horse battery"


async def screenshot(page, artifacts_dir: Path, backend: str, name: str) -> None:
    folder = artifacts_dir / "screenshots"
    folder.mkdir(exist_ok=True)
    await page.screenshot(path=str(folder / f"{backend}-{name}.png"), full_page=True)


async def sign_in(page, email: str, password: str = PASSWORD) -> None:
    await page.goto("/login")
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(password)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url("**/dashboard")


def path_of(page) -> str:
    url = urlsplit(page.url)
    return url.path + (f"?{url.query}" if url.query else "")


async def test_sign_up_sign_out_and_sign_in(page, artifacts_dir, backend) -> None:
    await page.goto("/dashboard/keys")
    assert path_of(page) == "/login?next=%2Fdashboard%2Fkeys"
    await screenshot(page, artifacts_dir, backend, "login")

    slug = f"acme-{uuid.uuid4().hex[:8]}"
    email = f"{slug}@example.com"
    await page.goto("/signup")
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_label("Organization").fill(slug)
    await screenshot(page, artifacts_dir, backend, "signup")
    await page.get_by_role("button", name="Sign up").click()
    # Sign-up opens no session: the sign-in page, the email filled in, one notice for a new
    # account and for an email that already had one (docs/dashboard.md).
    await page.wait_for_url("**/login?notice=signed-up")
    assert await page.get_by_role("status").is_visible()
    assert await page.get_by_label("Email").input_value() == email
    await screenshot(page, artifacts_dir, backend, "signed-up")
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url("**/dashboard")
    assert await page.locator("#organization").text_content() == slug
    assert await page.locator("#plan").text_content() in ("trialing", "active", "none")
    assert await page.locator("#balance").text_content() == "100"  # HERALD_SIGNUP_CREDITS
    await screenshot(page, artifacts_dir, backend, "overview")

    cookies = {c["name"]: c for c in await page.context.cookies()}
    session = cookies["herald_session"]
    assert session["httpOnly"] and session["sameSite"] == "Lax" and session["value"].startswith("hss_")

    await page.get_by_role("button", name="Sign out").click()
    await page.wait_for_url("**/login?notice=signed-out")
    assert "herald_session" not in {c["name"] for c in await page.context.cookies()}
    await page.goto("/dashboard")
    assert path_of(page).startswith("/login")

    # A wrong password: one generic alert, still on the form, no session.
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill("not the password")
    async with page.expect_response("**/login") as answer:
        await page.get_by_role("button", name="Sign in").click()
    assert (await answer.value).status == 401
    assert await page.get_by_role("alert").is_visible()
    await screenshot(page, artifacts_dir, backend, "login-failed")

    # Signing in from the login page reached through a protected page goes back there.
    await page.goto("/dashboard/credits")
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url("**/dashboard/credits")
    # The starter credits are in the ledger, and the page says how a balance is topped up.
    assert "sign-up starter credits" in await page.locator("#ledger").text_content()
    assert "herald admin credits" in await page.locator("#top-up").text_content()


async def test_sign_up_failures_are_shown_on_the_page(page, orgs) -> None:
    org = await orgs()
    email = f"new-{uuid.uuid4().hex[:8]}@example.com"
    await page.goto("/signup")
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_label("Organization").fill(org.slug)  # taken: slugs are public names
    async with page.expect_response("**/signup") as answer:
        await page.get_by_role("button", name="Sign up").click()
    assert (await answer.value).status == 409
    assert await page.get_by_role("alert").is_visible()
    assert await page.get_by_label("Email").input_value() == email
    assert await page.get_by_label("Organization").input_value() == org.slug


async def test_an_organization_without_a_plan_still_sees_its_dashboard(page, orgs, artifacts_dir, backend) -> None:
    org = await orgs(plan="none")
    await sign_in(page, org.email)
    assert await page.locator("#plan").text_content() == "none"
    assert await page.locator("#plan-note").is_visible()
    await screenshot(page, artifacts_dir, backend, "overview-no-plan")
    for path in ("/dashboard/keys", "/dashboard/agents", "/dashboard/credits", "/dashboard/profiles"):
        response = await page.goto(path)
        assert response.status == 200, path


async def test_api_keys_create_rotate_revoke(page, http, orgs, artifacts_dir, backend) -> None:
    org = await orgs()
    await sign_in(page, org.email)
    await page.goto("/dashboard/keys")
    before = await page.locator("#keys tbody tr").count()

    await page.get_by_role("button", name="Create API key").click()
    secret = (await page.locator("#api-key-secret").text_content()).strip()
    assert secret.startswith("svc_")
    assert await page.locator("button[data-copy=api-key-secret]").is_visible()
    await screenshot(page, artifacts_dir, backend, "key-created")
    assert (await http.get("/v1/profiles", headers={"Authorization": f"Bearer {secret}"})).status_code == 200

    await page.goto("/dashboard/keys")
    assert await page.locator("#keys tbody tr").count() == before + 1
    assert secret not in await page.content()
    prefix = secret[:12]
    row = page.locator("#keys tbody tr", has=page.locator("code", has_text=prefix))
    assert await row.count() == 1
    await screenshot(page, artifacts_dir, backend, "keys")

    await row.get_by_role("button", name="Rotate").click()
    rotated = (await page.locator("#api-key-secret").text_content()).strip()
    assert rotated.startswith("svc_") and rotated != secret
    assert (await http.get("/v1/profiles", headers={"Authorization": f"Bearer {secret}"})).status_code == 401
    assert (await http.get("/v1/profiles", headers={"Authorization": f"Bearer {rotated}"})).status_code == 200

    await page.goto("/dashboard/keys")
    row = page.locator("#keys tbody tr", has=page.locator("code", has_text=rotated[:12]))
    await row.get_by_role("button", name="Revoke").click()
    await page.wait_for_url("**/dashboard/keys?notice=key-revoked")
    assert await page.get_by_role("status").is_visible()
    assert (await http.get("/v1/profiles", headers={"Authorization": f"Bearer {rotated}"})).status_code == 401
    # The key fixture's own key was never touched.
    assert (await http.get("/v1/profiles", headers=org.auth)).status_code == 200


async def _connect_agent(channel, email: str, slug: str) -> tuple[str, str]:
    """An OAuth grant made the way the consent page makes it: returns (client name, access token)."""
    session = await accounts_pb2_grpc.AccountServiceStub(channel).SignIn(
        accounts_pb2.SignInRequest(email=email, password=PASSWORD, organization=slug)
    )
    oauth = oauth_pb2_grpc.OAuthServiceStub(channel)
    name = f"Agent {uuid.uuid4().hex[:6]}"
    redirect_uri = "http://127.0.0.1:9/cb"
    client = await oauth.RegisterClient(
        oauth_pb2.RegisterClientRequest(
            metadata=oauth_pb2.ClientMetadata(
                client_name=name, redirect_uris=[redirect_uri], token_endpoint_auth_method="none"
            )
        )
    )
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    code = await oauth.ApproveAuthorization(
        oauth_pb2.ApproveAuthorizationRequest(
            parameters=oauth_pb2.AuthorizationParameters(
                response_type="code",
                client_id=client.client_id,
                redirect_uri=redirect_uri,
                code_challenge=challenge,
                code_challenge_method="S256",
            ),
            organization=slug,
        ),
        metadata=(("authorization", f"Bearer {session.token}"),),
    )
    token = await oauth.ExchangeToken(
        oauth_pb2.ExchangeTokenRequest(
            grant_type="authorization_code",
            client_id=client.client_id,
            code=code.code,
            redirect_uri=redirect_uri,
            code_verifier=verifier,
        )
    )
    return name, token.access_token


async def test_connected_agents_are_listed_and_revocable(page, channel, orgs, artifacts_dir, backend) -> None:
    org = await orgs()
    name, access_token = await _connect_agent(channel, org.email, org.slug)
    identity = identity_pb2_grpc.IdentityServiceStub(channel)
    bearer = (("authorization", f"Bearer {access_token}"),)
    assert (await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=bearer)).organization == org.slug

    await sign_in(page, org.email)
    await page.goto("/dashboard/agents")
    row = page.locator("#agents tbody tr", has_text=name)
    assert await row.count() == 1
    await screenshot(page, artifacts_dir, backend, "agents")

    await row.get_by_role("button", name="Disconnect").click()
    await page.wait_for_url("**/dashboard/agents?notice=agent-revoked")
    assert await page.locator("#agents tbody tr", has_text=name).count() == 0
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=bearer)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_profiles_and_credits_pages(page, orgs, engine, artifacts_dir, backend) -> None:
    org = await orgs(credits=1000)
    await orgs.profile(org, "alpha-x", "x", ("launch",))
    await orgs.profile(org, "beta-sky", "bluesky")
    await admin.add_credits(engine, org=org.slug, amount=250)
    await sign_in(page, org.email)

    await page.goto("/dashboard/profiles")
    rows = page.locator("#profiles tbody tr")
    assert await rows.count() == 2
    assert "alpha-x" in await rows.nth(0).text_content()
    assert "bluesky" in await rows.nth(1).text_content()

    await page.get_by_label("Slug").fill("gamma-social")
    await page.get_by_label("Platform").select_option("mastodon")
    await page.get_by_label("Tags").fill("Launch, eu")
    await page.get_by_role("button", name="Add sandbox profile").click()
    await page.wait_for_url("**/dashboard/profiles?notice=profile-added")
    assert await rows.count() == 3
    assert "eu launch" in " ".join((await rows.nth(2).text_content()).split())
    await screenshot(page, artifacts_dir, backend, "profiles")

    await page.get_by_label("Slug").fill("gamma-social")
    async with page.expect_response("**/dashboard/profiles") as answer:
        await page.get_by_role("button", name="Add sandbox profile").click()
    assert (await answer.value).status == 409
    assert await page.get_by_role("alert").is_visible()
    assert await page.get_by_label("Slug").input_value() == "gamma-social"
    assert await rows.count() == 3

    await page.goto("/dashboard/credits")
    assert await page.locator("#balance").text_content() == "1250 credits"
    entries = page.locator("#ledger tbody tr")
    assert await entries.count() == 2
    assert "+250" in await entries.nth(0).text_content()
    await screenshot(page, artifacts_dir, backend, "credits")


async def test_credit_ledger_pages(page, orgs, engine) -> None:
    org = await orgs(credits=1)
    for amount in range(2, 32):
        await admin.add_credits(engine, org=org.slug, amount=amount)
    await sign_in(page, org.email)
    await page.goto("/dashboard/credits")
    assert await page.locator("#ledger tbody tr").count() == 25
    await page.get_by_role("link", name="Next page").click()
    assert await page.locator("#ledger tbody tr").count() == 6
    assert await page.get_by_role("link", name="Next page").count() == 0


async def test_organization_switcher(page, orgs, engine, artifacts_dir, backend) -> None:
    first = await orgs(credits=55)
    second = f"org-{uuid.uuid4().hex[:10]}"
    await admin.bootstrap(engine, email=first.email, password=PASSWORD, org=second, credits_=77, plan="trialing")
    expected = {first.slug: ("active", "55"), second: ("trialing", "77")}
    await sign_in(page, first.email)
    # Sign-in opens the user's first organization in slug order.
    current = min(expected)
    assert await page.locator("#organization").text_content() == current

    switcher = page.get_by_label("Organization")
    assert sorted(await switcher.locator("option").all_text_contents()) == sorted(expected)
    for target in (max(expected), min(expected)):
        await page.get_by_label("Organization").select_option(target)
        await page.get_by_role("button", name="Switch").click()
        await page.wait_for_url("**/dashboard?notice=switched")
        assert await page.locator("#organization").text_content() == target
        assert await page.locator("#plan").text_content() == expected[target][0]
        assert await page.locator("#balance").text_content() == expected[target][1]
        if target == second:
            await screenshot(page, artifacts_dir, backend, "switched")
        # The other pages follow the session's organization.
        await page.goto("/dashboard/keys")
        assert target in await page.get_by_role("heading", level=2).nth(1).text_content()
        await page.goto("/dashboard")


async def test_login_next_accepts_only_local_paths(page, orgs) -> None:
    org = await orgs()
    for target in ("//evil.example/x", "/\\evil.example", "https://evil.example/", "/\t/evil.example"):
        await page.context.clear_cookies()
        await page.goto("/login?next=" + target.replace("\t", "%09"))
        await page.get_by_label("Email").fill(org.email)
        await page.get_by_label("Password").fill(PASSWORD)
        await page.get_by_role("button", name="Sign in").click()
        await page.wait_for_url("**/dashboard")


@pytest.mark.one_backend
async def test_the_landing_page_says_what_herald_is_and_where_to_go(page, http, orgs, artifacts_dir, backend) -> None:
    answer = await page.goto("/")
    assert answer.status == 200
    assert await page.get_by_role("heading", name="Herald", exact=True).is_visible()
    await screenshot(page, artifacts_dir, backend, "landing")
    for name in ("The REST API", "The agent guide", "Credentials"):  # every link leads somewhere real
        href = await page.get_by_role("link", name=name).get_attribute("href")
        assert (await http.get(href)).status_code == 200, href
    await page.get_by_role("link", name="Sign up", exact=True).click()
    await page.wait_for_url("**/signup")

    org = await orgs()
    await sign_in(page, org.email)
    await page.goto("/")
    await page.get_by_role("link", name="Go to your dashboard").click()
    await page.wait_for_url("**/dashboard")
