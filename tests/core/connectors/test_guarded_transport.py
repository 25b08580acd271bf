"""The guarded transport every user-named host goes through (core/connectors/transport.py): the
SSRF rules over a table of addresses in every spelling, and the connection pinned to the address
that was checked (no second resolution: DNS rebinding cannot move a request)."""

from __future__ import annotations

import asyncio
import gzip
import ipaddress
import zlib

import httpx2
import pytest

from core.connectors.transport import (
    BlockedAddress,
    PlatformEndpoints,
    PlatformTransport,
    ResponseTooLarge,
    is_public,
)
from tests.tls_certs import CertificateAuthority

pytestmark = pytest.mark.one_backend  # no database in here


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.216.34", True),
        ("2606:2800:220:1:248:1893:25c8:1946", True),
        ("127.0.0.1", False),
        ("127.8.9.10", False),
        ("0.0.0.0", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("100.64.0.1", False),  # shared (carrier-grade NAT)
        ("169.254.169.254", False),  # cloud metadata (link-local)
        ("224.0.0.1", False),  # multicast
        ("240.0.0.1", False),  # reserved
        ("192.0.2.1", False),  # documentation
        ("::1", False),
        ("::", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("fd00:ec2::254", False),  # AWS metadata over IPv6 (unique local)
        ("ff02::1", False),
        ("::ffff:127.0.0.1", False),  # IPv4-mapped loopback
        ("::ffff:10.0.0.1", False),
        ("::ffff:93.184.216.34", True),
        # IPv6 that carries an IPv4 address inside: judged by what the packets reach.
        ("64:ff9b::7f00:1", False),  # NAT64 to 127.0.0.1
        ("64:ff9b::a9fe:a9fe", False),  # NAT64 to the metadata address
        ("64:ff9b::a00:1", False),  # NAT64 to 10.0.0.1
        ("64:ff9b::5db8:d822", True),  # NAT64 to a public address: reachable through it
        ("64:ff9b:1::5db8:d822", False),  # local-use NAT64 prefix: the operator's own translator
        ("2002:7f00:1::1", False),  # 6to4 of 127.0.0.1
        ("2002:a9fe:a9fe::1", False),  # 6to4 of 169.254.169.254
        ("2002:5db8:d822::1", True),  # 6to4 of a public address
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", False),  # Teredo, client 127.0.0.1
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", False),  # Teredo, client 10.0.0.1
        ("::7f00:1", False),  # IPv4-compatible (deprecated) 127.0.0.1
        ("::5db8:d822", False),  # IPv4-compatible: refused whatever it carries
    ],
)
def test_only_globally_routable_unicast_addresses_are_public(address: str, public: bool) -> None:
    assert is_public(ipaddress.ip_address(address)) is public


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/",
        "http://localhost:9/",  # a DNS name that resolves to loopback
        "http://2130706433:9/",  # 127.0.0.1 as one decimal number
        "http://0x7f.1:9/",  # hexadecimal and short forms
        "http://017700000001:9/",  # octal
        "http://0:9/",
        "http://10.1.2.3/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:9/",
        "http://[::ffff:127.0.0.1]:9/",
        "http://[fe80::1]:9/",
    ],
)
async def test_user_named_hosts_cannot_reach_private_addresses_in_any_spelling(url: str) -> None:
    async with PlatformEndpoints({}).client(timeout=2) as client:
        with pytest.raises(BlockedAddress):
            await client.get(url)


async def test_a_name_with_one_private_address_among_public_ones_is_refused() -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "10.0.0.7"]

    async with PlatformEndpoints({}, resolver=resolver).client(timeout=2) as client:
        with pytest.raises(BlockedAddress):
            await client.get("https://mixed.example/")


async def test_the_connection_goes_to_the_checked_address_with_the_name_kept() -> None:
    """The resolver answers once; a second answer (rebinding to loopback) is never asked for.
    The request reaching the wire names the checked address, keeps Host, and over TLS sends the
    name as SNI (so the certificate is checked against the name)."""
    answers = [["93.184.216.34"], ["127.0.0.1"]]
    asked: list[str] = []
    seen: list[httpx2.Request] = []

    async def resolver(host: str, port: int) -> list[str]:
        asked.append(f"{host}:{port}")
        return answers.pop(0)

    endpoints = PlatformEndpoints({}, resolver=resolver)
    wire = endpoints_transport(endpoints, seen)
    async with httpx2.AsyncClient(transport=wire, follow_redirects=False) as client:
        answer = await client.get("https://instance.example/api/v1/instance")
    assert answer.status_code == 200
    assert asked == ["instance.example:443"]
    (request,) = seen
    assert request.url.host == "93.184.216.34" and request.url.path == "/api/v1/instance"
    assert request.headers["host"] == "instance.example"
    assert request.extensions["sni_hostname"] == "instance.example"


async def test_redirects_are_not_followed_and_each_new_request_is_checked_again() -> None:
    addresses = {"public.example": ["93.184.216.34"], "internal.example": ["10.0.0.5"]}

    async def resolver(host: str, port: int) -> list[str]:
        return addresses[host]

    seen: list[httpx2.Request] = []
    wire = endpoints_transport(
        PlatformEndpoints({}, resolver=resolver),
        seen,
        answer=httpx2.Response(302, headers={"Location": "http://internal.example/secret"}),
    )
    async with httpx2.AsyncClient(transport=wire, follow_redirects=False) as client:
        first = await client.get("http://public.example/")
        assert first.status_code == 302 and len(seen) == 1  # answered, not followed
        with pytest.raises(BlockedAddress):
            await client.get(first.headers["location"])
    assert len(seen) == 1  # the redirect's target never reached the wire


