"""Who is calling, as the facade saw it, passed to the core beside the credential.

The client address is the HTTP peer's, or the entry a trusted proxy added to X-Forwarded-For
(facades/client_address.py). The core limits anonymous work per address with it (sign-up,
sign-in, client registration, client metadata fetches: docs/operations.md, "Rate limits").
A gRPC caller that reaches the core directly is known by its own peer address; the shipped
Envoy configs overwrite this key on the gRPC route with the downstream address, so a caller
through Envoy cannot choose it.
"""

from __future__ import annotations

from contextvars import ContextVar

CLIENT_ADDRESS_KEY = "herald-client-address"  # gRPC metadata key
# The address of the HTTP client being served in this task (set by the facade's middleware).
CLIENT_ADDRESS: ContextVar[str | None] = ContextVar("herald_client_address", default=None)
