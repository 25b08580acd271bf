"""Prometheus metrics (issue 13, docs/operations.md "Metrics"): a stack whose processes share a
PROMETHEUS_MULTIPROC_DIR, as `herald serve` sets it up; the facade's /metrics (and `herald
metrics`, the exporter for a machine without a facade) parse with Prometheus' own text parser
and move as the traffic moves: HTTP requests by route, the core's gRPC calls by method and code,
publish outcomes and their delay, credit refusals, the queues. Only a loopback peer or the
bearer of HERALD_METRICS_TOKEN may read them."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from harness.stack import bootstrap_org, database, free_port, running_stack, wait_for_http

TOKEN = "metrics-reader-token"


def _samples(text: str) -> dict[tuple[str, frozenset], float]:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def _value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def _non_loopback_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outbound address
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_metrics_move_with_the_traffic(tmp_path: Path) -> None:
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    with database("sqlite", tmp_path) as url:
        key = bootstrap_org(url, "metered", credits=10)
        broke = bootstrap_org(url, "broke", email="broke@example.com", credits=0)
        port = free_port()
        with running_stack(
            url,
            tmp_path,
            PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
            HERALD_METRICS_TOKEN=TOKEN,
            HERALD_METRICS_SAMPLE_SECONDS="0.2",
        ) as stack:
            worker = stack.spawn("core", "worker", log_name="worker")
            exporter = stack.spawn(
                "core", "metrics", env={"HERALD_METRICS_LISTEN": f"127.0.0.1:{port}"}, log_name="exporter"
            )
            wait_for_http(f"http://127.0.0.1:{port}/metrics", exporter)
            with httpx.Client(base_url=stack.base_url, timeout=30) as http:
                before = _samples(http.get("/metrics").text)
                auth = {"Authorization": f"Bearer {key}"}
                for _ in range(3):
                    assert http.get("/v1/profiles", headers=auth).status_code == 200
                assert http.get("/v1/posts/pst_none", headers=auth).status_code == 404
                stack_profile(url)
                made = http.post("/v1/posts", json={"content": "counted", "profiles": ["m-x"]}, headers=auth)
                assert made.status_code == 201, made.text
                refused = http.post(
                    "/v1/posts", json={"content": "unpaid", "profiles": ["b-x"]}, headers={"Authorization": f"Bearer {broke}"}
                )
                assert refused.status_code == 201, refused.text
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    after = _samples(http.get("/metrics").text)
                    if _value(after, "herald_publish_outcomes_total", platform="x", outcome="published", reason="") >= 1 and _value(
                        after, "herald_credit_refusals_total", where="publish"
                    ) >= 1:
                        break
                    time.sleep(0.2)
            assert worker.poll() is None, stack.logs()
            from_exporter = _samples(httpx.get(f"http://127.0.0.1:{port}/metrics").text)

    def moved(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert moved("herald_http_requests_total", method="GET", route="v1/profiles", status="200") == 3
    assert moved("herald_http_requests_total", method="GET", route="v1/posts/<post_id:str>", status="404") == 1
    assert moved("herald_http_request_duration_seconds_count", method="GET", route="v1/profiles") == 3
    service = "herald.profiles.v1.ProfileService"
    assert moved("grpc_server_handled_total", grpc_type="unary", grpc_service=service, grpc_method="ListProfiles", grpc_code="OK") == 3
    assert moved("grpc_server_started_total", grpc_type="unary", grpc_service=service, grpc_method="ListProfiles") == 3
    assert moved("grpc_server_handled_total", grpc_type="unary", grpc_service="herald.posts.v1.PostService", grpc_method="GetPost", grpc_code="NOT_FOUND") == 1
    assert moved("grpc_server_handling_seconds_count", grpc_type="unary", grpc_service=service, grpc_method="ListProfiles") == 3
    assert moved("herald_publish_outcomes_total", platform="x", outcome="published", reason="") == 1
    assert moved("herald_publish_delay_seconds_count", platform="x") == 1
    assert moved("herald_credit_refusals_total", where="publish") == 1
    assert ("herald_queue_depth", frozenset({("queue", "publish")})) in after
    # The exporter serves the same sums from the same directory.
    assert _value(from_exporter, "grpc_server_handled_total", grpc_type="unary", grpc_service=service, grpc_method="ListProfiles", grpc_code="OK") >= 3


def stack_profile(url: str) -> None:
    import asyncio

    from sqlalchemy.ext.asyncio import create_async_engine

    from core import admin

    async def run() -> None:
        engine = create_async_engine(url)
        try:
            await admin.add_profile(engine, org="metered", slug="m-x", platform="x", display_name="m", tags=[])
            await admin.add_profile(engine, org="broke", slug="b-x", platform="x", display_name="b", tags=[])
        finally:
            await engine.dispose()

    asyncio.run(run())


def test_only_loopback_or_the_token_reads_metrics(tmp_path: Path) -> None:
    address = _non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback address to come from")
    port = free_port()
    with database("sqlite", tmp_path) as url, running_stack(url, tmp_path) as stack:
        # A second facade on every interface, with a token set.
        facade = stack.spawn(
            "facades",
            env={"HERALD_FACADE_LISTEN": f"0.0.0.0:{port}", "HERALD_METRICS_TOKEN": TOKEN},
            log_name="facade-public",
        )
        wait_for_http(f"http://127.0.0.1:{port}/healthz", facade)
        outside = f"http://{address}:{port}/metrics"
        assert httpx.get(outside).status_code == 404
        assert httpx.get(outside, headers={"Authorization": "Bearer wrong"}).status_code == 404
        allowed = httpx.get(outside, headers={"Authorization": f"Bearer {TOKEN}"})
        assert allowed.status_code == 200
        assert allowed.headers["content-type"].startswith("text/plain; version=")
        assert any(f.name == "herald_http_requests" for f in text_string_to_metric_families(allowed.text))
        assert httpx.get(f"http://127.0.0.1:{port}/metrics").status_code == 200  # loopback
