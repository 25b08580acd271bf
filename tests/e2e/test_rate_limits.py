"""Herald's own rate limits (issue 13, core/ratelimit.py), counted in a real Redis shared by two
cores and answered by two facades: a key over its budget gets 429 RATE_LIMITED with Retry-After
and the RateLimit headers from either facade; other keys go on; an OAuth client's tokens share
its budget at /mcp; and when Redis is gone the API stays up, uncounted."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest

from harness.oauth_flow import MCP_HEADERS, refresh, register, sign_in, tokens_for
from harness.stack import bootstrap_org, database, free_port, running_stack, wait_for_http


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A Redis server of the test's own, on a free port, keeping nothing on disk."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.fail("redis-server is not installed (Debian's redis-server package)")
    port = free_port()
    proc = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=10)


def _token(base_url: str, core_target: str, email: str) -> tuple[str, str, str]:
    async def run() -> tuple[str, str, str]:
        async with (
            grpc.aio.insecure_channel(core_target) as channel,
            httpx.AsyncClient(base_url=base_url, timeout=30) as http,
        ):
            session = await sign_in(channel, email, password="a long password")
            client = await register(http, token_endpoint_auth_method="none")
            tokens = await tokens_for(http, session, client["client_id"])
            return client["client_id"], tokens["access_token"], tokens["refresh_token"]

    return asyncio.run(run())


def _renewed(base_url: str, client_id: str, refresh_token: str) -> str:
    async def run() -> str:
        async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
            return (await refresh(http, client_id, refresh_token)).json()["access_token"]

    return asyncio.run(run())


def test_budgets_are_shared_by_every_instance(tmp_path: Path, redis_url: str) -> None:
    with database("postgresql", tmp_path) as url:
        first = bootstrap_org(url, "limited", email="limited@example.com")
        second = bootstrap_org(url, "unlimited", email="unlimited@example.com")
        third = bootstrap_org(url, "uncounted", email="uncounted@example.com")
        with running_stack(
            url,
            tmp_path,
            core_processes=2,
            HERALD_REDIS_URL=redis_url,
            HERALD_RATE_LIMIT_API_KEY="5/60",
            HERALD_RATE_LIMIT_OAUTH_CLIENT="3/60",
        ) as stack:
            other_port = free_port()
            other = stack.spawn("facades", env={"HERALD_FACADE_LISTEN": f"127.0.0.1:{other_port}"}, log_name="facade2")
            wait_for_http(f"http://127.0.0.1:{other_port}/readyz", other)
            facades = [stack.base_url, f"http://127.0.0.1:{other_port}"]
            with httpx.Client(timeout=30) as http:
                auth = {"Authorization": f"Bearer {first}"}
                answers = [http.get(f"{facades[i % 2]}/v1/profiles", headers=auth) for i in range(5)]
                assert [a.status_code for a in answers] == [200] * 5
                assert {a.headers["ratelimit-policy"] for a in answers} == {'"herald";q=5;w=60'}
                assert [a.headers["ratelimit"] for a in answers] == [
                    f'"herald";r={r};t={t}' for r, t in ((4, 12), (3, 24), (2, 36), (1, 48), (0, 60))
                ]
                for base in facades:  # spent, whichever facade and core answer
                    refused = http.get(f"{base}/v1/profiles", headers=auth)
                    assert refused.status_code == 429
                    body = refused.json()
                    assert body["code"] == "RATE_LIMITED"
                    assert 11 <= int(refused.headers["retry-after"]) <= 12 and body["retry_after"] == int(
                        refused.headers["retry-after"]
                    )
                    assert refused.headers["ratelimit-policy"] == '"herald";q=5;w=60'
                    assert refused.headers["ratelimit"].startswith('"herald";r=0;t=')
                # Another key, another budget.
                fine = http.get(f"{facades[1]}/v1/profiles", headers={"Authorization": f"Bearer {second}"})
                assert fine.status_code == 200 and fine.headers["ratelimit"] == '"herald";r=4;t=12'

                # An OAuth client: its budget at /mcp, shared by all its tokens.
                client_id, access, refresh_token = _token(stack.base_url, stack.core_target, "unlimited@example.com")
                headers = {**MCP_HEADERS, "Authorization": f"Bearer {access}"}
                call = {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "list_profiles", "arguments": {}},
                }
                results = [http.post(f"{facades[i % 2]}/mcp", json=call, headers=headers).json() for i in range(2)]
                assert all(not r["result"].get("isError") for r in results), results
                renewed = _renewed(stack.base_url, client_id, refresh_token)
                headers["Authorization"] = f"Bearer {renewed}"
                third_call = http.post(f"{facades[0]}/mcp", json=call, headers=headers).json()
                assert not third_call["result"].get("isError"), third_call
                spent = http.post(f"{facades[1]}/mcp", json=call, headers=headers).json()
                assert spent["result"]["isError"] is True and "RATE_LIMITED" in str(spent["result"]), spent

                # Redis gone: nothing is counted, nothing is refused, the API answers.
                subprocess.run(["redis-cli", "-u", redis_url, "shutdown", "nosave"], capture_output=True, timeout=10)
                for base in facades:
                    up = http.get(f"{base}/v1/profiles", headers={"Authorization": f"Bearer {third}"})
                    assert up.status_code == 200 and "ratelimit" not in up.headers
