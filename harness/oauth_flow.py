"""Helpers for OAuth tests: a real client's side of the flow (PKCE, registration, consent
through the real pages over HTTP, token requests)."""

from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

import grpc
import httpx
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc

PASSWORD = "correct horse battery"
REDIRECT_URI = "http://127.0.0.1:43210/callback"


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)[:64]
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


async def sign_in(channel: grpc.aio.Channel, email: str, organization: str = "", password: str = PASSWORD) -> str:
    """A dashboard session token for the user, from the core (as the sign-in page gets it)."""
    stub = accounts_pb2_grpc.AccountServiceStub(channel)
    session = await stub.SignIn(accounts_pb2.SignInRequest(email=email, password=password, organization=organization))
    return session.token


async def register(http: httpx.AsyncClient, **metadata: object) -> dict:
    body = {
        "client_name": "Test agent",
        "redirect_uris": [REDIRECT_URI],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        **metadata,
    }
    body = {k: v for k, v in body.items() if v is not None}
    response = await http.post("/api/auth/oauth2/register", json=body)
    assert response.status_code == 201, response.text
    return response.json()


@dataclass
class Authorization:
    client_id: str
    verifier: str
    challenge: str
    state: str
    redirect_uri: str = REDIRECT_URI
    scope: str = "posts:read posts:write media:write"

    def query(self, **overrides: str) -> str:
        params = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "scope": self.scope,
            "state": self.state,
            "code_challenge": self.challenge,
            "code_challenge_method": "S256",
            **overrides,
        }
        return urlencode({k: v for k, v in params.items() if v is not None})


def new_authorization(client_id: str, **kwargs: str) -> Authorization:
    verifier, challenge = pkce_pair()
    return Authorization(client_id, verifier, challenge, secrets.token_urlsafe(16), **kwargs)


async def consent(
    http: httpx.AsyncClient, session_token: str, query: str, *, decision: str = "approve", organization: str = ""
) -> httpx.Response:
    """Opens the consent page with the session cookie and submits it; returns the redirect."""
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session_token}) as browser:
        page = await browser.get(f"/api/auth/oauth2/authorize?{query}")
        assert page.status_code == 200, page.text
        form = {
            k: html.unescape(v)
            for k, v in re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)"', page.text)
        }
        form["decision"] = decision
        if organization:
            form["organization"] = organization
        return await browser.post("/api/auth/oauth2/authorize", data=form)


def asked(page: httpx.Response) -> list[str]:
    """The scopes the consent page asks for (on a step-up, only the new ones)."""
    listed = re.search(r'<ul class="scopes" id="requested-scopes">(.*?)</ul>', page.text, re.S)
    assert listed, page.text
    return re.findall(r"<code>([a-z:]+)</code>", listed.group(1))


def granted(page: httpx.Response) -> list[str]:
    """The scopes the consent page says the client already holds (none on a first approval)."""
    held = re.search(r'<p id="granted">(.*?)</p>', page.text, re.S)
    return re.findall(r"<code>([a-z:]+)</code>", held.group(1)) if held else []


def redirect_params(response: httpx.Response) -> dict[str, str]:
    assert response.status_code in (302, 303), response.text
    location = response.headers["location"]
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


async def code_for(http: httpx.AsyncClient, session_token: str, auth: Authorization, **overrides: str) -> str:
    params = redirect_params(await consent(http, session_token, auth.query(**overrides)))
    assert params["state"] == auth.state
    return params["code"]


async def exchange_code(http: httpx.AsyncClient, auth: Authorization, code: str, **overrides: str) -> httpx.Response:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": auth.redirect_uri,
        "client_id": auth.client_id,
        "code_verifier": auth.verifier,
        **overrides,
    }
    return await http.post("/api/auth/oauth2/token", data={k: v for k, v in form.items() if v is not None})


async def refresh(http: httpx.AsyncClient, client_id: str, refresh_token: str, **extra: str) -> httpx.Response:
    """A refresh_token grant by a public client."""
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id, **extra}
    return await http.post("/api/auth/oauth2/token", data=form)


async def tokens_for(
    http: httpx.AsyncClient,
    session_token: str,
    client_id: str,
    scope: str = "",
    client_secret: str | None = None,
    redirect_uri: str = REDIRECT_URI,
) -> dict:
    auth = new_authorization(client_id, redirect_uri=redirect_uri, **({"scope": scope} if scope else {}))
    code = await code_for(http, session_token, auth)
    response = await exchange_code(http, auth, code, client_secret=client_secret)
    assert response.status_code == 200, response.text
    return response.json()


MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


async def mcp(http: httpx.AsyncClient, token: str | None, method: str, params: dict | None = None) -> httpx.Response:
    headers = dict(MCP_HEADERS)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    return await http.post("/mcp", json=body, headers=headers)
