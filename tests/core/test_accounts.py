"""herald.identity.v1.AccountService over real gRPC: sign-up validation and conflicts, sign-in
failures, session expiry and sign-out, organization switching, and who may mint API keys."""

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
def accounts(channel):  # noqa: ANN001, ANN201
    return accounts_pb2_grpc.AccountServiceStub(channel)


@pytest.fixture
def identity(channel):  # noqa: ANN001, ANN201
    return identity_pb2_grpc.IdentityServiceStub(channel)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def fresh_slug() -> str:
    return f"acct-{uuid.uuid4().hex[:10]}"


async def refused(call, code: grpc.StatusCode, reason: str) -> None:  # noqa: ANN001
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    assert error_info(caught.value).reason == reason


async def test_sign_up_opens_a_session_in_a_new_organization(accounts, identity) -> None:  # noqa: ANN001
    slug = fresh_slug()
    session = await accounts.SignUp(
        accounts_pb2.SignUpRequest(email=f"{slug}@Example.com", password=PASSWORD, organization=slug)
    )
    assert session.token.startswith("hss_")
    assert session.email == f"{slug}@example.com"
    assert session.organization.slug == slug
    assert session.organization.role == "owner"
    principal = await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=bearer(session.token))
    assert principal.credential_kind == identity_pb2.CREDENTIAL_KIND_SESSION
    assert principal.organization == slug
    assert principal.user_id == session.user_id


async def test_a_new_organization_starts_with_the_starter_credits(accounts, channel) -> None:  # noqa: ANN001
    slug = fresh_slug()
    session = await accounts.SignUp(
        accounts_pb2.SignUpRequest(email=f"{slug}@example.com", password=PASSWORD, organization=slug)
    )
    account = await credits_pb2_grpc.CreditsServiceStub(channel).GetCreditAccount(
        credits_pb2.GetCreditAccountRequest(), metadata=bearer(session.token)
    )
    # HERALD_SIGNUP_CREDITS (default 100): its first posts go out instead of failing unpaid.
    assert account.balance == 100
    assert [(e.delta, e.reason, e.reference) for e in account.recent_entries] == [
        (100, "grant", "sign-up starter credits")
    ]


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
async def test_sign_up_validation(accounts, email, password, organization) -> None:  # noqa: ANN001
    slug = fresh_slug()
    request = accounts_pb2.SignUpRequest(
        email=f"{slug}@example.com" if email is None else email,
        password=password,
        organization=slug if organization is None else organization,
    )
    await refused(accounts.SignUp(request), grpc.StatusCode.INVALID_ARGUMENT, "VALIDATION_ERROR")


async def test_sign_up_conflicts(accounts, orgs) -> None:  # noqa: ANN001
    org = await orgs()
    taken_email = accounts_pb2.SignUpRequest(email=org.email.upper(), password=PASSWORD, organization=fresh_slug())
    await refused(accounts.SignUp(taken_email), grpc.StatusCode.ALREADY_EXISTS, "CONFLICT")
    taken_org = accounts_pb2.SignUpRequest(
        email=f"{fresh_slug()}@example.com", password=PASSWORD, organization=org.slug
    )
    await refused(accounts.SignUp(taken_org), grpc.StatusCode.ALREADY_EXISTS, "CONFLICT")
    # Neither attempt left anything behind: the slug of the first is still free.
    await accounts.SignUp(
        accounts_pb2.SignUpRequest(
            email=f"{fresh_slug()}@example.com", password=PASSWORD, organization=taken_email.organization
        )
    )


async def test_sign_in_failures_are_unauthenticated(accounts, orgs) -> None:  # noqa: ANN001
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


async def test_sign_in_to_an_organization_of_another_user_is_not_found(accounts, orgs) -> None:  # noqa: ANN001
    org, stranger = await orgs(), await orgs()
    request = accounts_pb2.SignInRequest(email=org.email, password=PASSWORD, organization=stranger.slug)
    await refused(accounts.SignIn(request), grpc.StatusCode.NOT_FOUND, "NOT_FOUND")


async def test_expired_session_is_unauthenticated(accounts, identity, orgs, engine) -> None:  # noqa: ANN001
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


async def test_sign_out_ends_only_that_session(accounts, identity, orgs) -> None:  # noqa: ANN001
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


async def test_sign_out_needs_a_session(accounts, orgs) -> None:  # noqa: ANN001
    org = await orgs()
    await refused(
        accounts.SignOut(accounts_pb2.SignOutRequest(), metadata=org.metadata),
        grpc.StatusCode.PERMISSION_DENIED,
        "FORBIDDEN",
    )


async def test_switch_organization(accounts, identity, orgs, engine) -> None:  # noqa: ANN001
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


async def test_only_a_session_may_mint_api_keys(accounts, identity, orgs) -> None:  # noqa: ANN001
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


async def test_account_methods_other_than_sign_up_and_sign_in_need_a_credential(accounts) -> None:  # noqa: ANN001
    for call in (
        accounts.SignOut(accounts_pb2.SignOutRequest()),
        accounts.ListOrganizations(accounts_pb2.ListOrganizationsRequest()),
        accounts.SwitchOrganization(accounts_pb2.SwitchOrganizationRequest(organization="x")),
    ):
        await refused(call, grpc.StatusCode.UNAUTHENTICATED, "UNAUTHORIZED")
