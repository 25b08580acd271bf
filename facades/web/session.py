"""The dashboard session cookie, and who it belongs to.

The cookie holds the opaque session token the core minted (`hss_…`, stored there as a hash).
HttpOnly and SameSite=Lax always; Secure whenever {base_url} is https (browsers treat
http://localhost and 127.0.0.1 as secure contexts, so local runs work either way, but an http
cookie marked Secure is dropped by non-browser clients).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import grpc
from herald.identity.v1 import identity_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError

SESSION_COOKIE = "herald_session"
SESSION_PREFIX = "hss_"


@dataclass(frozen=True, slots=True)
class Viewer:
    """The signed-in human behind a request: their session credential and principal."""

    authorization: str
    session_token: str
    principal: identity_pb2.Principal

    @property
    def time_zone(self) -> str:
        """The organization's time zone, which pages show times in (the session's principal
        carries it: no call of its own)."""
        return self.principal.time_zone or "UTC"


def session_token(request: Request) -> str | None:
    token = request.cookies.get(SESSION_COOKIE)
    if not token or not token.startswith(SESSION_PREFIX) or not (token.isascii() and token.isprintable()):
        return None
    if len(token) > 128 or " " in token:
        return None
    return token


async def current_viewer(request: Request) -> Viewer | None:
    """The signed-in human, or None (no cookie, or a session the core no longer accepts)."""
    token = session_token(request)
    if token is None:
        return None
    core = request.app.ctx.core
    authorization = f"Bearer {token}"
    try:
        result = await core.call(
            core.identity.GetPrincipal, identity_pb2.GetPrincipalRequest(), authorization=authorization
        )
    except ApiError as error:
        if error.code == "UNAUTHORIZED":
            return None
        raise
    principal = result.response
    if principal.credential_kind != identity_pb2.CREDENTIAL_KIND_SESSION:
        return None
    return Viewer(authorization, token, principal)


def set_session_cookie(response: HTTPResponse, request: Request, token: str, expires: datetime) -> None:
    response.add_cookie(
        SESSION_COOKIE,
        token,
        path="/",
        httponly=True,
        samesite="Lax",
        secure=request.app.ctx.settings.base_url.startswith("https://"),
        expires=expires,
    )


def clear_session_cookie(response: HTTPResponse, request: Request) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/")


def is_unavailable(error: Exception) -> bool:
    return isinstance(error, grpc.aio.AioRpcError) and error.code() == grpc.StatusCode.UNAVAILABLE
