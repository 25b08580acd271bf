from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PlatformKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLATFORM_KIND_UNSPECIFIED: _ClassVar[PlatformKind]
    PLATFORM_KIND_MICROBLOGGING: _ClassVar[PlatformKind]
    PLATFORM_KIND_PHOTO_SHARING: _ClassVar[PlatformKind]
    PLATFORM_KIND_SHORT_VIDEO: _ClassVar[PlatformKind]
    PLATFORM_KIND_VIDEO: _ClassVar[PlatformKind]
    PLATFORM_KIND_PROFESSIONAL_NETWORK: _ClassVar[PlatformKind]
PLATFORM_KIND_UNSPECIFIED: PlatformKind
PLATFORM_KIND_MICROBLOGGING: PlatformKind
PLATFORM_KIND_PHOTO_SHARING: PlatformKind
PLATFORM_KIND_SHORT_VIDEO: PlatformKind
PLATFORM_KIND_VIDEO: PlatformKind
PLATFORM_KIND_PROFESSIONAL_NETWORK: PlatformKind

class GetCatalogRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Catalog(_message.Message):
    __slots__ = ("platforms", "media_types", "scopes", "methods", "field_limits", "failure_reasons", "permissions", "roles")
    PLATFORMS_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPES_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    METHODS_FIELD_NUMBER: _ClassVar[int]
    FIELD_LIMITS_FIELD_NUMBER: _ClassVar[int]
    FAILURE_REASONS_FIELD_NUMBER: _ClassVar[int]
    PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    platforms: _containers.RepeatedCompositeFieldContainer[Platform]
    media_types: _containers.RepeatedCompositeFieldContainer[MediaType]
    scopes: _containers.RepeatedCompositeFieldContainer[Scope]
    methods: _containers.RepeatedCompositeFieldContainer[Method]
    field_limits: FieldLimits
    failure_reasons: _containers.RepeatedScalarFieldContainer[str]
    permissions: _containers.RepeatedCompositeFieldContainer[Permission]
    roles: _containers.RepeatedCompositeFieldContainer[Role]
    def __init__(self, platforms: _Optional[_Iterable[_Union[Platform, _Mapping]]] = ..., media_types: _Optional[_Iterable[_Union[MediaType, _Mapping]]] = ..., scopes: _Optional[_Iterable[_Union[Scope, _Mapping]]] = ..., methods: _Optional[_Iterable[_Union[Method, _Mapping]]] = ..., field_limits: _Optional[_Union[FieldLimits, _Mapping]] = ..., failure_reasons: _Optional[_Iterable[str]] = ..., permissions: _Optional[_Iterable[_Union[Permission, _Mapping]]] = ..., roles: _Optional[_Iterable[_Union[Role, _Mapping]]] = ...) -> None: ...

class Permission(_message.Message):
    __slots__ = ("name", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class Role(_message.Message):
    __slots__ = ("name", "description", "permissions")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    permissions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., permissions: _Optional[_Iterable[str]] = ...) -> None: ...

class Platform(_message.Message):
    __slots__ = ("key", "name", "kind", "post_types", "text", "title", "media_caps")
    KEY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    POST_TYPES_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    MEDIA_CAPS_FIELD_NUMBER: _ClassVar[int]
    key: str
    name: str
    kind: PlatformKind
    post_types: _containers.RepeatedCompositeFieldContainer[PostType]
    text: TextRule
    title: TitleRule
    media_caps: _containers.RepeatedCompositeFieldContainer[MediaCap]
    def __init__(self, key: _Optional[str] = ..., name: _Optional[str] = ..., kind: _Optional[_Union[PlatformKind, str]] = ..., post_types: _Optional[_Iterable[_Union[PostType, _Mapping]]] = ..., text: _Optional[_Union[TextRule, _Mapping]] = ..., title: _Optional[_Union[TitleRule, _Mapping]] = ..., media_caps: _Optional[_Iterable[_Union[MediaCap, _Mapping]]] = ...) -> None: ...

