"""Each platform Herald signs in to (docs/platforms.md, "Connecting" in each platform's section):
endpoints, scopes, how the client authenticates, Meta's long-lived token exchange, TikTok's
`client_key`, Mastodon's app registered per instance, and the call that says whose account the
token is. The OAuth work itself is `OAuthPlatform`'s (core/platform_accounts/oauth.py).
"""

from __future__ import annotations

from typing import Any, ClassVar

import httpx2
from authlib.common.urls import add_params_to_qs, add_params_to_uri
from authlib.integrations.httpx_client import AsyncOAuth2Client
from authlib.oauth2.auth import ClientAuth

from core.connectors.common import dig
from core.connectors.transport import PlatformEndpoints
from core.platform_accounts.oauth import (
    AccountIdentity,
    OAuthApp,
    OAuthPlatform,
    PlatformAuthError,
    TokenSet,
    account_identity,
    token_set,
)
from core.platform_accounts.vault import Secret
from core.settings import CoreSettings


class XAuth(OAuthPlatform):
    key = "x"
    authorize_url = "https://x.com/i/oauth2/authorize"
    token_url = "https://api.x.com/2/oauth2/token"
    revoke_url = "https://api.x.com/2/oauth2/revoke"
    scopes = ("tweet.read", "tweet.write", "users.read", "media.write", "offline.access")  # replies: tweet.write
    token_auth = "client_secret_basic"

    async def identity(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> AccountIdentity:
        body = await self._get_json(
            endpoints, "https://api.x.com/2/users/me?user.fields=profile_image_url", tokens.access_token
        )
        user = body.get("data") or {}
        return account_identity(
            self.key, user.get("id"), user.get("username"), user.get("name"), user.get("profile_image_url")
        )


class YouTubeAuth(OAuthPlatform):
    key = "youtube"
    authorize_url = "https://accounts.google.com/o/oauth2/v2/auth"
    token_url = "https://oauth2.googleapis.com/token"
    revoke_url = "https://oauth2.googleapis.com/revoke"
    # youtube.force-ssl: first comments (commentThreads.insert); upload and readonly stay for the video;
    # yt-analytics.readonly: its watch time and shares (YouTube Analytics; docs/analytics.md).
    scopes = (
        "https://www.googleapis.com/auth/youtube.upload",
        "https://www.googleapis.com/auth/youtube.readonly",
        "https://www.googleapis.com/auth/youtube.force-ssl",
        "https://www.googleapis.com/auth/yt-analytics.readonly",
    )
    # offline access and a consent prompt: Google issues the refresh token only then.
    authorize_params = {"access_type": "offline", "prompt": "consent", "include_granted_scopes": "true"}

    async def identity(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> AccountIdentity:
        body = await self._get_json(
            endpoints, "https://www.googleapis.com/youtube/v3/channels?part=snippet&mine=true", tokens.access_token
        )
        channel = dig(body, "items", 0) or {}
        snippet = channel.get("snippet") or {}
        handle = snippet.get("customUrl") or snippet.get("title")
        avatar = dig(snippet, "thumbnails", "default", "url")
        return account_identity(self.key, channel.get("id"), handle, snippet.get("title"), avatar)


class LinkedInAuth(OAuthPlatform):
    key = "linkedin"
    authorize_url = "https://www.linkedin.com/oauth/v2/authorization"
    token_url = "https://www.linkedin.com/oauth/v2/accessToken"
    revoke_url = "https://www.linkedin.com/oauth/v2/revoke"
    scopes = ("openid", "profile", "w_member_social")  # w_member_social covers first comments too
    pkce = False  # LinkedIn's PKCE is for native apps only; a web app authenticates with its secret

    async def identity(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> AccountIdentity:
        body = await self._get_json(endpoints, "https://api.linkedin.com/v2/userinfo", tokens.access_token)
        return account_identity(self.key, body.get("sub"), body.get("name"), body.get("name"), body.get("picture"))


class TikTokAuth(OAuthPlatform):
    """TikTok names the client id `client_key`, separates scopes with commas, and answers its
    token endpoint in its own envelope on errors."""

    key = "tiktok"
    authorize_url = "https://www.tiktok.com/v2/auth/authorize/"
    token_url = "https://open.tiktokapis.com/v2/oauth/token/"
    revoke_url = "https://open.tiktokapis.com/v2/oauth/revoke/"
    creator_info_url = "https://open.tiktokapis.com/v2/post/publish/creator_info/query/"
    # video.list: its videos' metrics; user.info.stats: its followers (docs/analytics.md)
    scopes = ("user.info.basic", "video.publish", "video.list", "user.info.stats")
    scope_separator = ","
    pkce = False  # TikTok asks PKCE of desktop and mobile apps; a web app uses its secret
    token_auth = "client_key_post"  # client_key and client_secret in the body (`_client`)

    def authorization_url(self, app: OAuthApp, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        params = {
            "client_key": app.client_id,
            "response_type": "code",
            "scope": ",".join(self.scopes),
            "redirect_uri": redirect_uri,
            "state": state,
        }
        return add_params_to_uri(self.authorize_url, list(params.items()))

    def _client(self, endpoints: PlatformEndpoints, app: OAuthApp, redirect_uri: str = "") -> AsyncOAuth2Client:
        # The client credentials go in the body as client_key and client_secret (token, refresh
        # and revoke alike). authlib adds them when the request is sent, after its compliance
        # hooks ran, so the renaming is a client authentication method of its own.
        client = super()._client(endpoints, app, redirect_uri)
        client.register_client_auth_method((self.token_auth, _client_key_post))
        return client

    async def identity(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> AccountIdentity:
        # user.info.basic covers these fields only: `username` needs user.info.profile, and asking
        # for it without that scope is refused whole (401 scope_not_authorized). The username
        # (the @handle of the account's post URLs) comes from creator_info (video.publish).
        fields = "open_id,union_id,avatar_url,display_name"
        body = await self._get_json(
            endpoints, f"https://open.tiktokapis.com/v2/user/info/?fields={fields}", tokens.access_token
        )
        user = dig(body, "data", "user") or {}
        open_id = user.get("open_id") or tokens.extra.get("open_id")
        username = await self._creator_username(endpoints, tokens.access_token)
        return account_identity(
            self.key,
            open_id,
            username or user.get("display_name"),
            user.get("display_name"),
            user.get("avatar_url"),
        )

    async def _creator_username(self, endpoints: PlatformEndpoints, token: Secret) -> str | None:
        headers = {"Authorization": f"Bearer {token.value}", "Content-Type": "application/json; charset=UTF-8"}
        async with endpoints.client(timeout=30.0) as client:
            try:
                response = await client.post(self.creator_info_url, headers=headers, content=b"{}")
            except httpx2.HTTPError as error:
                raise PlatformAuthError(f"{self.key} did not answer: {type(error).__name__}", refused=False) from None
        try:
            body = response.json()
        except ValueError:
            body = None
        username = dig(body, "data", "creator_username")
        return username if response.status_code == 200 and isinstance(username, str) and username else None


def _client_key_post(client: ClientAuth, method: str, uri: str, headers: Any, body: Any) -> tuple[str, Any, Any]:
    body = add_params_to_qs(
        body or "", [("client_key", client.client_id), ("client_secret", client.client_secret or "")]
    )
    return uri, headers, body


class MetaAuth(OAuthPlatform):
    """Threads and Instagram (Instagram Login): the code gives a short-lived token (1 h), which
    is exchanged at once for a long-lived one (60 days); refreshing exchanges the long-lived
    token itself for a new one (it must be at least a day old and not yet expired)."""

    pkce = False
    scope_separator = ","
    refreshes_with_access_token = True
    graph: ClassVar[str]
    exchange_grant: ClassVar[str]
    refresh_grant: ClassVar[str]

    async def exchange(
        self, endpoints: PlatformEndpoints, app: OAuthApp, *, code: str, redirect_uri: str, code_verifier: str
    ) -> TokenSet:
        short = await super().exchange(
            endpoints, app, code=code, redirect_uri=redirect_uri, code_verifier=code_verifier
        )
        query = {
            "grant_type": self.exchange_grant,
            "client_secret": app.client_secret.value,
            "access_token": short.access_token.value,
        }
        long_lived = await self._get_json(
            endpoints, add_params_to_uri(f"{self.graph}/access_token", list(query.items()))
        )
        tokens = token_set(long_lived)
        scopes = short.scopes or self._granted(short.extra.get("permissions"))
        return TokenSet(tokens.access_token, None, tokens.expires_at, scopes, {**short.extra, **tokens.extra})

    @staticmethod
    def _granted(permissions: object) -> tuple[str, ...]:
        """Instagram's code answer names the permissions granted (its login page lets the user
        untick some) as a list, or a comma-separated string; Meta sends no `scope`."""
        if isinstance(permissions, str):
            permissions = permissions.split(",")
        if not isinstance(permissions, list):
            return ()
        return tuple(sorted({p.strip() for p in permissions if isinstance(p, str) and p.strip()}))

    async def refresh(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> TokenSet:
        query = {"grant_type": self.refresh_grant, "access_token": tokens.access_token.value}
        body = await self._get_json(
            endpoints, add_params_to_uri(f"{self.graph}/refresh_access_token", list(query.items()))
        )
        fresh = token_set(body)
        return TokenSet(fresh.access_token, None, fresh.expires_at, tokens.scopes, fresh.extra)


class ThreadsAuth(MetaAuth):
    key = "threads"
    authorize_url = "https://threads.net/oauth/authorize"
    token_url = "https://graph.threads.net/oauth/access_token"
    # replies: threads, comments; insights: its posts' metrics (docs/analytics.md)
    scopes = ("threads_basic", "threads_content_publish", "threads_manage_replies", "threads_manage_insights")
    graph = "https://graph.threads.net"
    exchange_grant = "th_exchange_token"
    refresh_grant = "th_refresh_token"

    async def identity(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> AccountIdentity:
        body = await self._get_json(
            endpoints, f"{self.graph}/v1.0/me?fields=id,username,name,threads_profile_picture_url", tokens.access_token
        )
        return account_identity(
            self.key, body.get("id"), body.get("username"), body.get("name"), body.get("threads_profile_picture_url")
        )


class InstagramAuth(MetaAuth):
    key = "instagram"
    authorize_url = "https://www.instagram.com/oauth/authorize"
    token_url = "https://api.instagram.com/oauth/access_token"
    # manage_comments: first comments (POST /{ig-media-id}/comments) and reading them back;
    # manage_insights: its media's metrics (docs/analytics.md).
    scopes = (
        "instagram_business_basic",
        "instagram_business_content_publish",
        "instagram_business_manage_comments",
        "instagram_business_manage_insights",
    )
    graph = "https://graph.instagram.com"
    exchange_grant = "ig_exchange_token"
    refresh_grant = "ig_refresh_token"

    async def identity(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> AccountIdentity:
        body = await self._get_json(
            endpoints, f"{self.graph}/v25.0/me?fields=user_id,username,name,profile_picture_url", tokens.access_token
        )
        account = body.get("user_id") or body.get("id") or tokens.extra.get("user_id")
        return account_identity(
            self.key, account, body.get("username"), body.get("name"), body.get("profile_picture_url")
        )


class MastodonAuth(OAuthPlatform):
    """Per instance: Herald registers itself as an app on the instance the user names (once,
    then reused: core/platform_accounts/service.py), then runs OAuth against that instance. Mastodon
    tokens do not expire and there is no refresh token."""

    key = "mastodon"
    authorize_url = "/oauth/authorize"
    token_url = "/oauth/token"
    revoke_url = "/oauth/revoke"
    # replies: write:statuses; read:statuses: its posts' metrics (docs/analytics.md)
    scopes = ("read:accounts", "write:statuses", "write:media", "read:statuses")

    def app(self, settings: CoreSettings) -> OAuthApp | None:
        return None  # one per instance, registered on demand

    def _authorize_url(self, app: OAuthApp) -> str:
        return app.instance_url + self.authorize_url

    def _token_url(self, app: OAuthApp) -> str:
        return app.instance_url + self.token_url

    def _revoke_url(self, app: OAuthApp) -> str:
        return app.instance_url + (self.revoke_url or "")

    async def register(
        self, endpoints: PlatformEndpoints, instance_url: str, *, name: str, redirect_uri: str, website: str
    ) -> OAuthApp:
        """POST /api/v1/apps on the instance: Herald's client id and secret there."""
        form = {"client_name": name, "redirect_uris": redirect_uri, "scopes": " ".join(self.scopes), "website": website}
        async with endpoints.client(timeout=30.0) as client:
            try:
                response = await client.post(f"{instance_url}/api/v1/apps", data=form)
            except httpx2.HTTPError as error:
                raise PlatformAuthError(
                    f"{instance_url} did not answer: {type(error).__name__}", refused=False
                ) from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if (
            response.status_code >= 400
            or not isinstance(body, dict)
            or not body.get("client_id")
            or not body.get("client_secret")
        ):
            raise PlatformAuthError(
                f"{instance_url} refused the app registration ({response.status_code})",
                refused=response.status_code < 500,
            )
        return OAuthApp(str(body["client_id"]), Secret(str(body["client_secret"])), instance_url)

    async def refresh(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> TokenSet:
        raise PlatformAuthError("Mastodon tokens do not expire; a refused token was revoked", refused=True)

    async def identity(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> AccountIdentity:
        body = await self._get_json(
            endpoints, f"{app.instance_url}/api/v1/accounts/verify_credentials", tokens.access_token
        )
        return account_identity(
            self.key, body.get("id"), body.get("username"), body.get("display_name"), body.get("avatar")
        )


OAUTH_PLATFORMS: dict[str, OAuthPlatform] = {
    p.key: p
    for p in (XAuth(), MastodonAuth(), ThreadsAuth(), InstagramAuth(), TikTokAuth(), YouTubeAuth(), LinkedInAuth())
}


def renews_itself(connector: str, has_refresh_token: bool) -> bool:
    """Whether Herald renews a connected account's access token without its owner: with the
    refresh token the platform gave (Bluesky's session token too) or, on Meta's platforms, with
    the access token itself (core/platform_accounts/token_refresh.py). Mastodon's tokens do not
    expire and are never refreshed."""
    if connector == "bluesky":
        return has_refresh_token
    platform = OAUTH_PLATFORMS.get(connector)
    if platform is None or isinstance(platform, MastodonAuth):
        return False
    return platform.refreshes_with_access_token or has_refresh_token
