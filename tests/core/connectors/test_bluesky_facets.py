"""Bluesky facets are the ones the Bluesky app finds: the tables of `@atproto/api`'s own tests
(github.com/bluesky-social/atproto, packages/api/tests/rich-text-detection.test.ts), run against
`text_facets`, plus byte offsets in text that mixes emoji, CJK and accents
(docs/live-publishing.md, "What Bluesky receives")."""

from __future__ import annotations

import pytest

from core.connectors.bluesky_richtext import detect_facets, links, mentioned_handles, text_facets

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f467"  # one grapheme, 25 bytes
FAKE_DIDS = {"handle.com": "did:fake:handle.com", "full123-chars.test": "did:fake:full123-chars.test"}


def segments(text: str) -> list[list[str]]:
    """The text cut at its facets, as the app's tests print it: [text] for plain text, [text,
    the mention's DID or the link's URI] for a facet ('' for a tag)."""
    data, out, cursor = text.encode(), [], 0
    for facet in text_facets(text, FAKE_DIDS):
        start, end = facet["index"]["byteStart"], facet["index"]["byteEnd"]
        if cursor < start:
            out.append([data[cursor:start].decode()])
        elif cursor > start:
            continue  # overlapping: the app skips it too
        feature = facet["features"][0]
        out.append([data[start:end].decode(), feature.get("did") or feature.get("uri") or ""])
        cursor = end
    if cursor < len(data) or not out:
        out.append([data[cursor:].decode()])
    return out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("no mention", [["no mention"]]),
        ("@handle.com middle end", [["@handle.com", "did:fake:handle.com"], [" middle end"]]),
        ("start @handle.com end", [["start "], ["@handle.com", "did:fake:handle.com"], [" end"]]),
        ("start middle @handle.com", [["start middle "], ["@handle.com", "did:fake:handle.com"]]),
        (
            "@handle.com @handle.com @handle.com",
            [["@handle.com", "did:fake:handle.com"], [" "]] * 2 + [["@handle.com", "did:fake:handle.com"]],
        ),
        ("@full123-chars.test", [["@full123-chars.test", "did:fake:full123-chars.test"]]),
        ("not@right", [["not@right"]]),
        ("@handle.com!@#$chars", [["@handle.com", "did:fake:handle.com"], ["!@#$chars"]]),
        (
            "@handle.com\n@handle.com",
            [["@handle.com", "did:fake:handle.com"], ["\n"], ["@handle.com", "did:fake:handle.com"]],
        ),
        ("parenthetical (@handle.com)", [["parenthetical ("], ["@handle.com", "did:fake:handle.com"], [")"]]),
        (f"{FAMILY} @handle.com {FAMILY}", [[f"{FAMILY} "], ["@handle.com", "did:fake:handle.com"], [f" {FAMILY}"]]),
        ("start https://middle.com end", [["start "], ["https://middle.com", "https://middle.com"], [" end"]]),
        (
            "start https://middle.com/foo/bar?baz=bux#hash end",
            [["start "], ["https://middle.com/foo/bar?baz=bux#hash"] * 2, [" end"]],
        ),
        (
            "https://start.com/foo/bar?baz=bux#hash middle end",
            [["https://start.com/foo/bar?baz=bux#hash"] * 2, [" middle end"]],
        ),
        (
            "https://newline1.com\nhttps://newline2.com",
            [["https://newline1.com"] * 2, ["\n"], ["https://newline2.com"] * 2],
        ),
        (f"{FAMILY} https://middle.com {FAMILY}", [[f"{FAMILY} "], ["https://middle.com"] * 2, [f" {FAMILY}"]]),
        ("start middle.com end", [["start "], ["middle.com", "https://middle.com"], [" end"]]),
        (
            "start middle.com/foo/bar?baz=bux#hash end",
            [["start "], ["middle.com/foo/bar?baz=bux#hash", "https://middle.com/foo/bar?baz=bux#hash"], [" end"]],
        ),
        (
            "start.com/foo/bar?baz=bux#hash middle end",
            [["start.com/foo/bar?baz=bux#hash", "https://start.com/foo/bar?baz=bux#hash"], [" middle end"]],
        ),
        (
            "newline1.com\nnewline2.com",
            [["newline1.com", "https://newline1.com"], ["\n"], ["newline2.com", "https://newline2.com"]],
        ),
        (
            "a example.com/index.php php link",
            [["a "], ["example.com/index.php", "https://example.com/index.php"], [" php link"]],
        ),
        ("a trailing bsky.app: colon", [["a trailing "], ["bsky.app", "https://bsky.app"], [": colon"]]),
        ("not.. a..url ..here", [["not.. a..url ..here"]]),
        ("e.g.", [["e.g."]]),
        ("something-cool.jpg", [["something-cool.jpg"]]),
        ("website.com.jpg", [["website.com.jpg"]]),
        ("e.g./foo", [["e.g./foo"]]),
        ("website.com.jpg/foo", [["website.com.jpg/foo"]]),
        (
            "Classic article https://socket3.wordpress.com/2018/02/03/designing-windows-95s-user-interface/ ",
            [
                ["Classic article "],
                ["https://socket3.wordpress.com/2018/02/03/designing-windows-95s-user-interface/"] * 2,
                [" "],
            ],
        ),
        (
            "punctuation https://foo.com, https://bar.com/whatever; https://baz.com.",
            [
                ["punctuation "],
                ["https://foo.com"] * 2,
                [", "],
                ["https://bar.com/whatever"] * 2,
                ["; "],
                ["https://baz.com"] * 2,
                ["."],
            ],
        ),
        ("parenthentical (https://foo.com)", [["parenthentical ("], ["https://foo.com"] * 2, [")"]]),
        ("except for https://foo.com/thing_(cool)", [["except for "], ["https://foo.com/thing_(cool)"] * 2]),
    ],
)
def test_mentions_and_links_as_the_app_finds_them(text: str, expected: list[list[str]]) -> None:
    assert segments(text) == expected