class TextRule(_message.Message):
    __slots__ = ("max_length", "unit", "counting", "requires_text", "max_utf8_bytes", "max_links", "max_hashtags", "max_mentions", "forbidden_characters")
    MAX_LENGTH_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    COUNTING_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_TEXT_FIELD_NUMBER: _ClassVar[int]
    MAX_UTF8_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_LINKS_FIELD_NUMBER: _ClassVar[int]
    MAX_HASHTAGS_FIELD_NUMBER: _ClassVar[int]
    MAX_MENTIONS_FIELD_NUMBER: _ClassVar[int]
    FORBIDDEN_CHARACTERS_FIELD_NUMBER: _ClassVar[int]
    max_length: int
    unit: str
    counting: str
    requires_text: bool
    max_utf8_bytes: int
    max_links: int
    max_hashtags: int
    max_mentions: int
    forbidden_characters: str
    def __init__(self, max_length: _Optional[int] = ..., unit: _Optional[str] = ..., counting: _Optional[str] = ..., requires_text: _Optional[bool] = ..., max_utf8_bytes: _Optional[int] = ..., max_links: _Optional[int] = ..., max_hashtags: _Optional[int] = ..., max_mentions: _Optional[int] = ..., forbidden_characters: _Optional[str] = ...) -> None: ...

class TitleRule(_message.Message):
    __slots__ = ("required", "max_length")
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    MAX_LENGTH_FIELD_NUMBER: _ClassVar[int]
    required: bool
    max_length: int
    def __init__(self, required: _Optional[bool] = ..., max_length: _Optional[int] = ...) -> None: ...

class PostType(_message.Message):
    __slots__ = ("name", "media_required", "layouts", "aspect_rules")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MEDIA_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    LAYOUTS_FIELD_NUMBER: _ClassVar[int]
    ASPECT_RULES_FIELD_NUMBER: _ClassVar[int]
    name: str
    media_required: bool
    layouts: _containers.RepeatedCompositeFieldContainer[MediaLayout]
    aspect_rules: _containers.RepeatedCompositeFieldContainer[AspectRule]
    def __init__(self, name: _Optional[str] = ..., media_required: _Optional[bool] = ..., layouts: _Optional[_Iterable[_Union[MediaLayout, _Mapping]]] = ..., aspect_rules: _Optional[_Iterable[_Union[AspectRule, _Mapping]]] = ...) -> None: ...

class MediaLayout(_message.Message):
    __slots__ = ("kinds", "min_items", "max_items")
    KINDS_FIELD_NUMBER: _ClassVar[int]
    MIN_ITEMS_FIELD_NUMBER: _ClassVar[int]
    MAX_ITEMS_FIELD_NUMBER: _ClassVar[int]
    kinds: _containers.RepeatedScalarFieldContainer[str]
    min_items: int
    max_items: int
    def __init__(self, kinds: _Optional[_Iterable[str]] = ..., min_items: _Optional[int] = ..., max_items: _Optional[int] = ...) -> None: ...

class AspectRule(_message.Message):
    __slots__ = ("kind", "min_ratio", "max_ratio", "description")
    KIND_FIELD_NUMBER: _ClassVar[int]
    MIN_RATIO_FIELD_NUMBER: _ClassVar[int]
    MAX_RATIO_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    kind: str
    min_ratio: str
    max_ratio: str
    description: str
    def __init__(self, kind: _Optional[str] = ..., min_ratio: _Optional[str] = ..., max_ratio: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class MediaCap(_message.Message):
    __slots__ = ("kind", "max_bytes", "mime_types")
    KIND_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPES_FIELD_NUMBER: _ClassVar[int]
    kind: str
    max_bytes: int
    mime_types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, kind: _Optional[str] = ..., max_bytes: _Optional[int] = ..., mime_types: _Optional[_Iterable[str]] = ...) -> None: ...

class MediaType(_message.Message):
    __slots__ = ("mime_type", "kind", "presign_max_bytes", "legacy_max_bytes")
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PRESIGN_MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    LEGACY_MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    mime_type: str
    kind: str
    presign_max_bytes: int
    legacy_max_bytes: int
    def __init__(self, mime_type: _Optional[str] = ..., kind: _Optional[str] = ..., presign_max_bytes: _Optional[int] = ..., legacy_max_bytes: _Optional[int] = ...) -> None: ...

class Scope(_message.Message):
    __slots__ = ("name", "description", "advertised")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ADVERTISED_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    advertised: bool
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., advertised: _Optional[bool] = ...) -> None: ...

class Method(_message.Message):
    __slots__ = ("name", "scopes", "page", "permission")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    scopes: _containers.RepeatedScalarFieldContainer[str]
    page: PageBounds
    permission: str
    def __init__(self, name: _Optional[str] = ..., scopes: _Optional[_Iterable[str]] = ..., page: _Optional[_Union[PageBounds, _Mapping]] = ..., permission: _Optional[str] = ...) -> None: ...

