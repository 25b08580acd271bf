"""The guarded transport every user-named host goes through (core/connectors/transport.py): the
SSRF rules over a table of addresses in every spelling, and the connection pinned to the address
that was checked (no second resolution: DNS rebinding cannot move a request)."""

from __future__ import annotations

import ipaddress

import httpx2
import pytest

from core.connectors.transport import BlockedAddress, PlatformEndpoints, is_public

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

    from core.connectors.transport import PlatformTransport

    return PlatformTransport(endpoints, httpx2.MockTransport(record))
