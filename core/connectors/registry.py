"""The connector of each platform key: one stateless instance per platform
(docs/decisions.md, "One connector per platform, sandbox and live")."""

from __future__ import annotations

from core.connectors.base import Connector
from core.connectors.bluesky import BlueskyConnector
from core.connectors.instagram import InstagramConnector
from core.connectors.linkedin import LinkedInConnector
from core.connectors.mastodon import MastodonConnector
from core.connectors.threads import ThreadsConnector
from core.connectors.tiktok import TikTokConnector
from core.connectors.x import XConnector
from core.connectors.youtube import YouTubeConnector

CONNECTORS: dict[str, Connector] = {
    connector.key: connector
    for connector in (
        XConnector(),
        BlueskyConnector(),
        MastodonConnector(),
        ThreadsConnector(),
        InstagramConnector(),
        TikTokConnector(),
        YouTubeConnector(),
        LinkedInConnector(),
    )
}


def connector_for(key: str) -> Connector:
    """The connector for platform `key`; KeyError when no platform has that key."""
    return CONNECTORS[key]
