"""Per-platform post rules (core/posts/rules.py): counting, text limits, attachment rules."""

from __future__ import annotations

import json

import pytest

from core.posts.rules import (
    PLATFORM_LIMITS,
    POST_TYPES,
    MediaInfo,
    content_problems,
    count,
    default_post_type,
    limits,
    media_problems,
)

MIB = 1024 * 1024
CONNECTORS = ["x", "bluesky", "mastodon", "threads", "instagram", "tiktok", "youtube", "linkedin"]
LONG_URL = "https://example.com/" + "a" * 180  # 200 characters
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 👨‍👩‍👧: 1 grapheme, 18 UTF-8 bytes
FAMILY4 = FAMILY + "\u200d\U0001f466"  # 👨‍👩‍👧‍👦: 1 grapheme, 25 UTF-8 bytes
THUMB = "\U0001f44d\U0001f3fd"  # 👍🏽: 1 grapheme, 8 UTF-8 bytes
GRIN = "\U0001f600"  # 😀: 1 grapheme, 4 UTF-8 bytes, 2 UTF-16 units


def image(n: int = 0, *, mime: str = "image/jpeg", size: int = 1000, width=None, height=None) -> MediaInfo:
    return MediaInfo(f"img{n}", "image", mime, size, width, height)


def gif(n: int = 0, *, size: int = 1000) -> MediaInfo:
    return MediaInfo(f"gif{n}", "gif", "image/gif", size)


def video(n: int = 0, *, size: int = 1000, width=None, height=None) -> MediaInfo:
    return MediaInfo(f"vid{n}", "video", "video/mp4", size, width, height)


def images(n: int) -> list[MediaInfo]:
    return [image(i) for i in range(n)]


def title_for(connector: str) -> str | None:
    return "A title" if connector == "youtube" else None


# --- post types ---------------------------------------------------------------------------------


def test_post_types_and_defaults():
    assert POST_TYPES == {
        "x": ("post",),
        "bluesky": ("post",),
        "mastodon": ("post",),
        "threads": ("post",),
        "instagram": ("feed", "reel", "story"),
        "tiktok": ("video", "photo"),
        "youtube": ("video", "short"),
        "linkedin": ("post",),
    }
    for connector, types in POST_TYPES.items():
        assert default_post_type(connector) == types[0]


@pytest.mark.parametrize(
    "call",
    [
        lambda: count("myspace", "hi"),
        lambda: content_problems("myspace", "hi", title=None, post_type="post"),
        lambda: media_problems("myspace", "post", []),
        lambda: limits("myspace"),
        lambda: default_post_type("myspace"),
        lambda: content_problems("instagram", "hi", title=None, post_type="reels"),
        lambda: media_problems("x", "reel", []),
    ],
)
def test_unknown_connector_or_post_type_raises(call):
    with pytest.raises(ValueError):
        call()


# --- counting -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("connector", "text", "expected"),
    [
        ("x", "a" * 280, 280),
        ("x", "中" * 140, 280),
        ("x", "see example.com now", 31),
        ("x", LONG_URL, 23),
        ("x", "https://a.co", 23),
        ("x", FAMILY, 2),
        ("x", "e\u0301", 1),  # NFC first: e + combining acute is one é
        ("bluesky", FAMILY, 1),
        ("bluesky", "नमस्ते", 3),
        ("bluesky", LONG_URL, 200),
        ("mastodon", LONG_URL, 23),
        ("mastodon", "https://a.co", 23),
        ("mastodon", "example.com", 11),  # bare domains are not replaced
        ("mastodon", "@user@example.social", 5),
        ("mastodon", "hi @bob@mastodon.social!", 8),
        ("mastodon", "bob@example.com", 15),  # an address, not a mention
        ("mastodon", FAMILY, 1),
        ("threads", "a" * 10, 10),
        ("threads", GRIN, 4),
        ("threads", FAMILY, 18),
        ("threads", "नमस्ते", 3),
        ("instagram", GRIN, 2),
        ("tiktok", GRIN + "a", 3),
        ("linkedin", "中", 1),
        ("youtube", "é", 2),
    ],
)
def test_count(connector, text, expected):
    assert count(connector, text) == expected


# --- text limits: at the limit passes, one over fails and names the count and the limit --------

