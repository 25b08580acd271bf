"""A profile record as the core's proto message: what every method answers and what the
profiles' webhook events render."""

from __future__ import annotations

from herald.profiles.v1 import profiles_pb2

from core.profiles.service import Profile
from core.rpc.convert import timestamp


def profile_message(profile: Profile) -> profiles_pb2.Profile:
    c = profile.connection
    connection = profiles_pb2.ProfileConnection(
        status=c.status,
        platform_account_id=c.platform_account_id,
        handle=c.handle,
        avatar_url=c.avatar_url,
        instance_url=c.instance_url,
        scopes=list(c.scopes),
        error=c.error,
        token_renewable=c.token_renewable,
        metrics_error=c.metrics_error,
        metrics_unavailable=list(c.metrics_unavailable),
    )
    if c.token_expires_at is not None:
        connection.token_expire_time.CopyFrom(timestamp(c.token_expires_at))
    if c.connected_at is not None:
        connection.connect_time.CopyFrom(timestamp(c.connected_at))
    return profiles_pb2.Profile(
        id=profile.id,
        slug=profile.slug,
        connector=profile.connector,
        display_name=profile.display_name,
        tags=list(profile.tags),
        create_time=timestamp(profile.created_at),
        connection=connection,
        default_language=profile.default_language or "",
    )
