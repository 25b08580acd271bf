"""CSRF protection for every form (OWASP's signed double-submit pattern).

A form carries `csrf_token` = HMAC-SHA256(key, "herald-csrf"), keyed by a secret the browser
holds in an HttpOnly cookie: the session token when signed in, otherwise a random pre-session
nonce (`herald_csrf`, for the sign-in and sign-up forms). Another site can make the browser send
the cookie but can neither read it nor compute the token, so a forged form is refused. No
server-side secret is needed, so any number of facades agree on the tokens.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from sanic import Request
from sanic.response import HTTPResponse

from facades.web.session import session_token

CSRF_COOKIE = "herald_csrf"
FIELD = "csrf_token"
# Scripts calling a dashboard endpoint with a JSON body send the token in this header instead (a
# page on another origin cannot set it without a CORS preflight the facade never allows).
HEADER = "X-CSRF-Token"


class CsrfRejected(Exception):
    """A form arrived without a valid CSRF token: nothing was done."""


def _token_for(key: str) -> str:
    digest = hmac.new(key.encode(), b"herald-csrf", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _nonce(request: Request) -> str | None:
    value = request.cookies.get(CSRF_COOKIE)
    if value and 20 <= len(value) <= 100 and value.isascii() and value.isalnum():
        return value
    return None


def form_token(request: Request) -> str:
    """The token to embed in a form on this request's page (creating the pre-session nonce
    when needed; `ensure_nonce_cookie` must then set it on the response)."""
    key = session_token(request) or _nonce(request)
    if key is None:
        key = request.ctx.__dict__.setdefault("csrf_nonce", secrets.token_hex(16))
    return _token_for(key)


def ensure_nonce_cookie(request: Request, response: HTTPResponse) -> None:
    nonce = getattr(request.ctx, "csrf_nonce", None)
    if nonce:
        response.add_cookie(
            CSRF_COOKIE,
            nonce,
            path="/",
            httponly=True,
            samesite="Lax",
            secure=request.app.ctx.settings.base_url.startswith("https://"),
        )


def check(request: Request, *, signed_in: bool) -> None:
    """Refuses a form whose token (its `csrf_token` field, or the X-CSRF-Token header) is not
    the one its cookie's secret gives."""
    sent = request.headers.get(HEADER) or ((request.form or {}).get(FIELD, "") if request.form is not None else "")
    key = session_token(request) if signed_in else (session_token(request) or _nonce(request))
    if not key or not sent or not hmac.compare_digest(sent.encode(), _token_for(key).encode()):
        raise CsrfRejected("the form's CSRF token is missing or wrong: reload the page and try again")
