"""The client address a request is counted under: the peer, or what a trusted proxy added."""

from __future__ import annotations

import pytest

from core.rpc.interceptors import peer_address
from facades.client_address import client_address, parse_networks

LOOPBACK = parse_networks("127.0.0.1/8, ::1")


@pytest.mark.parametrize(
    ("peer", "forwarded", "trusted", "expected"),
    [
        # A peer that is no proxy: its own address, whatever it claims.
        ("203.0.113.9", ["198.51.100.1"], LOOPBACK, "203.0.113.9"),
        ("203.0.113.9", [], LOOPBACK, "203.0.113.9"),
        # A trusted proxy: the entry it appended (the rightmost).
        ("127.0.0.1", ["198.51.100.7"], LOOPBACK, "198.51.100.7"),
        # What the client wrote itself (left of the proxy's entry) is never believed.
        ("127.0.0.1", ["10.0.0.1, 1.2.3.4, 198.51.100.7"], LOOPBACK, "198.51.100.7"),
        ("127.0.0.1", ["10.0.0.1", "198.51.100.7"], LOOPBACK, "198.51.100.7"),
        # Two trusted hops: walk past both.
        ("127.0.0.1", ["198.51.100.7, 10.1.2.3"], parse_networks("127.0.0.1, 10.0.0.0/8"), "198.51.100.7"),
        # A trusted proxy that added nothing: the proxy is the client.
        ("127.0.0.1", [], LOOPBACK, "127.0.0.1"),
        # Garbage in the header ends the walk at the last hop known to be real.
        ("127.0.0.1", ["not-an-address"], LOOPBACK, "127.0.0.1"),
        ("127.0.0.1", ["198.51.100.7, junk"], LOOPBACK, "127.0.0.1"),
        # Ports and brackets as some proxies write them; IPv4-mapped IPv6 as its IPv4.
        ("127.0.0.1", ["198.51.100.7:4321"], LOOPBACK, "198.51.100.7"),
        ("::1", ["[2001:db8::5]:443"], LOOPBACK, "2001:db8::5"),
        ("::ffff:203.0.113.9", [], LOOPBACK, "203.0.113.9"),
        # Nothing trusted: the peer, always.
        ("127.0.0.1", ["198.51.100.7"], (), "127.0.0.1"),
    ],
)
def test_client_address(peer: str, forwarded: list[str], trusted: tuple, expected: str) -> None:
    assert client_address(peer, forwarded, trusted) == expected


def test_trusted_proxies_setting_is_checked() -> None:
    assert [str(n) for n in parse_networks("10.0.0.0/8, 127.0.0.1 ,")] == ["10.0.0.0/8", "127.0.0.1/32"]
    with pytest.raises(ValueError, match="trusted proxy"):
        parse_networks("10.0.0.0/8, example.com")


@pytest.mark.parametrize(
    ("peer", "expected"),
    [("ipv4:127.0.0.1:5000", "127.0.0.1"), ("ipv6:[::1]:5000", "::1"), ("unix:/tmp/s", "unix:/tmp/s"), ("", "")],
)
def test_grpc_peer_address(peer: str, expected: str) -> None:
    assert peer_address(peer) == expected
