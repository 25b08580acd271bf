"""herald.identity.v1.AccountService over real gRPC: sign-up validation, slug conflicts and
answers that never tell whether an email has an account, sign-in failures, session expiry and sign-out, organization switching, and who may mint API keys."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from herald.credits.v1 import credits_pb2, credits_pb2_grpc
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc, identity_pb2, identity_pb2_grpc
from sqlalchemy import update

from core.db.models import sessions
from tests.core.rpc_helpers import error_info

PASSWORD = "correct horse battery"


@pytest.fixture
def accounts(channel):
    return accounts_pb2_grpc.AccountServiceStub(channel)


@pytest.fixture
def identity(channel):
    return identity_pb2_grpc.IdentityServiceStub(channel)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def fresh_slug() -> str:
    return f"acct-{uuid.uuid4().hex[:10]}"


async def refused(call, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    assert error_info(caught.value).reason == reason


async def test_sign_up_creates_an_organization_its_user_then_signs_in_to(accounts, identity) -> None:
    slug = fresh_slug()
    answer = await accounts.SignUp(
        accounts_pb2.SignUpRequest(email=f"{slug}@Example.com", password=PASSWORD, organization=slug)
    )
    assert answer == accounts_pb2.SignUpResponse()  # no session, no user id: see the next tests
    session = await accounts.SignIn(accounts_pb2.SignInRequest(email=f"{slug}@example.com", password=PASSWORD))
    assert session.token.startswith("hss_")
    assert session.email == f"{slug}@example.com"
    assert session.organization.slug == slug
    assert session.organization.role == "owner"
    principal = await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=bearer(session.token))
    assert principal.credential_kind == identity_pb2.CREDENTIAL_KIND_SESSION
    assert principal.organization == slug
    assert principal.user_id == session.user_id


async def test_a_new_organization_starts_with_the_starter_credits(accounts, channel) -> None:
    slug = fresh_slug()
    await accounts.SignUp(accounts_pb2.SignUpRequest(email=f"{slug}@example.com", password=PASSWORD, organization=slug))
    session = await accounts.SignIn(accounts_pb2.SignInRequest(email=f"{slug}@example.com", password=PASSWORD))
    account = await credits_pb2_grpc.CreditsServiceStub(channel).GetCreditAccount(
        credits_pb2.GetCreditAccountRequest(), metadata=bearer(session.token)
    )
    # HERALD_SIGNUP_CREDITS (default 100): its first posts go out instead of failing unpaid.
    assert account.balance == 100
    assert [(e.delta, e.reason, e.reference) for e in account.recent_entries] == [
        (100, "grant", "sign-up starter credits")
    ]


async def _answer(accounts, request: accounts_pb2.SignUpRequest) -> tuple:
    """Everything a gRPC caller gets back: the message's bytes, both metadata, the status."""
    call = accounts.SignUp(request)
    response = await call
    return (
        response.SerializeToString(),
        list(await call.initial_metadata()),
        list(await call.trailing_metadata()),
        await call.code(),
    )


async def test_sign_up_answers_alike_whether_or_not_the_email_has_an_account(accounts, orgs) -> None:
    org = await orgs()
    new_slug, other_slug = fresh_slug(), fresh_slug()
    new = await _answer(
        accounts, accounts_pb2.SignUpRequest(email=f"{new_slug}@example.com", password=PASSWORD, organization=new_slug)
    )
    taken = await _answer(
        accounts,
        accounts_pb2.SignUpRequest(email=org.email.upper(), password="another password", organization=other_slug),
    )
    assert new == taken
    assert new[3] == grpc.StatusCode.OK
    # The taken email's attempt changed nothing: its password is the old one, and the slug it
    # asked for is still free.
    await accounts.SignIn(accounts_pb2.SignInRequest(email=org.email, password=PASSWORD))
    await refused(
        accounts.SignIn(accounts_pb2.SignInRequest(email=org.email, password="another password")),
        grpc.StatusCode.UNAUTHENTICATED,
        "UNAUTHORIZED",
    )
    await accounts.SignUp(
        accounts_pb2.SignUpRequest(email=f"{other_slug}@example.com", password=PASSWORD, organization=other_slug)
    )
    session = await accounts.SignIn(accounts_pb2.SignInRequest(email=f"{other_slug}@example.com", password=PASSWORD))
    assert session.organization.slug == other_slug


