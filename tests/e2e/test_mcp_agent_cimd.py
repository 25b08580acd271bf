"""An agent on the official MCP SDK that identifies itself by a Client ID Metadata Document
instead of registering: the SDK sees `client_id_metadata_document_supported`, uses its document's
URL as client_id, a human approves in Chromium (the consent page naming the document's host),
and the tools answer. The SDK accepts only https document URLs, so the document is served over
TLS on loopback, under a throwaway authority the stack's core trusts (SSL_CERT_FILE)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import grpc
import httpx2
import pytest
from herald.identity.v1 import oauth_pb2, oauth_pb2_grpc
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from harness.oauth_flow import sign_in
from harness.stack import Stack, running_stack
from tests.client_documents import DocumentServer, loopback_certificate
from tests.e2e.agent_helpers import MemoryStorage, approving_provider

# The SDK's side of the flow; the core's CIMD rules run on both backends in tests/facades.
pytestmark = pytest.mark.one_backend


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, DocumentServer]]:
    authority, context = loopback_certificate(tmp_path_factory.mktemp("tls"))
    documents = DocumentServer(tls=context)
    yield authority, documents
    documents.close()


@pytest.fixture(scope="module")
def trusting_stack(
    database_url: str, tls: tuple[Path, DocumentServer], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    """A second core and facade on the session's database whose core trusts the test authority."""
    authority, _ = tls
    with running_stack(database_url, tmp_path_factory.mktemp("cimd-stack"), SSL_CERT_FILE=str(authority)) as stack:
        yield stack


async def test_the_sdk_uses_its_metadata_document_instead_of_registering(page, orgs, trusting_stack, tls) -> None:
    _, documents = tls
    org = await orgs()
    await orgs.profile(org, "cimd-x", "x")
    redirect = "http://127.0.0.1:48127/callback"
    client_id = documents.publish(
        documents.url("sdk-agent"), redirect_uris=(redirect,), client_name="SDK Document Agent"
    )
    assert client_id.startswith("https://127.0.0.1:")
    consent_pages: list[asyncio.Task[str]] = []

    def remember_consent(response) -> None:  # a Playwright Response
        if "/oauth2/authorize?" in response.url and response.status == 200:
            consent_pages.append(asyncio.ensure_future(response.text()))

    page.on("response", remember_consent)
    storage = MemoryStorage()
    provider = approving_provider(trusting_stack, page, org.email, redirect, storage, client_metadata_url=client_id)
    async with (
        httpx2.AsyncClient(auth=provider, timeout=30) as http_client,
        Client(streamable_http_client(f"{trusting_stack.base_url}/mcp", http_client=http_client)) as client,
    ):
        result = await client.call_tool("list_profiles", {})
        assert not result.is_error, result.content
        assert [p["slug"] for p in json.loads(result.content[0].text)["profiles"]] == ["cimd-x"]

    assert storage.client is not None and storage.client.client_id == client_id  # no registration
    assert storage.tokens is not None and storage.tokens.refresh_token
    assert documents.hits_of(client_id) >= 1
    [consent_page] = [await text for text in consent_pages]
    assert "SDK Document Agent" in consent_page and urlsplit(client_id).netloc in consent_page
    channel = grpc.aio.insecure_channel(trusting_stack.core_target)
    try:
        session = await sign_in(channel, org.email)
        grants = await oauth_pb2_grpc.OAuthServiceStub(channel).ListGrants(
            oauth_pb2.ListGrantsRequest(), metadata=(("authorization", f"Bearer {session}"),)
        )
    finally:
        await channel.close()
    assert [(g.client_id, g.client_name) for g in grants.grants] == [(client_id, "SDK Document Agent")]
