"""The Sanic integration of the OAuth endpoints: form parsing, client authentication and
responses, the pieces authlib's (synchronous, framework-bound) server integrations would do.

Nothing here blocks: the rules run in the core, reached over async gRPC.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from authlib.oauth2.rfc6749.util import extract_basic_authorization
from sanic import Request
from sanic.response import HTTPResponse, json

from facades.errors import ApiError, OAuthError

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
MAX_PARAMETER_LENGTH = 4096


def single_parameters(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """RFC 6749 3.1 and 3.2: parameters must not be repeated; none may be absurdly long."""
    params: dict[str, str] = {}
    for name, value in pairs:
        if name in params:
            raise OAuthError("invalid_request", f"parameter {name!r} is repeated")
        if len(value) > MAX_PARAMETER_LENGTH:
            raise OAuthError("invalid_request", f"parameter {name!r} is too long")
        params[name] = value
    return params


def query_parameters(request: Request) -> dict[str, str]:
    return single_parameters(parse_qsl(request.query_string, keep_blank_values=True))


def form_parameters(request: Request) -> dict[str, str]:
    """The body of a token, revocation or introspection request (RFC 6749 3.2: form-encoded)."""
    content_type = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        raise OAuthError("invalid_request", "the body must be application/x-www-form-urlencoded")
    try:
        text = (request.body or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise OAuthError("invalid_request", "the body is not UTF-8") from None
    return single_parameters(parse_qsl(text, keep_blank_values=True))


def client_credentials(request: Request, form: dict[str, str]) -> tuple[str, str, bool]:
    """(client_id, client_secret, used_basic) from HTTP Basic (RFC 6749 2.3.1) or the form.
    A client must use one method only."""
    headers = request.headers.getall("authorization", [])
    if len(headers) > 1:
        raise OAuthError("invalid_request", "send exactly one Authorization header")
    basic_id = basic_secret = None
    if headers and headers[0].split(None, 1)[0].lower() == "basic":
        try:
            basic_id, basic_secret = extract_basic_authorization({"Authorization": headers[0]})
        except (UnicodeDecodeError, ValueError):
            raise OAuthError("invalid_client", "malformed HTTP Basic credentials") from None
        if not basic_id:
            raise OAuthError("invalid_client", "malformed HTTP Basic credentials")
    if basic_id is not None:
        if "client_secret" in form:
            raise OAuthError("invalid_request", "use HTTP Basic or client_secret in the body, not both")
        if form.get("client_id", basic_id) != basic_id:
            raise OAuthError("invalid_request", "client_id differs from the HTTP Basic user")
        return basic_id, basic_secret or "", True
    return form.get("client_id", ""), form.get("client_secret", ""), False


def oauth_json(body: dict[str, Any], status: int = 200) -> HTTPResponse:
    return json(body, status=status, headers=NO_STORE)


def oauth_error_response(error: OAuthError, *, used_basic: bool = False) -> HTTPResponse:
    response = oauth_json(error.body(), error.http_status)
    if error.code == "invalid_client" and used_basic:
        response.headers["WWW-Authenticate"] = 'Basic realm="herald"'
    return response


# The error of an OAuth endpoint's per-address limit (429; not one of RFC 6749's codes, which
# have none for it): {"error": "rate_limited", "error_description": …} with Retry-After.
RATE_LIMITED = "rate_limited"


def rate_limited_response(error: ApiError) -> HTTPResponse:
    """429 in the RFC 6749 5.2 shape for the core's RATE_LIMITED (docs/oauth.md, "Rate limits")."""
    response = oauth_json({"error": RATE_LIMITED, "error_description": error.message}, 429)
    response.headers["Retry-After"] = str(error.retry_after or 1)
    return response


async def protocol_call(
    request: Request,
    method_name: str,
    message: Any,
    *,
    invalid: str = "invalid_request",
    authorization: str | None = None,
) -> Any:
    """Calls an OAuthService method; a malformed request the core refuses with Herald's own
    VALIDATION_ERROR (e.g. a NUL character in a field) becomes the OAuth error `invalid`, so
    the OAuth endpoints only ever answer in RFC 6749's shape."""
    core = request.app.ctx.core
    try:
        result = await core.call(getattr(core.oauth, method_name), message, authorization=authorization)
    except OAuthError:
        raise
    except ApiError as error:
        if error.code == "VALIDATION_ERROR":
            raise OAuthError(invalid, error.message) from None
        raise
    return result.response
