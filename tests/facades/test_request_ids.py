"""Request ids (issue 13, facades/request_ids.py): every response names its request in
X-Request-Id (the caller's when it is an acceptable token, else a new one), every /v1 error body
repeats it, and the facade's and the core's log lines while serving it carry it."""

from __future__ import annotations

import json

import httpx
import pytest

from harness.stack import bootstrap_org, database, running_stack

pytestmark = pytest.mark.one_backend


async def test_a_given_id_is_kept_and_answered(http, orgs) -> None:
    org = await orgs()
    answer = await http.get("/v1/profiles", headers={**org.auth, "X-Request-Id": "client-4f2a:retry-1"})
    assert answer.status_code == 200
    assert answer.headers["x-request-id"] == "client-4f2a:retry-1"


@pytest.mark.parametrize("given", [None, "", "a b", "x" * 129, "semi;colon", "ünicode", "tab\there"])
async def test_a_missing_or_unacceptable_id_is_replaced(http, orgs, given: str | None) -> None:
    org = await orgs()
    headers = dict(org.auth)
    if given is not None:
        headers["X-Request-Id"] = given.encode()  # bytes: a non-ASCII one goes out as UTF-8
    answer = await http.get("/v1/profiles", headers=headers)
    made = answer.headers["x-request-id"]
    assert made != given and made.startswith("req_") and len(made) == 28


async def test_error_bodies_repeat_the_request_id(http, orgs) -> None:
    org = await orgs()
    unknown = await http.get("/v1/posts/pst_nothing", headers={**org.auth, "X-Request-Id": "find-me"})
    assert unknown.status_code == 404
    assert unknown.json()["request_id"] == "find-me" == unknown.headers["x-request-id"]
    assert unknown.json()["code"] == "NOT_FOUND"
    refused = await http.get("/v1/profiles")  # refused before any core call
    assert refused.status_code == 401
    assert refused.json()["request_id"] == refused.headers["x-request-id"]
    invalid = await http.post("/v1/posts", json={"content": 5}, headers=org.auth)
    assert invalid.status_code == 400
    assert invalid.json()["request_id"] == invalid.headers["x-request-id"]
    missing = await http.get("/no/such/route")
    assert missing.status_code == 404 and missing.json()["request_id"] == missing.headers["x-request-id"]


def test_log_lines_are_json_and_carry_the_request_id(tmp_path) -> None:
    """A stack logging at INFO in JSON: every line of the facade and the core is one JSON object,
    and the access line of a request carries its id (that the core gets it too is shown by the
    webhook events it writes: tests/facades/test_webhooks_events.py)."""
    with database("sqlite", tmp_path) as url:
        key = bootstrap_org(url, "logs")
        with running_stack(url, tmp_path, HERALD_LOG_LEVEL="INFO", HERALD_LOG_FORMAT="json") as stack:
            with httpx.Client(base_url=stack.base_url, timeout=30) as client:
                answer = client.get(
                    "/v1/posts/pst_missing", headers={"Authorization": f"Bearer {key}", "X-Request-Id": "logged-1"}
                )
                assert answer.status_code == 404
            for proc in stack.processes:
                proc.terminate()
            for proc in stack.processes:
                proc.wait(timeout=10)
            lines = {}
            for name in ("facade", "core0"):
                text = (tmp_path / f"{name}.log").read_text()
                lines[name] = [json.loads(line) for line in text.splitlines() if line.strip()]  # every line is JSON
    access = [
        line for line in lines["facade"] if line["logger"] == "facades.access" and line.get("request_id") == "logged-1"
    ]
    assert len(access) == 1
    assert access[0] | {"time": "", "pid": 0, "duration_ms": 0} == {
        "time": "",
        "level": "INFO",
        "logger": "facades.access",
        "pid": 0,
        "message": "GET /v1/posts/pst_missing 404",
        "request_id": "logged-1",
        "method": "GET",
        "path": "/v1/posts/pst_missing",
        "status": 404,
        "duration_ms": 0,
    }
    assert all({"time", "level", "logger", "pid", "message"} <= set(line) for line in lines["core0"])
    assert any(line["message"].startswith("core serving on") for line in lines["core0"])
