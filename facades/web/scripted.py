"""The dashboard endpoints a page's script calls (compose's preview and creation, the calendar's
events and moves, the media library's uploads): JSON in and out, with the session cookie as the
credential, passed to the core as it is (one call, no GetPrincipal first).

A POST's CSRF token (the form's field, or the X-CSRF-Token header) is checked before anything
else. Every answer is JSON: 401 UNAUTHORIZED when there is no session the core accepts, with
`sign_in` naming the page to sign in again at (the script keeps what was typed), 403 FORBIDDEN
for a missing or wrong CSRF token, and the core's errors with their code and status, shaped as
/v1 answers them (docs/dashboard.md, "How a page is built")."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

from sanic import Request
from sanic.response import HTTPResponse, json

from facades.errors import ApiError
from facades.web import csrf
from facades.web.session import clear_session_cookie, session_token

Scripted = Callable[..., Awaitable[HTTPResponse]]
NO_STORE = {"Cache-Control": "no-store"}


def sign_in_to(path: str) -> str:
    """The sign-in page, back to `path` once signed in."""
    return "/login?" + urlencode({"next": path})


def json_error(error: ApiError, **extra: Any) -> HTTPResponse:
    """An error as /v1 answers it (`{error, code, argument?, …}`), with the page's extras."""
    body = error.body() | ({"argument": error.argument} if error.argument else {})
    return json(body | extra, status=error.http_status, headers=NO_STORE)


def session_gone(request: Request, sign_in: str) -> HTTPResponse:
    """401 for the script, which shows "Sign in again" (`sign_in`); a cookie the core no longer
    accepts is dropped on the way."""
    response = json_error(ApiError("UNAUTHORIZED", "your session has ended: sign in again"), sign_in=sign_in)
    if session_token(request) is not None:
        clear_session_cookie(response, request)
    return response


def scripted(*, sign_in: str, checks_csrf: bool = True) -> Callable[[Scripted], Scripted]:
    """Makes `handler(request, authorization, **route_params)` a script's endpoint (above);
    `checks_csrf=False` only for reads, whose answers other sites cannot read."""

    def decorate(handler: Scripted) -> Scripted:
        @functools.wraps(handler)
        async def wrapped(request: Request, *args: Any, **kwargs: Any) -> HTTPResponse:
            token = session_token(request)
            if token is None:
                return session_gone(request, sign_in)
            if checks_csrf:
                try:
                    csrf.check(request, signed_in=True)
                except csrf.CsrfRejected as refused:
                    return json_error(ApiError("FORBIDDEN", str(refused)))
            try:
                return await handler(request, f"Bearer {token}", *args, **kwargs)
            except ApiError as error:
                if error.code == "UNAUTHORIZED":
                    return session_gone(request, sign_in)
                return json_error(error)

        return wrapped

    return decorate
