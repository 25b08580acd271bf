"""WebhookService over gRPC: servers (API keys) and humans (sessions) manage endpoints; an agent's
OAuth access token is refused whatever its scopes (docs/webhooks.md)."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from herald.webhooks.v1 import webhooks_pb2, webhooks_pb2_grpc
from sqlalchemy.ext.asyncio import create_async_engine

from core import admin
from core.db.engine import transaction
from core.identity.scopes import SCOPES
from core.identity.service import create_organization
from core.platform_accounts.vault import TokenVault, VaultError
from core.webhooks import service
from harness.oauth_flow import register, sign_in, tokens_for
from harness.stack import database
from tests.core.rpc_helpers import error_info


async def test_keys_and_sessions_manage_endpoints_and_agents_are_forbidden(channel, orgs, http) -> None:
    org = await orgs()
    stub = webhooks_pb2_grpc.WebhookServiceStub(channel)
    made = await stub.CreateWebhook(
        webhooks_pb2.CreateWebhookRequest(url="https://h.example/in", events=["post.published"]), metadata=org.metadata
    )
    assert made.id.startswith("whk_") and made.secret.startswith("whsec_")
    session = await sign_in(channel, org.email)
    as_human = (("authorization", f"Bearer {session}"),)
    listed = await stub.ListWebhooks(webhooks_pb2.ListWebhooksRequest(), metadata=as_human)
    assert [w.id for w in listed.webhooks] == [made.id] and not listed.webhooks[0].secret
    tokens = await tokens_for(http, session, (await register(http))["client_id"], " ".join(sorted(SCOPES)))
    as_agent = (("authorization", f"Bearer {tokens['access_token']}"),)
    for call in (
        stub.ListWebhooks(webhooks_pb2.ListWebhooksRequest(), metadata=as_agent),
        stub.GetWebhook(webhooks_pb2.GetWebhookRequest(webhook_id=made.id), metadata=as_agent),
        stub.CreateWebhook(
            webhooks_pb2.CreateWebhookRequest(url="https://evil.example/", events=["*"]), metadata=as_agent
        ),
        stub.RotateWebhookSecret(webhooks_pb2.RotateWebhookSecretRequest(webhook_id=made.id), metadata=as_agent),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call
        assert (refused.value.code(), error_info(refused.value).reason) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "FORBIDDEN",
        )
    still = await stub.ListWebhooks(webhooks_pb2.ListWebhooksRequest(), metadata=org.metadata)
    assert [w.url for w in still.webhooks] == ["https://h.example/in"]


async def test_key_rotation_reseals_webhook_secrets_and_both_sign_during_the_overlap(backend, tmp_path) -> None:
    """`herald admin reseal-tokens` moves webhook secrets to the new key; after a secret rotation
    deliveries are signed with the new and the previous secret for 24 hours, then the new only.
    On a database of its own: resealing the shared one would hide its secrets from the stack."""
    k1, k2 = os.urandom(32), os.urandom(32)
    old, rotated, new_only = TokenVault([("k1", k1)]), TokenVault([("k2", k2), ("k1", k1)]), TokenVault([("k2", k2)])
    now = datetime.now(UTC)
    fresh = database(backend, tmp_path)  # migrates with asyncio.run: in a thread of its own
    url = await asyncio.to_thread(fresh.__enter__)
    engine = create_async_engine(url)
    try:
        async with transaction(engine, writes=True) as conn:
            org_id = await create_organization(conn, "reseal-org", "active", now)
            made = await service.create(
                conn, old, org_id, url="https://h.example/", events=["*"], description="", now=now
            )
            second, _ = await service.rotate(conn, old, org_id, made.id, now)
        assert await admin.reseal_tokens(engine, rotated) == {"resealed": 1, "key_id": "k2"}
        async with transaction(engine) as conn:
            assert await service.signing_secrets(conn, new_only, made.id, now) == [second, made.secret]
            later = now + service.ROTATION_OVERLAP + timedelta(seconds=1)
            assert await service.signing_secrets(conn, new_only, made.id, later) == [second]
            with pytest.raises(VaultError):  # resealed: the old key alone no longer opens it
                await service.signing_secrets(conn, old, made.id, now)
    finally:
        await engine.dispose()
        await asyncio.to_thread(fresh.__exit__, None, None, None)
