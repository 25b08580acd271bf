"""LinkedIn's post metrics (docs/analytics.md, "Each platform"): a page's posts, through
`GET /rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=<the
page's URN>` with the posts' URNs as `shares=List(...)` and `ugcPosts=List(...)` (20 a call, our
bound: LinkedIn publishes none), Rest.li 2.0 encoded, with the LinkedIn-Version the connector
sends. Each element's `totalShareStatistics`: `impressionCount` → impressions,
`uniqueImpressionsCount` → reach, `clickCount` → link_clicks, `likeCount` → likes,
`commentCount` → replies, `shareCount` → reposts. A post the answer leaves out is gone. The
statistics cover a rolling 12 months. Reading needs `rw_organization_admin` (an administrator of
the page): a 403 makes the profile's metrics unavailable.

A member's own posts (a profile connected as a person) are LinkedIn's Member Post Analytics,
which needs `r_member_postAnalytics`, a scope LinkedIn grants to approved partners of its
Community Management API and Herald does not ask for: such a profile's metrics are unavailable,
said so, without a call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from core.connectors.base import PlatformAPI, PlatformRequest
from core.connectors.common import dig
from core.connectors.metrics_common import mapped
from core.connectors.readings import MetricsItem, MetricsReading, MetricsUnavailable, gone

STATISTICS = "https://api.linkedin.com/rest/organizationalEntityShareStatistics"
ORGANIZATION = ("urn:li:organization:", "urn:li:organizationBrand:")
FIELDS = {
    "impressionCount": "impressions",
    "uniqueImpressionsCount": "reach",
    "clickCount": "link_clicks",
    "likeCount": "likes",
    "commentCount": "replies",
    "shareCount": "reposts",
}
MEMBER_UNAVAILABLE = (
    "LinkedIn gives a member's post statistics only to apps approved for r_member_postAnalytics; "
    "a page's posts are read (connect the page as its organization)"
)


async def read(items: Sequence[MetricsItem], api: PlatformAPI, headers: dict[str, str]) -> list[MetricsReading]:
    owner = items[0].account.platform_user_id
    if not owner.startswith(ORGANIZATION):
        raise MetricsUnavailable(MEMBER_UNAVAILABLE)
    urns = list(dict.fromkeys(item.platform_post_id for item in items))
    shares = [u for u in urns if u.startswith("urn:li:share:")]
    ugc = [u for u in urns if not u.startswith("urn:li:share:")]
    query = f"q=organizationalEntity&organizationalEntity={_encoded(owner)}"
    if shares:
        query += f"&shares=List({','.join(_encoded(u) for u in shares)})"
    if ugc:
        query += f"&ugcPosts=List({','.join(_encoded(u) for u in ugc)})"
    response = await api.send(PlatformRequest("GET", f"{STATISTICS}?{query}", dict(headers)), expect=(200, 403))
    if response.status == 403:
        message = str(dig(response.body, "message") or response.body)[:300]
        raise MetricsUnavailable(f"403 from LinkedIn share statistics: {message}")
    found: dict[str, Any] = {}
    for element in dig(response.body, "elements") or []:
        urn = dig(element, "share") or dig(element, "ugcPost")
        if isinstance(urn, str):
            found[urn] = element
    return [
        MetricsReading(
            mapped(dig(found[i.platform_post_id], "totalShareStatistics"), FIELDS), found[i.platform_post_id]
        )
        if i.platform_post_id in found
        else gone()
        for i in items
    ]


def _encoded(urn: str) -> str:
    """A URN inside a Rest.li 2.0 query: its reserved characters percent-encoded."""
    return quote(urn, safe="")
