"""How the built-in engine arranges a brief into a post (docs/writing-tools.md, "Backends"): the
shape the voice's example posts show, the hook line, and the body cut to the examples' length.
Pure and deterministic: the same brief and voice always give the same arrangement."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

import regex

from core.generate import text as tx

# A hook is split at a colon or a dash when what follows has at least this many words.
_MIN_SPLIT_WORDS = 3
_HOOK_BREAK = regex.compile(r"(?<=\S)(?::|\s[—–])\s+")
# The examples' typical length, with this much room, is the length an arranged post aims at.
_LENGTH_ROOM = 1.25
# A sentence opening with one of these leans on the one before it: it cannot open a post.
_POINTS_BACK = frozenset(
    ("it", "its", "it's", "this", "that", "these", "those", "they", "their", "them", "he", "she", "his", "her")
    + ("also", "and", "but", "so", "then", "however", "too", "which")
)


@dataclass(frozen=True, slots=True)
class Shape:
    """What the voice's example posts show of how its posts look (never their words)."""

    length: int | None = None  # their median length in graphemes; None without examples
    hashtags: int | None = None  # their median number of hashtags
    emoji: str | None = None  # the emoji they use most, when most of them use one
    emoji_first: bool = False  # whether they open with it rather than end a line with it
    lines: bool = True  # whether the first line stands apart (a hook line)


def shape_of(examples: tuple[str, ...]) -> Shape:
    examples = tuple(e for e in examples if e.strip())
    if not examples:
        return Shape()
    emoji: Counter[str] = Counter()
    with_emoji = opening = 0
    for example in examples:
        used = [g for g in tx.graphemes(example) if tx.has_emoji(g)]
        with_emoji += bool(used)
        opening += any(tx.has_emoji(tx.graphemes(line.strip())[0]) for line in example.splitlines() if line.strip())
        emoji.update(used)
    return Shape(
        length=round(statistics.median(len(tx.graphemes(e.strip())) for e in examples)),
        hashtags=round(statistics.median(len(tx.HASHTAG.findall(e)) for e in examples)),
        # Most common first, the earliest seen on a tie (Counter keeps insertion order).
        emoji=emoji.most_common(1)[0][0] if with_emoji * 2 > len(examples) else None,
        emoji_first=opening * 2 > with_emoji,
        lines=sum("\n" in e.strip() for e in examples) * 2 >= len(examples),
    )


def weight(sentence: str, brief: str) -> float:
    """How much of the brief's key phrases a sentence carries (its keywords, best first)."""
    keys = [k.lower() for k in tx.keywords(brief, 8)]
    lower = sentence.lower()
    return sum(len(keys) - i for i, k in enumerate(keys) if k in lower)


def _hook_rank(sentence: str, index: int, brief: str) -> tuple[bool, bool, float, int]:
    keys = tx.keywords(brief, 1)
    opener = regex.match(r"[\p{L}']+", sentence)
    return (
        not (opener and opener.group().lower() in _POINTS_BACK),
        bool(keys) and keys[0].lower() in sentence.lower(),
        weight(sentence, brief),
        -index,
    )


def arrange(body: list[str], brief: str, shape: Shape, needed: set[str]) -> list[str]:
    """The sentences as the post puts them: the hook first (of the sentences that do not lean on
    the one before them, "It…", "This…": the one carrying the brief's key phrase, else the one
    carrying most of its key phrases, the earliest on a tie; cut after a colon or a dash when
    the hook stands on its own line and what follows is a phrase of its own), then the other
    sentences in the brief's order. With examples, the least telling sentences without a link
    or a mention are left out until the post is about as long as the examples, but never the
    hook nor the sentence after it (what the post says)."""
    if not body:
        return []
    lead = max(range(len(body)), key=lambda i: _hook_rank(body[i], i, brief))
    hook, rest = body[lead], [s for i, s in enumerate(body) if i != lead]
    if shape.lines and hook not in needed and (split := _split_hook(hook)):
        hook, first = split
        rest.insert(0, first)
    if shape.length is not None:
        budget = shape.length * _LENGTH_ROOM
        by_weight = sorted(
            (i for i, s in enumerate(rest) if i > 0 and s not in needed), key=lambda i: (weight(rest[i], brief), i)
        )
        dropped: set[int] = set()
        for i in by_weight:
            if len(tx.graphemes(" ".join([hook, *(s for j, s in enumerate(rest) if j not in dropped)]))) <= budget:
                break
            dropped.add(i)
        rest = [s for j, s in enumerate(rest) if j not in dropped]
    return [hook, *rest]


def with_emoji(hook: str, shape: Shape) -> str:
    """The hook with the examples' emoji where they put theirs: opening the line, or closing it
    (opening it when the hook ends with a colon, which the next line completes)."""
    if shape.emoji is None:
        return hook
    return f"{shape.emoji} {hook}" if shape.emoji_first or hook.endswith(":") else f"{hook} {shape.emoji}"


def _split_hook(hook: str) -> tuple[str, str] | None:
    spans = tx.protected_spans(hook)
    for m in _HOOK_BREAK.finditer(hook):
        if any(s <= m.start() < e for s, e in spans):
            continue
        head, tail = hook[: m.start()].rstrip(), hook[m.end() :].strip()
        if len(tx.words(tail)) >= _MIN_SPLIT_WORDS and len(tx.words(head)) >= 2:
            mark = hook[m.start() : m.end()].strip()
            return f"{head}{mark if mark == ':' else ':'}", tail[:1].upper() + tail[1:]
    return None
