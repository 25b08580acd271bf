"""Connecting platform accounts from the dashboard, and the callback every platform redirects to
(docs/live-publishing.md). The core does the OAuth work; these routes move the browser."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from herald.connections.v1 import connections_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.redirects import app_url, local_path
from facades.errors import ApiError
from facades.web.pages import Route, failure_page, form_value, page_errors, see_other, signed_in
from facades.web.profiles_pages import checked_slug, profile_path, profiles_page, tags_of
from facades.web.session import Viewer, session_token

SERVICE = "/herald.connections.v1.ConnectionService"
PROFILES = "/dashboard/profiles"


def with_query(target: str, **params: str) -> str:
    """`target` with `params` added to its query (replacing the same names)."""
    parts = urlsplit(target)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
    return urlunsplit(parts._replace(query=urlencode(query + list(params.items()))))


def _return_target(return_to: str) -> str | None:
    """Where the callback may send the browser: a path of this site, or the absolute http(s) URL
    a REST caller named when it started the connection. The core checked it when it stored it;
    checked again here, where the redirect is made, so nothing else ever becomes a Location."""
    return local_path(return_to) or app_url(return_to)


@page_errors
async def connect_callback(request: Request) -> HTTPResponse:
    """Where every platform sends the browser back: the core completes the connection (the
    state is the proof; a dashboard connection also needs the session that started it)."""
    core = request.app.ctx.core
    args = {name: request.args.get(name, "")[:4000] for name in ("state", "code", "error")}
    try:
        result = await core.call(
            core.method(f"{SERVICE}/CompleteConnection"),
            connections_pb2.CompleteConnectionRequest(**args, session_token=session_token(request) or ""),
            authorization=None,
        )
    except ApiError as error:
        return_to = _return_target(error.metadata.get("return_to", "") if error.metadata else "")
        if error.code == "CONNECTION_FAILED" and return_to:
            return see_other(with_query(return_to, error=error.code))
        return failure_page(request, error, link=PROFILES, link_text="Back to profiles")
    done = result.response
    return_to = _return_target(done.return_to) or PROFILES
    return see_other(with_query(return_to, profile=done.profile.slug, connection="connected"))


@signed_in
async def start_connection(request: Request, viewer: Viewer) -> HTTPResponse:
    """Sends the browser to the platform's sign-in page (Mastodon: the instance's); a refused
    start shows the profiles page with the form as it was sent."""
    core = request.app.ctx.core
    form = {name: form_value(request, name) for name in ("platform", "instance_url", "slug", "tags")}
    try:
        result = await core.call(
            core.method(f"{SERVICE}/StartConnection"),
            connections_pb2.StartConnectionRequest(
                platform=form["platform"],
                instance_url=form["instance_url"],
                slug=form["slug"],
                tags=tags_of(form["tags"]),
                return_to=PROFILES,
            ),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.http_status >= 500 and error.code != "CONNECTION_FAILED":
            raise
        return await profiles_page(request, viewer, status=error.http_status, error=error.message, connect=form)
    return see_other(result.response.authorization_url)


@signed_in
async def connect_bluesky(request: Request, viewer: Viewer) -> HTTPResponse:
    """Connects a Bluesky account with an app password (Bluesky has no redirect to follow)."""
    core = request.app.ctx.core
    form = {name: form_value(request, name) for name in ("identifier", "app_password", "pds_url", "slug", "tags")}
    try:
        result = await core.call(
            core.method(f"{SERVICE}/ConnectBluesky"),
            connections_pb2.ConnectBlueskyRequest(
                identifier=form["identifier"],
                app_password=form["app_password"],
                pds_url=form["pds_url"],
                slug=form["slug"],
                tags=tags_of(form["tags"]),
            ),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.http_status >= 500 and error.code != "CONNECTION_FAILED":
            raise
        form["app_password"] = ""  # never sent back to the browser
        return await profiles_page(request, viewer, status=error.http_status, error=error.message, connect=form)
    return see_other(with_query(PROFILES, profile=result.response.slug, connection="connected"))


@signed_in
async def disconnect_profile(request: Request, viewer: Viewer, slug: str) -> HTTPResponse:
    """Forgets a profile's account tokens and, where the platform allows, revokes its access;
    back to the profile's page when the form was there (`back=profile`), else to the list."""
    core = request.app.ctx.core
    await core.call(
        core.method(f"{SERVICE}/DisconnectProfile"),
        connections_pb2.DisconnectProfileRequest(slug=checked_slug(slug)),
        authorization=viewer.authorization,
    )
    back = profile_path(slug) if form_value(request, "back") == "profile" else PROFILES
    return see_other(f"{back}?notice=disconnected")


ROUTES = (
    Route("GET", "/connect/callback", connect_callback),
    Route("POST", "/dashboard/connect", start_connection),
    Route("POST", "/dashboard/connect/bluesky", connect_bluesky),
    Route("POST", "/dashboard/profiles/<slug:str>/disconnect", disconnect_profile),
)
