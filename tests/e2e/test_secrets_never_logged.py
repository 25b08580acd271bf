"""No secret reaches a log (issue 13): a stack logging everything at DEBUG (the engines hide bound
parameters even then: docs/operations.md, "Logs") goes through sign-up and sign-in, an API key, an agent's OAuth flow
(registration, PKCE code, tokens, refresh, an MCP call), a webhook endpoint (its secret, a
rotation, a signed delivery), and a wrong key; then every line every process wrote is searched
for each of those secrets."""

from __future__ import annotations

import asyncio
import re
import uuid
from pathlib import Path

import httpx

from harness.oauth_flow import PASSWORD, code_for, exchange_code, mcp, new_authorization, refresh, register
from harness.stack import database, running_stack
from tests.dashboard_forms import form_token
from tests.facades.webhook_receiver import Receiver

SECRET = re.compile(r'<code id="api-key-secret">([^<]+)</code>')


async def _walk(base_url: str, receiver: Receiver) -> list[str]:
    """Every secret the flows below handled, in the forms a leak would show them."""
    secrets: list[str] = [PASSWORD]
    slug = f"sec-{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as browser:
        signup = await browser.post(
            "/signup",
            data={
                "email": f"{slug}@example.com",
                "password": PASSWORD,
                "organization": slug,
                "csrf_token": form_token(await browser.get("/signup")),
            },
        )
        assert signup.status_code == 303, signup.text
        # Sign-up opens no session: sign in, as its page says.
        signin = await browser.post(
            "/login",
            data={
                "email": f"{slug}@example.com",
                "password": PASSWORD,
                "csrf_token": form_token(await browser.get("/login?notice=signed-up")),
            },
        )
        assert signin.status_code == 303, signin.text
        session = browser.cookies["herald_session"]
        secrets.append(session)
        created = await browser.post(
            "/dashboard/keys", data={"csrf_token": form_token(await browser.get("/dashboard/keys"))}
        )
        assert created.status_code == 201
        key = SECRET.search(created.text).group(1)
        secrets.append(key)
        auth = {"Authorization": f"Bearer {key}"}

        client = await register(browser)
        authorization = new_authorization(client["client_id"])
        code = await code_for(browser, session, authorization)
        secrets += [code, authorization.verifier]
        tokens = (await exchange_code(browser, authorization, code)).json()
        secrets += [tokens["access_token"], tokens["refresh_token"]]
        assert (await mcp(browser, tokens["access_token"], "tools/list")).status_code == 200
        renewed = (await refresh(browser, client["client_id"], tokens["refresh_token"])).json()
        secrets += [renewed["access_token"], renewed["refresh_token"]]

        hook = (await browser.post("/v1/webhooks", json={"url": receiver.url, "events": ["*"]}, headers=auth)).json()
        rotated = (await browser.post(f"/v1/webhooks/{hook['id']}/rotate-secret", headers=auth)).json()
        secrets += [
            hook["secret"],
            hook["secret"].removeprefix("whsec_"),
            rotated["secret"],
            rotated["secret"].removeprefix("whsec_"),
        ]
        assert (await browser.post(f"/v1/webhooks/{hook['id']}/test", headers=auth)).status_code == 202
        for _ in range(200):
            if receiver.got:
                break
            await asyncio.sleep(0.05)
        assert receiver.got, "the test event was not delivered"
        secrets.append(receiver.got[0][0]["webhook-signature"].split()[0].split(",", 1)[1])

        wrong = key[:-4] + ("aaaa" if not key.endswith("aaaa") else "bbbb")
        assert (await browser.get("/v1/profiles", headers={"Authorization": f"Bearer {wrong}"})).status_code == 401
        secrets.append(wrong)
    return secrets


def test_no_secret_is_ever_logged(tmp_path: Path) -> None:
    receiver = Receiver()
    try:
        with (
            database("sqlite", tmp_path) as url,
            running_stack(url, tmp_path, HERALD_LOG_LEVEL="DEBUG", HERALD_ALLOW_PRIVATE_TARGETS="true") as stack,
        ):
            stack.spawn("core", "worker", log_name="worker")
            secrets = asyncio.run(_walk(stack.base_url, receiver))
            for proc in stack.processes:
                proc.terminate()
            for proc in stack.processes:
                proc.wait(timeout=10)
    finally:
        receiver.close()
    logs = {p.name: p.read_text(errors="replace") for p in tmp_path.glob("*.log")}
    assert sum(len(text.splitlines()) for text in logs.values()) > 100  # DEBUG really logged
    assert "SELECT" in "".join(logs.values())  # SQL statements too
    leaks = [(name, secret[:12] + "…") for secret in secrets for name, text in logs.items() if secret in text]
    assert not leaks, leaks
