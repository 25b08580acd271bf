"""Public discovery documents (docs/oauth.md, docs/api.md): exact content, validated with authlib's RFC 8414
model, served without a credential."""

from __future__ import annotations

import pytest
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata

# Static documents: nothing here depends on the database.
pytestmark = pytest.mark.one_backend

AS_PATHS = (
    "/.well-known/oauth-authorization-server",
    "/.well-known/oauth-authorization-server/api/auth",
    "/api/auth/.well-known/oauth-authorization-server",
)
SCOPES = ["posts:write", "posts:read", "media:write"]


async def test_protected_resource_metadata(http, stack):
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
        response = await http.get(path)
        assert response.status_code == 200
        doc = response.json()
        assert doc["resource"] == f"{stack.base_url}/mcp"
        assert doc["authorization_servers"] == [f"{stack.base_url}/api/auth"]
        assert doc["bearer_methods_supported"] == ["header"]
        assert doc["scopes_supported"] == SCOPES


async def test_authorization_server_metadata_at_all_three_paths(http, stack):
    base, auth = stack.base_url, f"{stack.base_url}/api/auth"
    docs = [(await http.get(path)).json() for path in AS_PATHS]
    assert docs[0] == docs[1] == docs[2]
    doc = docs[0]
    AuthorizationServerMetadata(doc).validate()
    assert doc["issuer"] == auth
    assert doc["authorization_endpoint"] == f"{auth}/oauth2/authorize"
    assert doc["token_endpoint"] == f"{auth}/oauth2/token"
    assert doc["registration_endpoint"] == f"{auth}/oauth2/register"
    assert doc["revocation_endpoint"] == f"{auth}/oauth2/revoke"
    assert doc["jwks_uri"] == f"{auth}/jwks"
    assert doc["scopes_supported"] == SCOPES
    assert doc["code_challenge_methods_supported"] == ["S256"]
    assert doc["authorization_response_iss_parameter_supported"] is True  # RFC 9207
    assert doc["response_types_supported"] == ["code"]
    assert doc["grant_types_supported"] == ["authorization_code", "refresh_token", "client_credentials"]
    agent = doc["agent_auth"]
    assert agent["skill"] == f"{base}/auth.md"
    assert agent["register_uri"] == f"{auth}/oauth2/register"
    assert agent["revocation_uri"] == f"{auth}/oauth2/revoke"
    assert agent["identity_types_supported"] == ["oauth_dynamic_client"]
    assert agent["credential_types_supported"] == ["oauth_access_token", "api_key"]
    dynamic = agent["oauth_dynamic_client"]
    assert dynamic["registration_endpoint"] == f"{auth}/oauth2/register"
    assert dynamic["authorization_endpoint"] == f"{auth}/oauth2/authorize"
    assert dynamic["token_endpoint"] == f"{auth}/oauth2/token"
    assert dynamic["revocation_endpoint"] == f"{auth}/oauth2/revoke"
    assert dynamic["credential_types_supported"] == ["oauth_access_token"]
    assert dynamic["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert dynamic["code_challenge_methods_supported"] == ["S256"]
    assert dynamic["requires_user_interaction"] is True


async def test_jwks_is_a_real_stable_key_set(http):
    from joserfc.jwk import ECKey

    first = (await http.get("/api/auth/jwks")).json()
    second = (await http.get("/api/auth/jwks")).json()
    assert first == second
    assert len(first["keys"]) == 1
    key = first["keys"][0]
    assert (key["kty"], key["crv"], key["alg"], key["use"]) == ("EC", "P-256", "ES256", "sig")
    assert "d" not in key  # public part only
    assert ECKey.import_key(key).thumbprint() == key["kid"]


async def test_api_catalog_and_guides(http, stack):
    catalog = await http.get("/.well-known/api-catalog")
    assert catalog.status_code == 200
    assert catalog.headers["content-type"].startswith("application/linkset+json")
    anchors = [entry["anchor"] for entry in catalog.json()["linkset"]]
    assert anchors == [f"{stack.base_url}/v1", f"{stack.base_url}/mcp"]
    for path in ("/auth.md", "/llms.txt"):
        response = await http.get(path)
        assert response.status_code == 200
        assert f"{stack.base_url}/api/auth" in response.text
        assert "{base_url}" not in response.text and "{auth_url}" not in response.text
        assert f'<{stack.base_url}/.well-known/api-catalog>; rel="api-catalog"' in response.headers["link"]


async def test_public_pages_advertise_the_documents_in_a_link_header(http, stack):
    response = await http.get("/login")
    assert response.status_code == 200
    link = response.headers["link"]
    for target in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server", "/auth.md"):
        assert f"<{stack.base_url}{target}>" in link
