"""AccountService.GetSessionView over real gRPC: the dashboard's one call per page carries what
GetPrincipal, ListOrganizations and ListNotifications' count answer, the count exact after marking
read and kept to the session's organization; only a session may call it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import grpc
import pytest
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc, identity_pb2, identity_pb2_grpc
from herald.notes.v1 import notes_pb2, notes_pb2_grpc
from sqlalchemy import insert, select

from core.db.models import notifications, organizations
from core.ids import new_id
from tests.core.test_accounts import PASSWORD, bearer, fresh_slug, refused


@pytest.fixture
def accounts(channel):
    return accounts_pb2_grpc.AccountServiceStub(channel)


@pytest.fixture
def identity(channel):
    return identity_pb2_grpc.IdentityServiceStub(channel)


async def _org_id(engine, slug: str) -> str:
    async with engine.connect() as conn:
        return await conn.scalar(select(organizations.c.id).where(organizations.c.slug == slug))


async def _notify(engine, org_id: str, user_id: str, count: int, *, read: int = 0) -> list[str]:
    """`count` notifications of the member, the first `read` of them read; their ids."""
    now = datetime.now(UTC)
    rows = [
        {
            "id": new_id("ntf"),
            "org_id": org_id,
            "user_id": user_id,
            "kind": "approval_requested",
            "text": f"Notification {n}",
            "dedupe_key": f"session-view:{new_id('d')}",
            "created_at": now - timedelta(minutes=n),
            "read_at": now if n < read else None,
        }
        for n in range(count)
    ]
    async with engine.begin() as conn:
        await conn.execute(insert(notifications), rows)
    return [r["id"] for r in rows]


async def test_the_session_view_is_the_principal_the_organizations_and_the_unread_count(
    accounts, identity, channel, orgs, engine
) -> None:
    from core import admin

    org = await orgs()
    second = fresh_slug()
    await admin.bootstrap(engine, email=org.email, password=PASSWORD, org=second, credits_=None, plan="none")
    ids = await _notify(engine, org.org_id, org.user_id, 7, read=2)
    other = await orgs()  # another member's notifications, elsewhere: never counted
    await _notify(engine, other.org_id, other.user_id, 3)
    session = await accounts.SignIn(
        accounts_pb2.SignInRequest(email=org.email, password=PASSWORD, organization=org.slug)
    )
    auth = bearer(session.token)
    notes = notes_pb2_grpc.NoteServiceStub(channel)

    view = await accounts.GetSessionView(accounts_pb2.GetSessionViewRequest(), metadata=auth)
    assert view.principal == await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=auth)
    listed = await accounts.ListOrganizations(accounts_pb2.ListOrganizationsRequest(), metadata=auth)
    assert list(view.organizations) == list(listed.organizations)
    assert [o.slug for o in view.organizations] == sorted([org.slug, second])
    inbox = await notes.ListNotifications(notes_pb2.ListNotificationsRequest(page_size=1), metadata=auth)
    assert view.unread_notifications == inbox.unread_count == 5

    # Exact after marking read, one and then all.
    await notes.MarkNotificationsRead(notes_pb2.MarkNotificationsReadRequest(ids=[ids[4]]), metadata=auth)
    view = await accounts.GetSessionView(accounts_pb2.GetSessionViewRequest(), metadata=auth)
    assert view.unread_notifications == 4
    await notes.MarkNotificationsRead(notes_pb2.MarkNotificationsReadRequest(all=True), metadata=auth)
    view = await accounts.GetSessionView(accounts_pb2.GetSessionViewRequest(), metadata=auth)
    assert view.unread_notifications == 0

    # The session's organization's count only: the other organization's own.
    await _notify(engine, await _org_id(engine, second), org.user_id, 2)
    await accounts.SwitchOrganization(accounts_pb2.SwitchOrganizationRequest(organization=second), metadata=auth)
    view = await accounts.GetSessionView(accounts_pb2.GetSessionViewRequest(), metadata=auth)
    assert (view.principal.organization, view.unread_notifications) == (second, 2)


async def test_only_a_session_reads_its_view(accounts, orgs) -> None:
    org = await orgs()
    await refused(
        accounts.GetSessionView(accounts_pb2.GetSessionViewRequest(), metadata=org.metadata),
        grpc.StatusCode.PERMISSION_DENIED,
        "FORBIDDEN",
    )
    await refused(
        accounts.GetSessionView(accounts_pb2.GetSessionViewRequest()),
        grpc.StatusCode.UNAUTHENTICATED,
        "UNAUTHORIZED",
    )
