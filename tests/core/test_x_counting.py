"""X's weighted length: the fast path (core/posts/x_count.py) gives parse_tweet's answer.

`count("x", text)` (what content_problems uses) must equal what it was before the fast path,
`parse_tweet(NFC(text)).weightedLength`, for every text: checked on generated text and on hand-written
edge cases; the facts the fast path relies on are checked against twitter-text's own data.
"""

from __future__ import annotations

import unicodedata
import warnings

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.posts import x_count
from core.posts.rules import content_problems, count

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="pkg_resources is deprecated", category=UserWarning)
    from twitter_text import parse_tweet
    from twitter_text.config import config
    from twitter_text.regexp.emoji import emoji, emoji_list
    from twitter_text.regexp.valid_cctld import valid_cctld
    from twitter_text.regexp.valid_gtld import valid_gtld
    from twitter_text.regexp.valid_punycode import valid_punycode

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 👨‍👩‍👧
RAINBOW_FLAG = "\U0001f3f3\ufe0f\u200d\U0001f308"  # 🏳️‍🌈
THUMB = "\U0001f44d\U0001f3fd"  # 👍🏽
KEYCAP_HASH = "#\ufe0f\u20e3"  # #️⃣


def reference(text: str) -> int:
    """What count("x", ...) returned before the fast path."""
    return parse_tweet(unicodedata.normalize("NFC", text)).weightedLength


def check(text: str) -> int | None:
    expected = reference(text)
    assert count("x", text) == expected, text
    assert parse_tweet(text).weightedLength == expected, text
    fast = x_count.fast_weighted_length(text)
    assert fast is None or fast == expected, text
    return fast


# ------------------------------------------------------------------ the facts the fast path uses


def _code_points(ranges):
    return [c for low, high in ranges for c in range(low, high + 1)]


def test_ranges_weigh_what_the_module_says():
    weight_100 = [(r["start"], r["end"]) for r in config["defaults"]["ranges"] if r["weight"] == 100]
    assert config["defaults"]["default_weight"] == 200 and config["defaults"]["scale"] == 100
    for c in _code_points(x_count.LIGHT_RANGES):
        assert any(low <= c <= high for low, high in weight_100), hex(c)
    for c in _code_points(x_count.HEAVY_RANGES):
        assert not any(low <= c <= high for low, high in weight_100), hex(c)


def test_no_emoji_entity_can_be_made_of_fast_path_code_points():
    safe = set(_code_points(x_count.LIGHT_RANGES)) | set(_code_points(x_count.HEAVY_RANGES))
    # No safe code point is an emoji by itself (checked on the compiled pattern, whose
    # single-code-point class is built from ranges)...
    assert [hex(c) for c in sorted(safe) if emoji.search(chr(c))] == []
    # ...and every emoji sequence (the pattern's alternatives) holds a code point outside the set.
    for entry in emoji_list:
        code_points = [int(x, 16) for x in entry.codepoint.split()]
        assert any(c not in safe for c in code_points), entry


def test_no_tld_starts_with_whitespace():
    # A URL's domain ends with "\." followed at once by one of these; the fast path skips URL
    # extraction when every '.' is followed by a space, tab, newline or the end of the text.
    for pattern in (valid_gtld, valid_cctld):
        alternatives = pattern.pattern.split("(?:(?:", 1)[1].rsplit(")(?=", 1)[0].split("|")
        assert len(alternatives) > 200
        assert [a for a in alternatives if not a or a[0].isspace() or a[0] in "\\(["] == []
    assert valid_punycode.pattern.startswith("(?:xn--")


# ------------------------------------------------------------------ hand-written cases

CASES = [
    # (text, weighted length, fast path taken)
    ("a" * 280, 280, True),
    ("a" * 281, 281, True),
    ("東" * 140, 280, True),
    ("東" * 141, 282, True),
    ("a" + "東" * 139 + "b", 280, True),
    ("a" * 2 + "東" * 139 + "b", 281, True),
    ("日本語のテキスト、です。", 24, True),
    ("한국어 텍스트", 13, True),
    ("\u1100\u1161", 2, True),  # Hangul jamo (weight 1 each) compose to 가 (weight 2) under NFC
    ("e\u0301", 1, True),  # é after NFC
    ("Ελληνικά и русский", 18, True),
    ("“quoted” — dash… ‘single’", 26, False),  # … U+2026 is outside the weight-100 ranges
    ("“quoted” — dash ‘single’", 24, True),
    (
        "Bench post 1234-ab12-3-45: Herald measures POST /v1/posts with three destinations in one transaction.",
        101,
        True,
    ),
    ("Sentence one. Sentence two.\nThree.", 34, True),
    ("example.com", 23, True),
    ("see example.com.", 28, True),
    ("e.g. this", 9, True),
    ("https://example.com/a/b?c=d", 23, True),
    ("http://t.co/abcdef more", 28, True),
    ("two https://a.com https://b.org", 51, True),
    ("http://日本語.jp/パス", 23 + 4, True),  # the path stops before the katakana
    ("日本語 example.com 中国語", 6 + 1 + 23 + 1 + 6, True),
    ("@mention and #hashtag", 21, True),
    ("@user@example.com", 17, True),  # no URL right after "@"
    ("a\r\nb", 3, True),
    ("a\rb\nc\r\n\r\nd", 8, True),
    ("\r\n" * 280, 280, True),
    ("", 0, True),
    ("   ", 3, True),
    ("\x00", 1, True),
    ("#1 and *2", 9, True),
    (KEYCAP_HASH, 2, False),
    ("1\u20e3", 2, False),
    ("©", 2, False),  # an emoji on its own: weight 2 although U+00A9 is in 0-4351
    ("© 2026 Herald", 14, False),
    ("®", 2, False),
    ("\U0001f600", 2, False),
    (FAMILY, 2, False),
    (FAMILY + " " + FAMILY, 5, False),
    (RAINBOW_FLAG + "!", 3, False),
    (THUMB, 2, False),
    ("\u200d", 1, True),  # a lone ZWJ weighs 1
    ("a\u200db", 3, True),
    ("🇫🇷 France", 9, False),
    ("a" * 278 + "\U0001f600", 280, False),
    ("a" * 279 + "\U0001f600", 281, False),
    ("a" * 257 + " https://example.com/" + "p" * 100, 281, True),
]


