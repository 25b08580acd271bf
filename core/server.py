"""The core's gRPC server: Herald services, health, reflection and the interceptors."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from herald.analytics.v1 import analytics_pb2, analytics_pb2_grpc, audience_pb2, audience_pb2_grpc
from herald.audit.v1 import audit_pb2, audit_pb2_grpc
from herald.brand.v1 import brand_pb2, brand_pb2_grpc
from herald.catalog.v1 import catalog_pb2, catalog_pb2_grpc
from herald.connections.v1 import connections_pb2, connections_pb2_grpc
from herald.credits.v1 import credits_pb2, credits_pb2_grpc
from herald.generate.v1 import generate_pb2, generate_pb2_grpc
from herald.identity.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    identity_pb2,
    identity_pb2_grpc,
    members_pb2,
    members_pb2_grpc,
    oauth_pb2,
    oauth_pb2_grpc,
)
from herald.media.v1 import media_pb2, media_pb2_grpc
from herald.notes.v1 import notes_pb2, notes_pb2_grpc
from herald.posts.v1 import posts_pb2, posts_pb2_grpc
from herald.profiles.v1 import profiles_pb2, profiles_pb2_grpc
from herald.stock.v1 import stock_pb2, stock_pb2_grpc
from herald.webhooks.v1 import webhooks_pb2, webhooks_pb2_grpc
from sqlalchemy.ext.asyncio import AsyncEngine

from core.analytics.audience_servicer import POLICIES as AUDIENCE_POLICIES
from core.analytics.audience_servicer import AudienceServicer
from core.analytics.servicer import POLICIES as ANALYTICS_POLICIES
from core.analytics.servicer import AnalyticsServicer
from core.audit.servicer import POLICIES as AUDIT_POLICIES
from core.audit.servicer import AuditServicer
from core.brand.servicer import POLICIES as BRAND_POLICIES
from core.brand.servicer import BrandVoiceServicer
from core.catalog.service import build_catalog
from core.catalog.servicer import POLICIES as CATALOG_POLICIES
from core.catalog.servicer import CatalogServicer
from core.credits.servicer import POLICIES as CREDITS_POLICIES
from core.credits.servicer import CreditsServicer
from core.db.engine import create_engine
from core.generate.servicer import POLICIES as GENERATE_POLICIES
from core.generate.servicer import GenerateServicer
from core.health import NOT_SERVING, SERVING, cancel, database_service_name, other_database_at, watch_database
from core.identity.accounts_servicer import POLICIES as ACCOUNT_POLICIES
from core.identity.accounts_servicer import AccountServicer
from core.identity.members_servicer import POLICIES as MEMBER_POLICIES
from core.identity.members_servicer import MemberServicer
from core.identity.servicer import POLICIES as IDENTITY_POLICIES
from core.identity.servicer import IdentityServicer
from core.media.servicer import POLICIES as MEDIA_POLICIES
from core.media.servicer import MediaServicer
from core.metrics import MetricsInterceptor
from core.notes.servicer import POLICIES as NOTE_POLICIES
from core.notes.servicer import NoteServicer
from core.oauth import jwks
from core.oauth.client_metadata import ClientMetadataDocuments
from core.oauth.servicer import POLICIES as OAUTH_POLICIES
from core.oauth.servicer import OAuthServicer
from core.platform_accounts.servicer import POLICIES as CONNECTION_POLICIES
from core.platform_accounts.servicer import ConnectionServicer
from core.posts.servicer import POLICIES as POST_POLICIES
from core.posts.servicer import PostServicer
from core.profiles.servicer import POLICIES as PROFILE_POLICIES
from core.profiles.servicer import ProfileServicer
from core.ratelimit import limiter
from core.rpc.interceptors import ErrorInterceptor, UnitOfWorkInterceptor
from core.rpc.policy import MethodPolicy, policies_for
from core.settings import CoreSettings
from core.stock.servicer import POLICIES as STOCK_POLICIES
from core.stock.servicer import StockServicer
from core.storage.base import ObjectStorage
from core.storage.factory import object_storage
from core.webhooks.servicer import POLICIES as WEBHOOK_POLICIES
from core.webhooks.servicer import WebhookServicer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Service:
    descriptor: ServiceDescriptor
    policies: dict[str, MethodPolicy]
    register: Callable[[Any, grpc.aio.Server], None]


def _service(module: Any, name: str, policies: dict[str, MethodPolicy], grpc_module: Any) -> _Service:
    return _Service(
        module.DESCRIPTOR.services_by_name[name], policies, getattr(grpc_module, f"add_{name}Servicer_to_server")
    )


# Every service the core serves, with the access policy of each of its methods.
SERVICES = (
    _service(catalog_pb2, "CatalogService", CATALOG_POLICIES, catalog_pb2_grpc),
    _service(identity_pb2, "IdentityService", IDENTITY_POLICIES, identity_pb2_grpc),
    _service(accounts_pb2, "AccountService", ACCOUNT_POLICIES, accounts_pb2_grpc),
    _service(members_pb2, "MemberService", MEMBER_POLICIES, members_pb2_grpc),
    _service(audit_pb2, "AuditService", AUDIT_POLICIES, audit_pb2_grpc),
    _service(oauth_pb2, "OAuthService", OAUTH_POLICIES, oauth_pb2_grpc),
    _service(credits_pb2, "CreditsService", CREDITS_POLICIES, credits_pb2_grpc),
    _service(profiles_pb2, "ProfileService", PROFILE_POLICIES, profiles_pb2_grpc),
    _service(connections_pb2, "ConnectionService", CONNECTION_POLICIES, connections_pb2_grpc),
    _service(posts_pb2, "PostService", POST_POLICIES, posts_pb2_grpc),
    _service(analytics_pb2, "AnalyticsService", ANALYTICS_POLICIES, analytics_pb2_grpc),
    _service(audience_pb2, "AudienceService", AUDIENCE_POLICIES, audience_pb2_grpc),
    _service(media_pb2, "MediaService", MEDIA_POLICIES, media_pb2_grpc),
    _service(stock_pb2, "StockService", STOCK_POLICIES, stock_pb2_grpc),
    _service(brand_pb2, "BrandVoiceService", BRAND_POLICIES, brand_pb2_grpc),
    _service(generate_pb2, "GenerateService", GENERATE_POLICIES, generate_pb2_grpc),
    _service(webhooks_pb2, "WebhookService", WEBHOOK_POLICIES, webhooks_pb2_grpc),
    _service(notes_pb2, "NoteService", NOTE_POLICIES, notes_pb2_grpc),
)


def method_policies() -> dict[str, MethodPolicy]:
    """Every method's policy keyed by its full gRPC name; refuses a method without one."""
    policies: dict[str, MethodPolicy] = {}
    for svc in SERVICES:
        policies.update(policies_for(svc.descriptor, svc.policies))
    return policies


