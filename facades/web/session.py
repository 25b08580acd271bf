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
from herald.identity.v1 import accounts_pb2, identity_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError

SESSION_COOKIE = "herald_session"
SESSION_PREFIX = "hss_"


@dataclass(frozen=True, slots=True)
class Viewer:
    """The signed-in human behind a request: their session credential and principal, and, when
    read for a page (`current_viewer(header=True)`), what the page's header shows: the user's
    organizations (the switcher) and the unread notifications' count (None: not read)."""

    authorization: str
    session_token: str
    principal: identity_pb2.Principal
    organizations: list[accounts_pb2.Organization] | None = None
    unread: int | None = None

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


async def current_viewer(request: Request, *, header: bool = False) -> Viewer | None:
    """The signed-in human, or None (no cookie, or a session the core no longer accepts). With
    `header` (a page about to be rendered), the same one call also brings the header's
    organizations and unread count (AccountService.GetSessionView), so a page makes no call of
    its own for them; without it, GetPrincipal (a form's POST that redirects shows no header)."""
    token = session_token(request)
    if token is None:
        return None
    core = request.app.ctx.core
    authorization = f"Bearer {token}"
    try:
        if header:
            view = (
                await core.call(
                    core.accounts.GetSessionView, accounts_pb2.GetSessionViewRequest(), authorization=authorization
                )
            ).response
            principal = view.principal
        else:
            principal = (
                await core.call(
                    core.identity.GetPrincipal, identity_pb2.GetPrincipalRequest(), authorization=authorization
                )
            ).response
    except ApiError as error:
        if error.code == "UNAUTHORIZED":
            return None
        raise
    if principal.credential_kind != identity_pb2.CREDENTIAL_KIND_SESSION:
        return None
    if header:
        return Viewer(authorization, token, principal, list(view.organizations), view.unread_notifications)
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
