import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EmojiHabit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EMOJI_HABIT_UNSPECIFIED: _ClassVar[EmojiHabit]
    EMOJI_HABIT_NONE: _ClassVar[EmojiHabit]
    EMOJI_HABIT_SPARING: _ClassVar[EmojiHabit]
    EMOJI_HABIT_FREQUENT: _ClassVar[EmojiHabit]

class HashtagHabit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HASHTAG_HABIT_UNSPECIFIED: _ClassVar[HashtagHabit]
    HASHTAG_HABIT_NONE: _ClassVar[HashtagHabit]
    HASHTAG_HABIT_FEW: _ClassVar[HashtagHabit]
    HASHTAG_HABIT_MANY: _ClassVar[HashtagHabit]
EMOJI_HABIT_UNSPECIFIED: EmojiHabit
EMOJI_HABIT_NONE: EmojiHabit
EMOJI_HABIT_SPARING: EmojiHabit
EMOJI_HABIT_FREQUENT: EmojiHabit
HASHTAG_HABIT_UNSPECIFIED: HashtagHabit
HASHTAG_HABIT_NONE: HashtagHabit
HASHTAG_HABIT_FEW: HashtagHabit
HASHTAG_HABIT_MANY: HashtagHabit

class PreferredTerm(_message.Message):
    __slots__ = ("use", "instead_of")
    USE_FIELD_NUMBER: _ClassVar[int]
    INSTEAD_OF_FIELD_NUMBER: _ClassVar[int]
    use: str
    instead_of: str
    def __init__(self, use: _Optional[str] = ..., instead_of: _Optional[str] = ...) -> None: ...

class BrandVoice(_message.Message):
    __slots__ = ("profile", "version", "profile_version", "description", "tone", "audience", "examples", "never_publish", "preferred_terms", "emoji", "hashtags", "signature_hashtags", "update_time", "updated_by")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROFILE_VERSION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TONE_FIELD_NUMBER: _ClassVar[int]
    AUDIENCE_FIELD_NUMBER: _ClassVar[int]
    EXAMPLES_FIELD_NUMBER: _ClassVar[int]
    NEVER_PUBLISH_FIELD_NUMBER: _ClassVar[int]
    PREFERRED_TERMS_FIELD_NUMBER: _ClassVar[int]
    EMOJI_FIELD_NUMBER: _ClassVar[int]
    HASHTAGS_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_HASHTAGS_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATED_BY_FIELD_NUMBER: _ClassVar[int]
    profile: str
    version: int
    profile_version: int
    description: str
    tone: _containers.RepeatedScalarFieldContainer[str]
    audience: str
    examples: _containers.RepeatedScalarFieldContainer[str]
    never_publish: _containers.RepeatedScalarFieldContainer[str]
    preferred_terms: _containers.RepeatedCompositeFieldContainer[PreferredTerm]
    emoji: EmojiHabit
    hashtags: HashtagHabit
    signature_hashtags: _containers.RepeatedScalarFieldContainer[str]
    update_time: _timestamp_pb2.Timestamp
    updated_by: str
    def __init__(self, profile: _Optional[str] = ..., version: _Optional[int] = ..., profile_version: _Optional[int] = ..., description: _Optional[str] = ..., tone: _Optional[_Iterable[str]] = ..., audience: _Optional[str] = ..., examples: _Optional[_Iterable[str]] = ..., never_publish: _Optional[_Iterable[str]] = ..., preferred_terms: _Optional[_Iterable[_Union[PreferredTerm, _Mapping]]] = ..., emoji: _Optional[_Union[EmojiHabit, str]] = ..., hashtags: _Optional[_Union[HashtagHabit, str]] = ..., signature_hashtags: _Optional[_Iterable[str]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_by: _Optional[str] = ...) -> None: ...

class GetBrandVoiceRequest(_message.Message):
    __slots__ = ("profile",)
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    profile: str
    def __init__(self, profile: _Optional[str] = ...) -> None: ...

class UpdateBrandVoiceRequest(_message.Message):
    __slots__ = ("voice", "expected_version")
    VOICE_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    voice: BrandVoice
    expected_version: int
    def __init__(self, voice: _Optional[_Union[BrandVoice, _Mapping]] = ..., expected_version: _Optional[int] = ...) -> None: ...