async def test_the_sign_up_policy_says_sign_up_is_open(accounts) -> None:
    # HERALD_SIGNUP=closed: tests/e2e/test_sign_up_limits.py.
    assert (await accounts.GetSignUpPolicy(accounts_pb2.GetSignUpPolicyRequest())).open is True


@pytest.mark.parametrize(
    ("email", "password", "organization"),
    [
        ("not-an-email", PASSWORD, None),
        ("", PASSWORD, None),
        (None, "too short", None),
        (None, "", None),
        (None, PASSWORD, "A"),
        (None, PASSWORD, "Upper-Case"),
        (None, PASSWORD, "-leading-hyphen"),
        (None, PASSWORD, "has space"),
        (None, PASSWORD, "x" * 64),
    ],
)
async def test_sign_up_validation(accounts, email, password, organization) -> None:
    slug = fresh_slug()
    request = accounts_pb2.SignUpRequest(
        email=f"{slug}@example.com" if email is None else email,
        password=password,
        organization=slug if organization is None else organization,
    )
    await refused(accounts.SignUp(request), grpc.StatusCode.INVALID_ARGUMENT, "VALIDATION_ERROR")


async def test_a_taken_organization_slug_conflicts_whatever_the_email(accounts, orgs) -> None:
    org = await orgs()
    # A new email, and an email that has an account: the same CONFLICT (the slug is checked
    # first, and slugs are public names).
    for email in (f"{fresh_slug()}@example.com", org.email):
        taken_org = accounts_pb2.SignUpRequest(email=email, password=PASSWORD, organization=org.slug)
        await refused(accounts.SignUp(taken_org), grpc.StatusCode.ALREADY_EXISTS, "CONFLICT")
    # Nothing was left behind: the new email can still sign up, with a free slug.
    slug = fresh_slug()
    await accounts.SignUp(accounts_pb2.SignUpRequest(email=f"{slug}@example.com", password=PASSWORD, organization=slug))
    await accounts.SignIn(accounts_pb2.SignInRequest(email=f"{slug}@example.com", password=PASSWORD))


async def test_sign_in_failures_are_unauthenticated(accounts, orgs) -> None:
    org = await orgs()
    for email, password in (
        (org.email, "wrong password"),
        (f"nobody-{org.slug}@example.com", PASSWORD),
        ("not-an-email", PASSWORD),
        (org.email, ""),
    ):
        await refused(
            accounts.SignIn(accounts_pb2.SignInRequest(email=email, password=password)),
            grpc.StatusCode.UNAUTHENTICATED,
            "UNAUTHORIZED",
        )
    session = await accounts.SignIn(accounts_pb2.SignInRequest(email=org.email.upper(), password=PASSWORD))
    assert session.organization.slug == org.slug


async def test_sign_in_to_an_organization_of_another_user_is_not_found(accounts, orgs) -> None:
    org, stranger = await orgs(), await orgs()
    request = accounts_pb2.SignInRequest(email=org.email, password=PASSWORD, organization=stranger.slug)
    await refused(accounts.SignIn(request), grpc.StatusCode.NOT_FOUND, "NOT_FOUND")


async def test_expired_session_is_unauthenticated(accounts, identity, orgs, engine) -> None:
    org = await orgs()
    session = await accounts.SignIn(accounts_pb2.SignInRequest(email=org.email, password=PASSWORD))
    await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=bearer(session.token))
    async with engine.begin() as conn:
        await conn.execute(
            update(sessions)
            .where(sessions.c.id == session.session_id)
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
    await refused(
        identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=bearer(session.token)),
        grpc.StatusCode.UNAUTHENTICATED,
        "UNAUTHORIZED",
    )
    await refused(
        accounts.ListOrganizations(accounts_pb2.ListOrganizationsRequest(), metadata=bearer(session.token)),
        grpc.StatusCode.UNAUTHENTICATED,
        "UNAUTHORIZED",
    )


