"""The local OpenAI-compatible server (harness/fakes/openai_server.py) as the generation tests
start it, and the settings that point a stack's `openai` generation backend at it: one place for
what tests/facades/test_generate_openai.py and test_mcp_tasks.py share. Its fixture reaches
every test through tests/conftest.py's `pytest_plugins`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.fakes.openai_server import FakeChatServer


@pytest.fixture(scope="module")
def fake_chat() -> Iterator[FakeChatServer]:
    """The server for one test module: the requests it received are that module's."""
    with FakeChatServer() as server:
        yield server


def openai_backend(fake_chat: FakeChatServer, **settings: str) -> dict[str, str]:
    """The `openai` backend on the fake (model `fake-model`, key `sk-test`), the job queue polled
    fast, and the module's own `settings` (its waits, timeouts, leases)."""
    return {
        "HERALD_GENERATION_BACKEND": "openai",
        "HERALD_GENERATION_OPENAI_BASE_URL": fake_chat.base_url,
        "HERALD_GENERATION_OPENAI_MODEL": "fake-model",
        "HERALD_GENERATION_OPENAI_API_KEY": "sk-test",
        "HERALD_JOBS_POLL_SECONDS": "0.05",
        "HERALD_JOBS_BACKOFF_SECONDS": "0.2",
        **settings,
    }
