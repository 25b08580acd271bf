"""The Client ID Metadata Document fetcher (core/oauth/client_metadata.py) against a real HTTP
server on loopback: the URL rules, the document rules, the size and time caps, no redirects, no
private address unless allowed, and the cache that honours HTTP caching headers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx2
import pytest

from core.oauth.client_metadata import (
    DEFAULT_CACHE_SECONDS,
    MAX_CACHE_SECONDS,
    MAX_DOCUMENT_BYTES,
    ClientMetadataDocuments,
    cache_seconds,
    check_client_id_url,
    parse_document,
)
from core.oauth.errors import InvalidClient
from tests.client_documents import Answer, DocumentServer

pytestmark = pytest.mark.one_backend  # no database in here


@pytest.fixture(scope="module")
def documents_server() -> Iterator[DocumentServer]:
    server = DocumentServer()
    yield server
    server.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _refused(error: pytest.ExceptionInfo[InvalidClient]) -> None:
    assert error.value.reason == "invalid_client"


@pytest.mark.parametrize(
    ("url", "private", "ok"),
    [
        ("https://agent.example/client.json", False, True),
        ("https://agent.example:8443/oauth/client?v=1", False, True),
        ("https://agent.example/", False, True),
        ("http://127.0.0.1:8123/client.json", True, True),
        ("http://localhost:8123/client.json", True, True),
        ("http://127.0.0.1:8123/client.json", False, False),  # http only where private targets are allowed
        ("http://localhost/client.json", False, False),
        ("http://agent.example/client.json", True, False),  # and then only on loopback
        ("http://10.0.0.5/client.json", True, False),
        ("ftp://agent.example/client.json", True, False),
        ("https://agent.example", False, False),  # no path
        ("https://user:pw@agent.example/client.json", False, False),
        ("https://agent.example/client.json#frag", False, False),
        ("https://agent.example/a/../client.json", False, False),
        ("https://agent.example/a/%2e%2e/client.json", False, False),
        ("https://agent.example/./client.json", False, False),
        ("https://agent.example/client json", False, False),
        ("https://agent.example:99999/client.json", False, False),
        ("https:///client.json", False, False),
        ("https://agent.example/" + "a" * 2000, False, False),
    ],
)
def test_client_id_url_rules(url: str, private: bool, ok: bool) -> None:
    if ok:
        check_client_id_url(url, allow_private=private)
    else:
        with pytest.raises(InvalidClient) as error:
            check_client_id_url(url, allow_private=private)
        _refused(error)


URL = "https://agent.example/client.json"


def _document(**overrides: object) -> bytes:
    import json

    document = {
        "client_id": URL,
        "client_name": "Agent",
        "redirect_uris": ["http://127.0.0.1/callback"],
        **overrides,
    }
    return json.dumps({k: v for k, v in document.items() if v is not None}).encode()


def test_a_valid_document_gets_registration_defaults() -> None:
    metadata = parse_document(URL, _document(client_uri="https://agent.example"))
    assert metadata.client_name == "Agent"
    assert metadata.token_endpoint_auth_method == "none"
    assert metadata.grant_types == ("authorization_code", "refresh_token")
    assert metadata.scope == "media:write posts:read posts:write"
    assert metadata.application_type == "native"


@pytest.mark.parametrize(
    "body",
    [
        _document(client_id="https://agent.example/other.json"),  # not the URL it came from
        _document(client_id="https://agent.example/client.json/"),  # simple string comparison
        _document(client_id=None),
        _document(client_secret="s3cret"),  # no shared secret (draft 4.1)
        _document(token_endpoint_auth_method="client_secret_basic"),
        _document(token_endpoint_auth_method="private_key_jwt"),  # not supported here
        _document(client_name=None),  # MCP requires it
        _document(client_name=""),
        _document(redirect_uris=None),
        _document(redirect_uris="http://127.0.0.1/callback"),
        _document(redirect_uris=["http://agent.example/callback"]),  # http off loopback
        _document(grant_types=["client_credentials"]),  # needs a confidential client
        _document(client_uri="javascript:alert(1)"),
        _document(client_uri="javascript://x/%0aalert(1)"),  # has a "host", still not https
        _document(client_uri="http://agent.example"),  # what Herald shows as a link is https
        _document(client_uri="https://user@agent.example"),
        _document(redirect_uris=["http://127.0.0.1:80@evil.example/callback"]),  # registration's rules
        _document(scope="admin"),
        b"[1, 2]",
        b"not json",
        b"\xff\xfe\x00",
        b"[" * MAX_DOCUMENT_BYTES,  # deeper than the parser's recursion
    ],
)
def test_documents_that_are_refused(body: bytes) -> None:
    with pytest.raises(InvalidClient) as error:
        parse_document(URL, body)
    _refused(error)


NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({}, DEFAULT_CACHE_SECONDS),
        ({"cache-control": "max-age=60"}, 60),
        ({"cache-control": "public, max-age=60", "age": "20"}, 40),
        ({"cache-control": 'max-age="90"'}, 90),
        ({"cache-control": "max-age=9999999"}, MAX_CACHE_SECONDS),
        ({"cache-control": "max-age=60, no-store"}, 0),
        ({"cache-control": "no-cache"}, 0),
        ({"cache-control": "max-age=soon"}, 0),
        ({"cache-control": "max-age=10", "age": "30"}, 0),
        ({"expires": "Sat, 28 Nov 2026 12:10:00 GMT", "date": "Sat, 28 Nov 2026 12:00:00 GMT"}, 600),
        ({"expires": "Sat, 28 Nov 2026 12:02:00 GMT"}, 120),  # no Date: our clock
        ({"expires": "0"}, 0),  # an invalid date is in the past (RFC 9111 5.3)
        ({"expires": "Sat, 28 Nov 2026 12:10:00 GMT", "cache-control": "max-age=5"}, 5),
    ],
)
def test_cache_lifetime_from_the_headers(headers: dict[str, str], seconds: float) -> None:
    assert cache_seconds(httpx2.Headers(headers), NOW) == seconds


async def test_fetched_and_cached_for_max_age(documents_server: DocumentServer) -> None:
    clock = Clock()
    fetcher = ClientMetadataDocuments(allow_private=True, clock=clock, failure_delay=0)
    url = documents_server.publish(documents_server.url(), client_name="Cached")
    documents_server.answers[url.removeprefix(documents_server.origin)].headers = {"Cache-Control": "max-age=60"}
    assert (await fetcher.metadata(url)).client_name == "Cached"
    clock.now += 59
    await fetcher.metadata(url)
    assert documents_server.hits_of(url) == 1
    clock.now += 2
    await fetcher.metadata(url)
    assert documents_server.hits_of(url) == 2


async def test_no_store_and_default_lifetime(documents_server: DocumentServer) -> None:
    clock = Clock()
    fetcher = ClientMetadataDocuments(allow_private=True, clock=clock, failure_delay=0)
    fresh = documents_server.publish(documents_server.url())  # Cache-Control: no-store
    await fetcher.metadata(fresh)
    await fetcher.metadata(fresh)
    assert documents_server.hits_of(fresh) == 2
    silent = documents_server.publish(documents_server.url())
    documents_server.answers[silent.removeprefix(documents_server.origin)].headers = {}
    await fetcher.metadata(silent)
    clock.now += DEFAULT_CACHE_SECONDS - 1
    await fetcher.metadata(silent)
    assert documents_server.hits_of(silent) == 1
    clock.now += 2
    await fetcher.metadata(silent)
    assert documents_server.hits_of(silent) == 2


async def test_invalid_documents_and_errors_are_not_cached(documents_server: DocumentServer) -> None:
    fetcher = ClientMetadataDocuments(allow_private=True, failure_delay=0)
    url = documents_server.url()
    documents_server.publish(url, client_id="https://someone.else/client.json")
    documents_server.answers[url.removeprefix(documents_server.origin)].headers = {"Cache-Control": "max-age=600"}
    with pytest.raises(InvalidClient):
        await fetcher.metadata(url)
    documents_server.serve(url, Answer({"error": "gone"}, status=500, headers={"Cache-Control": "max-age=600"}))
    with pytest.raises(InvalidClient):
        await fetcher.metadata(url)
    documents_server.publish(url, client_name="Fixed")
    assert (await fetcher.metadata(url)).client_name == "Fixed"
    assert documents_server.hits_of(url) == 3


async def test_size_cap_while_streaming_and_by_length(documents_server: DocumentServer) -> None:
    fetcher = ClientMetadataDocuments(allow_private=True, failure_delay=0)
    padding = "x" * MAX_DOCUMENT_BYTES
    url = documents_server.url()
    documents_server.serve(url, Answer(_document(client_id=url, policy_uri=f"https://a.example/{padding}")))
    with pytest.raises(InvalidClient) as declared:
        await fetcher.metadata(url)
    _refused(declared)
    chunked = documents_server.url()
    body = _document(client_id=chunked, policy_uri=f"https://a.example/{padding}")
    documents_server.serve(chunked, Answer(body, chunked=True))
    with pytest.raises(InvalidClient) as streamed:
        await fetcher.metadata(chunked)
    _refused(streamed)
    # Just under the cap is fine.
    fits = documents_server.url()
    small = _document(client_id=fits)
    exactly = small[:-1] + b', "x": "' + b"y" * (MAX_DOCUMENT_BYTES - len(small) - 9) + b'"}'
    assert len(exactly) == MAX_DOCUMENT_BYTES
    documents_server.serve(fits, Answer(exactly, chunked=True))
    assert (await fetcher.metadata(fits)).client_name == "Agent"


async def test_time_cap(documents_server: DocumentServer) -> None:
    fetcher = ClientMetadataDocuments(allow_private=True, timeout=0.5, failure_delay=0)
    url = documents_server.url()
    documents_server.serve(url, Answer(_document(client_id=url), delay=3))
    started = time.monotonic()
    with pytest.raises(InvalidClient) as error:
        await fetcher.metadata(url)
    _refused(error)
    assert time.monotonic() - started < 2


@pytest.mark.parametrize(
    "answer",
    [
        Answer({"moved": True}, status=302, headers={"Location": "https://agent.example/client.json"}),
        Answer({"error": "not found"}, status=404),
        Answer(b"<html></html>", content_type="text/html"),
    ],
)
async def test_only_a_200_json_answer_is_a_document(documents_server: DocumentServer, answer: Answer) -> None:
    fetcher = ClientMetadataDocuments(allow_private=True, failure_delay=0)
    url = documents_server.serve(documents_server.url(), answer)
    with pytest.raises(InvalidClient) as error:
        await fetcher.metadata(url)
    _refused(error)
    assert documents_server.hits_of(url) == 1  # the redirect was not followed


async def test_private_addresses_refused_unless_allowed(documents_server: DocumentServer) -> None:
    """Where private targets are not allowed (production), a document on a loopback or private
    address is never requested, over https (the guarded transport refuses the address) or http
    (refused by the URL rules before anything is resolved)."""
    fetcher = ClientMetadataDocuments(allow_private=False, failure_delay=0)
    http_url = documents_server.publish(documents_server.url())
    https_url = http_url.replace("http://", "https://")
    for url in (
        http_url,
        https_url,
        "https://localhost:9/client.json",
        "https://10.1.2.3/client.json",
        "https://[::1]:9/client.json",
        "https://169.254.169.254/latest/client.json",
    ):
        with pytest.raises(InvalidClient) as error:
            await fetcher.metadata(url)
        _refused(error)
    assert documents_server.hits_of(http_url) == 0
    # The same document where private targets are allowed (make run's default).
    assert (await ClientMetadataDocuments(allow_private=True).metadata(http_url)).client_name == "Document Agent"


async def test_every_fetch_failure_is_told_alike_and_no_sooner_than_the_others(
    documents_server: DocumentServer,
) -> None:
    """Not a probe of the network (docs/oauth.md): nothing listening, a 404, a redirect, a page
    that is not JSON, a body too large and a server too slow all fail with one description, and
    none sooner than the failure delay; a document that was served but breaks a rule says why,
    no sooner either."""
    import asyncio
    import socket

    from core.oauth.client_metadata import FETCH_FAILED

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/client.json"
    fetcher = ClientMetadataDocuments(allow_private=True, timeout=1.0, failure_delay=0.6)
    served = documents_server.serve
    urls = [
        closed,
        documents_server.url(),  # 404
        served(documents_server.url(), Answer({"moved": True}, status=302, headers={"Location": closed})),
        served(documents_server.url(), Answer(b"<html></html>", content_type="text/html")),
        served(documents_server.url(), Answer(b"{" + b" " * MAX_DOCUMENT_BYTES + b"}")),
        served(documents_server.url(), Answer({}, delay=2)),
    ]

    async def attempt(url: str) -> tuple[str, float]:
        started = time.monotonic()
        with pytest.raises(InvalidClient) as error:
            await fetcher.metadata(url)
        _refused(error)
        return error.value.message, time.monotonic() - started

    outcomes = await asyncio.gather(*(attempt(url) for url in urls))
    assert {message for message, _ in outcomes} == {FETCH_FAILED}
    assert all(elapsed >= 0.6 for _, elapsed in outcomes), outcomes
    mismatch = documents_server.publish(documents_server.url(), client_id="https://someone.else/client.json")
    message, elapsed = await attempt(mismatch)
    assert message != FETCH_FAILED and "client_id" in message and elapsed >= 0.6


async def test_the_fetch_hook_runs_on_cache_misses_only(documents_server: DocumentServer) -> None:
    """The authorization endpoint spends a caller's budget in `before_fetch` (core/oauth/servicer.py):
    a cached document costs nothing, a fetch (failed or not) one unit, and a refusal there stops
    the fetch."""
    fetcher = ClientMetadataDocuments(allow_private=True, failure_delay=0)
    spent: list[str] = []

    async def spend() -> None:
        spent.append("fetch")

    cached = documents_server.publish(documents_server.url())
    documents_server.answers[cached.removeprefix(documents_server.origin)].headers = {"Cache-Control": "max-age=60"}
    for _ in range(3):
        await fetcher.metadata(cached, before_fetch=spend)
    with pytest.raises(InvalidClient):
        await fetcher.metadata(documents_server.url(), before_fetch=spend)  # a 404
    with pytest.raises(InvalidClient):
        await fetcher.metadata("https://agent.example", before_fetch=spend)  # refused before any fetch
    assert spent == ["fetch", "fetch"]

    class Refused(Exception):
        pass

    async def refuse() -> None:
        raise Refused

    fresh = documents_server.publish(documents_server.url())
    with pytest.raises(Refused):
        await fetcher.metadata(fresh, before_fetch=refuse)
    assert documents_server.hits_of(fresh) == 0