BOUNDARIES = [
    # connector, post_type, text at the limit, text one unit over, count of the over text, limit
    ("x", "post", "a" * 280, "a" * 281, 281, 280),
    ("x", "post", "中" * 140, "中" * 141, 282, 280),
    ("x", "post", "a" * 256 + " " + LONG_URL, "a" * 257 + " " + LONG_URL, 281, 280),
    ("bluesky", "post", "a" * 300, "a" * 301, 301, 300),
    ("bluesky", "post", THUMB * 300, THUMB * 301, 301, 300),
    ("bluesky", "post", FAMILY4 * 120, FAMILY4 * 121, 3025, 3000),  # bytes, at only 121 graphemes
    ("mastodon", "post", "a" * 500, "a" * 501, 501, 500),
    ("mastodon", "post", "a" * 476 + " " + LONG_URL, "a" * 477 + " " + LONG_URL, 501, 500),
    ("mastodon", "post", "@bob@mastodon.social " + "a" * 495, "@bob@mastodon.social " + "a" * 496, 501, 500),
    ("mastodon", "post", FAMILY * 500, FAMILY * 501, 501, 500),
    ("threads", "post", "a" * 500, "a" * 501, 501, 500),
    ("threads", "post", GRIN * 125, GRIN * 125 + "a", 501, 500),
    ("instagram", "feed", "a" * 2200, "a" * 2201, 2201, 2200),
    ("instagram", "reel", GRIN * 1100, GRIN * 1100 + "a", 2201, 2200),
    ("tiktok", "video", "a" * 2200, "a" * 2201, 2201, 2200),
    ("tiktok", "photo", GRIN * 1100, GRIN * 1101, 2202, 2200),
    ("youtube", "video", "a" * 5000, "a" * 5001, 5001, 5000),
    ("youtube", "short", "é" * 2500, "é" * 2501, 5002, 5000),
    ("linkedin", "post", "a" * 3000, "a" * 3001, 3001, 3000),
    ("linkedin", "post", GRIN * 1500, GRIN * 1500 + "a", 3001, 3000),
]


@pytest.mark.parametrize(("connector", "post_type", "ok", "over", "over_count", "limit"), BOUNDARIES)
def test_text_limit_boundary(connector, post_type, ok, over, over_count, limit):
    title = title_for(connector)
    assert content_problems(connector, ok, title=title, post_type=post_type) == []
    problems = content_problems(connector, over, title=title, post_type=post_type)
    assert len(problems) == 1
    assert str(over_count) in problems[0] and str(limit) in problems[0]


def test_bluesky_300_family_emoji_fit_the_grapheme_limit_but_not_the_byte_limit():
    assert count("bluesky", FAMILY * 300) == 300
    problems = content_problems("bluesky", FAMILY * 300, title=None, post_type="post")
    assert len(problems) == 1 and "5400" in problems[0] and "3000" in problems[0]


@pytest.mark.parametrize(
    ("links", "ok"),
    [
        (" ".join(f"https://site{i}.example.com/p" for i in range(5)), True),
        (" ".join(f"https://site{i}.example.com/p" for i in range(6)), False),
        (" ".join(["https://same.example.com/p"] * 6), True),  # distinct links count
        ("www.a.com www.b.com www.c.com www.d.com www.e.com www.f.com", False),  # bare domains are links
    ],
)
def test_threads_link_limit(links, ok):
    problems = content_problems("threads", links, title=None, post_type="post")
    assert (problems == []) is ok
    if not ok:
        assert "6" in problems[0] and "5" in problems[0]


@pytest.mark.parametrize(
    ("text", "ok", "numbers"),
    [
        (" ".join(f"#tag{i}" for i in range(30)), True, ()),
        (" ".join(f"#tag{i}" for i in range(31)), False, ("31", "30")),
        (" ".join(f"@user{i}" for i in range(20)), True, ()),
        (" ".join(f"@user{i}" for i in range(21)), False, ("21", "20")),
        (" ".join(f"me{i}@example.com" for i in range(25)), True, ()),  # addresses are not mentions
    ],
)
def test_instagram_hashtags_and_mentions(text, ok, numbers):
    problems = content_problems("instagram", text, title=None, post_type="feed")
    assert (problems == []) is ok
    for number in numbers:
        assert number in problems[0]


@pytest.mark.parametrize(
    ("title", "content", "ok"),
    [
        ("My video", "A description", True),
        ("t" * 100, "", True),  # an empty description is fine
        ("t" * 101, "", False),
        (None, "A description", False),  # YouTube needs a title; it is never made up from the content
        ("   ", "A description", False),
        ("Less <than", "A description", False),
        ("Greater > than", "A description", False),
        ("My video", "a <b>description</b>", False),
    ],
)
def test_youtube_title_and_description(title, content, ok):
    for post_type in POST_TYPES["youtube"]:
        assert (content_problems("youtube", content, title=title, post_type=post_type) == []) is ok


