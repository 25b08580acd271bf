"""The facade survives the core going away: each call waits HERALD_CORE_WAIT_SECONDS for it, then
answers 503 SERVICE_UNAVAILABLE (never a hang, never a 500) while it is down, and the first call
after its return is served."""

from __future__ import annotations

import time

import httpx

from harness.stack import bootstrap_org, database, running_stack, wait_for_grpc


def test_core_restart(tmp_path) -> None:
    with database("sqlite", tmp_path) as url, running_stack(url, tmp_path, HERALD_CORE_WAIT_SECONDS="2") as stack:
        headers = {"Authorization": f"Bearer {bootstrap_org(url, 'restart')}"}
        with httpx.Client(base_url=stack.base_url, timeout=30) as http:
            assert http.get("/v1/profiles", headers=headers).status_code == 200

            core = stack.processes[0]
            core.terminate()
            core.wait(timeout=10)
            # Down for six seconds: long enough for gRPC's default reconnect backoff to grow
            # past several seconds; every request meanwhile waits its 2 s, then answers 503.
            down_until = time.monotonic() + 6
            while time.monotonic() < down_until:
                started = time.monotonic()
                down = http.get("/v1/profiles", headers=headers)
                assert 1.9 <= time.monotonic() - started < 5
                assert down.status_code == 503
                assert down.json()["code"] == "SERVICE_UNAVAILABLE"

            replacement = stack.spawn("core", "core", log_name="core-again")
            wait_for_grpc(stack.core_target, replacement)
            # The reconnect backoff is bounded (1 s) and the call waits for the connection.
            response = http.get("/v1/profiles", headers=headers)
            assert response.status_code == 200, response.text
