"""The client address of each request: the TCP peer's, or, when the peer is a trusted proxy,
the address that proxy added to X-Forwarded-For (HERALD_TRUSTED_PROXIES, docs/operations.md,
"Client addresses").

X-Forwarded-For is read from the right: each proxy appends the address it received the request
from, so the entries a trusted proxy added are the rightmost ones, and everything to their left
was written by the client and may be made up. Walking right to left past trusted proxies, the
first address that is not one is the client. The shipped Envoy configs append the downstream
address (`use_remote_address`), so with Envoy on the same machine the default (loopback
trusted) finds the real client.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from sanic import Request, Sanic

from contract.caller import CLIENT_ADDRESS

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(text: str) -> tuple[Network, ...]:
    """`127.0.0.1, 10.0.0.0/8, ::1`: addresses or CIDR blocks, comma-separated (empty: none)."""
    networks = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"a trusted proxy is an IP address or a CIDR block, not {item!r}") from None
    return tuple(networks)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [2001:db8::1]:443
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # 192.0.2.1:443
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _trusted(address: ipaddress.IPv4Address | ipaddress.IPv6Address, trusted: Sequence[Network]) -> bool:
    return any(address.version == network.version and address in network for network in trusted)


def client_address(peer: str, forwarded_for: Sequence[str], trusted: Sequence[Network]) -> str:
    """The client's address: `peer` unless it is a trusted proxy; then the rightmost entry of
    X-Forwarded-For (every header line, in order) that is not a trusted proxy itself. An entry
    that is not an address ends the walk at the last trusted hop: nothing left of it can be
    believed."""
    current = _address(peer)
    if current is None:
        return peer
    if not _trusted(current, trusted):
        return str(current)
    entries = [entry for line in forwarded_for for entry in line.split(",") if entry.strip()]
    for entry in reversed(entries):
        hop = _address(entry)
        if hop is None:
            break
        current = hop
        if not _trusted(hop, trusted):
            break
    return str(current)


def install(app: Sanic, trusted: Sequence[Network]) -> None:
    @app.on_request(priority=999)  # right after the request id
    async def _client_address(request: Request) -> None:
        peer = request.conn_info.client_ip if request.conn_info else ""
        address = client_address(peer, request.headers.getall("x-forwarded-for", []), trusted)
        request.ctx.client_address = address
        CLIENT_ADDRESS.set(address)
