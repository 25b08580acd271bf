"""A post's language (BCP 47, RFC 5646) and the notices that say which request fields a
destination does not use (issue 30): pure functions, no database (docs/posts.md "Languages and
TikTok settings", "Notices")."""

from __future__ import annotations

import pytest

from core.connectors.base import TikTokOptions
from core.connectors.registry import CONNECTORS
from core.posts.language import language_problem, normalized_language, primary_language
from core.posts.notices import notices_for
from core.posts.rules import MediaInfo
from core.posts.versions import Version, tiktok_from_json, tiktok_json

pytestmark = pytest.mark.one_backend


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("en", "en"),
        ("EN", "en"),
        ("pt-br", "pt-BR"),
        ("PT-br", "pt-BR"),
        ("zh-hant-tw", "zh-Hant-TW"),
        ("SR-LATN-rs", "sr-Latn-RS"),
        ("es-419", "es-419"),  # a UN M.49 region
        ("de-CH-1996", "de-CH-1996"),  # a variant
        ("zh-yue-HK", "zh-yue-HK"),  # an extended language subtag
        ("en-US-u-ca-gregory", "en-US-u-ca-gregory"),  # an extension
        ("en-US-X-Twain", "en-US-x-twain"),  # private use, lowercase like the rest
        ("x-whatever", "x-whatever"),  # a private-use tag alone
        ("fil", "fil"),
        ("Tlhingan", "tlhingan"),  # 5-8 letters: the grammar's registered-language shape
    ],
)
def test_a_well_formed_tag_is_kept_in_its_conventional_case(sent: str, stored: str) -> None:
    assert normalized_language(sent) == stored
    assert language_problem("language", sent) is None


@pytest.mark.parametrize(
    "sent",
    [
        "",
        "e",  # one letter
        "en_US",  # an underscore is a POSIX locale, not a tag
        "en--US",
        "en-",
        "-en",
        "en-US-",
        "123",
        "en-a",  # an extension singleton with nothing after it
        "de-1996-1996",  # a variant twice
        "en-a-bbb-a-ccc",  # an extension singleton twice
        "i-klingon",  # grandfathered irregular tags are not taken
        "é",
        "en US",
        "a" * 36,
    ],
)
def test_a_malformed_tag_is_refused_with_a_reason(sent: str) -> None:
    assert normalized_language(sent) is None
    problem = language_problem("language", sent)
    assert problem is not None and "BCP 47" in problem


def test_the_iso_639_part_is_what_platforms_with_a_bare_code_take() -> None:
    assert [primary_language(t) for t in ("pt-BR", "en", "zh-Hant-TW", "fil", "x-whatever")] == [
        "pt",
        "en",
        "zh",
        "fil",
        None,
    ]


def test_tiktok_settings_are_stored_with_only_what_was_chosen() -> None:
    chosen = TikTokOptions(privacy_level="SELF_ONLY", disable_duet=False)
    assert tiktok_json(chosen) == '{"privacy_level":"SELF_ONLY","disable_duet":false}'
    assert tiktok_from_json(tiktok_json(chosen)) == chosen
    assert (tiktok_json(None), tiktok_from_json(""), tiktok_from_json(None)) == ("", None, None)


def _version(**fields: object) -> Version:
    return Version(**({"content": "hi", "media_ids": (), "title": None, "post_type": None} | fields))


VIDEO = {"v": MediaInfo("v", "video", "video/mp4", 1000)}
IMAGES = {"a": MediaInfo("a", "image", "image/jpeg", 1000), "b": MediaInfo("b", "image", "image/jpeg", 1000)}


@pytest.mark.parametrize("connector", list(CONNECTORS))
def test_a_title_is_noticed_wherever_it_is_not_used(connector: str) -> None:
    media = IMAGES if connector == "tiktok" else VIDEO
    ids = tuple(media)
    found = notices_for("p", connector, _version(title="A title", media_ids=ids), "video", media)
    # YouTube titles its videos; a TikTok photo post has a title of its own.
    expected = [] if connector in ("youtube", "tiktok") else ["title"]
    assert [n.field for n in found] == expected
    assert all(n.code == "FIELD_IGNORED" and n.profile == "p" for n in found)


def test_a_tiktok_video_uses_no_title_and_a_blank_title_is_no_notice() -> None:
    video = _version(title="A title", media_ids=("v",))
    assert [n.field for n in notices_for("p", "tiktok", video, "video", VIDEO)] == ["title"]
    assert notices_for("p", "linkedin", _version(title="  "), "post", {}) == []
    # Unknown media (not confirmed): the post type decides.
    assert [n.field for n in notices_for("p", "tiktok", video, "video", None)] == ["title"]
    assert notices_for("p", "tiktok", video, "photo", None) == []


def test_a_language_is_noticed_only_where_the_platform_has_no_field() -> None:
    with_field = {key for key, c in CONNECTORS.items() if c.language_field}
    assert with_field == {"bluesky", "mastodon", "youtube"}
    for connector in CONNECTORS:
        found = notices_for("p", connector, _version(language="fr"), "video", {})
        assert [n.field for n in found] == ([] if connector in with_field else ["language"])
    assert notices_for("p", "x", _version(), "post", {}) == []  # none named: nothing to say


def test_tiktok_settings_are_noticed_off_tiktok_and_field_by_field_on_it() -> None:
    every = TikTokOptions("SELF_ONLY", True, True, True, True)
    assert [n.field for n in notices_for("p", "bluesky", _version(tiktok=every), "post", {})] == ["tiktok"]
    video = notices_for("p", "tiktok", _version(tiktok=every, media_ids=("v",)), "video", VIDEO)
    assert [n.field for n in video] == ["tiktok.auto_add_music"]
    photos = notices_for("p", "tiktok", _version(tiktok=every, media_ids=("a", "b")), "video", IMAGES)
    assert [n.field for n in photos] == ["tiktok.disable_duet", "tiktok.disable_stitch"]
    fitting = TikTokOptions("SELF_ONLY", disable_comment=False, disable_duet=True)
    assert notices_for("p", "tiktok", _version(tiktok=fitting, media_ids=("v",)), "video", VIDEO) == []
