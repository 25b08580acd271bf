"""Client registration (RFC 7591), client authentication (RFC 6749 2.3), redirect URI rules
(RFC 8252 7.3 for loopback), and the rows of clients identified by a Client ID Metadata Document
(fetched and checked in core/oauth/client_metadata.py)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from authlib.oauth2.rfc7591 import ClientMetadataClaims
from joserfc.errors import JoseError
from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import oauth_clients
from core.identity.opaque_tokens import CLIENT_SECRET_PREFIX, hash_token, mint_token
from core.identity.scopes import ALL_SCOPES, RESOURCE_SCOPES
from core.ids import new_id
from core.oauth.errors import InvalidClient, InvalidClientMetadata, InvalidRedirectUri

GRANT_TYPES = ("authorization_code", "refresh_token", "client_credentials")
AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")
APPLICATION_TYPES = ("native", "web")
DEFAULT_GRANT_TYPES = ("authorization_code", "refresh_token")
# Loopback hosts as RedirectTarget.host spells them (IPv6 without brackets); RFC 8252 7.3.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
MAX_REDIRECT_URIS = 20
MAX_URI_LENGTH = 2000
# The id of a metadata-document client's row: this prefix and 130 bits of its URL's SHA-256.
METADATA_CLIENT_PREFIX = "cim_"

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
    # The metadata document's URL, for a client identified by one (empty for registered ones).
    metadata_url: str = ""

    @property
    def client_id(self) -> str:
        """The identifier the client uses and is shown by: its metadata document's URL, or the
        id registration issued."""
        return self.metadata_url or self.id

    @property
    def metadata_host(self) -> str:
        """The host (and port) serving a metadata-document client's document; the consent page
        shows it beside the name the document gives (draft 8.5). Empty for registered clients."""
        return urlsplit(self.metadata_url).netloc if self.metadata_url else ""

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


# A redirect URI's authority: a host name or a bracketed IPv6 address, then an optional port of
# ASCII digits. Anything else (userinfo and its `@`, `\`, `%` escapes and IPv6 zone ids, spaces,
# an empty port) is refused: browsers and urllib disagree on where such an authority's host is,
# and the host is what the code is sent to.
_AUTHORITY_RE = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(?P<port>[0-9]{1,5}))?")


@dataclass(frozen=True, slots=True)
class RedirectTarget:
    """A redirect URI that passed the rules, as it is compared: `host` lowercased, without
    brackets; `rest`, the path and query exactly as written (no decoding, no normalisation, an
    empty query's `?` kept)."""

    scheme: str
    host: str
    port: int | None
    rest: str

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK_HOSTS


def _has_space_or_control(text: str) -> bool:
    return any(c.isspace() or unicodedata.category(c) == "Cc" for c in text)


def parse_redirect_uri(uri: str) -> RedirectTarget:
    """The rules every redirect URI meets, registered or requested (docs/oauth.md, "Redirect
    URIs"): at most 2000 characters; no space, control character, backslash or fragment
    anywhere; `https://`, or `http://` on a loopback host (RFC 8252 7.3); an authority that is
    a host and an optional port only (_AUTHORITY_RE). InvalidRedirectUri otherwise."""
    if len(uri) > MAX_URI_LENGTH:
        raise InvalidRedirectUri("a redirect URI is too long")
    if _has_space_or_control(uri) or "\\" in uri:
        raise InvalidRedirectUri("a redirect URI must not contain spaces, control characters or backslashes")
    if "#" in uri:
        raise InvalidRedirectUri(f"redirect URI {uri!r} must not have a fragment")
    if not uri.startswith(("https://", "http://")):
        raise InvalidRedirectUri(f"redirect URI {uri!r} must be https, or http on a loopback address (RFC 8252)")
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        raise InvalidRedirectUri(f"redirect URI {uri!r} is malformed") from None
    authority = _AUTHORITY_RE.fullmatch(parts.netloc)
    if authority is None:
        raise InvalidRedirectUri(
            f"redirect URI {uri!r} must name a host and an optional port only (no credentials, no escapes)"
        )
    rest = uri[len(parts.scheme) + len("://") + len(parts.netloc) :]
    target = RedirectTarget(parts.scheme, (parts.hostname or "").lower(), port, rest)
    if not target.host:
        raise InvalidRedirectUri(f"redirect URI {uri!r} names no host")
    if target.scheme == "http" and not target.loopback:
        raise InvalidRedirectUri(f"redirect URI {uri!r} must be https, or http on a loopback address (RFC 8252)")
    return target


def check_redirect_uri(uri: str) -> None:
    parse_redirect_uri(uri)


def redirect_uri_matches(registered: str, requested: str) -> bool:
    """Whether a requested redirect URI is the registered one. Both must meet the rules
    (parse_redirect_uri). A loopback one matches on any port (RFC 8252 7.3): same scheme, host
    (compared lowercased, a trailing dot being another host), path and query. Any other must be
    the same string (RFC 6749 3.1.2.3, simple string comparison)."""
    try:
        expected, given = parse_redirect_uri(registered), parse_redirect_uri(requested)
    except InvalidRedirectUri:
        return False
    if expected.loopback:
        return (expected.scheme, expected.host, expected.rest) == (given.scheme, given.host, given.rest)
    return hmac.compare_digest(registered.encode(), requested.encode())


def check_client_uri(uri: str) -> None:
    """client_uri, the one other URI Herald keeps and shows (a link on the consent page): https
    with a host and nothing odd in its authority (as for redirect URIs), no spaces or control
    characters. Other URI metadata (logo_uri, tos_uri, policy_uri) is neither kept nor shown."""
    if len(uri) > MAX_URI_LENGTH:
        raise InvalidClientMetadata("client_uri is too long")
    if not uri.startswith("https://") or _has_space_or_control(uri) or "\\" in uri:
        raise InvalidClientMetadata("client_uri must be an https URL")
    try:
        netloc = urlsplit(uri).netloc
    except ValueError:
        raise InvalidClientMetadata("client_uri must be an https URL") from None
    if _AUTHORITY_RE.fullmatch(netloc) is None:
        raise InvalidClientMetadata("client_uri must be an https URL naming a host (no credentials, no escapes)")


def validate_metadata(metadata: ClientMetadata) -> ClientMetadata:
    """Checks metadata with authlib's RFC 7591 claims, then Herald's rules; fills defaults."""
    auth_method = metadata.token_endpoint_auth_method or "client_secret_basic"
    grant_types = metadata.grant_types or DEFAULT_GRANT_TYPES
    response_types = metadata.response_types or (("code",) if "authorization_code" in grant_types else ())
    # Redirect URIs first, so their errors carry their own code (invalid_redirect_uri).
    if len(metadata.redirect_uris) > MAX_REDIRECT_URIS:
        raise InvalidRedirectUri(f"at most {MAX_REDIRECT_URIS} redirect URIs")
    targets = [parse_redirect_uri(uri) for uri in metadata.redirect_uris]
    if metadata.client_uri:
        check_client_uri(metadata.client_uri)
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
        loopback = all(target.loopback for target in targets)
        application_type = "native" if targets and loopback else "web"
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
        "metadata_url": None,
    }
    await conn.execute(insert(oauth_clients).values(**values))
    return _client(values), secret.token if secret else ""