def test_youtube_title_too_long_names_count_and_limit():
    (problem,) = content_problems("youtube", "", title="t" * 101, post_type="video")
    assert "101" in problem and "100" in problem


def test_title_is_a_youtube_rule_only():
    assert content_problems("x", "hello", title="<not checked here>", post_type="post") == []
    assert content_problems("linkedin", "a > b", title=None, post_type="post") == []


@pytest.mark.parametrize("connector", CONNECTORS)
@pytest.mark.parametrize("content", ["", "  \n\t "])
def test_blank_content_only_refused_by_text_platforms(connector, content):
    problems = content_problems(connector, content, title=title_for(connector), post_type=default_post_type(connector))
    needs_text = connector in {"x", "bluesky", "mastodon", "threads", "linkedin"}
    assert bool(problems) is needs_text


# --- attachments --------------------------------------------------------------------------------

MEDIA_CASES = [
    # connector, post_type, media, ok
    ("x", "post", [], True),
    ("x", "post", images(4), True),
    ("x", "post", images(5), False),
    ("x", "post", [gif()], True),
    ("x", "post", [gif(1), gif(2)], False),
    ("x", "post", [video()], True),
    ("x", "post", [video(1), video(2)], False),
    ("x", "post", [image(), video()], False),
    ("x", "post", [image(), gif()], False),
    ("bluesky", "post", images(4), True),
    ("bluesky", "post", images(5), False),
    ("bluesky", "post", [video()], True),
    ("bluesky", "post", [video(), image()], False),
    ("bluesky", "post", [gif()], True),  # a GIF goes through the video service
    ("bluesky", "post", [gif(), image()], False),
    ("bluesky", "post", [gif(), video()], False),
    ("mastodon", "post", images(4), True),
    ("mastodon", "post", images(5), False),
    ("mastodon", "post", [image(), gif()], True),
    ("mastodon", "post", [video()], True),
    ("mastodon", "post", [video(), image()], False),
    ("mastodon", "post", [video(1), video(2)], False),
    ("threads", "post", [], True),
    ("threads", "post", [image()], True),
    ("threads", "post", [video()], True),
    ("threads", "post", images(5) + [video(1), video(2)] + images(3), True),  # a mixed carousel of 10
    ("threads", "post", images(11), False),
    ("threads", "post", [gif()], False),
    ("instagram", "feed", [], False),  # no text-only posts
    ("instagram", "reel", [], False),
    ("instagram", "story", [], False),
    ("instagram", "feed", [image()], True),
    ("instagram", "feed", [video()], True),  # goes out as a Reel
    ("instagram", "feed", [video(1), video(2)], True),
    ("instagram", "feed", images(2), True),
    ("instagram", "feed", images(10), True),
    ("instagram", "feed", images(11), False),
    ("instagram", "feed", [image(), video()], True),
    ("instagram", "feed", [gif()], False),
    ("instagram", "reel", [video()], True),
    ("instagram", "reel", [image()], False),
    ("instagram", "reel", [video(1), video(2)], False),
    ("instagram", "story", [image()], True),
    ("instagram", "story", [video()], True),
    ("instagram", "story", images(2), False),
    ("tiktok", "video", [], False),
    ("tiktok", "photo", [], False),
    ("tiktok", "video", [video()], True),
    ("tiktok", "video", images(35), True),  # goes out as a photo post
    ("tiktok", "video", images(36), False),
    ("tiktok", "video", [image(), video()], False),
    ("tiktok", "photo", images(1), True),
    ("tiktok", "photo", images(35), True),
    ("tiktok", "photo", images(36), False),
    ("tiktok", "photo", [video()], False),
    ("youtube", "video", [], False),
    ("youtube", "video", [video()], True),
    ("youtube", "video", [image()], False),
    ("youtube", "video", [video(1), video(2)], False),
    ("youtube", "short", [video(width=1080, height=1920)], True),
    ("youtube", "short", [video(width=1080, height=1080)], True),
    ("youtube", "short", [video(width=1920, height=1080)], False),
    ("youtube", "short", [video()], True),  # size unknown: nothing to check
    ("linkedin", "post", [], True),
    ("linkedin", "post", images(20), True),
    ("linkedin", "post", images(21), False),
    ("linkedin", "post", [image(), gif()], True),
    ("linkedin", "post", [video()], True),
    ("linkedin", "post", [video(), image()], False),
]


