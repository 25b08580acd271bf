"""Client registration (RFC 7591), client authentication (RFC 6749 2.3) and redirect URI rules
(RFC 8252 7.3 for loopback)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from authlib.oauth2.rfc7591 import ClientMetadataClaims
from joserfc.errors import JoseError
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import oauth_clients
from core.identity.scopes import ALL_SCOPES, RESOURCE_SCOPES
from core.identity.tokens import CLIENT_SECRET_PREFIX, hash_token, mint_token
from core.ids import new_id
from core.oauth.errors import InvalidClient, InvalidClientMetadata, InvalidRedirectUri

GRANT_TYPES = ("authorization_code", "refresh_token", "client_credentials")
AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")
APPLICATION_TYPES = ("native", "web")
DEFAULT_GRANT_TYPES = ("authorization_code", "refresh_token")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "[::1]", "localhost"})
MAX_REDIRECT_URIS = 20
MAX_URI_LENGTH = 2000

# What registration validates metadata against (authlib's claims options are built from it).
_SERVER_METADATA = {
    "scopes_supported": sorted(ALL_SCOPES),
    "response_types_supported": ["code"],
    "grant_types_supported": list(GRANT_TYPES),
    "token_endpoint_auth_methods_supported": list(AUTH_METHODS),
}


@dataclass(frozen=True, slots=True)
class Client:
    id: str
    secret_hash: str | None
    client_name: str
    client_uri: str
    redirect_uris: tuple[str, ...]
    grant_types: tuple[str, ...]
    response_types: tuple[str, ...]
    token_endpoint_auth_method: str
    scope: str
    created_at: datetime
    application_type: str = "web"

    @property
    def is_public(self) -> bool:
        return self.token_endpoint_auth_method == "none"

    @property
    def scopes(self) -> frozenset[str]:
        return frozenset(self.scope.split())


@dataclass(frozen=True, slots=True)
class ClientMetadata:
    client_name: str = ""
    redirect_uris: tuple[str, ...] = ()
    grant_types: tuple[str, ...] = ()
    response_types: tuple[str, ...] = ()
    token_endpoint_auth_method: str | None = None
    scope: str = ""
    client_uri: str = ""
    application_type: str | None = None


def _host(netloc: str) -> str:
    """The host of a netloc, brackets kept for IPv6 (`[::1]:8080` -> `[::1]`)."""
    if netloc.startswith("["):
        return netloc[: netloc.find("]") + 1]
    return netloc.rsplit(":", 1)[0] if ":" in netloc else netloc


def _check_redirect_uri(uri: str) -> None:
    if len(uri) > MAX_URI_LENGTH:
        raise InvalidRedirectUri("a redirect URI is too long")
    parts = urlsplit(uri)
    if parts.fragment or "#" in uri:
        raise InvalidRedirectUri(f"redirect URI {uri!r} must not have a fragment")
    if parts.username or parts.password:
        raise InvalidRedirectUri(f"redirect URI {uri!r} must not carry credentials")
    if parts.scheme == "https" and parts.netloc:
        return
    if parts.scheme == "http" and _host(parts.netloc) in LOOPBACK_HOSTS:
        return
    raise InvalidRedirectUri(f"redirect URI {uri!r} must be https, or http on a loopback address (RFC 8252)")


def redirect_uri_matches(registered: str, requested: str) -> bool:
    """Exact match, except that a loopback URI matches on any port (RFC 8252 7.3)."""
    if hmac.compare_digest(registered.encode(), requested.encode()):
        return True
    a, b = urlsplit(registered), urlsplit(requested)
    if a.scheme != "http" or _host(a.netloc) not in LOOPBACK_HOSTS:
        return False
    try:
        b.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return False
    return (a.scheme, _host(a.netloc), a.path, a.query, a.fragment) == (
        b.scheme,
        _host(b.netloc),
        b.path,
        b.query,
        b.fragment,
    )


def validate_metadata(metadata: ClientMetadata) -> ClientMetadata:
    """Checks metadata with authlib's RFC 7591 claims, then Herald's rules; fills defaults."""
    auth_method = metadata.token_endpoint_auth_method or "client_secret_basic"
    grant_types = metadata.grant_types or DEFAULT_GRANT_TYPES
    response_types = metadata.response_types or (("code",) if "authorization_code" in grant_types else ())
    # Redirect URIs first, so their errors carry their own code (invalid_redirect_uri).
    if len(metadata.redirect_uris) > MAX_REDIRECT_URIS:
        raise InvalidRedirectUri(f"at most {MAX_REDIRECT_URIS} redirect URIs")
    for uri in metadata.redirect_uris:
        _check_redirect_uri(uri)
    claims = {
        "client_name": metadata.client_name or None,
        "client_uri": metadata.client_uri or None,
        "redirect_uris": list(metadata.redirect_uris) or None,
        "grant_types": list(grant_types),
        "response_types": list(response_types),
        "token_endpoint_auth_method": auth_method,
        "scope": metadata.scope or None,
    }
    try:
        ClientMetadataClaims(
            {k: v for k, v in claims.items() if v is not None},
            {},
            ClientMetadataClaims.get_claims_options(_SERVER_METADATA),
            _SERVER_METADATA,
        ).validate()
    except JoseError as error:
        raise InvalidClientMetadata(f"invalid client metadata: {error.description or error.error}") from None
    if len(set(grant_types)) != len(grant_types) or len(set(response_types)) != len(response_types):
        raise InvalidClientMetadata("grant_types and response_types must not repeat a value")
    if "authorization_code" in grant_types:
        if not metadata.redirect_uris:
            raise InvalidRedirectUri("redirect_uris is required for the authorization_code grant")
        if response_types != ("code",) and list(response_types) != ["code"]:
            raise InvalidClientMetadata('response_types must be ["code"] with the authorization_code grant')
    elif response_types:
        raise InvalidClientMetadata("response_types needs the authorization_code grant")
    if "refresh_token" in grant_types and "authorization_code" not in grant_types:
        raise InvalidClientMetadata("the refresh_token grant needs the authorization_code grant")
    if "client_credentials" in grant_types and auth_method == "none":
        raise InvalidClientMetadata("client_credentials needs a confidential client")
    if len(metadata.client_name) > 200 or len(metadata.client_uri) > MAX_URI_LENGTH:
        raise InvalidClientMetadata("client_name or client_uri is too long")
    application_type = metadata.application_type
    if application_type is None:
        loopback = all(_host(urlsplit(uri).netloc) in LOOPBACK_HOSTS for uri in metadata.redirect_uris)
        application_type = "native" if metadata.redirect_uris and loopback else "web"
    elif application_type not in APPLICATION_TYPES:
        raise InvalidClientMetadata('application_type must be "native" or "web"')
    scope = " ".join(sorted(set(metadata.scope.split()))) if metadata.scope else " ".join(sorted(RESOURCE_SCOPES))
    return ClientMetadata(
        client_name=metadata.client_name,
        redirect_uris=tuple(metadata.redirect_uris),
        grant_types=tuple(grant_types),
        response_types=tuple(response_types),
        token_endpoint_auth_method=auth_method,
        scope=scope,
        client_uri=metadata.client_uri,
        application_type=application_type,
    )


async def register_client(conn: AsyncConnection, metadata: ClientMetadata, now: datetime) -> tuple[Client, str]:
    """Registers a client; returns it and its secret (empty for public clients), shown once."""
    metadata = validate_metadata(metadata)
    secret = mint_token(CLIENT_SECRET_PREFIX) if metadata.token_endpoint_auth_method != "none" else None
    client_id = new_id("cli")
    values = {
        "id": client_id,
        "secret_hash": secret.token_hash if secret else None,
        "client_name": metadata.client_name or client_id,
        "client_uri": metadata.client_uri,
        "redirect_uris": " ".join(metadata.redirect_uris),
        "grant_types": " ".join(metadata.grant_types),
        "response_types": " ".join(metadata.response_types),
        "token_endpoint_auth_method": metadata.token_endpoint_auth_method,
        "scope": metadata.scope,
        "created_at": now,
        "application_type": metadata.application_type,
    }
    await conn.execute(insert(oauth_clients).values(**values))
    return _client(values), secret.token if secret else ""


def _client(row) -> Client:  # noqa: ANN001 - a Row or a dict
    get = row.__getitem__ if isinstance(row, dict) else row._mapping.__getitem__
    return Client(
        id=get("id"),
        secret_hash=get("secret_hash"),
        client_name=get("client_name"),
        client_uri=get("client_uri"),
        redirect_uris=tuple(get("redirect_uris").split()),
        grant_types=tuple(get("grant_types").split()),
        response_types=tuple(get("response_types").split()),
        token_endpoint_auth_method=get("token_endpoint_auth_method"),
        scope=get("scope"),
        created_at=get("created_at"),
        application_type=get("application_type"),
    )


async def find_client(conn: AsyncConnection, client_id: str) -> Client | None:
    if not client_id or len(client_id) > 64:
        return None
    row = (await conn.execute(select(oauth_clients).where(oauth_clients.c.id == client_id))).first()
    return _client(row) if row else None


async def authenticate_client(conn: AsyncConnection, client_id: str, client_secret: str) -> Client:
    """RFC 6749 2.3: a public client identifies itself by `client_id` alone and must not send a
    secret; a confidential client must send its secret. One answer for every failure."""
    client = await find_client(conn, client_id)
    if client is None:
        raise InvalidClient("client authentication failed")
    if client.is_public:
        if client_secret:
            raise InvalidClient("client authentication failed")
        return client
    if not client_secret or client.secret_hash is None:
        raise InvalidClient("client authentication failed")
    if not hmac.compare_digest(hash_token(client_secret), client.secret_hash):
        raise InvalidClient("client authentication failed")
    return client
