"""An agent's side of the OAuth flow in tests: a human approving in headless Chromium, and the
token storage the MCP SDK's OAuthClientProvider keeps."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlsplit

from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from harness.oauth_flow import PASSWORD


async def approve_in_browser(page, url: str, email: str, redirect_prefix: str, shots=None) -> dict[str, str]:
    """Opens the authorization URL, signs in when the browser has no session yet, approves;
    returns the query of the redirect to the client."""
    captured: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def catch(route) -> None:  # the client's redirect URI: nothing listens there
        if not captured.done():
            captured.set_result(route.request.url)
        await route.fulfill(status=200, content_type="text/plain", body="authorized; you may close this tab")

    await page.context.unroute(f"{redirect_prefix}**")
    await page.context.route(f"{redirect_prefix}**", catch)
    await page.goto(url)
    if urlsplit(page.url).path == "/login":
        await page.get_by_label("Email").fill(email)
        await page.get_by_label("Password").fill(PASSWORD)
        await page.get_by_role("button", name="Sign in").click()
    await page.get_by_role("button", name="Approve").wait_for()
    if shots is not None:
        await page.screenshot(path=str(shots), full_page=True)
    await page.get_by_role("button", name="Approve").click()
    location = await asyncio.wait_for(captured, 15)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


class MemoryStorage:
    """The SDK's TokenStorage, in memory; `approvals` counts the times the human approved."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None
        self.approvals = 0

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def approving_provider(  # a harness.stack Stack and a Playwright page
    stack,
    page,
    email: str,
    redirect: str,
    storage: MemoryStorage,
    scope: str | None = None,
    client_metadata_url: str | None = None,
) -> OAuthClientProvider:
    """An OAuthClientProvider whose human approves every authorization in the browser.
    `client_metadata_url`: the client identifies itself by that metadata document (CIMD)."""
    approvals: asyncio.Queue[dict[str, str]] = asyncio.Queue()

    async def redirect_handler(authorization_url: str) -> None:
        await approvals.put(await approve_in_browser(page, authorization_url, email, redirect))
        storage.approvals += 1

    async def callback_handler() -> AuthorizationCodeResult:
        params = await approvals.get()
        # The redirect's `iss` too (RFC 9207): the SDK checks it against the server's issuer.
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))

    return OAuthClientProvider(
        server_url=f"{stack.base_url}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="Test agent (SDK)",
            redirect_uris=[redirect],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
            scope=scope,
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=client_metadata_url,
    )
