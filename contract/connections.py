"""Connecting platform accounts (docs/live-publishing.md): the platforms and how they connect,
starting a sign-in, a Bluesky app password, disconnecting."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.connections.v1 import connections_pb2
from pydantic import Field

from contract.base import InPath, Request, Response, UtcTimestamp, timestamp
from contract.resources import Connector, Profile

Slug = Annotated[
    str,
    Field(
        default="",
        max_length=64,
        description="The profile to make, or a sandbox profile of this platform to connect; "
        "empty: made from the account's handle.",
    ),
]
DisplayName = Annotated[str, Field(default="", max_length=200, description="A name for a new profile.")]
Tags = Annotated[list[str], Field(default=[], max_length=20, description="Tags for a new profile.")]


class ListPlatformsRequest(Request):
    def to_proto(self) -> connections_pb2.ListPlatformsRequest:
        return connections_pb2.ListPlatformsRequest()


class ConnectablePlatform(Response):
    platform: Connector
    method: Literal["oauth", "instance_oauth", "app_password"] = Field(
        description="oauth: a sign-in page (profiles:connect); instance_oauth: the user names the server, then a "
        "sign-in page (Mastodon); app_password: an app password (profiles:connectBluesky)."
    )
    available: bool = Field(description="Whether accounts can be connected on this deployment now.")


class PlatformList(Response):
    """The platforms and how their accounts connect here."""

    platforms: list[ConnectablePlatform]
    publish_mode: Literal["sandbox", "live"]

    @classmethod
    def from_proto(cls, r: connections_pb2.ListPlatformsResponse) -> dict[str, Any]:
        return dict(
            platforms=[dict(platform=p.platform, method=p.method, available=p.available) for p in r.platforms],
            publish_mode=r.publish_mode,
        )


class StartConnectionRequest(Request):
    """Start connecting an account: send the user to the answered `authorization_url`."""

    platform: Connector
    return_to: str = Field(
        min_length=1,
        max_length=2000,
        description="Where the user's browser goes when the connection ends: a path of this site (`/…`), or a "
        "page of your application when the operator listed its origin (HERALD_CONNECT_RETURN_ORIGINS). It gets "
        "`profile` and `connection=connected`, or `error` with a code, added to its query.",
    )
    instance_url: str = Field(default="", max_length=500, description="Mastodon: the instance, e.g. mastodon.social.")
    slug: Slug
    display_name: DisplayName
    tags: Tags

    def to_proto(self) -> connections_pb2.StartConnectionRequest:
        return connections_pb2.StartConnectionRequest(
            platform=self.platform,
            instance_url=self.instance_url,
            return_to=self.return_to,
            slug=self.slug,
            display_name=self.display_name,
            tags=self.tags,
        )


class ConnectionStart(Response):
    authorization_url: str = Field(description="The platform's sign-in page: send the user there.")
    expires_at: UtcTimestamp = Field(description="The user must be back before then.")

    @classmethod
    def from_proto(cls, r: connections_pb2.StartConnectionResponse) -> dict[str, Any]:
        return dict(authorization_url=r.authorization_url, expires_at=timestamp(r.expire_time))


class ConnectBlueskyRequest(Request):
    """Connect a Bluesky account with an app password (sent once to its PDS, never stored)."""

    identifier: str = Field(min_length=1, max_length=253, description="The handle, DID or email of the account.")
    app_password: str = Field(
        min_length=1, max_length=256, description="An app password made in the account's settings (not its password)."
    )
    pds_url: str = Field(default="", max_length=500, description="The account's PDS; default https://bsky.social.")
    slug: Slug
    display_name: DisplayName
    tags: Tags

    def to_proto(self) -> connections_pb2.ConnectBlueskyRequest:
        return connections_pb2.ConnectBlueskyRequest(
            identifier=self.identifier,
            app_password=self.app_password,
            pds_url=self.pds_url,
            slug=self.slug,
            display_name=self.display_name,
            tags=self.tags,
        )


class DisconnectProfileRequest(Request):
    slug: Annotated[str, InPath(), Field(min_length=1, description="The profile's slug.")]

    def to_proto(self) -> connections_pb2.DisconnectProfileRequest:
        return connections_pb2.DisconnectProfileRequest(slug=self.slug)


class Disconnected(Response):
    profile: Profile
    revoked: bool = Field(description="Whether the platform confirmed revoking Herald's access.")

    @classmethod
    def from_proto(cls, r: connections_pb2.DisconnectProfileResponse) -> dict[str, Any]:
        return dict(profile=Profile.from_proto(r.profile), revoked=r.revoked)
