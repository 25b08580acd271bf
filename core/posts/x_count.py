"""X's weighted length without twitter-text's emoji scan, for the texts where it cannot matter.

`weighted_length(text)` equals `twitter_text.parse_tweet(text).weightedLength` (twitter-text-parser
3.0.0, config "defaults" = twitter-text v3 config, `twitter_text/config.py`) for every string; it
takes a fast path when it can prove that no emoji entity can occur, and calls `parse_tweet`
otherwise. tests/core/test_x_counting.py checks the equality property-based and checks the two
facts below against the library's own emoji data.

What `parse_tweet` does (twitter_text/parse_tweet.py): NFC, then `\\r\\n`, `\\r` and `\\n` each
become one `\\n`; then, from left to right, a URL entity (`extract_urls_with_indices`) weighs
`transformed_url_length` (23) x `scale` and skips `len(url)` code points, else an emoji entity
(the `twitter_text/regexp/emoji.py` pattern, built from `emoji-test.txt`) weighs `default_weight`
(200) and skips the emoji, else a code point weighs 100 if it lies in one of the config's `ranges`
(0-4351, 8192-8205, 8208-8223, 8242-8247) and `default_weight` otherwise; the sum is divided by
`scale` (100): 23 per URL, 2 per emoji, 1 or 2 per code point.

The fast path applies when, after NFC, every code point is in
- `LIGHT_RANGES`: the weight-100 ranges without U+00A9 © and U+00AE ®, the only code points there that
  are emoji on their own; or
- `HEAVY_RANGES`: common CJK blocks (CJK punctuation without U+3030 〰 and U+303D 〽, kana, bopomofo,
  Hangul compatibility jamo, CJK Unified Ideographs and Extension A, Hangul syllables, full- and
  half-width forms), which are outside every range and so weigh `default_weight`.
No emoji entity can then match: none of these code points is an emoji by itself, and every
multi-code-point emoji sequence holds a code point outside both sets (the keycaps' U+20E3, the
pictographs around a ZWJ U+200D, ...). So the length is the code points outside URLs (each
`HEAVY_RANGES` one twice) plus 23 per URL. URLs are found by `extract_urls_with_indices` itself, unless
the text has no ASCII '.' followed by a character other than a space, tab or newline: every URL
its `extract_url` pattern matches, with or without a scheme, has a domain ending in `\\.` followed
at once by a TLD (`valid_domain_name` + `valid_gtld|valid_cctld|valid_punycode`), and no TLD
starts with whitespace, so full stops that end sentences cannot start one (and without any '.',
`extract_urls_with_indices` returns [] itself). A plain sentence thus costs a few string scans.
Anything else (emoji, other scripts, lone surrogates, ...) goes to `parse_tweet`. The validity
`parse_tweet` also reports is not needed: the rules compare the length with the platform's limit.
"""

from __future__ import annotations

import functools
import re
import unicodedata
import warnings
from typing import Any

# twitter-text's URL entities count this many (its config's `transformed_url_length`, checked
# when it is loaded).
_URL_WEIGHT = 23


@functools.cache
def _twitter() -> Any:
    """twitter-text, loaded on first use: compiling its patterns costs ~0.3 s of CPU, which
    every core, worker and admin process paid at start though most never count a link."""
    with warnings.catch_warnings():
        # twitter-text-parser 3.0 imports pkg_resources, which warns on import (pyproject pins setuptools<81).
        warnings.filterwarnings("ignore", message="pkg_resources is deprecated", category=UserWarning)
        import twitter_text
        from twitter_text.config import config
    defaults = config["defaults"]
    assert defaults["transformed_url_length"] == _URL_WEIGHT
    assert defaults["scale"] == 100 and defaults["default_weight"] == 200 and defaults["emoji_parsing_enabled"]
    assert [(r["start"], r["end"], r["weight"]) for r in defaults["ranges"]] == [
        (0, 4351, 100),
        (8192, 8205, 100),
        (8208, 8223, 100),
        (8242, 8247, 100),
    ], "twitter-text's weight ranges changed: review core/posts/x_count.py"
    return twitter_text


def extract_urls_with_indices(text: str, **options: bool) -> list[dict]:
    """twitter-text's `extract_urls_with_indices`."""
    return _twitter().extract_urls_with_indices(text, **options)


def parse_tweet(text: str) -> Any:
    """twitter-text's `parse_tweet`."""
    return _twitter().parse_tweet(text)


# Code points weighing 1 that no emoji entity can contain on their own (see the module docstring).
LIGHT_RANGES = (
    (0x0000, 0x00A8),
    (0x00AA, 0x00AD),
    (0x00AF, 0x10FF),
    (0x2000, 0x200D),
    (0x2010, 0x201F),
    (0x2032, 0x2037),
)
# Code points weighing 2 that are in no emoji sequence at all.
HEAVY_RANGES = (
    (0x3000, 0x302F),  # CJK symbols and punctuation (、。「」...), without 〰 U+3030
    (0x3031, 0x303C),  # ... and 〽 U+303D
    (0x303E, 0x31FF),  # kana, bopomofo, Hangul compatibility jamo, kanbun, CJK strokes, katakana ext.
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xAC00, 0xD7A3),  # Hangul syllables
    (0xFF00, 0xFFEF),  # half-width and full-width forms (，！？...)
)


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in ranges)


_FAST = re.compile(f"[{_char_class(LIGHT_RANGES)}{_char_class(HEAVY_RANGES)}]*")
_HEAVY = re.compile(f"[{_char_class(HEAVY_RANGES)}]")
_URL_DOT = re.compile(r"\.[^ \t\n]")  # a '.' that a TLD could follow
_LINE_ENDING = re.compile(r"\r\n|\r|\n")  # parse_tweet's convert_line_ending


def _weight(segment: str) -> int:
    return len(segment) if segment.isascii() else len(segment) + len(_HEAVY.findall(segment))


def may_hold_url(text: str) -> bool:
    """False when `extract_urls_with_indices` can find no URL in `text`, with or without a
    scheme: no '.' in it is followed by a character a TLD could start with (module docstring)."""
    return "." in text and _URL_DOT.search(text) is not None


def fast_weighted_length(text: str) -> int | None:
    """X's weighted length of `text` when no emoji entity can occur in it, else None."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
        if _FAST.fullmatch(text) is None:
            return None
    if "\r" in text:
        text = _LINE_ENDING.sub("\n", text)
    if not may_hold_url(text):
        return _weight(text)
    # parse_tweet's walk: a URL entity starting at the current position counts 23 and skips
    # len(url) code points (one entity per start index, the last one wins); others are skipped.
    starts = {u["indices"][0]: u["url"] for u in extract_urls_with_indices(text)}
    length, position = 0, 0
    for start in sorted(starts):
        if start < position:
            continue
        length += _weight(text[position:start]) + _URL_WEIGHT
        position = start + len(starts[start])
    return length + _weight(text[position:])


def weighted_length(text: str) -> int:
    """`parse_tweet(text).weightedLength`, through the fast path when it applies."""
    fast = fast_weighted_length(text)
    return fast if fast is not None else parse_tweet(text).weightedLength