async def test_sign_out_ends_only_that_session(accounts, identity, orgs) -> None:
    org = await orgs()
    ending = await accounts.SignIn(accounts_pb2.SignInRequest(email=org.email, password=PASSWORD))
    staying = await accounts.SignIn(accounts_pb2.SignInRequest(email=org.email, password=PASSWORD))
    await accounts.SignOut(accounts_pb2.SignOutRequest(), metadata=bearer(ending.token))
    await refused(
        identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=bearer(ending.token)),
        grpc.StatusCode.UNAUTHENTICATED,
        "UNAUTHORIZED",
    )
    await refused(
        accounts.SignOut(accounts_pb2.SignOutRequest(), metadata=bearer(ending.token)),
        grpc.StatusCode.UNAUTHENTICATED,
        "UNAUTHORIZED",
    )
    await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=bearer(staying.token))


async def test_sign_out_needs_a_session(accounts, orgs) -> None:
    org = await orgs()
    await refused(
        accounts.SignOut(accounts_pb2.SignOutRequest(), metadata=org.metadata),
        grpc.StatusCode.PERMISSION_DENIED,
        "FORBIDDEN",
    )


async def test_switch_organization(accounts, identity, orgs, engine) -> None:
    from core import admin

    org, stranger = await orgs(), await orgs()
    second = fresh_slug()
    await admin.bootstrap(engine, email=org.email, password=PASSWORD, org=second, credits_=None, plan="none")
    session = await accounts.SignIn(
        accounts_pb2.SignInRequest(email=org.email, password=PASSWORD, organization=org.slug)
    )
    listed = await accounts.ListOrganizations(accounts_pb2.ListOrganizationsRequest(), metadata=bearer(session.token))
    assert sorted(o.slug for o in listed.organizations) == sorted([org.slug, second])

    switched = await accounts.SwitchOrganization(
        accounts_pb2.SwitchOrganizationRequest(organization=second), metadata=bearer(session.token)
    )
    assert switched.slug == second
    assert switched.plan == identity_pb2.PLAN_NONE
    principal = await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=bearer(session.token))
    assert principal.organization == second

    for slug in (stranger.slug, "no-such-org", ""):
        await refused(
            accounts.SwitchOrganization(
                accounts_pb2.SwitchOrganizationRequest(organization=slug), metadata=bearer(session.token)
            ),
            grpc.StatusCode.NOT_FOUND,
            "NOT_FOUND",
        )
    principal = await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=bearer(session.token))
    assert principal.organization == second


async def test_only_a_session_may_mint_api_keys(accounts, identity, orgs) -> None:
    org = await orgs()
    await refused(
        identity.CreateApiKey(identity_pb2.CreateApiKeyRequest(), metadata=org.metadata),
        grpc.StatusCode.PERMISSION_DENIED,
        "FORBIDDEN",
    )
    await refused(
        identity.CreateApiKey(identity_pb2.CreateApiKeyRequest()),
        grpc.StatusCode.UNAUTHENTICATED,
        "UNAUTHORIZED",
    )
    session = await accounts.SignIn(accounts_pb2.SignInRequest(email=org.email, password=PASSWORD))
    created = await identity.CreateApiKey(identity_pb2.CreateApiKeyRequest(), metadata=bearer(session.token))
    assert created.secret.startswith("svc_")
    principal = await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=bearer(created.secret))
    assert principal.credential_kind == identity_pb2.CREDENTIAL_KIND_API_KEY
    assert principal.organization == org.slug


async def test_account_methods_other_than_sign_up_and_sign_in_need_a_credential(accounts) -> None:
    for call in (
        accounts.SignOut(accounts_pb2.SignOutRequest()),
        accounts.ListOrganizations(accounts_pb2.ListOrganizationsRequest()),
        accounts.SwitchOrganization(accounts_pb2.SwitchOrganizationRequest(organization="x")),
    ):
        await refused(call, grpc.StatusCode.UNAUTHENTICATED, "UNAUTHORIZED")