@pytest.mark.parametrize(("connector", "post_type", "media", "ok"), MEDIA_CASES)
def test_media_combination(connector, post_type, media, ok):
    assert (media_problems(connector, post_type, media) == []) is ok


@pytest.mark.parametrize(
    ("connector", "post_type", "media", "numbers"),
    [
        ("x", "post", images(5), ("5", "4")),
        ("instagram", "feed", images(11), ("11", "10")),
        ("tiktok", "photo", images(36), ("36", "35")),
        ("linkedin", "post", images(21), ("21", "20")),
    ],
)
def test_media_count_message_names_count_and_limit(connector, post_type, media, numbers):
    (problem,) = media_problems(connector, post_type, media)
    for number in numbers:
        assert number in problem


SIZE_LIMITS = [
    # connector, post_type, factory, limit in bytes
    ("x", "post", image, 5 * MIB),
    ("x", "post", gif, 15 * MIB),
    ("bluesky", "post", image, 2_000_000),
    ("bluesky", "post", video, 300_000_000),
    ("bluesky", "post", gif, 300_000_000),
    ("mastodon", "post", image, 16 * MIB),
    ("mastodon", "post", gif, 16 * MIB),
    ("mastodon", "post", video, 99 * MIB),
    ("threads", "post", image, 8_000_000),
    ("threads", "post", video, 1_000_000_000),
    ("instagram", "feed", image, 8_000_000),
    ("instagram", "reel", video, 300_000_000),
    ("tiktok", "video", video, 4_000_000_000),
    ("linkedin", "post", video, 500_000_000),
]


@pytest.mark.parametrize(("connector", "post_type", "factory", "limit"), SIZE_LIMITS)
def test_size_limits(connector, post_type, factory, limit):
    assert media_problems(connector, post_type, [factory(size=limit)]) == []
    (problem,) = media_problems(connector, post_type, [factory(size=limit + 1)])
    media_id = factory().media_id
    assert media_id in problem and str(limit + 1) in problem and str(limit) in problem


@pytest.mark.parametrize(
    ("connector", "post_type", "mime", "ok"),
    [
        ("instagram", "feed", "image/jpeg", True),
        ("instagram", "feed", "image/png", False),  # Instagram takes JPEG only
        ("threads", "post", "image/png", True),
        ("threads", "post", "image/webp", False),
        ("x", "post", "image/webp", True),
    ],
)
def test_image_types(connector, post_type, mime, ok):
    assert (media_problems(connector, post_type, [image(mime=mime)]) == []) is ok


@pytest.mark.parametrize(
    ("connector", "post_type", "item", "ok"),
    [
        ("instagram", "feed", image(width=1080, height=1350), True),  # 4:5
        ("instagram", "feed", image(width=1080, height=1351), False),
        ("instagram", "feed", image(width=1910, height=1000), True),  # 1.91:1
        ("instagram", "feed", image(width=1911, height=1000), False),
        ("instagram", "feed", image(), True),
        ("instagram", "story", image(width=1080, height=1920), True),  # the feed's bounds only
        ("x", "post", video(width=100, height=300), True),  # 1:3
        ("x", "post", video(width=100, height=301), False),
        ("x", "post", video(width=300, height=100), True),
        ("x", "post", video(width=301, height=100), False),
    ],
)
def test_aspect_ratios(connector, post_type, item, ok):
    assert (media_problems(connector, post_type, [item]) == []) is ok


# --- limits() -----------------------------------------------------------------------------------


@pytest.mark.parametrize("connector", CONNECTORS)
def test_limits_are_json_ready_and_match_the_rules(connector):
    described = limits(connector)
    assert json.loads(json.dumps(described)) == described
    assert described["connector"] == connector
    assert described["post_types"] == list(POST_TYPES[connector])
    assert described["default_post_type"] == default_post_type(connector)
    assert isinstance(described["max_length"], int) and described["counting"]
    over = "a" * (described["max_length"] + 1)
    title = title_for(connector)
    assert content_problems(connector, over, title=title, post_type=described["default_post_type"])


def test_limits_headline_numbers():
    assert limits("x")["max_length"] == 280 and limits("x")["max_images"] == 4 and limits("x")["max_videos"] == 1
    assert limits("bluesky")["max_utf8_bytes"] == 3000
    assert limits("instagram")["max_hashtags"] == 30 and limits("instagram")["max_mentions"] == 20
    assert limits("linkedin")["max_images"] == 20


def test_limits_is_a_copy():
    limits("x")["media"]["post"]["layouts"].clear()
    assert PLATFORM_LIMITS["x"]["media"]["post"]["layouts"]
    assert media_problems("x", "post", images(5))