def is_metadata_url(client_id: str) -> bool:
    """Whether a client_id names a metadata document (registration never issues URL-shaped ids,
    draft-ietf-oauth-client-id-metadata-document 7.1)."""
    return client_id.startswith(("https://", "http://"))


def metadata_client_key(url: str) -> str:
    """The row id of the client whose metadata document is at `url`: derived from the URL, so
    finding it is one primary-key lookup and two approvals racing for a new client make one row."""
    digest = base64.b32encode(hashlib.sha256(url.encode()).digest()).decode("ascii").lower()
    return METADATA_CLIENT_PREFIX + digest[:26]


def metadata_client(url: str, metadata: ClientMetadata, now: datetime) -> Client:
    """The client a checked metadata document describes (public: the document can carry no
    shared secret, draft 4.1)."""
    return Client(
        id=metadata_client_key(url),
        secret_hash=None,
        client_name=metadata.client_name,
        client_uri=metadata.client_uri,
        redirect_uris=tuple(metadata.redirect_uris),
        grant_types=tuple(metadata.grant_types),
        response_types=tuple(metadata.response_types),
        token_endpoint_auth_method="none",
        scope=metadata.scope,
        created_at=now,
        application_type=metadata.application_type or "web",
        metadata_url=url,
    )


async def store_metadata_client(conn: AsyncConnection, client: Client) -> None:
    """Records a metadata-document client when a human first approves it, or refreshes its row
    from the document as fetched for this approval. Codes, grants and tokens refer to the row,
    so the token, revocation and introspection endpoints and the connected-agents page treat it
    like a registered client."""
    refreshed = {
        "client_name": client.client_name,
        "client_uri": client.client_uri,
        "redirect_uris": " ".join(client.redirect_uris),
        "grant_types": " ".join(client.grant_types),
        "response_types": " ".join(client.response_types),
        "token_endpoint_auth_method": client.token_endpoint_auth_method,
        "scope": client.scope,
        "application_type": client.application_type,
        "metadata_url": client.metadata_url,
    }
    refresh = update(oauth_clients).where(oauth_clients.c.id == client.id).values(**refreshed)
    if (await conn.execute(refresh)).rowcount:
        return
    values = {"id": client.id, "secret_hash": None, "created_at": client.created_at, **refreshed}
    try:
        async with conn.begin_nested():
            await conn.execute(insert(oauth_clients).values(**values))
    except IntegrityError:  # a concurrent first approval recorded it: refresh that row
        await conn.execute(refresh)


def _client(row) -> Client:  # a Row or a dict
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
        metadata_url=get("metadata_url") or "",
    )


async def find_client(conn: AsyncConnection, client_id: str) -> Client | None:
    """The client as stored: a registered one by its id, a metadata-document one by its URL
    (known once a human approved it; the authorization endpoint fetches the document itself)."""
    if not client_id:
        return None
    if is_metadata_url(client_id):
        if len(client_id) > MAX_URI_LENGTH:
            return None
        key = metadata_client_key(client_id)
        row = (await conn.execute(select(oauth_clients).where(oauth_clients.c.id == key))).first()
        return _client(row) if row and row.metadata_url == client_id else None
    if len(client_id) > 64:
        return None
    row = (await conn.execute(select(oauth_clients).where(oauth_clients.c.id == client_id))).first()
    # A metadata-document client is known by its URL only, never by its row id.
    return _client(row) if row and not row.metadata_url else None


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
