"""Sign-in throttling (core/identity/accounts.py): five failures in fifteen minutes lock an
account's sign-in for the rest of the window, checked before the password; each attempt is
reserved before its password is checked, so concurrency cannot buy more guesses."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import grpc
import httpx
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc
from sqlalchemy import func, select, update

from core.db.models import sign_in_throttles, users
from core.db.types import utcnow
from core.identity.accounts import MAX_FAILED_SIGN_INS
from core.identity.cleanup import purge_expired_credentials
from tests.core.rpc_helpers import error_info
from tests.dashboard_forms import form_token

PASSWORD = "correct horse battery"


async def _sign_in(stub, email: str, password: str) -> grpc.StatusCode | None:
    try:
        await stub.SignIn(accounts_pb2.SignInRequest(email=email, password=password))
    except grpc.aio.AioRpcError as error:
        return error.code(), error_info(error).reason
    return None


async def test_five_failures_lock_sign_in_until_the_window_passes(channel, orgs, engine):
    stub = accounts_pb2_grpc.AccountServiceStub(channel)
    org = await orgs()
    # Concurrent failures all count (one conditional update each).
    outcomes = await asyncio.gather(*(_sign_in(stub, org.email, "wrong password!") for _ in range(5)))
    assert outcomes == [(grpc.StatusCode.UNAUTHENTICATED, "UNAUTHORIZED")] * 5
    # The right password is refused too while locked: the password is not even checked.
    assert await _sign_in(stub, org.email, PASSWORD) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_ATTEMPTS")
    async with engine.begin() as conn:
        await conn.execute(
            update(users)
            .where(users.c.email == org.email)
            .values(last_failed_sign_in_at=utcnow() - timedelta(minutes=16))
        )
    assert await _sign_in(stub, org.email, PASSWORD) is None
    async with engine.connect() as conn:
        assert await conn.scalar(select(users.c.failed_sign_ins).where(users.c.email == org.email)) == 0


async def test_concurrent_guesses_get_at_most_the_limit_checked_over_grpc(channel, orgs, engine):
    stub = accounts_pb2_grpc.AccountServiceStub(channel)
    org = await orgs()
    outcomes = await asyncio.gather(*(_sign_in(stub, org.email, f"wrong password {i}") for i in range(40)))
    # Checked and wrong: UNAUTHORIZED; refused before any check: TOO_MANY_ATTEMPTS.
    assert outcomes.count((grpc.StatusCode.UNAUTHENTICATED, "UNAUTHORIZED")) == MAX_FAILED_SIGN_INS
    assert outcomes.count((grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_ATTEMPTS")) == 40 - MAX_FAILED_SIGN_INS
    async with engine.connect() as conn:
        count = await conn.scalar(select(users.c.failed_sign_ins).where(users.c.email == org.email))
    assert count == MAX_FAILED_SIGN_INS


async def test_concurrent_guesses_get_at_most_the_limit_checked_over_http(http, orgs):
    """40 wrong passwords at once through the sign-in form: only MAX_FAILED_SIGN_INS of them are
    checked against the hash (401); the others are refused unchecked (429)."""
    org = await orgs()
    token = form_token(await http.get("/login"))
    answers = await asyncio.gather(
        *(
            http.post("/login", data={"csrf_token": token, "email": org.email, "password": f"wrong password {i}"})
            for i in range(40)
        )
    )
    statuses = [a.status_code for a in answers]
    assert statuses.count(401) == MAX_FAILED_SIGN_INS, statuses
    assert statuses.count(429) == 40 - MAX_FAILED_SIGN_INS, statuses
    # Locked now: the right password is not checked either.
    right = await http.post("/login", data={"csrf_token": token, "email": org.email, "password": PASSWORD})
    assert right.status_code == 429


async def test_a_success_resets_the_count(channel, orgs):
    stub = accounts_pb2_grpc.AccountServiceStub(channel)
    org = await orgs()
    for _ in range(4):
        assert (await _sign_in(stub, org.email, "wrong password!"))[1] == "UNAUTHORIZED"
    assert await _sign_in(stub, org.email, PASSWORD) is None
    for _ in range(4):
        assert (await _sign_in(stub, org.email, "wrong password!"))[1] == "UNAUTHORIZED"
    assert await _sign_in(stub, org.email, PASSWORD) is None


async def test_the_login_page_says_so(http, orgs):
    org = await orgs()
    async with httpx.AsyncClient(base_url=http.base_url) as browser:
        token = form_token(await browser.get("/login"))
        statuses = []
        for password in ["wrong password!"] * 5 + [PASSWORD]:
            answer = await browser.post("/login", data={"csrf_token": token, "email": org.email, "password": password})
            statuses.append(answer.status_code)
    assert statuses == [401] * 5 + [429]
    assert 'role="alert"' in answer.text


def test_the_dummy_hash_costs_what_a_real_one_does():
    """Unknown emails are checked against a fixed hash; it must use the parameters real hashes use."""
    from core.identity import passwords
    from core.identity.accounts import _DUMMY_HASH

    assert not passwords._hasher.check_needs_rehash(_DUMMY_HASH)


async def test_an_email_without_an_account_is_locked_alike(channel, orgs, engine):
    """The lock must not tell which emails have accounts: an unknown email answers exactly as an
    account does, guess after guess, concurrent or not, and is free again after the window."""
    stub = accounts_pb2_grpc.AccountServiceStub(channel)
    org = await orgs()
    unknown = f"nobody-{org.slug}@example.com"
    for email in (org.email, unknown):
        outcomes = await asyncio.gather(*(_sign_in(stub, email, f"wrong password {i}") for i in range(12)))
        assert outcomes.count((grpc.StatusCode.UNAUTHENTICATED, "UNAUTHORIZED")) == MAX_FAILED_SIGN_INS, email
        assert outcomes.count((grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_ATTEMPTS")) == 12 - MAX_FAILED_SIGN_INS
        assert await _sign_in(stub, email, PASSWORD) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_ATTEMPTS")
    async with engine.begin() as conn:
        await conn.execute(update(sign_in_throttles).values(last_failed_sign_in_at=utcnow() - timedelta(minutes=16)))
    assert await _sign_in(stub, unknown, PASSWORD) == (grpc.StatusCode.UNAUTHENTICATED, "UNAUTHORIZED")
    # Housekeeping forgets windows that have passed (the one just opened stays).
    async with engine.begin() as conn:
        await conn.execute(update(sign_in_throttles).values(last_failed_sign_in_at=utcnow() - timedelta(minutes=16)))
    await purge_expired_credentials(engine, utcnow())
    async with engine.connect() as conn:
        assert await conn.scalar(select(func.count()).select_from(sign_in_throttles)) == 0
