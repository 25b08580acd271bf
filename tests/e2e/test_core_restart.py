"""The facade survives the core going away: 503 SERVICE_UNAVAILABLE (never a hang, never a
500) while it is down, and service again within seconds of its return."""

from __future__ import annotations

import time

import httpx

from tests.harness import bootstrap_org, database, running_stack, wait_for_grpc


def test_core_restart(tmp_path) -> None:  # noqa: ANN001
    with database("sqlite", tmp_path) as url, running_stack(url, tmp_path) as stack:
        headers = {"Authorization": f"Bearer {bootstrap_org(url, 'restart')}"}
        with httpx.Client(base_url=stack.base_url, timeout=30) as http:
            assert http.get("/v1/profiles", headers=headers).status_code == 200

            core = stack.processes[0]
            core.terminate()
            core.wait(timeout=10)
            # Down for six seconds: long enough for gRPC's default reconnect backoff to grow
            # past several seconds; every request meanwhile fails fast with 503.
            down_until = time.monotonic() + 6
            while time.monotonic() < down_until:
                started = time.monotonic()
                down = http.get("/v1/profiles", headers=headers)
                assert time.monotonic() - started < 5
                assert down.status_code == 503
                assert down.json()["code"] == "SERVICE_UNAVAILABLE"
                time.sleep(0.5)

            replacement = stack.spawn("core", "core", log_name="core-again")
            wait_for_grpc(stack.core_target, replacement)
            deadline = time.monotonic() + 2.5
            while True:
                response = http.get("/v1/profiles", headers=headers)
                if response.status_code == 200 or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            assert response.status_code == 200, response.text
