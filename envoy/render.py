"""Renders envoy/envoy.yaml for other addresses (tests run Envoy on free ports with the same file).

The checked-in config is written for the default addresses; this substitutes the four loopback
port values and the descriptor path by exact string replacement (no YAML dependency), and fails
loudly if the file no longer contains exactly one of each.
"""

from __future__ import annotations

from pathlib import Path

CONFIG = Path(__file__).resolve().parent / "envoy.yaml"

# The literal values in envoy.yaml, each of which must occur exactly once.
DEFAULT_LISTEN_PORT = 10000
DEFAULT_CORE_PORT = 50051
DEFAULT_FACADE_PORT = 8080
DEFAULT_ADMIN_PORT = 9901
DEFAULT_DESCRIPTOR = "generated/herald.binpb"


def _replace_once(text: str, old: str, new: str) -> str:
    count = text.count(old)
    if count != 1:
        raise ValueError(f"{CONFIG.name}: expected exactly one {old!r}, found {count}")
    return text.replace(old, new)


def render_config(
    listen_port: int, core_port: int, facade_port: int, admin_port: int, descriptor_path: str | Path
) -> str:
    """envoy.yaml with the listener, core, facade and admin ports and the descriptor path replaced."""
    text = CONFIG.read_text()
    for default, port in (
        (DEFAULT_LISTEN_PORT, listen_port),
        (DEFAULT_CORE_PORT, core_port),
        (DEFAULT_FACADE_PORT, facade_port),
        (DEFAULT_ADMIN_PORT, admin_port),
    ):
        text = _replace_once(text, f"port_value: {default} }}", f"port_value: {int(port)} }}")
    return _replace_once(text, f"proto_descriptor: {DEFAULT_DESCRIPTOR}\n", f"proto_descriptor: {descriptor_path}\n")


CLUSTER_CONFIG = Path(__file__).resolve().parent / "cluster.yaml"
_ENDPOINT = "              - endpoint: {{ address: {{ socket_address: {{ address: 127.0.0.1, port_value: {port} }} }} }}\n"


def render_cluster_config(
    listen_port: int, internal_port: int, admin_port: int, facade_ports: list[int], core_ports: list[int]
) -> str:
    """cluster.yaml with its listeners' and admin ports replaced, and its facades' and cores'
    endpoints (two of each in the file) replaced by these loopback ports."""
    text = CLUSTER_CONFIG.read_text()
    for default, port in ((10000, listen_port), (50050, internal_port), (9902, admin_port)):
        text = _replace_once(text, f"port_value: {default} }}", f"port_value: {int(port)} }}")
    for defaults, ports in (((8080, 8090), facade_ports), ((50051, 50061), core_ports)):
        block = "".join(_ENDPOINT.format(port=p) for p in defaults)
        text = _replace_once(text, block, "".join(_ENDPOINT.format(port=int(p)) for p in ports))
    return text
