"""Public discovery documents (docs/oauth.md, "Pieces and where they are"; docs/api.md,
"GET /openapi.json"): RFC 9728 resource metadata, RFC 8414 authorization server metadata (at
the three paths clients look for it), the RFC 9727 API catalog, the OpenAPI description of /v1
(openapi.py) and the guides for agents. Always current: built from the settings and the
core's catalog (the scopes), openapi.json once per catalog."""

from __future__ import annotations

from importlib import resources
from typing import Any

from sanic import Blueprint, Request
from sanic.response import HTTPResponse, json, text

from contract.catalog import Catalog
from contract.operations import TOOLS
from facades.discovery.openapi import openapi_document
from facades.settings import FacadeSettings
from facades.web.templating import discovery_links

_PUBLIC = {"Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*"}


def protected_resource_metadata(settings: FacadeSettings, catalog: Catalog) -> dict[str, Any]:
    return {
        "resource": f"{settings.base_url}/mcp",
        "authorization_servers": [settings.auth_url],
        "bearer_methods_supported": ["header"],
        "scopes_supported": catalog.advertised_scopes,
        "resource_name": "Herald MCP server",
        "resource_documentation": f"{settings.base_url}/auth.md",
    }


def authorization_server_metadata(settings: FacadeSettings, catalog: Catalog) -> dict[str, Any]:
    auth = settings.auth_url
    endpoints = {
        "registration_endpoint": f"{auth}/oauth2/register",
        "authorization_endpoint": f"{auth}/oauth2/authorize",
        "token_endpoint": f"{auth}/oauth2/token",
        "revocation_endpoint": f"{auth}/oauth2/revoke",
    }
    return {
        "issuer": auth,
        "authorization_endpoint": endpoints["authorization_endpoint"],
        "token_endpoint": endpoints["token_endpoint"],
        "registration_endpoint": endpoints["registration_endpoint"],
        "revocation_endpoint": endpoints["revocation_endpoint"],
        "introspection_endpoint": f"{auth}/oauth2/introspect",
        "jwks_uri": f"{auth}/jwks",
        "scopes_supported": catalog.advertised_scopes,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "code_challenge_methods_supported": ["S256"],
        # RFC 9207: every authorization response carries `iss`.
        "authorization_response_iss_parameter_supported": True,
        # draft-ietf-oauth-client-id-metadata-document: a client_id may be the URL of the
        # client's metadata document (docs/oauth.md); registration stays for the others.
        "client_id_metadata_document_supported": True,
        "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "revocation_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "introspection_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "service_documentation": f"{settings.base_url}/auth.md",
        "agent_auth": {
            "skill": f"{settings.base_url}/auth.md",
            "register_uri": endpoints["registration_endpoint"],
            "revocation_uri": endpoints["revocation_endpoint"],
            "identity_types_supported": ["oauth_dynamic_client"],
            "credential_types_supported": ["oauth_access_token", "api_key"],
            "oauth_dynamic_client": {
                **endpoints,
                "credential_types_supported": ["oauth_access_token"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "requires_user_interaction": True,
            },
        },
    }


def api_catalog(settings: FacadeSettings) -> dict[str, Any]:
    """RFC 9727: a linkset naming the APIs this host offers."""
    base = settings.base_url
    return {
        "linkset": [
            {
                "anchor": f"{base}/v1",
                "service-desc": [{"href": f"{base}/openapi.json", "type": "application/json"}],
                "service-doc": [{"href": f"{base}/llms.txt", "type": "text/plain"}],
                "service-meta": [
                    {"href": f"{base}/.well-known/oauth-authorization-server", "type": "application/json"}
                ],
            },
            {
                "anchor": f"{base}/mcp",
                "service-doc": [{"href": f"{base}/auth.md", "type": "text/markdown"}],
                "service-meta": [{"href": f"{base}/.well-known/oauth-protected-resource", "type": "application/json"}],
            },
        ]
    }


def _guide(name: str, settings: FacadeSettings) -> str:
    source = resources.files("facades.discovery").joinpath(name).read_text(encoding="utf-8")
    # The tools as the operation table names them (one line each: name, title, twin route).
    tools = "\n".join(f"- `{name}`: {op.tool.title} (`{op.method} {op.path}`)" for name, op in TOOLS.items())
    source = source.replace("{mcp_tools}", tools)
    return source.replace("{base_url}", settings.base_url).replace("{auth_url}", settings.auth_url)


def discovery_blueprint() -> Blueprint:
    bp = Blueprint("discovery")

    async def resource_metadata(request: Request) -> HTTPResponse:
        catalog = (await request.app.ctx.contract.get()).catalog
        return json(protected_resource_metadata(request.app.ctx.settings, catalog), headers=_PUBLIC)

    async def server_metadata(request: Request) -> HTTPResponse:
        catalog = (await request.app.ctx.contract.get()).catalog
        return json(authorization_server_metadata(request.app.ctx.settings, catalog), headers=_PUBLIC)

    async def catalog(request: Request) -> HTTPResponse:
        settings = request.app.ctx.settings
        return json(
            api_catalog(settings),
            headers={**_PUBLIC, "Link": discovery_links(settings.base_url)},
            content_type='application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
        )

    async def openapi(request: Request) -> HTTPResponse:
        settings = request.app.ctx.settings
        contract = await request.app.ctx.contract.get()
        document = contract.cached("openapi", lambda: openapi_document(settings, contract))
        return json(document, headers={**_PUBLIC, "Link": discovery_links(settings.base_url)})

    async def llms_txt(request: Request) -> HTTPResponse:
        settings = request.app.ctx.settings
        return text(_guide("llms.txt", settings), headers={**_PUBLIC, "Link": discovery_links(settings.base_url)})

    async def auth_md(request: Request) -> HTTPResponse:
        settings = request.app.ctx.settings
        return text(
            _guide("auth.md", settings),
            headers={**_PUBLIC, "Link": discovery_links(settings.base_url)},
            content_type="text/markdown; charset=utf-8",
        )

    # RFC 9728 3.1: the metadata of resource {base_url}/mcp is also at the path-suffixed URL.
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
        bp.add_route(resource_metadata, path, methods=["GET"], name=f"prm{path.count('/')}")
    for i, path in enumerate(
        (
            "/.well-known/oauth-authorization-server",
            "/.well-known/oauth-authorization-server/api/auth",
            "/api/auth/.well-known/oauth-authorization-server",
        )
    ):
        bp.add_route(server_metadata, path, methods=["GET"], name=f"asm{i}")
    bp.add_route(catalog, "/.well-known/api-catalog", methods=["GET"], name="api_catalog")
    bp.add_route(openapi, "/openapi.json", methods=["GET"], name="openapi")
    bp.add_route(llms_txt, "/llms.txt", methods=["GET"], name="llms_txt")
    bp.add_route(auth_md, "/auth.md", methods=["GET"], name="auth_md")
    return bp
