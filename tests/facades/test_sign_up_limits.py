"""Sign-up and sign-in budgets (docs/dashboard.md, "Sign-up and sign-in"), on stacks of this
module's own: sign-ups per address, sign-ins per address and per email (known or not, alike),
answered 429 with Retry-After on the pages and RATE_LIMITED over gRPC, other addresses
unaffected; and HERALD_SIGNUP=closed. Addresses other than 127.0.0.1 come through
X-Forwarded-For, which the facade believes from its loopback peer (HERALD_TRUSTED_PROXIES), or
through the core's client address metadata for direct gRPC callers."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator

import grpc
import httpx
import pytest
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc
from sqlalchemy import select

from contract.caller import CLIENT_ADDRESS_KEY
from core.db.models import organizations
from harness.live import client
from harness.stack import Stack
from tests.conftest import stack_of_its_own
from tests.core.rpc_helpers import error_info
from tests.dashboard_forms import PASSWORD, form_token

pytestmark = pytest.mark.one_backend  # counted in the core's limiter, not in SQL

ALERT = re.compile(r'role="alert">([^<]*)<')


limited = stack_of_its_own(
    "sign-up-limits",
    HERALD_RATE_LIMIT_SIGN_UP_ADDRESS="3/3600",
    HERALD_RATE_LIMIT_SIGN_IN_ADDRESS="5/600",
    HERALD_RATE_LIMIT_SIGN_IN_ACCOUNT="3/600",
)
closed = stack_of_its_own("sign-up-closed", HERALD_SIGNUP="closed")


@pytest.fixture
async def web(limited: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with client(limited) as http:
        yield http


@pytest.fixture
async def accounts(limited: Stack) -> AsyncIterator[accounts_pb2_grpc.AccountServiceStub]:
    async with grpc.aio.insecure_channel(limited.core_target) as channel:
        yield accounts_pb2_grpc.AccountServiceStub(channel)


def _from(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


def _slug() -> str:
    return f"lim-{uuid.uuid4().hex[:10]}"


async def _reason(call) -> tuple[grpc.StatusCode, str] | None:
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error.code(), error_info(error).reason
    return None


async def _slug_taken(engine, slug: str) -> bool:
    async with engine.connect() as conn:
        return await conn.scalar(select(organizations.c.id).where(organizations.c.slug == slug)) is not None


async def test_sign_ups_are_limited_per_address(web, accounts, engine) -> None:
    token = form_token(await web.get("/signup"))

    async def sign_up(address: str, slug: str) -> httpx.Response:
        form = {"csrf_token": token, "email": f"{slug}@example.com", "password": PASSWORD, "organization": slug}
        return await web.post("/signup", data=form, headers=_from(address))

    for _ in range(3):
        assert (await sign_up("198.51.100.1", _slug())).status_code == 303
    spent = _slug()
    refused = await sign_up("198.51.100.1", spent)
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 3600
    assert ALERT.search(refused.text) and f'value="{spent}"' in refused.text  # the form, kept
    assert not await _slug_taken(engine, spent)  # refused before anything was written
    # The same address over gRPC (the facade passes it in the same metadata).
    request = accounts_pb2.SignUpRequest(email=f"{spent}@example.com", password=PASSWORD, organization=spent)
    metadata = ((CLIENT_ADDRESS_KEY, "198.51.100.1"),)
    assert await _reason(accounts.SignUp(request, metadata=metadata)) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "RATE_LIMITED",
    )
    # Another address has its own budget.
    assert (await sign_up("198.51.100.2", spent)).status_code == 303
    assert await _slug_taken(engine, spent)


async def test_sign_ins_are_limited_per_address(web, orgs) -> None:
    org = await orgs()
    token = form_token(await web.get("/login"))

    async def sign_in(address: str, email: str, password: str = PASSWORD) -> httpx.Response:
        form = {"csrf_token": token, "email": email, "password": password}
        return await web.post("/login", data=form, headers=_from(address))

    # Five attempts on five emails (no email's own budget is spent): the address's budget is.
    for _ in range(5):
        assert (await sign_in("198.51.100.20", f"{_slug()}@example.com")).status_code == 401
    refused = await sign_in("198.51.100.20", org.email)  # the right password: not even checked
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 600
    assert ALERT.search(refused.text)
    assert "herald_session" not in web.cookies
    assert (await sign_in("198.51.100.21", org.email)).status_code == 303


async def test_sign_ins_are_limited_per_email_known_or_not_alike(web, accounts, orgs) -> None:
    """Each attempt from another address: only the email's budget (3) is spent. A known email
    and an unknown one get the same answers, so the budget tells nothing about accounts."""
    known, unknown = (await orgs()).email, f"{_slug()}@example.com"
    addresses = iter(f"198.51.100.{i}" for i in range(40, 80))
    outcomes = {}
    for email in (known, unknown):
        answers = []
        for _ in range(4):
            metadata = ((CLIENT_ADDRESS_KEY, next(addresses)),)
            request = accounts_pb2.SignInRequest(email=email, password="wrong password!")
            answers.append(await _reason(accounts.SignIn(request, metadata=metadata)))
        outcomes[email] = answers
    assert (
        outcomes[known]
        == outcomes[unknown]
        == [(grpc.StatusCode.UNAUTHENTICATED, "UNAUTHORIZED")] * 3
        + [(grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")]
    )
    # The pages: the same 429, with the wait, for both.
    token = form_token(await web.get("/login"))
    pages = [
        await web.post(
            "/login",
            data={"csrf_token": token, "email": email, "password": PASSWORD},
            headers=_from(next(addresses)),
        )
        for email in (known.upper(), unknown)
    ]
    assert [p.status_code for p in pages] == [429, 429]
    assert all("retry-after" in p.headers for p in pages)
    assert ALERT.search(pages[0].text).group(1) == ALERT.search(pages[1].text).group(1)


async def test_closed_sign_up_is_refused_and_the_page_says_so(closed, orgs, engine) -> None:
    async with httpx.AsyncClient(base_url=closed.base_url, timeout=30) as web:
        page = await web.get("/signup")
        assert page.status_code == 200
        assert 'data-signup="closed"' in page.text and 'action="/signup"' not in page.text
        slug = _slug()
        token = form_token(await web.get("/login"))
        form = {"csrf_token": token, "email": f"{slug}@example.com", "password": PASSWORD, "organization": slug}
        refused = await web.post("/signup", data=form)
        assert refused.status_code == 403
        assert ALERT.search(refused.text) and 'data-signup="closed"' in refused.text
        assert not await _slug_taken(engine, slug)
        # Existing accounts sign in as ever.
        org = await orgs()
        signed_in = await web.post("/login", data={"csrf_token": token, "email": org.email, "password": PASSWORD})
        assert signed_in.status_code == 303
    async with grpc.aio.insecure_channel(closed.core_target) as channel:
        stub = accounts_pb2_grpc.AccountServiceStub(channel)
        assert (await stub.GetSignUpPolicy(accounts_pb2.GetSignUpPolicyRequest())).open is False
        request = accounts_pb2.SignUpRequest(email=f"{slug}@example.com", password=PASSWORD, organization=slug)
        assert await _reason(stub.SignUp(request)) == (grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN")
    assert not await _slug_taken(engine, slug)


async def test_an_invitation_signs_up_even_with_sign_up_closed(closed, orgs) -> None:
    org = await orgs()
    email = f"{_slug()}@example.com"
    async with httpx.AsyncClient(base_url=closed.base_url, timeout=30) as web:
        created = await web.post("/v1/invitations", json={"email": email, "role": "editor"}, headers=org.auth)
        assert created.status_code == 201, created.text
        token = created.json()["url"].rsplit("/", 1)[1]
    async with grpc.aio.insecure_channel(closed.core_target) as channel:
        stub = accounts_pb2_grpc.AccountServiceStub(channel)
        session = await stub.SignUpByInvitation(accounts_pb2.SignUpByInvitationRequest(token=token, password=PASSWORD))
        assert (session.email, session.organization.slug, session.organization.role) == (email, org.slug, "editor")
