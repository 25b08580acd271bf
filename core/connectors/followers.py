"""Each platform's followers read live (docs/analytics.md, "Account metrics" and "Each
platform"): one call per account, its answer's count as `{"followers": n}` and the answer itself
as the raw reading. `Connector.account_metrics` (core/connectors/base.py) reads through
`READERS`, by the connector's key, so every connector has the hook without each module carrying
a request of its own.

A count the answer does not carry (YouTube's hidden subscriber count, a scope not granted) is a
refusal, never 0: the read fails with the platform's words and is tried again later."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from core.connectors.base import Account, DeliveryError, ErrorClass, PlatformAPI, PlatformRequest
from core.connectors.common import base_url, dig
from core.connectors.metrics_common import count
from core.connectors.readings import MetricsReading

LINKEDIN_HEADERS = {"LinkedIn-Version": "202607", "X-Restli-Protocol-Version": "2.0.0"}
Reader = Callable[[Account, PlatformAPI], Awaitable[MetricsReading]]


def _reading(platform: str, body: Any, *path: Any) -> MetricsReading:
    number = count(dig(body, *path))
    if number is None:
        raise DeliveryError(ErrorClass.PERMANENT, f"{platform} answered no follower count: {str(body)[:300]}")
    return MetricsReading({"followers": number}, body)


async def x(account: Account, api: PlatformAPI) -> MetricsReading:
    response = await api.send(PlatformRequest("GET", "https://api.x.com/2/users/me?user.fields=public_metrics"))
    return _reading("X", response.body, "data", "public_metrics", "followers_count")


async def bluesky(account: Account, api: PlatformAPI) -> MetricsReading:
    """The public AppView's profile view (no token; a PDS holds no counts)."""
    actor = quote(account.platform_user_id or account.handle, safe="")
    url = f"https://public.api.bsky.app/xrpc/app.bsky.actor.getProfile?actor={actor}"
    response = await api.send(PlatformRequest("GET", url, auth=None))
    return _reading("Bluesky", response.body, "followersCount")


async def mastodon(account: Account, api: PlatformAPI) -> MetricsReading:
    instance = base_url(account.instance_url, "https://mastodon.social")
    response = await api.send(PlatformRequest("GET", f"{instance}/api/v1/accounts/verify_credentials"))
    return _reading("Mastodon", response.body, "followers_count")


async def threads(account: Account, api: PlatformAPI) -> MetricsReading:
    """Needs `threads_manage_insights`; the count is the entry's `total_value`."""
    url = "https://graph.threads.net/v1.0/me/threads_insights?metric=followers_count"
    response = await api.send(PlatformRequest("GET", url))
    entries = [e for e in dig(response.body, "data") or [] if dig(e, "name") == "followers_count"]
    number = count(dig(entries[0], "total_value", "value")) if entries else None
    if number is None:
        raise DeliveryError(ErrorClass.PERMANENT, f"Threads answered no follower count: {str(response.body)[:300]}")
    return MetricsReading({"followers": number}, response.body)


async def instagram(account: Account, api: PlatformAPI) -> MetricsReading:
    response = await api.send(PlatformRequest("GET", "https://graph.instagram.com/v25.0/me?fields=followers_count"))
    return _reading("Instagram", response.body, "followers_count")


async def tiktok(account: Account, api: PlatformAPI) -> MetricsReading:
    """Needs `user.info.stats`."""
    url = "https://open.tiktokapis.com/v2/user/info/?fields=open_id,follower_count"
    response = await api.send(PlatformRequest("GET", url))
    return _reading("TikTok", response.body, "data", "user", "follower_count")


async def youtube(account: Account, api: PlatformAPI) -> MetricsReading:
    """The channel's subscribers (a string, as every count of the Data API); one quota unit."""
    url = "https://www.googleapis.com/youtube/v3/channels?part=statistics&mine=true"
    response = await api.send(PlatformRequest("GET", url))
    if dig(response.body, "items", 0, "statistics", "hiddenSubscriberCount") is True:
        raise DeliveryError(ErrorClass.PERMANENT, "the channel hides its subscriber count")
    return _reading("YouTube", response.body, "items", 0, "statistics", "subscriberCount")


async def linkedin(account: Account, api: PlatformAPI) -> MetricsReading:
    """A page's followers (`networkSizes`, `firstDegreeSize`); a member's through
    `memberFollowersCount`, which needs `r_member_profileAnalytics` (approved partners only)."""
    owner = account.platform_user_id
    if owner.startswith(("urn:li:organization:", "urn:li:organizationBrand:")):
        url = f"https://api.linkedin.com/rest/networkSizes/{quote(owner, safe='')}?edgeType=COMPANY_FOLLOWED_BY_MEMBER"
        response = await api.send(PlatformRequest("GET", url, dict(LINKEDIN_HEADERS)))
        return _reading("LinkedIn", response.body, "firstDegreeSize")
    url = "https://api.linkedin.com/rest/memberFollowersCount?q=me"
    response = await api.send(PlatformRequest("GET", url, dict(LINKEDIN_HEADERS)))
    return _reading("LinkedIn", response.body, "elements", 0, "memberFollowersCount")


READERS: dict[str, Reader] = {
    "x": x,
    "bluesky": bluesky,
    "mastodon": mastodon,
    "threads": threads,
    "instagram": instagram,
    "tiktok": tiktok,
    "youtube": youtube,
    "linkedin": linkedin,
}