@pytest.mark.parametrize(("text", "length", "fast"), CASES)
def test_edge_cases(text, length, fast):
    assert reference(text) == length
    result = check(text)
    assert (result is not None) is fast


def test_lone_surrogate_fails_as_parse_tweet_does():
    # Left to parse_tweet, which cannot encode it (gRPC strings are UTF-8, so none reaches the core).
    assert x_count.fast_weighted_length("a\ud800") is None
    with pytest.raises(UnicodeEncodeError):
        count("x", "a\ud800")


@pytest.mark.parametrize(
    ("text", "over"), [("a" * 280, False), ("a" * 281, True), ("東" * 140, False), ("東" * 141, True)]
)
def test_limit_through_content_problems(text, over):
    problems = content_problems("x", text, title=None, post_type="post")
    assert bool(problems) is over
    if over:
        assert str(reference(text)) in problems[0] and "280" in problems[0]


# ------------------------------------------------------------------ generated text

ASCII = st.text(alphabet=st.characters(max_codepoint=127), max_size=400)
EMOJI = st.sampled_from(sorted({e.emoji for e in emoji_list}))
PIECES = st.one_of(
    st.text(alphabet=st.characters(max_codepoint=127), min_size=1, max_size=12),
    st.text(alphabet=st.characters(max_codepoint=0x10FF), min_size=1, max_size=6),  # weight-100 block
    st.text(alphabet=st.characters(min_codepoint=0x2000, max_codepoint=0x206F), max_size=3),
    st.text(alphabet=st.characters(min_codepoint=0x3000, max_codepoint=0x30FF), min_size=1, max_size=6),
    st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x4EFF), min_size=1, max_size=6),
    st.text(alphabet=st.characters(min_codepoint=0xAC00, max_codepoint=0xAD00), min_size=1, max_size=4),
    st.text(alphabet=st.characters(min_codepoint=0xFF00, max_codepoint=0xFFEF), min_size=1, max_size=3),
    st.characters(codec="utf-8"),
    EMOJI,
    st.sampled_from(
        [
            " ",
            ". ",
            ".",
            "...",
            ".\n",
            "\r\n",
            "\r",
            "\n",
            "\t",
            "e.g.",
            "example.com",
            "sub.example.co.uk/path?q=1",
            "https://example.com/",
            "http://t.co/abc123",
            "https://t.co/" + "x" * 45,
            "www.example.org",
            "日本語.jp",
            "http://日本語.jp",
            "xn--wgv71a119e.jp",
            "a.b",
            "1.5",
            ":",
            "/",
            "://",
            "@mention",
            "#hashtag",
            "$cashtag",
            "\u200d",
            "\ufe0f",
            "\u20e3",
            "\U0001f3fd",
            "e\u0301",
            "\u1100\u1161",
            "©",
            "®",
            FAMILY,
            KEYCAP_HASH,
        ]
    ),
)
MIXED = st.lists(PIECES, max_size=60).map("".join)
# Around the 280 limit: a run of one character, then more pieces.
LONG = st.builds(
    lambda char, n, tail: char * n + tail,
    st.sampled_from(["a", "東", " ", "\r\n", "é", "ü", "—"]),
    st.integers(min_value=120, max_value=290),
    MIXED,
)

SETTINGS = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(ASCII)
@example("Bench post 1234-ab12-3-45: Herald measures POST /v1/posts with three destinations in one transaction.")
def test_ascii_matches_parse_tweet(text):
    check(text)


@SETTINGS
@given(MIXED)
def test_mixed_matches_parse_tweet(text):
    check(text)


@SETTINGS
@given(LONG)
def test_long_matches_parse_tweet(text):
    check(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_matches_parse_tweet(text):
    check(text)


FAST_PIECES = ["Ab", "1", " ", "\n", "\r\n", ". ", ".", ",", "(", ")", "?", "=", "-", "_", "@", "#", ":", "/"]
FAST_PIECES += [
    "東",
    "。",
    "é",
    "ü",
    "—",
    "example.com",
    "t.co",
    "www.",
    "https://",
    "http://",
    "co.uk",
    "日本語",
    ".jp",
]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(FAST_PIECES), max_size=200).map("".join))
def test_fast_path_text_matches_parse_tweet(text):
    # Texts made only of fast-path characters, with many URLs: the fast path must answer and agree.
    assert check(text) is not None


def test_fast_path_is_taken_for_plain_sentences():
    assert x_count.fast_weighted_length("Plain text. Another sentence, with a comma.") == 43
    assert x_count.fast_weighted_length("東京で会いましょう。") == 20
