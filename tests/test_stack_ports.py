"""The test harness's stack starts again on new ports when a port it picked was taken before its
process bound it (free_port's race: another test's process, or an outgoing connection's local
port, can take a port between its pick and the bind; the more pytest workers share the machine,
the likelier). Any other failure to start is raised with the processes' logs."""

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
