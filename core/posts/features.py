"""Which destinations can take a thread or a first comment, and the refusals when one cannot.

The capabilities are the connectors' own (core/connectors: `threads`, `first_comment`, and the
OAuth scopes replies and comments need beyond posting). A destination that cannot take a feature
refuses the whole request with UNSUPPORTED_FEATURE (which profiles, which platforms could); a
live profile connected before Herald asked for the permission a feature needs refuses it with
RECONNECT_REQUIRED, naming the permission, rather than failing the post at delivery.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import grpc

from core.connectors.registry import CONNECTORS
from core.errors import DomainError
from core.posts.versions import Version

FEATURES = ("thread", "first_comment")


class UnsupportedFeature(DomainError):
    """Metadata `feature`, `profiles` (comma-separated slugs) and `valid_for` (platform keys)."""

    reason = "UNSUPPORTED_FEATURE"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


class ReconnectRequired(DomainError):
    """Metadata `profile`, `feature` and `scopes` (space-separated, the permissions missing)."""

    reason = "RECONNECT_REQUIRED"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


def supports(connector: str, feature: str) -> bool:
    platform = CONNECTORS[connector]
    return platform.threads if feature == "thread" else platform.first_comment


def valid_for(feature: str) -> list[str]:
    return [key for key in CONNECTORS if supports(key, feature)]


def _uses(version: Version, feature: str) -> bool:
    return bool(version.thread) if feature == "thread" else version.first_comment is not None


def unsupported(targets: Sequence[tuple[str, str, Version]]) -> UnsupportedFeature | None:
    """The first feature some (slug, connector, version) cannot take, as the error to raise."""
    for feature in FEATURES:
        refused = [slug for slug, connector, v in targets if _uses(v, feature) and not supports(connector, feature)]
        if refused:
            platforms = ", ".join(valid_for(feature))
            return UnsupportedFeature(
                f"{', '.join(map(repr, refused))} cannot take a {feature.replace('_', ' ')}; "
                f"only {platforms} can (use customizations to send it to those profiles only)",
                feature=feature,
                profiles=",".join(refused),
                valid_for=",".join(valid_for(feature)),
            )
    return None


def missing_scopes(connector: str, version: Version, granted: str) -> tuple[str, list[str]] | None:
    """Live mode: the feature whose permissions the connection lacks, and those permissions."""
    platform = CONNECTORS[connector]
    if not granted.strip():
        # The platform told nothing of what it granted (Threads' token answer names no scope):
        # nothing to check here; a missing permission fails the delivery as needs_reauth.
        return None
    have = set(granted.split())
    needs: list[tuple[str, tuple[str, ...]]] = []
    if version.thread:
        needs.append(("thread", platform.reply_scopes))
    if version.first_comment is not None:
        needs.append(("first_comment", platform.comment_scopes))
    for feature, scopes in needs:
        lacking = [s for s in scopes if s not in have]
        if lacking:
            return feature, lacking
    return None


def refuse_missing_scopes(targets: Sequence[tuple[str, str, Version]], granted: Mapping[str, str]) -> None:
    for slug, connector, version in targets:
        found = missing_scopes(connector, version, granted.get(slug, ""))
        if found is not None:
            feature, lacking = found
            raise ReconnectRequired(
                f"profile {slug!r} was connected without the permission a {feature.replace('_', ' ')} needs "
                f"({' '.join(lacking)}): connect the account again to grant it",
                profile=slug,
                feature=feature,
                scopes=" ".join(lacking),
            )