def tag_row(text: str, tags: list[str], spans: list[tuple[int, int]]) -> tuple[str, list[str], list[tuple[int, int]]]:
    return text, tags, spans


A64 = "thisisa64characterstring_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"


@pytest.mark.parametrize(
    ("text", "tags", "spans"),
    [
        tag_row("#a", ["a"], [(0, 2)]),
        tag_row("#a #b", ["a", "b"], [(0, 2), (3, 5)]),
        tag_row("#1", [], []),
        tag_row("#1a", ["1a"], [(0, 3)]),
        tag_row("body #tag body", ["tag"], [(5, 9)]),
        tag_row("body #1", [], []),
        tag_row("body #a1", ["a1"], [(5, 8)]),
        tag_row("#", [], []),
        tag_row("#?", [], []),
        tag_row("text # text", [], []),
        tag_row(f"body #{A64}", [A64], [(5, 70)]),
        tag_row(f"body #{A64}b", [], []),
        tag_row(f"body #{A64}!", [A64], [(5, 70)]),
        tag_row("its a #double#rainbow", ["double#rainbow"], [(6, 21)]),
        tag_row("##hashash", ["#hashash"], [(0, 9)]),
        tag_row("##", [], []),
        tag_row("some #n0n3s@n5e!", ["n0n3s@n5e"], [(5, 15)]),
        tag_row("works #with,punctuation", ["with,punctuation"], [(6, 23)]),
        tag_row(
            "strips trailing #punctuation, #like. #this!",
            ["punctuation", "like", "this"],
            [(16, 28), (30, 35), (37, 42)],
        ),
        tag_row("strips #multi_trailing___...", ["multi_trailing"], [(7, 22)]),
        tag_row(
            "works with #\U0001f98b emoji, and #butter\U0001f98bfly",
            ["\U0001f98b", "butter\U0001f98bfly"],
            [(11, 16), (28, 42)],
        ),
        tag_row("#same #same #but #diff", ["same", "same", "but", "diff"], [(0, 5), (6, 11), (12, 16), (17, 22)]),
        tag_row("this #\ufe0f\u20e3tag should not be a tag", [], []),
        tag_row("this ##\ufe0f\u20e3tag should be a tag", ["#\ufe0f\u20e3tag"], [(5, 16)]),
        tag_row("this #t\nag should be a tag", ["t"], [(5, 7)]),
        tag_row("no match (\\u200B): #\u200b", [], []),
        tag_row("no match (\\u200Ba): #\u200ba", [], []),
        tag_row("match (a\\u200Bb): #a\u200bb", ["a"], [(18, 20)]),
        tag_row("match (ab\\u200B): #ab\u200b", ["ab"], [(18, 21)]),
        tag_row("no match (\\u20e2tag): #\u20e2tag", [], []),
        tag_row("no match (a\\u20e2b): #a\u20e2b", ["a"], [(21, 23)]),
        tag_row("match full width number sign (tag): \uff03tag", ["tag"], [(36, 42)]),
        tag_row("match full width number sign (tag): \uff03#\ufe0f\u20e3tag", ["#\ufe0f\u20e3tag"], [(36, 49)]),
        tag_row("no match 1?: #1?", [], []),
        # Cashtags: a tag `$` + the ticker in capitals.
        tag_row("$aapl", ["$AAPL"], [(0, 5)]),
        tag_row("$BTC $ETH", ["$BTC", "$ETH"], [(0, 4), (5, 9)]),
        tag_row("$100", [], []),
        tag_row("$TOOLONG", [], []),
        tag_row("($GOOG)", ["$GOOG"], [(1, 6)]),
        tag_row("$AAPL, $MSFT!", ["$AAPL", "$MSFT"], [(0, 5), (7, 12)]),
        tag_row("no$SPACE", [], []),
        tag_row("$ AAPL", [], []),
        tag_row("$ABC12", ["$ABC12"], [(0, 6)]),
        # Issue 30: a tag runs to the next space, not to the first character that is no letter.
        tag_row("#open-source and #v1.2.", ["open-source", "v1.2"], [(0, 12), (17, 22)]),
        tag_row(
            "\uff03\u30bf\u30b0 \u3068 #\u65e5\u672c\u8a9e\u3002",
            ["\u30bf\u30b0", "\u65e5\u672c\u8a9e"],
            [(0, 9), (14, 24)],
        ),
    ],
)
def test_tags_as_the_app_finds_them(text: str, tags: list[str], spans: list[tuple[int, int]]) -> None:
    facets = text_facets(text, {})
    assert [f["features"][0]["tag"] for f in facets] == tags
    assert [(f["index"]["byteStart"], f["index"]["byteEnd"]) for f in facets] == spans
    assert all(f["features"][0]["$type"] == "app.bsky.richtext.facet#tag" for f in facets)


