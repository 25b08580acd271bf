"""The authorization endpoint (RFC 6749 4.1, PKCE RFC 7636) and its consent page.

GET checks the request in the core. While the client or its redirect URI is in doubt the error
is shown here, never sent anywhere (RFC 6749 4.1.2.1); after that, errors go back to the client
by redirect. A `client_id` that is a URL names a Client ID Metadata Document, which the core
fetches and checks first: any failure is `invalid_client`, shown here. A human who is not signed
in is sent to /login and brought back; a signed-in one sees what the client asks for, and on a
step-up (a client they approved asking for more) only what is new. The consent form repeats
the request's parameters; POST checks them again in the core before issuing a code.
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit, urlunsplit

from herald.identity.v1 import accounts_pb2, oauth_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse, redirect

from facades.errors import ApiError, OAuthError
from facades.oauth.integration import protocol_call, query_parameters
from facades.web import csrf
from facades.web.pages import login_redirect
from facades.web.session import Viewer, current_viewer
from facades.web.templating import render

PARAMETERS = (
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
    "resource",
)


def _parameters(params: dict[str, str]) -> oauth_pb2.AuthorizationParameters:
    return oauth_pb2.AuthorizationParameters(**{name: params.get(name, "") for name in PARAMETERS})


def _to_client(request: Request, redirect_uri: str, values: dict[str, str]) -> HTTPResponse:
    """303 to the client's redirect URI with `values` added to its query (RFC 6749 4.1.2), and
    `iss`, this authorization server's issuer (RFC 9207): a client talking to several servers
    checks that the answer comes from the one it asked (mix-up attacks)."""
    values = {**values, "iss": request.app.ctx.settings.auth_url}
    parts = urlsplit(redirect_uri)
    query = "&".join(q for q in (parts.query, urlencode({k: v for k, v in values.items() if v})) if q)
    return redirect(urlunsplit(parts._replace(query=query)), status=303, headers={"Cache-Control": "no-store"})


def _refuse(request: Request, params: dict[str, str], error: OAuthError) -> HTTPResponse:
    """By redirect once the core vouched for the redirect URI the request names; else a page."""
    if error.redirectable and params.get("redirect_uri"):
        values = {"error": error.code, "error_description": error.message, "state": params.get("state", "")}
        return _to_client(request, params["redirect_uri"], values)
    return render(
        request,
        "message.html",
        status=400,
        heading="This authorization request cannot be used",
        message=f"{error.code}: {error.message}",
        viewer=None,
    )


def _too_many(request: Request, error: ApiError) -> HTTPResponse:
    """429 on a page, never a redirect: too many metadata documents fetched for this address's
    requests that carry no session (docs/oauth.md, "Rate limits")."""
    response = render(
        request,
        "message.html",
        status=429,
        heading="Too many authorization requests",
        message=f"rate_limited: {error.message}",
        viewer=None,
    )
    response.headers["Retry-After"] = str(error.retry_after or 1)
    return response


async def _check(request: Request, params: dict[str, str]) -> oauth_pb2.AuthorizationContext:
    return await protocol_call(
        request, "CheckAuthorization", oauth_pb2.CheckAuthorizationRequest(parameters=_parameters(params))
    )


async def _prepare(request: Request, viewer: Viewer, params: dict[str, str]) -> oauth_pb2.Consent:
    """The request checked for a signed-in human (their session goes with it: no address budget)."""
    return await protocol_call(
        request,
        "PrepareConsent",
        oauth_pb2.PrepareConsentRequest(parameters=_parameters(params)),
        authorization=viewer.authorization,
    )


async def _consent_page(request: Request, viewer: Viewer, params: dict[str, str], consent) -> HTTPResponse:
    core = request.app.ctx.core
    orgs = await core.call(
        core.accounts.ListOrganizations, accounts_pb2.ListOrganizationsRequest(), authorization=viewer.authorization
    )
    context = consent.context
    return render(
        request,
        "consent.html",
        viewer=viewer,
        section="",
        organizations=None,
        client_name=context.client_name,
        client_uri=context.client_uri,
        client_host=context.client_host,
        scopes=list(context.scopes),
        granted_scopes=list(consent.granted_scopes),
        granted_organization=consent.organization,
        new_scopes=list(consent.new_scopes),
        scope_descriptions=(await request.app.ctx.contract.get()).catalog.scope_descriptions,
        redirect_uri=context.redirect_uri,
        resource=context.resource,
        action=request.path,
        parameters=[(name, params[name]) for name in PARAMETERS if name in params],
        current_organization=viewer.principal.organization,
        organization_choices=list(orgs.response.organizations),
    )


async def authorize(request: Request) -> HTTPResponse:
    try:
        params = query_parameters(request)
    except OAuthError as error:
        return _refuse(request, {}, error)
    viewer = await current_viewer(request)
    try:
        if viewer is None:
            # Checked before sending anyone to sign in: a bad request is refused right away.
            await _check(request, params)
            return login_redirect(request)
        consent = await _prepare(request, viewer, params)
    except OAuthError as error:
        return _refuse(request, params, error)
    except ApiError as error:
        if error.code == "RATE_LIMITED":
            return _too_many(request, error)
        raise
    return await _consent_page(request, viewer, params, consent)


async def decide(request: Request) -> HTTPResponse:
    viewer = await current_viewer(request)
    form = request.form or {}
    if viewer is None:  # the session ended while the consent page was open: sign in, then see it again
        again = {name: form.get(name) for name in PARAMETERS if form.get(name)}
        return login_redirect(request, back_to=f"{request.path}?{urlencode(again)}")
    csrf.check(request, signed_in=True)
    params = {name: form.get(name) for name in PARAMETERS if form.get(name) is not None}
    try:
        if form.get("decision") != "approve":
            # Checked again before anything is sent to the redirect URI.
            context = (await _prepare(request, viewer, params)).context
            denied = {"error": "access_denied", "error_description": "the user denied the request"}
            return _to_client(request, context.redirect_uri, {**denied, "state": params.get("state", "")})
        # ApproveAuthorization checks the request again, as CheckAuthorization would.
        code = await protocol_call(
            request,
            "ApproveAuthorization",
            oauth_pb2.ApproveAuthorizationRequest(
                parameters=_parameters(params), organization=form.get("organization") or viewer.principal.organization
            ),
            authorization=viewer.authorization,
        )
    except OAuthError as error:
        return _refuse(request, params, error)
    except ApiError as error:
        if error.code == "NOT_FOUND":
            heading = "Not your organization"
            return render(request, "message.html", status=400, heading=heading, message=error.message, viewer=None)
        raise
    return _to_client(request, code.redirect_uri, {"code": code.code, "state": code.state})


def register_authorize(bp: Blueprint) -> None:
    bp.add_route(authorize, "/oauth2/authorize", methods=["GET"], name="authorize")
    bp.add_route(decide, "/oauth2/authorize", methods=["POST"], name="authorize_decide")
