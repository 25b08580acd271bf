"""The fast paths of Bluesky's, Threads' and Mastodon's counts (core/posts/rules.py) give what the
general algorithms give: for ASCII text, graphemes are characters with CR LF as one; Threads'
emoji weights never apply; Mastodon's URL and mention rewriting needs a "://" or an "@". Checked
on generated text against the general algorithms written out here. Pure."""

from __future__ import annotations

import regex
from hypothesis import example, given
from hypothesis import strategies as st

from core.posts import rules
from core.posts.rules import count
from core.posts.x_count import may_hold_url

GRAPHEME = regex.compile(r"\X")
EMOJI = regex.compile(r"[\p{Extended_Pictographic}\p{Regional_Indicator}\u20e3]")

# ASCII with what matters here over-represented: CR, LF, URLs, mentions, emoji-like keycap bases.
PIECES = st.sampled_from(["\r\n", "\r", "\n", " ", "#", "1", "*", "https://example.com/a", "@ann", "@ann@host.social"])
ASCII = st.lists(st.one_of(st.text(st.characters(max_codepoint=127), max_size=8), PIECES), max_size=20).map("".join)
ANY = st.lists(
    st.one_of(ASCII, st.text(max_size=6), st.sampled_from(["👍🏽", "#️⃣", "é", "e\u0301", "日本"])), max_size=8
).map("".join)


def graphemes(text: str) -> int:
    return len(GRAPHEME.findall(text))


def threads(text: str) -> int:
    return sum(len(g.encode()) if EMOJI.search(g) else 1 for g in GRAPHEME.findall(text))


@given(ASCII)
@example("a\r\nb\n\rc\r")
def test_ascii_graphemes_are_characters_with_cr_lf_as_one(text: str) -> None:
    assert count("bluesky", text) == graphemes(text)
    assert count("threads", text) == threads(text)


@given(ANY)
def test_any_text_counts_as_the_general_algorithms_do(text: str) -> None:
    assert count("bluesky", text) == graphemes(text)
    assert count("threads", text) == threads(text)


@given(st.one_of(ASCII, ANY))
@example("see https://example.com/x and @ann@host.social")
@example("plain text, no link: example.com")
def test_mastodon_skips_rewriting_only_when_nothing_could_be_rewritten(text: str) -> None:
    counted = count("mastodon", text)
    if "://" not in text and "@" not in text:
        assert counted == graphemes(text)
    # The general algorithm, whatever the text (the fast path must agree with it).
    urls = [tuple(u["indices"]) for u in rules.extract_urls_with_indices(text, extract_urls_without_protocol=False)]
    entities = [(s, e, "x" * 23) for s, e in urls]
    for m in rules._MASTODON_MENTION.finditer(text):
        if not any(s < m.end() and m.start() < e for s, e in urls):
            entities.append((m.start(), m.end(), "@" + m.group(1)))
    pieces, position = [], 0
    for start, end, replacement in sorted(entities):
        pieces += [text[position:start], replacement]
        position = end
    pieces.append(text[position:])
    assert counted == graphemes("".join(pieces))


@given(st.one_of(ASCII, ANY, st.text(st.sampled_from(".a/:\t\n\r 。com"), max_size=30)))
@example("Thread item 3 of 10: a sentence. Another one.\nThird.")
@example("see example.com")
def test_a_text_said_to_hold_no_url_has_none(text: str) -> None:
    # Threads' link limit skips URL extraction on that ground.
    if not may_hold_url(text):
        assert rules.extract_urls_with_indices(text) == []
        assert rules.extract_urls_with_indices(text, extract_urls_without_protocol=False) == []