def endpoints_transport(
    endpoints: PlatformEndpoints, seen: list[httpx2.Request], answer: httpx2.Response | None = None
) -> httpx2.AsyncBaseTransport:
    """The guarded transport over a recording one: what would go on the wire, without a network."""

    def record(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return answer if answer is not None else httpx2.Response(200, json={"ok": True})

    return PlatformTransport(endpoints, lambda: httpx2.MockTransport(record))


async def test_a_name_whose_first_address_refuses_is_reached_at_the_next_checked_one() -> None:
    """Pinning must not lose what the system resolver's callers get for free: a name with an
    IPv6 and an IPv4 address where only one answers."""
    server = await asyncio.start_server(_answer_ok, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]

    async def resolver(host: str, port: int) -> list[str]:
        return ["::1", "127.0.0.1"] if host == "dual.test" else []

    try:
        # The test listens on 127.0.0.1 only: ::1 refuses, 127.0.0.1 answers.
        async with PlatformEndpoints({}, allow_private=True, resolver=resolver).client(timeout=5) as client:
            answer = await client.get(f"http://dual.test:{port}/")
        assert answer.status_code == 200 and answer.text == "ok"
    finally:
        server.close()


async def test_a_connection_verified_for_one_name_is_never_used_for_another_on_the_same_address() -> None:
    """Two names on one address, a certificate for one of them: the other gets a connection of
    its own, whose certificate check fails (it would succeed by reusing the first one's)."""
    authority = CertificateAuthority.create()
    server = await asyncio.start_server(_answer_ok, "127.0.0.1", 0, ssl=authority.server_context("a.test"))
    port = server.sockets[0].getsockname()[1]

    async def resolver(host: str, port: int) -> list[str]:
        return {"a.test": ["127.0.0.1"], "b.test": ["127.0.0.1"]}.get(host, [])

    endpoints = PlatformEndpoints({}, allow_private=True, resolver=resolver)
    transport = endpoints.transport(retries=0, verify=authority.client_context())
    try:
        async with httpx2.AsyncClient(transport=transport, timeout=5) as client:
            first = await client.get(f"https://a.test:{port}/")
            assert first.status_code == 200 and first.text == "ok"
            with pytest.raises(httpx2.ConnectError, match="(?i)certificate"):
                await client.get(f"https://b.test:{port}/")
            again = await client.get(f"https://a.test:{port}/")  # a.test's connection is still its own
            assert again.status_code == 200
    finally:
        server.close()


@pytest.mark.parametrize("encoding", ["identity", "identity-undeclared", "gzip", "deflate"])
async def test_answers_longer_than_the_cap_fail_whatever_their_encoding(encoding: str) -> None:
    """A host a user named cannot make Herald read without bound: not with a long body, not
    without a Content-Length, not with a small compressed body that expands (a gzip bomb)."""
    body = b"x" * 5000
    if encoding == "gzip":
        sent, headers = gzip.compress(body), {"Content-Encoding": "gzip"}
    elif encoding == "deflate":
        sent, headers = zlib.compress(body), {"Content-Encoding": "deflate"}
    else:
        sent, headers = body, {}

    async def chunks():  # no Content-Length: the cap must hold while streaming
        for start in range(0, len(sent), 1000):
            yield sent[start : start + 1000]

    def answer(request: httpx2.Request) -> httpx2.Response:
        if encoding == "identity-undeclared":
            return httpx2.Response(200, headers=headers, content=chunks())
        return httpx2.Response(200, headers=headers, content=sent)

    endpoints = PlatformEndpoints({"platform.example": "http://127.0.0.1:9"}, max_response_bytes=4096)
    async with httpx2.AsyncClient(transport=PlatformTransport(endpoints, lambda: httpx2.MockTransport(answer))) as client:
        with pytest.raises(ResponseTooLarge):
            await client.get("https://platform.example/big")
        # Below the cap the same answer is read whole, decoded.
        endpoints.max_response_bytes = 5000
        small = await client.get("https://platform.example/big")
        assert small.content == body
        async with client.stream("GET", "https://platform.example/big") as streamed:
            assert b"".join([chunk async for chunk in streamed.aiter_bytes()]) == body


async def test_an_encoding_that_was_not_asked_for_is_refused() -> None:
    seen: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, headers={"Content-Encoding": "br"}, content=b"\x00" * 10)

    endpoints = PlatformEndpoints({"platform.example": "http://127.0.0.1:9"})
    async with httpx2.AsyncClient(transport=PlatformTransport(endpoints, lambda: httpx2.MockTransport(answer))) as client:
        with pytest.raises(httpx2.DecodingError):
            await client.get("https://platform.example/")
    assert seen[0].headers["accept-encoding"] == "gzip, deflate"


async def _answer_ok(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A minimal HTTP/1.1 server: `ok` to every request, keeping the connection open."""
    try:
        while await reader.readuntil(b"\r\n\r\n"):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()
