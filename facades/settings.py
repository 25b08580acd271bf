"""Facade settings: read once from HERALD_* environment variables into one typed object.

The facade shares variable names with the core (HERALD_BASE_URL, …) but never imports it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class FacadeSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="HERALD_", extra="ignore", frozen=True)

    base_url: str = "http://127.0.0.1:8080"
    facade_listen: str = "127.0.0.1:8080"
    # Where the core's gRPC server is reached; several cores may share it (SO_REUSEPORT).
    core_target: str = "127.0.0.1:50051"
    # Connections to the core, used round-robin. Cores behind one address (SO_REUSEPORT, or a
    # TCP load balancer) receive connections, not calls: several spread the load across them.
    core_channels: int = Field(default=16, ge=1, le=64)
    # Deadline of one call to the core, in seconds.
    core_timeout: float = Field(default=15.0, gt=0)
    # How long a call waits for a core that is not connected (starting, restarting) before it
    # answers 503 SERVICE_UNAVAILABLE; and /readyz's deadline for the core's health answer.
    core_wait_seconds: float = Field(default=5.0, ge=0)
    ready_timeout_seconds: float = Field(default=2.0, gt=0)
    # prometheus-client's multiprocess directory (its own variable, read by the library at
    # import too): where every process writes its samples; empty: each keeps its own.
    metrics_dir: str = Field(default="", validation_alias="PROMETHEUS_MULTIPROC_DIR")
    # Who may read /metrics besides a loopback peer: the bearer of this token (empty: nobody).
    metrics_token: str = ""
    # Proxies whose X-Forwarded-For entries are believed (facades/client_address.py): addresses
    # or CIDR blocks, comma-separated. Loopback by default, as Envoy beside the facade is.
    trusted_proxies: str = "127.0.0.1/8, ::1"
    log_level: str = "INFO"
    # One JSON object per line (contract/logs.py), or `text` for a terminal.
    log_format: Literal["json", "text"] = "json"

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, value: str) -> str:
        from facades.client_address import parse_networks

        parse_networks(value)
        return value

    @field_validator("base_url")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @property
    def auth_url(self) -> str:
        """{auth_url} = {base_url}/api/auth, the authorization server's issuer (docs/oauth.md)."""
        return f"{self.base_url}/api/auth"

    @property
    def mcp_resource(self) -> str:
        """The audience OAuth access tokens must carry at this facade's /mcp (docs/oauth.md, the
        audience rule)."""
        return f"{self.base_url}/mcp"

    @property
    def resource_metadata_url(self) -> str:
        return f"{self.base_url}/.well-known/oauth-protected-resource"
