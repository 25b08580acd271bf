"""The facade's long-lived gRPC channels to the core, and the call helper every route uses."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Generic, TypeVar

import grpc
from google.protobuf import descriptor_pool, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc
from herald.brand.v1 import brand_pb2_grpc
from herald.credits.v1 import credits_pb2_grpc
from herald.identity.v1 import accounts_pb2_grpc, identity_pb2, identity_pb2_grpc, oauth_pb2_grpc
from herald.media.v1 import media_pb2_grpc
from herald.posts.v1 import posts_pb2_grpc
from herald.profiles.v1 import profiles_pb2_grpc

from contract.caller import CLIENT_ADDRESS, CLIENT_ADDRESS_KEY
from contract.logs import REQUEST_ID, REQUEST_ID_HEADER
from facades.errors import from_rpc_error

T = TypeVar("T")
_READY = grpc.ChannelConnectivity.READY

CREDITS_REMAINING_KEY = "herald-credits-remaining"
CREDITS_LOW_KEY = "herald-credits-low"
RATELIMIT_KEY = "herald-ratelimit"


@dataclass(frozen=True, slots=True)
class CoreResult(Generic[T]):
    response: T
    credits_remaining: int | None
    low_credits: bool
    # `limit;window;remaining;reset` of the caller's rate limit, when it has one.
    ratelimit: str | None = None


@dataclass(frozen=True, slots=True)
class _Stubs:
    channel: grpc.aio.Channel
    identity: identity_pb2_grpc.IdentityServiceStub
    accounts: accounts_pb2_grpc.AccountServiceStub
    oauth: oauth_pb2_grpc.OAuthServiceStub
    credits: credits_pb2_grpc.CreditsServiceStub
    profiles: profiles_pb2_grpc.ProfileServiceStub
    posts: posts_pb2_grpc.PostServiceStub
    media: media_pb2_grpc.MediaServiceStub
    brand: brand_pb2_grpc.BrandVoiceServiceStub
    # Callables of core methods named by gRPC path (the operation table's `rpc`), made on first use.
    methods: dict[str, Any] = field(default_factory=dict)


class _InFlight:
    """Calls in flight per channel. A call goes, when it starts, to the connected channel with the
    fewest, the first of them on a tie: at low concurrency the same channel (so the same core process)
    serves one call after another and stays warm, and under load the calls spread over every
    channel (measured in docs/performance.md, "The facade's channel choice")."""

    def __init__(self, pool: list[_Stubs]) -> None:
        self.counts = [0] * len(pool)
        self.channels = [stubs.channel for stubs in pool]
        # Each multicallable, by identity, to the same method on every channel (by channel index).
        self.same: dict[int, list[Any]] = {}
        for name in ("identity", "accounts", "oauth", "credits", "profiles", "posts", "media", "brand"):
            for method in vars(getattr(pool[0], name)):
                self.add([getattr(getattr(stubs, name), method) for stubs in pool])

    def add(self, methods: list[Any]) -> None:
        for method in methods:
            self.same[id(method)] = methods

    def pick(self, method: Any) -> tuple[Any, int | None]:
        """The channel with the fewest calls in flight, and `method` on it (an unknown callable:
        as given, uncounted)."""
        methods = self.same.get(id(method))
        if methods is None:
            return method, None
        counts, best = self.counts, None
        for index, count in enumerate(counts):
            # A channel that is not connected fails its calls at once, so it would always look
            # the least busy: it is chosen only when none is connected.
            if (best is None or count < counts[best]) and self.channels[index].get_state() is _READY:
                best = index
        if best is None:
            best = counts.index(min(counts))
        return methods[best], best


@cache
def _message_types(path: str) -> tuple[Any, Any]:
    """The request and response classes of a core method, from its gRPC path."""
    service, method = path.strip("/").split("/")
    descriptor = descriptor_pool.Default().FindServiceByName(service).methods_by_name[method]
    return message_factory.GetMessageClass(descriptor.input_type), message_factory.GetMessageClass(
        descriptor.output_type
    )


# Several cores named at once (`host:port,host:port`, or a dns:/ipv4:/ipv6: target whose name
# resolves to several): each call goes to the next core that is ready and SERVING by the
# standard gRPC health service (client-side health checking), no proxy between.
_SEVERAL_CORES = json.dumps({"loadBalancingConfig": [{"round_robin": {}}], "healthCheckConfig": {"serviceName": ""}})


def channel_target(target: str) -> tuple[str, list[tuple[str, Any]]]:
    """The gRPC target and the extra channel options for HERALD_CORE_TARGET."""
    if "," in target and ":" in target and not target.startswith(("ipv4:", "ipv6:", "dns:")):
        target = f"ipv4:{target}"
    if "," in target or target.startswith("dns:"):
        return target, [("grpc.service_config", _SEVERAL_CORES)]
    return target, []


def _open(target: str) -> _Stubs:
    target, extra = channel_target(target)
    channel = grpc.aio.insecure_channel(
        target,
        options=[
            # Its own connection: several core processes share one port (SO_REUSEPORT), and the
            # kernel spreads connections, not calls, across them.
            ("grpc.use_local_subchannel_pool", 1),
            ("grpc.keepalive_time_ms", 30_000),
            # Bound the reconnect backoff (gRPC's default grows to two minutes) so an idle
            # facade finds a restarted core within a second; calls meanwhile fail fast (503).
            ("grpc.initial_reconnect_backoff_ms", 100),
            ("grpc.min_reconnect_backoff_ms", 100),
            ("grpc.max_reconnect_backoff_ms", 1000),
            *extra,
        ],
    )
    return _Stubs(
        channel,
        identity_pb2_grpc.IdentityServiceStub(channel),
        accounts_pb2_grpc.AccountServiceStub(channel),
        oauth_pb2_grpc.OAuthServiceStub(channel),
        credits_pb2_grpc.CreditsServiceStub(channel),
        profiles_pb2_grpc.ProfileServiceStub(channel),
        posts_pb2_grpc.PostServiceStub(channel),
        media_pb2_grpc.MediaServiceStub(channel),
        brand_pb2_grpc.BrandVoiceServiceStub(channel),
    )


class CoreClient:
    """A fixed set of channels to the core, opened once per facade process: `core.profiles.ListProfiles`
    is the stub of the channel with the fewest calls in flight (_InFlight)."""

    def __init__(self, target: str, timeout: float, channels: int = 1, *, wait: float = 0.0) -> None:
        self._pool = [_open(target) for _ in range(channels)]
        # The stubs' channel does not matter for call(), which sends through the least busy one;
        # the others (readiness) take the channels in turn.
        self._next = itertools.cycle(self._pool).__next__
        self._in_flight = _InFlight(self._pool)
        self.timeout = timeout
        # How long a call waits for the core to be connected (one starting, one restarting)
        # before it fails 503 SERVICE_UNAVAILABLE.
        self.wait = wait

    def _connected(self) -> bool:
        return all(s.channel.get_state() is _READY for s in self._pool)

    async def _await_core(self) -> None:
        """Waits up to `wait` seconds for every channel to connect (a first call connects them);
        returns at once when they are, and quietly when the wait runs out: the call then fails
        as it would have."""
        pending = [s.channel for s in self._pool if s.channel.get_state(try_to_connect=True) is not _READY]
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.wait):
                await asyncio.gather(*(channel.channel_ready() for channel in pending))

    async def ready(self, within: float) -> tuple[str, str] | None:
        """None when a core answers and says it is SERVING (its database answers); else what
        failed (`core` or `database`, stable) and why (for humans)."""
        try:
            response = await health_pb2_grpc.HealthStub(self._next().channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=within, wait_for_ready=True
            )
        except grpc.aio.AioRpcError as error:
            return "core", f"the core does not answer ({error.code().name})"
        if response.status != health_pb2.HealthCheckResponse.SERVING:
            return "database", "the core's database does not answer"
        return None

    def method(self, path: str) -> Any:  # a grpc.aio multicallable
        """The unary core method at `path` (e.g. `/herald.posts.v1.PostService/CreatePosts`) on
        the next channel."""
        stubs = self._next()
        callable_ = stubs.methods.get(path)
        if callable_ is None:
            request_type, response_type = _message_types(path)
            on_each = [
                s.channel.unary_unary(
                    path,
                    request_serializer=request_type.SerializeToString,
                    response_deserializer=response_type.FromString,
                )
                for s in self._pool
            ]
            for s, made in zip(self._pool, on_each, strict=True):
                s.methods[path] = made
            self._in_flight.add(on_each)
            callable_ = stubs.methods[path]
        return callable_

    @property
    def identity(self) -> identity_pb2_grpc.IdentityServiceStub:
        return self._next().identity

    @property
    def accounts(self) -> accounts_pb2_grpc.AccountServiceStub:
        return self._next().accounts

    @property
    def oauth(self) -> oauth_pb2_grpc.OAuthServiceStub:
        return self._next().oauth

    @property
    def credits(self) -> credits_pb2_grpc.CreditsServiceStub:
        return self._next().credits

    @property
    def profiles(self) -> profiles_pb2_grpc.ProfileServiceStub:
        return self._next().profiles

    @property
    def posts(self) -> posts_pb2_grpc.PostServiceStub:
        return self._next().posts

    @property
    def media(self) -> media_pb2_grpc.MediaServiceStub:
        return self._next().media

    @property
    def brand(self) -> brand_pb2_grpc.BrandVoiceServiceStub:
        return self._next().brand

    async def call(
        self, method: Any, request: Any, *, authorization: str | None, audience: str | None = None
    ) -> CoreResult[Any]:
        """Calls one core method with the caller's credential (None for the protocol methods
        that take none); raises ApiError on failure. `audience`: the resource the calling
        surface serves, against which the core checks OAuth access tokens."""
        metadata: list[tuple[str, str]] = []
        if (request_id := REQUEST_ID.get()) is not None:
            metadata.append((REQUEST_ID_HEADER, request_id))
        if (address := CLIENT_ADDRESS.get()) is not None:
            metadata.append((CLIENT_ADDRESS_KEY, address))
        if authorization is not None:
            metadata.append(("authorization", authorization))
        if audience is not None:
            metadata.append(("herald-audience", audience))
        if self.wait and not self._connected():
            await self._await_core()
        method, channel = self._in_flight.pick(method)
        counts = self._in_flight.counts
        if channel is not None:
            counts[channel] += 1
        try:
            call = method(request, metadata=tuple(metadata), timeout=self.timeout)
            response = await call
            trailing = await call.trailing_metadata()
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from None
        finally:
            if channel is not None:
                counts[channel] -= 1
        remaining: int | None = None
        low = False
        ratelimit = None
        for key, value in trailing or ():
            if key == CREDITS_REMAINING_KEY:
                remaining = int(value)
            elif key == CREDITS_LOW_KEY:
                low = value == "1"
            elif key == RATELIMIT_KEY:
                ratelimit = value
        return CoreResult(response, remaining, low, ratelimit)

    async def check_access(self, rpc: str, *, authorization: str, audience: str | None = None) -> None:
        """Raises what calling `rpc` with this credential would raise before the core looks at the
        request: UNAUTHORIZED, FORBIDDEN, INSUFFICIENT_SCOPE or SUBSCRIPTION_REQUIRED, in the
        order of checks (docs/api.md, "Errors"). Surfaces call it before answering a request they
        found malformed."""
        await self.call(
            self.identity.CheckAccess,
            identity_pb2.CheckAccessRequest(method=rpc),
            authorization=authorization,
            audience=audience,
        )

    async def close(self) -> None:
        for stubs in self._pool:
            await stubs.channel.close()
