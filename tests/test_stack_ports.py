"""The test harness's stack starts again on new ports when a port it picked was taken before its
process bound it (free_port's race: another test's process, or an outgoing connection's local
port, can take a port between its pick and the bind; the more pytest workers share the machine,
the likelier). Any other failure to start is raised with the processes' logs. The ports
themselves come from below the kernel's ephemeral range, a block per pytest worker
(harness/ports.py), which makes that race rare in the first place."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from harness import stack as harness_stack
from harness.stack import database, running_stack

pytestmark = pytest.mark.one_backend  # the harness's ports, not the database's work


@pytest.fixture
def taken() -> Iterator[int]:
    """A loopback port held by a listening socket nobody else may share."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


def test_a_core_port_taken_before_the_bind_starts_the_stack_on_new_ports(
    taken: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = harness_stack.free_port
    picks = iter([taken])
    monkeypatch.setattr(harness_stack, "free_port", lambda: next(picks, None) or fresh())
    monkeypatch.setattr(harness_stack, "START_ATTEMPTS", 1)
    with database("sqlite", tmp_path) as url, pytest.raises(RuntimeError) as refused, running_stack(url, tmp_path):
        pass
    assert f"core: cannot listen on 127.0.0.1:{taken}" in str(refused.value)  # the port was taken indeed
    picks = iter([taken])
    monkeypatch.setattr(harness_stack, "START_ATTEMPTS", 3)
    (again := tmp_path / "again").mkdir()
    with database("sqlite", again) as url, running_stack(url, again) as started:
        assert started.core_target != f"127.0.0.1:{taken}"
        assert httpx.get(f"{started.base_url}/readyz", timeout=5).status_code == 200


def test_any_other_failure_to_start_says_why_with_the_logs(tmp_path: Path) -> None:
    with (
        database("sqlite", tmp_path) as url,
        pytest.raises(RuntimeError, match="the stack did not start") as refused,
        running_stack(url, tmp_path, HERALD_METRICS_SCHEDULE="not a schedule"),
    ):
        pass
    assert "HERALD_METRICS_SCHEDULE" in str(refused.value)


def test_ports_come_from_below_the_ephemeral_range_a_block_per_worker() -> None:
    from harness.ports import BLOCK, block

    first, second = block("gw0", 1, 32_768), block("gw1", 1, 32_768)
    standalone = block("", 1, 32_768)
    assert first and second and standalone
    assert first.stop <= second.start and second.stop <= standalone.start and standalone.stop <= 32_768
    assert len(first) == BLOCK
    assert block("gw0", 1, 17_000) is None  # no room below a low range: the kernel's pick


def test_a_process_hands_out_each_port_of_its_block_once_before_any_again() -> None:
    ports = [harness_stack.free_port() for _ in range(200)]
    assert len(set(ports)) == len(ports)
    assert all(port < 32_768 for port in ports)


def test_a_port_in_use_is_skipped(taken: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness import ports

    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        unused = spare.getsockname()[1]
    monkeypatch.setattr(ports, "_ports", iter([taken, unused]))
    assert ports.free_port() == unused
