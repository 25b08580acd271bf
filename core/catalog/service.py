"""Builds the catalog (herald.catalog.v1.Catalog) from the tables the core enforces: platform
rules, media types and limits, scopes, method policies and field limits. Nothing here is a fact
of its own: each value is read from the module that checks it."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from herald.catalog.v1 import catalog_pb2

from core.credits.service import MAX_RECENT_ENTRIES
from core.credits.servicer import DEFAULT_RECENT_ENTRIES
from core.generate import catalogue as generation
from core.identity.roles import PERMISSIONS, ROLE_DESCRIPTIONS, ROLES
from core.identity.scopes import SCOPES
from core.media.service import ALLOWED_TYPES, HASH_RE, LEGACY_LIMITS, MAX_DESCRIPTION, MAX_FILENAME, PRESIGN_LIMITS
from core.posts.field_checks import MAX_CONTENT_CHARS, MAX_MEDIA, MAX_PROFILES, MAX_THREAD_ITEMS, MAX_TITLE
from core.posts.idempotency import MAX_KEY_LENGTH
from core.posts.records import FAILURE_REASONS
from core.posts.rules import PLATFORM_LIMITS
from core.posts.slot_table import MAX_SLOTS
from core.rpc.policy import MethodPolicy
from core.storage.base import UPLOAD_URL_LIFETIME
from core.tags import TAG_RE
from core.webhooks import service as webhooks

_KINDS = {
    "microblogging": catalog_pb2.PLATFORM_KIND_MICROBLOGGING,
    "photo_sharing": catalog_pb2.PLATFORM_KIND_PHOTO_SHARING,
    "short_video": catalog_pb2.PLATFORM_KIND_SHORT_VIDEO,
    "video": catalog_pb2.PLATFORM_KIND_VIDEO,
    "professional_network": catalog_pb2.PLATFORM_KIND_PROFESSIONAL_NETWORK,
}


def _post_type(name: str, rule: Mapping) -> catalog_pb2.PostType:
    return catalog_pb2.PostType(
        name=name,
        media_required=rule["required"],
        layouts=[
            catalog_pb2.MediaLayout(kinds=layout["kinds"], min_items=layout["min"], max_items=layout["max"])
            for layout in rule["layouts"]
        ],
        aspect_rules=[
            catalog_pb2.AspectRule(
                kind=kind, min_ratio=aspect["min"] or "", max_ratio=aspect["max"] or "", description=aspect["text"]
            )
            for kind, aspect in rule.get("aspect", {}).items()
        ],
    )


def _platform(key: str, p: Mapping) -> catalog_pb2.Platform:
    platform = catalog_pb2.Platform(
        key=key,
        name=p["name"],
        kind=_KINDS[p["kind"]],
        post_types=[_post_type(name, rule) for name, rule in p["media"].items()],
        text=catalog_pb2.TextRule(
            max_length=p["max_length"],
            unit=p["unit"],
            counting=p["counting"],
            requires_text=p["requires_text"],
            max_utf8_bytes=p.get("max_utf8_bytes", 0),
            max_links=p.get("max_links", 0),
            max_hashtags=p.get("max_hashtags", 0),
            max_mentions=p.get("max_mentions", 0),
            forbidden_characters=p.get("forbidden_characters", ""),
        ),
        media_caps=[
            catalog_pb2.MediaCap(
                kind=kind, max_bytes=p["max_bytes"].get(kind, 0), mime_types=p.get("mime_types", {}).get(kind, [])
            )
            for kind in ("image", "gif", "video")
            if kind in p["max_bytes"] or kind in p.get("mime_types", {})
        ],
    )
    if "max_title_length" in p:
        platform.title.CopyFrom(
            catalog_pb2.TitleRule(required=p.get("title_required", False), max_length=p["max_title_length"])
        )
    return platform


@cache
def platform_message(key: str) -> catalog_pb2.Platform:
    """One platform's rules as the catalog serves them (get_destination_limits)."""
    return _platform(key, PLATFORM_LIMITS[key])


def build_catalog(policies: Mapping[str, MethodPolicy]) -> catalog_pb2.Catalog:
    """The catalog of a core serving methods with these policies (keyed by full method name)."""
    return catalog_pb2.Catalog(
        platforms=[platform_message(key) for key in PLATFORM_LIMITS],
        media_types=[
            catalog_pb2.MediaType(
                mime_type=mime_type,
                kind=kind,
                presign_max_bytes=PRESIGN_LIMITS[kind],
                legacy_max_bytes=LEGACY_LIMITS[kind],
            )
            for mime_type, kind in ALLOWED_TYPES.items()
        ],
        scopes=[
            catalog_pb2.Scope(name=name, description=scope.description, advertised=scope.advertised)
            for name, scope in SCOPES.items()
        ],
        methods=[
            catalog_pb2.Method(
                name=name,
                scopes=sorted(policy.scopes),
                page=catalog_pb2.PageBounds(default_size=policy.page.default, max_size=policy.page.maximum)
                if policy.page
                else None,
                permission=policy.permission,
            )
            for name, policy in sorted(policies.items())
        ],
        permissions=[catalog_pb2.Permission(name=name, description=p.description) for name, p in PERMISSIONS.items()],
        roles=[
            catalog_pb2.Role(name=name, description=ROLE_DESCRIPTIONS[name], permissions=sorted(granted))
            for name, granted in ROLES.items()
        ],
        field_limits=catalog_pb2.FieldLimits(
            max_content_chars=MAX_CONTENT_CHARS,
            max_profiles=MAX_PROFILES,
            max_media_ids=MAX_MEDIA,
            max_title_chars=MAX_TITLE,
            max_filename_chars=MAX_FILENAME,
            max_description_chars=MAX_DESCRIPTION,
            upload_url_lifetime_seconds=UPLOAD_URL_LIFETIME,
            tag_pattern=TAG_RE.pattern,
            max_idempotency_key_chars=MAX_KEY_LENGTH,
            content_hash_pattern=HASH_RE.pattern,
            max_recent_ledger_entries=MAX_RECENT_ENTRIES,
            default_recent_ledger_entries=DEFAULT_RECENT_ENTRIES,
            max_brief_chars=generation.MAX_BRIEF,
            max_thread_text_chars=generation.MAX_THREAD_TEXT,
            max_generate_profiles=generation.MAX_PROFILES,
            max_variations=generation.MAX_VARIATIONS,
            max_hashtags=generation.MAX_HASHTAGS,
            max_thread_items=MAX_THREAD_ITEMS,
            max_time_slots=MAX_SLOTS,
            max_webhook_url_chars=webhooks.MAX_URL,
            max_webhook_description_chars=webhooks.MAX_DESCRIPTION,
        ),
        failure_reasons=FAILURE_REASONS,
    )
