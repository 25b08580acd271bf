"""The OAuth 2.0 authorization-code grant every fake platform speaks, written once (RFC 6749
section 4.1; PKCE S256 from RFC 7636 where the platform takes it).

What is the same everywhere lives here: the authorization page that approves at once as
`sign_in_as` (or refuses once when `deny_next` is set), the codes it issues, the token endpoint's
client authentication, the code's checks (used once, unexpired, issued to this client for this
redirect URI, its PKCE verifier), refresh tokens (rotating or not), revocation, the grants every
token stands for, and the test controls (`signed_in_as`, `expire_access_tokens`,
`revoke_refresh_tokens`, `issued_tokens`, `grant_count`, `grant_access`...).

What differs is each platform's, and each fake configures it: its paths (its own routes), where
the client authenticates (`client_auth`), what the client id parameter is called, whether PKCE is
kept, how long codes live, how scopes are separated, whether refresh tokens rotate, what revoking
one token ends, and every answer's exact shape (the `authorization_refused`, `approved_params`,
`token_refused`, `token_issued`, `revoke_refused` and `revoked` hooks), so each fake answers what
its platform answers.
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ClassVar

from harness.fakes.platforms.base import Answer, FakePlatform, Request, answer, pkce_s256, redirect, with_query

# Why the token endpoint refused: its hook answers each in the platform's words.
CLIENT = "client"  # the client did not authenticate
CODE = "code"  # unknown, used, expired, another client's, or its PKCE verifier does not match
REDIRECT_URI = "redirect_uri"  # not the redirect URI the code was issued for
REFRESH_TOKEN = "refresh_token"  # unknown, rotated away or revoked
GRANT_TYPE = "grant_type"  # a grant type the platform does not take


@dataclass
class Grant:
    """What one token stands for."""

    subject: str  # the platform's id of the user: X's user id, LinkedIn's sub, TikTok's open_id...
    scopes: tuple[str, ...]
    expires_at: float = 0.0  # 0: it does not expire by time (refresh tokens, Mastodon's tokens)
    revoked: bool = False
    client_id: str = ""
    long_lived: bool = False  # Meta's long-lived tokens (graph.py)
    issued_at: float = field(default_factory=time.time)

    def expired(self) -> bool:
        return self.expires_at != 0.0 and self.expires_at <= time.time()


@dataclass
class Code:
    """An authorization code, as the authorization page issued it."""

    subject: str
    client_id: str
    redirect_uri: str
    scopes: tuple[str, ...]
    challenge: str | None  # the PKCE code_challenge (S256), where the platform keeps one
    expires_at: float
    params: dict[str, str]  # the authorization request's query (YouTube reads access_type)


class OAuthPlatform(FakePlatform):
    """A fake platform that grants access with the authorization-code flow; a subclass routes its
    own paths to `authorize`, `token` and `revoke`, and sets what differs (see the module)."""

    client_id_param: ClassVar[str] = "client_id"  # TikTok calls it client_key
    client_auth: ClassVar[tuple[str, ...]] = ("form",)  # where the token endpoint reads it: "basic", "form"
    pkce: ClassVar[bool] = False  # the code keeps a code_challenge and the exchange checks its verifier
    code_lifetime: ClassVar[float] = 600.0
    scope_separator: ClassVar[str] = r"\s+"  # a regex
    default_scope: ClassVar[str] = ""  # what an authorization request without `scope` asks for
    rotate_refresh_tokens: ClassVar[bool] = False  # a refresh token works once
    revoke_ends_every_grant: ClassVar[bool] = False  # revoking one token ends all of the user's tokens
    revoke_authenticates: ClassVar[bool] = True  # the revocation endpoint wants the client's credentials
    denial: ClassVar[dict[str, str]] = {"error": "access_denied"}  # where the browser goes when the user says no
    redirect_suffix: ClassVar[str] = ""  # appended to every redirect to the client (Meta's `#_`)
    # The platform's hosts this fake stands for (HERALD_PLATFORM_HOST_OVERRIDES sends them here),
    # and the name of the operator's app in Herald's settings (HERALD_<name>_CLIENT_ID, _SECRET).
    hosts: ClassVar[tuple[str, ...]] = ()
    settings_name: ClassVar[str] = ""

    client_id: str
    client_secret: str

    def __init__(self) -> None:
        self.sign_in_as = ""  # the user the authorization page approves as
        self.deny_next = False  # the next authorization is refused by the user
        self.codes: dict[str, Code] = {}
        self.access_tokens: dict[str, Grant] = {}
        self.refresh_tokens: dict[str, Grant] = {}
        self.grants: list[tuple[str, str]] = []  # (grant type, subject) of every token answered, in order
        self.revoked: list[str] = []  # the tokens revoked at the revocation endpoint
        super().__init__()

    def app_settings(self) -> dict[str, str]:
        """Herald's settings that make this fake's client the operator's app on its platform."""
        if not self.settings_name:
            return {}  # Mastodon: Herald registers its app on each instance
        prefix = f"HERALD_{self.settings_name}_CLIENT"
        return {f"{prefix}_ID": self.client_id, f"{prefix}_SECRET": self.client_secret}

    # --- what each platform answers ------------------------------------------------------------

    def authorization_refused(self, q: dict[str, str], scopes: tuple[str, ...]) -> Answer | None:
        """The platform's own checks of an authorization request, in its order, with its answers
        (a page, or a redirect back with an error); None: the request is good."""
        raise NotImplementedError

    def approved_params(self, code: str, state: str, scopes: tuple[str, ...]) -> dict[str, str]:
        """The query the browser brings back to the redirect URI with a code."""
        return {"code": code, "state": state}

    def token_refused(self, problem: str) -> Answer:
        """The token endpoint's answer to `problem` (CLIENT, CODE, REDIRECT_URI, ...)."""
        raise NotImplementedError

    def token_issued(self, grant_type: str, subject: str, scopes: tuple[str, ...], code: Code | None) -> Answer:
        """The token endpoint's success: issues the tokens (`grant_access`, `grant_refresh`)."""
        raise NotImplementedError

    def refreshes(self) -> bool:
        """Whether the token endpoint takes grant_type=refresh_token."""
        return True

    def revoke_refused(self) -> Answer:
        """The revocation endpoint's answer to a client that did not authenticate."""
        raise NotImplementedError

    def revoked_answer(self, found: bool) -> Answer:
        """The revocation endpoint's answer, whether or not the token was one of this client's."""
        return answer(200, {})

    def revoked_token(self, request: Request) -> str:
        return (request.form or {}).get("token", "")

    def client_secret_of(self, client_id: str) -> str | None:
        """The secret of a client the platform knows (one app, unless the platform registers many)."""
        return self.client_secret if client_id == self.client_id else None

    def new_code(self) -> str:
        return secrets.token_urlsafe(32)

    def new_access_token(self) -> str:
        return secrets.token_urlsafe(64)

    def new_refresh_token(self) -> str:
        return secrets.token_urlsafe(64)

    # --- test controls -------------------------------------------------------------------------

    def grant_access(
        self,
        subject: str,
        scopes: tuple[str, ...] | list[str],
        *,
        lifetime: float = 0.0,
        client_id: str | None = None,
        long_lived: bool = False,
    ) -> str:
        """A new access token of `subject`, as the token endpoint issues them (or for a test that
        skips the sign-in page); `lifetime` 0: it does not expire by time."""
        token = self.new_access_token()
        now = time.time()
        self.access_tokens[token] = Grant(
            subject,
            tuple(scopes),
            now + lifetime if lifetime else 0.0,
            client_id=self._client_id() if client_id is None else client_id,
            long_lived=long_lived,
            issued_at=now,
        )
        return token

    def grant_refresh(self, subject: str, scopes: tuple[str, ...]) -> str:
        token = self.new_refresh_token()
        self.refresh_tokens[token] = Grant(subject, scopes, client_id=self._client_id())
        return token

    def _client_id(self) -> str:
        return getattr(self, "client_id", "")  # Mastodon registers many clients, and has no one id

    @contextmanager
    def signed_in_as(self, subject: str) -> Iterator[None]:
        """The authorization page approves as `subject` for the connections made inside."""
        previous, self.sign_in_as = self.sign_in_as, subject
        try:
            yield
        finally:
            self.sign_in_as = previous

    def expire_access_tokens(self, subject: str) -> None:
        """The user's access tokens end now (the API refuses them; refresh tokens still work)."""
        with self.lock:
            for grant in self.access_tokens.values():
                if grant.subject == subject:
                    grant.expires_at = time.time() - 1

    def revoke_refresh_tokens(self, subject: str) -> None:
        """The user removed the app: their refresh tokens are refused from now on."""
        with self.lock:
            for grant in self.refresh_tokens.values():
                if grant.subject == subject:
                    grant.revoked = True

    def live_refresh_token(self, subject: str) -> str:
        """The user's one refresh token that still works (rotation leaves one)."""
        with self.lock:
            (token,) = [t for t, g in self.refresh_tokens.items() if g.subject == subject and not g.revoked]
            return token

    def issued_tokens(self) -> list[str]:
        """Every access and refresh token this server has issued (to look for leaks)."""
        with self.lock:
            return [*self.access_tokens, *self.refresh_tokens]

    def grant_count(self, grant_type: str, subject: str) -> int:
        with self.lock:
            return sum(1 for g in self.grants if g == (grant_type, subject))

    # --- the endpoints -------------------------------------------------------------------------

    def requested_scopes(self, query: dict[str, str]) -> tuple[str, ...]:
        return tuple(s for s in re.split(self.scope_separator, query.get("scope", self.default_scope)) if s)

    def authorize(self, request: Request, match: re.Match[str]) -> Answer:
        query = request.query
        scopes = self.requested_scopes(query)
        refused = self.authorization_refused(query, scopes)
        if refused is not None:
            return refused
        redirect_uri, state = query["redirect_uri"], query.get("state", "")
        if self.deny_next:
            self.deny_next = False
            return self.back_to_client(redirect_uri, **self.denial, state=state)
        code = self.new_code()
        self.codes[code] = Code(
            subject=self.sign_in_as,
            client_id=query.get(self.client_id_param, ""),
            redirect_uri=redirect_uri,
            scopes=scopes,
            challenge=query.get("code_challenge") if self.pkce else None,
            expires_at=time.time() + self.code_lifetime,
            params=dict(query),
        )
        return self.back_to_client(redirect_uri, **self.approved_params(code, state, scopes))

    def back_to_client(self, redirect_uri: str, **params: str) -> Answer:
        return redirect(with_query(redirect_uri, **params) + self.redirect_suffix)

    def authenticated_client(self, request: Request) -> str | None:
        """The client id whose secret came with the request (HTTP Basic, RFC 6749 2.3.1, or the
        form's client_secret_post, wherever the platform reads it), or None."""
        form = request.form or {}
        sent: tuple[str | None, str | None] | None = None
        if "basic" in self.client_auth:
            sent = request.basic
        if sent is None and "form" in self.client_auth:
            sent = (form.get(self.client_id_param), form.get("client_secret"))
        if sent is None or sent[0] is None or sent[1] is None:
            return None
        client_id, secret = sent
        expected = self.client_secret_of(client_id)
        if expected is None or not hmac.compare_digest(expected.encode(), secret.encode()):
            return None
        return client_id

    def token(self, request: Request, match: re.Match[str]) -> Answer:
        client = self.authenticated_client(request)
        if client is None:
            return self.token_refused(CLIENT)
        form = request.form or {}
        grant_type = form.get("grant_type", "")
        code: Code | None = None
        if grant_type == "authorization_code":
            code = self.codes.pop(form.get("code", ""), None)
            problem = self._code_problem(code, client, form)
            if problem is not None:
                return self.token_refused(problem)
            assert code is not None
            subject, scopes = code.subject, code.scopes
        elif grant_type == "refresh_token" and self.refreshes():
            grant = self.refresh_tokens.get(form.get("refresh_token", ""))
            if grant is None or grant.revoked:
                return self.token_refused(REFRESH_TOKEN)
            if self.rotate_refresh_tokens:
                grant.revoked = True  # each works once
            subject, scopes = grant.subject, grant.scopes
        else:
            return self.token_refused(GRANT_TYPE)
        self.grants.append((grant_type, subject))
        return self.token_issued(grant_type, subject, scopes, code)

    def _code_problem(self, code: Code | None, client: str, form: dict[str, str]) -> str | None:
        if code is None or code.client_id != client or code.expires_at < time.time():
            return CODE
        if code.redirect_uri != form.get("redirect_uri"):
            return REDIRECT_URI
        if code.challenge and pkce_s256(form.get("code_verifier", "")) != code.challenge:
            return CODE
        return None

    def revoke(self, request: Request, match: re.Match[str]) -> Answer:
        client = self.authenticated_client(request) if self.revoke_authenticates else None
        if self.revoke_authenticates and client is None:
            return self.revoke_refused()
        token = self.revoked_token(request)
        grant = self.refresh_tokens.get(token) or self.access_tokens.get(token)
        if grant is None or (client is not None and grant.client_id != client):
            return self.revoked_answer(False)
        self.revoked.append(token)
        ended = [*self.refresh_tokens.values(), *self.access_tokens.values()] if self.revoke_ends_every_grant else []
        for other in ended:
            if other.subject == grant.subject:
                other.revoked = True
        grant.revoked = True
        return self.revoked_answer(True)
