"""The facade's one long-lived gRPC channel to the core, and the call helper every route uses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import grpc
from herald.credits.v1 import credits_pb2_grpc
from herald.identity.v1 import identity_pb2_grpc
from herald.profiles.v1 import profiles_pb2_grpc

from facades.errors import from_rpc_error

T = TypeVar("T")

CREDITS_REMAINING_KEY = "herald-credits-remaining"
CREDITS_LOW_KEY = "herald-credits-low"


@dataclass(frozen=True, slots=True)
class CoreResult(Generic[T]):
    response: T
    credits_remaining: int | None
    low_credits: bool


class CoreClient:
    def __init__(self, target: str, timeout: float) -> None:
        self.channel = grpc.aio.insecure_channel(
            target,
            options=[
                ("grpc.keepalive_time_ms", 30_000),
                ("grpc.enable_retries", 1),
                # Bound the reconnect backoff (gRPC's default grows to two minutes) so an idle
                # facade finds a restarted core within a second; calls meanwhile fail fast (503).
                ("grpc.initial_reconnect_backoff_ms", 100),
                ("grpc.min_reconnect_backoff_ms", 100),
                ("grpc.max_reconnect_backoff_ms", 1000),
            ],
        )
        self.timeout = timeout
        self.identity = identity_pb2_grpc.IdentityServiceStub(self.channel)
        self.credits = credits_pb2_grpc.CreditsServiceStub(self.channel)
        self.profiles = profiles_pb2_grpc.ProfileServiceStub(self.channel)

    async def call(self, method: Any, request: Any, *, authorization: str) -> CoreResult[Any]:
        """Calls one core method with the caller's credential; raises ApiError on failure."""
        call = method(request, metadata=(("authorization", authorization),), timeout=self.timeout)
        try:
            response = await call
            trailing = await call.trailing_metadata()
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from None
        remaining: int | None = None
        low = False
        for key, value in trailing or ():
            if key == CREDITS_REMAINING_KEY:
                remaining = int(value)
            elif key == CREDITS_LOW_KEY:
                low = value == "1"
        return CoreResult(response, remaining, low)

    async def close(self) -> None:
        await self.channel.close()
