"""Server interceptors: the error boundary, and the unit of work that authenticates each call."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import grpc
from google.protobuf.message import Message
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from contract.caller import CLIENT_ADDRESS_KEY
from contract.logs import REQUEST_ID, REQUEST_ID_HEADER, request_id_from
from core.audit.record import Pending, log_names, pending
from core.db.engine import SQLITE_IMMEDIATE, is_sqlite, transaction
from core.db.types import utcnow
from core.errors import DomainError, RateLimited, ServiceUnavailable, ValidationError
from core.identity.authentication import authenticate, touch_api_key
from core.identity.principal import CredentialKind, Principal
from core.metrics import CREDIT_REFUSALS
from core.ratelimit import Budget, Decision, Limiter
from core.rpc.context import Call, bind_call, unbind_call
from core.rpc.policy import STRICT, MethodPolicy, apply_policy
from core.rpc.status import domain_status, internal_status
from core.rpc.text import field_with_nul
from core.settings import CoreSettings

log = logging.getLogger(__name__)

Behavior = Callable[[Any, grpc.aio.ServicerContext], Awaitable[Any]]

# How long a refused client-streaming call reads what its client still sends (_drain).
DRAIN_SECONDS = 10.0

CREDITS_REMAINING_KEY = "herald-credits-remaining"
CREDITS_LOW_KEY = "herald-credits-low"
# The caller's rate limit after this call: `limit;window;remaining;reset` (core/ratelimit.py).
RATELIMIT_KEY = "herald-ratelimit"
# The audience the calling surface serves (the /mcp facade sends {base_url}/mcp); an OAuth
# access token issued for another audience is refused (docs/oauth.md, the audience rule).
AUDIENCE_KEY = "herald-audience"


def _wrap(handler: grpc.RpcMethodHandler, behavior: Behavior) -> grpc.RpcMethodHandler:
    """The same handler with its behavior replaced (unary or client-streaming; a Herald method
    of another shape fails when the server is built, see core/server.py)."""
    if handler.stream_unary is not None:
        return handler._replace(stream_unary=behavior)  # type: ignore[attr-defined]
    return handler._replace(unary_unary=behavior)  # type: ignore[attr-defined]


class ErrorInterceptor(grpc.aio.ServerInterceptor):
    """Turns DomainError into its rich status and anything unexpected into a bare INTERNAL."""

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        inner: Behavior | None = handler.unary_unary or handler.stream_unary
        if inner is None:
            return handler
        method = handler_call_details.method
        # The request id the facade sends (or a new one for a direct gRPC caller): every log
        # line of this call and every webhook event it writes carry it (contract/logs.py).
        given = _metadata_value(handler_call_details.invocation_metadata, REQUEST_ID_HEADER)

        streaming = handler.stream_unary is not None

        async def behavior(request: Any, context: grpc.aio.ServicerContext) -> Any:
            REQUEST_ID.set(request_id_from(given))  # this call's own task: nothing else sees it
            try:
                return await inner(request, context)
            except grpc.aio.AbortError:
                raise
            except Exception:
                if streaming:
                    await _drain(request)
                raise

        async def answered(request: Any, context: grpc.aio.ServicerContext) -> Any:
            try:
                return await behavior(request, context)
            except DomainError as error:
                if error.reason == "INSUFFICIENT_CREDITS":
                    CREDIT_REFUSALS.labels("request").inc()
                await context.abort_with_status(domain_status(error))
            except grpc.aio.AbortError:
                raise
            except (OperationalError, InterfaceError) as error:
                if _database_unavailable(error):
                    # The database refused or dropped the connection (down, restarting, out of
                    # connection slots, SQLite's lock held past its timeout): the call's
                    # transaction rolled back, so the caller may repeat it. UNAVAILABLE, not
                    # INTERNAL: clients and Envoy's retries treat it as passing (docs/operations.md).
                    log.warning("database unavailable in %s: %s", method, _first_line(error))
                    unavailable = ServiceUnavailable(
                        "the database is not answering; try again shortly", retry_after="1"
                    )
                    await context.abort_with_status(domain_status(unavailable))
                log.exception("unexpected failure in %s", method)
                await context.abort_with_status(internal_status())
            except Exception:
                log.exception("unexpected failure in %s", method)
                await context.abort_with_status(internal_status())

        return _wrap(handler, answered)


async def _drain(requests: AsyncIterator[Any]) -> None:
    """Reads what a client-streaming caller is still sending, before its refusal goes out. When
    the status came while the client was still writing, grpcio's asyncio client let the failed
    write replace that status with INTERNAL "Internal error from Core" (grpc/grpc#36066): a
    refused upload answered 500 instead of its code. Bounded in time: a client that keeps
    sending past it gets the status anyway."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(DRAIN_SECONDS):
            async for _ in requests:
                pass


# SQLite's OperationalError also stands for mistakes in a statement ("no such table"): only
# these say the database could not be used at that moment.
_SQLITE_TRANSIENT = ("database is locked", "database table is locked", "unable to open database", "disk i/o error")


def _database_unavailable(error: OperationalError | InterfaceError) -> bool:
    """Whether a database error means "not now" rather than a fault in Herald: every PostgreSQL
    OperationalError (a refused or lost connection, no free connection slot, a cancelled
    statement, a deadlock or serialization failure: psycopg's own classes), and SQLite's busy
    and I/O errors."""
    if type(error.orig).__module__.startswith("sqlite3"):
        text = str(error.orig).lower()
        return any(phrase in text for phrase in _SQLITE_TRANSIENT)
    return True


def _first_line(error: Exception) -> str:
    """The driver's own message, without SQLAlchemy's statement and background link (the
    engine hides parameters anyway, core/db/engine.py)."""
    text = str(getattr(error, "orig", None) or error)
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__


class UnitOfWorkInterceptor(grpc.aio.ServerInterceptor):
    """Opens one transaction per call, resolves the `authorization` metadata to a Principal in
    it, applies the method's policy (credential kind, scope, plan, in that order), runs the
    servicer inside the same transaction and reports the credit balance in trailing metadata.

    Methods outside Herald's packages (health, reflection) pass through unauthenticated; a
    Herald method without a declared policy gets the strictest one. A successful call of a method
    that writes records its audit event in its transaction (core/audit/record.py).
    """

    def __init__(
        self,
        settings: CoreSettings,
        engine: AsyncEngine,
        policies: Mapping[str, MethodPolicy],
        limiter: Limiter | None = None,
    ) -> None:
        self._settings = settings
        self._engine = engine
        self._policies = policies
        # The methods whose successful calls the audit log records, with their names there.
        self._audited = log_names(path for path, p in policies.items() if p.writes and not p.anonymous)
        self._sqlite = is_sqlite(engine)
        self._limiter = limiter
        budgets = {
            CredentialKind.API_KEY: Budget.parse(settings.rate_limit_api_key),
            CredentialKind.OAUTH_ACCESS_TOKEN: Budget.parse(settings.rate_limit_oauth_client),
        }
        self._budgets = {kind: budget for kind, budget in budgets.items() if budget is not None}

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        method: str = handler_call_details.method
        policy = self._policies.get(method)
        if policy is None:
            if not method.startswith("/herald."):
                return handler
            policy = STRICT
        if handler is None:
            return handler
        inner: Behavior | None = handler.unary_unary or handler.stream_unary
        if inner is None:
            return None  # a Herald method of an unsupported shape is never served unauthenticated
        metadata = handler_call_details.invocation_metadata
        authorization = _metadata_value(metadata, "authorization")
        audience = _metadata_value(metadata, AUDIENCE_KEY) or self._settings.mcp_resource
        given_address = _metadata_value(metadata, CLIENT_ADDRESS_KEY)
        audited = self._audited.get(method)

        async def behavior(request: Any, context: grpc.aio.ServicerContext) -> Any:
            address = given_address or peer_address(context.peer())
            if policy.anonymous:
                return await self._run_anonymous(inner, request, context, policy, address)
            return await self._run(inner, request, context, policy, authorization, audience, address, audited)

        return _wrap(handler, behavior)

    async def _run(
        self,
        inner: Behavior,
        request: Any,
        context: grpc.aio.ServicerContext,
        policy: MethodPolicy,
        authorization: str | None,
        audience: str,
        address: str,
        audited: str | None,
    ) -> Any:
        now = utcnow()
        rate: Decision | None = None
        audit: Pending | None = None
        async with self._engine.connect() as conn:
            if policy.writes and policy.transactional and self._sqlite:
                conn = await conn.execution_options(**{SQLITE_IMMEDIATE: True})
            async with conn.begin():
                auth = await authenticate(conn, authorization, now, audience=audience)
                apply_policy(auth.principal, self._named_policy(request) if policy.checks_named_method else policy)
                if not policy.checks_named_method:
                    rate = await self._take(auth.principal)
                if audited is not None:
                    audit = pending(auth.principal, audited, request, now, REQUEST_ID.get())
                if policy.transactional:
                    call = self._call(conn, auth.principal, now, auth.principal.credit_balance, address, audit)
                    response = await _serve(inner, request, context, call)
                    if audit is not None:
                        await audit.write(conn, response)
        if not policy.transactional:
            call = self._call(None, auth.principal, now, auth.principal.credit_balance, address, audit)
            response = await _serve(inner, request, context, call)
            if audit is not None:
                await self._record_apart(audit, response)
        if auth.touch_api_key_id is not None:
            try:
                await touch_api_key(self._engine, auth.touch_api_key_id, now)
            except Exception:  # the call succeeded; a missed last-use stamp must not fail it
                log.warning("could not record last use of API key %s", auth.touch_api_key_id, exc_info=True)
        trailing = self._credit_metadata(call.credits_remaining)
        if rate is not None:
            trailing += ((RATELIMIT_KEY, rate.header_metadata()),)
        context.set_trailing_metadata(trailing)
        return response

    async def _record_apart(self, audit: Pending, response: Any) -> None:
        """The event of a method that committed its own work, in a short transaction of its own.
        The change is made by then: a failure to record it is logged, not answered (the caller
        would retry a change that happened)."""
        try:
            async with transaction(self._engine, writes=True) as conn:
                await audit.write(conn, response)
        except Exception:
            log.error("could not record the audit event of %s", audit.row["method"], exc_info=True)

    async def _take(self, principal: Principal) -> Decision | None:
        """One request of the principal's budget (API key or OAuth client; sessions have none);
        RateLimited when it is spent. A limiter that does not answer lets the call through.
        An OAuth client's budget is per organization and per human it acts for: one client id
        (a metadata document's URL above all) serves every tenant, and one tenant's agent must
        not spend another's budget (docs/oauth.md, "Rate limits")."""
        budget = self._budgets.get(principal.credential_kind)
        if budget is None or self._limiter is None:
            return None
        key = (
            f"key:{principal.credential_id}"
            if principal.credential_kind == CredentialKind.API_KEY
            else f"client:{principal.org_id}:{principal.client_id}:{principal.user_id}"
        )
        try:
            decision = await self._limiter.take(key, budget)
        except Exception:  # Redis down: the API stays up, unlimited, and says so in the log
            log.warning("rate limiter unavailable; %s not counted", key, exc_info=True)
            return None
        if not decision.allowed:
            raise RateLimited(
                f"rate limit reached: {budget.limit} requests per {budget.window:g} s; "
                f"retry in {decision.retry_after} s",
                retry_after=str(decision.retry_after),
                ratelimit=decision.header_metadata(),
            )
        return decision

    async def _run_anonymous(
        self, inner: Behavior, request: Any, context: grpc.aio.ServicerContext, policy: MethodPolicy, address: str
    ) -> Any:
        """A protocol method that reads no credential: its request carries its own proof."""
        now = utcnow()
        if not policy.transactional:
            return await _serve(inner, request, context, self._call(None, None, now, 0, address))
        async with self._engine.connect() as conn:
            if policy.writes and self._sqlite:
                conn = await conn.execution_options(**{SQLITE_IMMEDIATE: True})
            async with conn.begin():
                return await _serve(inner, request, context, self._call(conn, None, now, 0, address))

    def _call(
        self, conn: Any, principal: Principal | None, now: Any, credits: int, address: str, audit: Pending | None = None
    ) -> Call:
        return Call(
            conn,
            principal,  # type: ignore[arg-type]
            self._settings,
            now,
            credits,
            self._engine,
            client_address=address,
            limiter=self._limiter,
            audit=audit,
        )

    def _named_policy(self, request: Any) -> MethodPolicy:
        """CheckAccess: the policy of the method the request names (never CheckAccess's own)."""
        policy = self._policies.get(request.method)
        if policy is None or policy.anonymous or policy.checks_named_method:
            raise ValidationError(f"method must name a method of the core, not {request.method[:200]!r}")
        return policy

    def _credit_metadata(self, remaining: int) -> tuple[tuple[str, str], ...]:
        low = remaining < self._settings.low_credit_threshold
        return ((CREDITS_REMAINING_KEY, str(remaining)), (CREDITS_LOW_KEY, "1" if low else "0"))


async def _serve(inner: Behavior, request: Any, context: grpc.aio.ServicerContext, call: Call) -> Any:
    # The request is looked at only now, after the credential and the policy (the order of checks:
    # docs/api.md, "Errors").
    if isinstance(request, Message) and (field := field_with_nul(request)):
        raise ValidationError(f"{field} must not contain NUL characters")
    token = bind_call(call)
    try:
        return await inner(request, context)
    finally:
        unbind_call(token)


def peer_address(peer: str) -> str:
    """The address in a gRPC peer string (`ipv4:127.0.0.1:5000`, `ipv6:[::1]:5000`); the
    string itself for other transports (`unix:…`)."""
    kind, _, rest = (peer or "").partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        return rest.rsplit(":", 1)[0].strip("[]")
    return peer or ""


def _metadata_value(metadata: Any, key: str) -> str | None:
    for k, v in metadata or ():
        if k == key:
            return v if isinstance(v, str) else None
    return None