def test_byte_offsets_are_exact_in_text_of_emoji_cjk_and_accents() -> None:
    text = f"Grüße {FAMILY} 日本語 @bob.bsky.social 🇯🇵 ＃東京 https://例え.jp/パス?q=é #día"
    dids = {"bob.bsky.social": "did:plc:bob"}
    facets = text_facets(text, dids)
    data = text.encode()
    covered = [data[f["index"]["byteStart"] : f["index"]["byteEnd"]].decode() for f in facets]
    assert covered == ["@bob.bsky.social", "＃東京", "https://例え.jp/パス?q=é", "#día"]
    assert [f["features"][0] for f in facets] == [
        {"$type": "app.bsky.richtext.facet#mention", "did": "did:plc:bob"},
        {"$type": "app.bsky.richtext.facet#tag", "tag": "東京"},
        {"$type": "app.bsky.richtext.facet#link", "uri": "https://例え.jp/パス?q=é"},
        {"$type": "app.bsky.richtext.facet#tag", "tag": "día"},
    ]


def test_a_mention_needs_a_top_level_domain_and_a_did() -> None:
    text = "@alice.bsky.social @bob.test @carol.notatld @Dave.Example.COM"
    assert mentioned_handles(text) == ["alice.bsky.social", "bob.test"]
    assert [f.value for f in detect_facets(text)] == ["alice.bsky.social", "bob.test"]
    # A handle the PDS could not resolve stays text.
    (facet,) = text_facets(text, {"bob.test": "did:plc:bob"})
    assert facet["features"] == [{"$type": "app.bsky.richtext.facet#mention", "did": "did:plc:bob"}]


def test_links_in_order_for_the_link_card() -> None:
    assert links("see example.com/a, then https://b.example.org/x_(y).") == [
        "https://example.com/a",
        "https://b.example.org/x_(y)",
    ]
    assert links("HTTPS://SHOUTED.COM is not one, as in the app") == []