def catalog() -> catalog_pb2.Catalog:
    """This core's catalog (what CatalogService.GetCatalog serves)."""
    return build_catalog(method_policies())


def _servicers(settings: CoreSettings, storage: ObjectStorage) -> dict[str, Any]:
    return {
        "CatalogService": CatalogServicer(catalog()),
        "IdentityService": IdentityServicer(),
        "AccountService": AccountServicer(settings.password_hash_concurrency),
        "MemberService": MemberServicer(),
        "AuditService": AuditServicer(),
        "OAuthService": OAuthServicer(ClientMetadataDocuments(allow_private=settings.allows_private_targets)),
        "CreditsService": CreditsServicer(),
        "ProfileService": ProfileServicer(),
        "ConnectionService": ConnectionServicer(settings),
        "PostService": PostServicer(),
        "AnalyticsService": AnalyticsServicer(),
        "AudienceService": AudienceServicer(),
        "MediaService": MediaServicer(storage),
        "StockService": StockServicer(settings, storage),
        "BrandVoiceService": BrandVoiceServicer(),
        "GenerateService": GenerateServicer(),
        "WebhookService": WebhookServicer(settings),
        "NoteService": NoteServicer(),
    }


@dataclass
class CoreServer:
    server: grpc.aio.Server
    health: health.aio.HealthServicer
    service_names: list[str]
    settings: CoreSettings
    engine: AsyncEngine
    _watcher: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Starts serving; the health service says SERVING once the database has answered
        (core/health.py), and follows it from then on."""
        await self.health.set(database_service_name(self.settings.effective_database_url), SERVING)
        for name in ["", *self.service_names]:  # until the database has answered
            await self.health.set(name, NOT_SERVING)
        await self.server.start()
        self._watcher = asyncio.create_task(
            watch_database(
                self.engine,
                self.health,
                ["", *self.service_names],
                interval=self.settings.health_interval_seconds,
                within=self.settings.health_timeout_seconds,
            )
        )

    async def stop(self, grace: float = 5.0) -> None:
        await cancel(self._watcher)
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)


class _GenericHandlersOnly:
    """The server as the generated `add_*Servicer_to_server` see it, taking their generic handlers
    but not their registered methods: grpc.aio's server keeps one pending task per registered
    method and waits on all of them (asyncio.wait) at every call, so ~80 registered methods cost
    every call of every method (docs/performance.md, "gRPC's registered methods"). The generic
    handlers serve the same methods through the same interceptors."""

    def __init__(self, server: grpc.aio.Server) -> None:
        self._server = server

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        self._server.add_generic_rpc_handlers(handlers)

    def add_registered_method_handlers(self, service: str, handlers: Any) -> None:
        pass


def build_server(settings: CoreSettings, engine: AsyncEngine, storage: ObjectStorage | None = None) -> CoreServer:
    servicers = _servicers(settings, storage or object_storage(settings))
    server = grpc.aio.server(
        interceptors=[
            MetricsInterceptor(),
            ErrorInterceptor(),
            UnitOfWorkInterceptor(settings, engine, method_policies(), limiter(settings.redis_url)),
        ],
        # Several core processes may listen on one address (`herald serve` starts one per CPU).
        options=[("grpc.so_reuseport", 1)],
    )
    generic_only = _GenericHandlersOnly(server)
    for svc in SERVICES:
        svc.register(servicers[svc.descriptor.name], generic_only)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = [svc.descriptor.full_name for svc in SERVICES]
    reflection.enable_server_reflection(
        [*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME], server
    )
    return CoreServer(server, health_servicer, names, settings, engine)


async def run_core(settings: CoreSettings, listen: str) -> None:
    """Serves until SIGINT or SIGTERM, then drains in-flight calls."""
    if await other_database_at(listen, database_service_name(settings.effective_database_url)):
        raise SystemExit(
            f"core: cannot listen on {listen}: a core of another database (or another gRPC server) serves there"
        )
    engine = create_engine(settings)
    core = build_server(settings, engine)
    try:
        port = core.server.add_insecure_port(listen)
    except RuntimeError as error:  # grpcio raises when the bind fails (the port is taken)
        raise SystemExit(f"core: cannot listen on {listen}: {error}") from None
    if port == 0:
        raise SystemExit(f"core: cannot listen on {listen}")
    await core.start()
    log.info("core serving on %s", listen)
    # The OAuth key set is read (made, or sealed if an earlier version stored it in the clear)
    # now rather than at the first JWKS request; a database not up yet leaves it to that request.
    warm_keys = asyncio.create_task(_warm_signing_keys(engine, settings))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await cancel(warm_keys)
        await core.stop()
        await engine.dispose()


async def _warm_signing_keys(engine: AsyncEngine, settings: CoreSettings) -> None:
    try:
        await jwks.PUBLISHED.get(engine, settings)
    except Exception:  # the first GetJwks tries again
        log.warning("could not load the OAuth signing key at start-up", exc_info=True)