class PageBounds(_message.Message):
    __slots__ = ("default_size", "max_size")
    DEFAULT_SIZE_FIELD_NUMBER: _ClassVar[int]
    MAX_SIZE_FIELD_NUMBER: _ClassVar[int]
    default_size: int
    max_size: int
    def __init__(self, default_size: _Optional[int] = ..., max_size: _Optional[int] = ...) -> None: ...

class FieldLimits(_message.Message):
    __slots__ = ("max_content_chars", "max_profiles", "max_media_ids", "max_title_chars", "max_filename_chars", "max_description_chars", "upload_url_lifetime_seconds", "tag_pattern", "max_idempotency_key_chars", "content_hash_pattern", "max_recent_ledger_entries", "default_recent_ledger_entries", "max_brief_chars", "max_thread_text_chars", "max_generate_profiles", "max_variations", "max_hashtags", "max_thread_items", "max_time_slots", "max_webhook_url_chars", "max_webhook_description_chars")
    MAX_CONTENT_CHARS_FIELD_NUMBER: _ClassVar[int]
    MAX_PROFILES_FIELD_NUMBER: _ClassVar[int]
    MAX_MEDIA_IDS_FIELD_NUMBER: _ClassVar[int]
    MAX_TITLE_CHARS_FIELD_NUMBER: _ClassVar[int]
    MAX_FILENAME_CHARS_FIELD_NUMBER: _ClassVar[int]
    MAX_DESCRIPTION_CHARS_FIELD_NUMBER: _ClassVar[int]
    UPLOAD_URL_LIFETIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TAG_PATTERN_FIELD_NUMBER: _ClassVar[int]
    MAX_IDEMPOTENCY_KEY_CHARS_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_PATTERN_FIELD_NUMBER: _ClassVar[int]
    MAX_RECENT_LEDGER_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_RECENT_LEDGER_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    MAX_BRIEF_CHARS_FIELD_NUMBER: _ClassVar[int]
    MAX_THREAD_TEXT_CHARS_FIELD_NUMBER: _ClassVar[int]
    MAX_GENERATE_PROFILES_FIELD_NUMBER: _ClassVar[int]
    MAX_VARIATIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_HASHTAGS_FIELD_NUMBER: _ClassVar[int]
    MAX_THREAD_ITEMS_FIELD_NUMBER: _ClassVar[int]
    MAX_TIME_SLOTS_FIELD_NUMBER: _ClassVar[int]
    MAX_WEBHOOK_URL_CHARS_FIELD_NUMBER: _ClassVar[int]
    MAX_WEBHOOK_DESCRIPTION_CHARS_FIELD_NUMBER: _ClassVar[int]
    max_content_chars: int
    max_profiles: int
    max_media_ids: int
    max_title_chars: int
    max_filename_chars: int
    max_description_chars: int
    upload_url_lifetime_seconds: int
    tag_pattern: str
    max_idempotency_key_chars: int
    content_hash_pattern: str
    max_recent_ledger_entries: int
    default_recent_ledger_entries: int
    max_brief_chars: int
    max_thread_text_chars: int
    max_generate_profiles: int
    max_variations: int
    max_hashtags: int
    max_thread_items: int
    max_time_slots: int
    max_webhook_url_chars: int
    max_webhook_description_chars: int
    def __init__(self, max_content_chars: _Optional[int] = ..., max_profiles: _Optional[int] = ..., max_media_ids: _Optional[int] = ..., max_title_chars: _Optional[int] = ..., max_filename_chars: _Optional[int] = ..., max_description_chars: _Optional[int] = ..., upload_url_lifetime_seconds: _Optional[int] = ..., tag_pattern: _Optional[str] = ..., max_idempotency_key_chars: _Optional[int] = ..., content_hash_pattern: _Optional[str] = ..., max_recent_ledger_entries: _Optional[int] = ..., default_recent_ledger_entries: _Optional[int] = ..., max_brief_chars: _Optional[int] = ..., max_thread_text_chars: _Optional[int] = ..., max_generate_profiles: _Optional[int] = ..., max_variations: _Optional[int] = ..., max_hashtags: _Optional[int] = ..., max_thread_items: _Optional[int] = ..., max_time_slots: _Optional[int] = ..., max_webhook_url_chars: _Optional[int] = ..., max_webhook_description_chars: _Optional[int] = ...) -> None: ...
