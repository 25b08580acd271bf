"""Registration (RFC 7591), token (RFC 6749 3.2), revocation (RFC 7009), introspection
(RFC 7662) and the key set (RFC 7517), at {auth_url}."""

from __future__ import annotations

from typing import Any

from herald.identity.v1 import oauth_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse, empty, json

from facades.errors import ApiError, OAuthError
from facades.oauth.integration import (
    NO_STORE,
    client_credentials,
    form_parameters,
    oauth_error_response,
    oauth_json,
    protocol_call,
    rate_limited_response,
)
from facades.validation import json_object

_STRING_FIELDS = ("client_name", "client_uri", "scope", "token_endpoint_auth_method", "application_type")
_LIST_FIELDS = ("redirect_uris", "grant_types", "response_types")


def _metadata(body: Any) -> oauth_pb2.ClientMetadata:
    """Checks the JSON types of the metadata Herald uses; others are ignored (RFC 7591 2)."""
    if not isinstance(body, dict):
        raise OAuthError("invalid_client_metadata", "the body must be a JSON object of client metadata")
    for name in _STRING_FIELDS:
        if name in body and not isinstance(body[name], str):
            raise OAuthError("invalid_client_metadata", f"{name} must be a string")
    for name in _LIST_FIELDS:
        value = body.get(name)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            code = "invalid_redirect_uri" if name == "redirect_uris" else "invalid_client_metadata"
            raise OAuthError(code, f"{name} must be an array of strings")
    metadata = oauth_pb2.ClientMetadata(
        client_name=body.get("client_name", ""),
        client_uri=body.get("client_uri", ""),
        scope=body.get("scope", ""),
        redirect_uris=body.get("redirect_uris") or [],
        grant_types=body.get("grant_types") or [],
        response_types=body.get("response_types") or [],
    )
    if "token_endpoint_auth_method" in body:
        metadata.token_endpoint_auth_method = body["token_endpoint_auth_method"]
    if "application_type" in body:
        metadata.application_type = body["application_type"]
    return metadata


async def register(request: Request) -> HTTPResponse:
    content_type = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    try:
        if content_type != "application/json":
            raise OAuthError("invalid_client_metadata", "the body must be application/json")
        try:
            # Malformed, not valid Unicode or nested past any metadata: all refused alike.
            body = json_object(request.body, "the body")
        except ApiError as error:
            raise OAuthError("invalid_client_metadata", error.message) from None
        client = await protocol_call(
            request,
            "RegisterClient",
            oauth_pb2.RegisterClientRequest(metadata=_metadata(body)),
            invalid="invalid_client_metadata",
        )
    except OAuthError as error:
        return oauth_error_response(error)
    except ApiError as error:
        if error.code == "RATE_LIMITED":
            return rate_limited_response(error)
        raise
    m = client.metadata
    out: dict[str, Any] = {
        "client_id": client.client_id,
        "client_id_issued_at": client.client_id_issued_at,
        "client_name": m.client_name,
        "redirect_uris": list(m.redirect_uris),
        "grant_types": list(m.grant_types),
        "response_types": list(m.response_types),
        "token_endpoint_auth_method": m.token_endpoint_auth_method,
        "scope": m.scope,
        "application_type": m.application_type,
    }
    if m.client_uri:
        out["client_uri"] = m.client_uri
    if client.client_secret:
        out["client_secret"] = client.client_secret
        out["client_secret_expires_at"] = 0  # RFC 7591 3.2.1: never expires
    return oauth_json(out, 201)


async def token(request: Request) -> HTTPResponse:
    used_basic = False
    try:
        form = form_parameters(request)
        client_id, client_secret, used_basic = client_credentials(request, form)
        issued = await protocol_call(
            request,
            "ExchangeToken",
            oauth_pb2.ExchangeTokenRequest(
                grant_type=form.get("grant_type", ""),
                client_id=client_id,
                client_secret=client_secret,
                code=form.get("code", ""),
                redirect_uri=form.get("redirect_uri", ""),
                code_verifier=form.get("code_verifier", ""),
                refresh_token=form.get("refresh_token", ""),
                scope=form.get("scope", ""),
                resource=form.get("resource", ""),
            ),
        )
    except OAuthError as error:
        return oauth_error_response(error, used_basic=used_basic)
    body: dict[str, Any] = {
        "access_token": issued.access_token,
        "token_type": issued.token_type,
        "expires_in": issued.expires_in,
        "scope": issued.scope,
    }
    if issued.refresh_token:
        body["refresh_token"] = issued.refresh_token
    return oauth_json(body)


async def _about_a_token(request: Request, method_name: str, message_type: Any) -> Any:
    """Revocation and introspection share their request: `token`, `token_type_hint` and the
    client's authentication. Returns the core's response, or the error response to send."""
    used_basic = False
    try:
        form = form_parameters(request)
        client_id, client_secret, used_basic = client_credentials(request, form)
        message = message_type(
            token=form.get("token", ""),
            token_type_hint=form.get("token_type_hint", ""),
            client_id=client_id,
            client_secret=client_secret,
        )
        return await protocol_call(request, method_name, message)
    except OAuthError as error:
        return oauth_error_response(error, used_basic=used_basic)


async def revoke(request: Request) -> HTTPResponse:
    outcome = await _about_a_token(request, "RevokeToken", oauth_pb2.RevokeTokenRequest)
    if isinstance(outcome, HTTPResponse):
        return outcome
    return empty(status=200, headers=NO_STORE)


async def introspect(request: Request) -> HTTPResponse:
    result = await _about_a_token(request, "IntrospectToken", oauth_pb2.IntrospectTokenRequest)
    if isinstance(result, HTTPResponse):
        return result
    found = result
    if not found.active:
        return oauth_json({"active": False})
    body: dict[str, Any] = {
        "active": True,
        "scope": found.scope,
        "client_id": found.client_id,
        "token_type": found.token_type,
        "exp": found.exp,
        "iat": found.iat,
        "aud": found.aud,
    }
    if found.sub:
        body["sub"] = found.sub
    if found.organization:
        body["organization"] = found.organization
    return oauth_json(body)


async def jwks(request: Request) -> HTTPResponse:
    core = request.app.ctx.core
    result = await core.call(core.oauth.GetJwks, oauth_pb2.GetJwksRequest(), authorization=None)
    keys = [
        {"kty": k.kty, "kid": k.kid, "use": k.use, "alg": k.alg, "crv": k.crv, "x": k.x, "y": k.y}
        for k in result.response.keys
    ]
    return json({"keys": keys}, headers={"Cache-Control": "public, max-age=300"})


def register_endpoints(bp: Blueprint) -> None:
    bp.add_route(register, "/oauth2/register", methods=["POST"], name="register")
    bp.add_route(token, "/oauth2/token", methods=["POST"], name="token")
    bp.add_route(revoke, "/oauth2/revoke", methods=["POST"], name="revoke")
    bp.add_route(introspect, "/oauth2/introspect", methods=["POST"], name="introspect")
    bp.add_route(jwks, "/jwks", methods=["GET"], name="jwks")
