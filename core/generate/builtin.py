"""The built-in writing engine: deterministic and model-free, made of rules (docs/writing-tools.md).

It does not invent content: it arranges the brief. A post leads with a hook line (the sentence
carrying the brief's key phrases), says it in fewer words (wordy phrasings tightened), takes the
shape of the voice's example posts (length, layout, emoji, hashtag count: core/generate/
arrangement.py) and closes with hashtags made of the brief's salient words. It applies the brand
voice (preferred terms and their casing, the emoji habit, the hashtag habit and signature
hashtags), drops whole sentences that hold a never-publish phrase, and fits each destination by
that platform's own counting, only ever removing whole units (trailing hashtags, parentheticals,
sentences without a link or a mention) and splitting only at sentence, clause, word or grapheme
boundaries outside links, mentions and hashtags. What it cannot fit it reports; it never cuts a
sentence short.
"""

from __future__ import annotations

from functools import lru_cache, partial

import regex

from core.generate import text as tx
from core.generate.arrangement import arrange, shape_of, weight, with_emoji
from core.generate.outputs import Draft, Output, Style, Target, check, part_problems
from core.posts.field_checks import MAX_THREAD_ITEMS
from core.posts.rules import PLATFORM_LIMITS, count

# Platforms that publish a thread as a chain of replies (issue 18).
THREAD_PLATFORMS = ("x", "bluesky", "threads", "mastodon")
_HABIT_TOTAL = {"none": 0, "few": 3, "many": 8}
_PARENTHETICAL = regex.compile(r"\s*\([^()]*\)")


def _voiced(text: str, style: Style) -> str:
    text = tx.replace_terms(text, list(style.terms))
    return tx.strip_emoji(text) if style.emoji == "none" else text


def _units(brief: str, style: Style) -> tuple[list[str], list[str], list[str]]:
    """The brief as sentences in the voice, the hashtags it ends with, and the sentences dropped
    because they hold a never-publish phrase."""
    body, tags, dropped = [], [], []
    for sentence in tx.sentences(_voiced(brief, style)):
        if style.never_publish.find(sentence) is not None:
            dropped.append(sentence)
        elif all(w.startswith("#") for w in tx.words(sentence)):
            tags += tx.words(sentence)
        else:
            body.append(sentence)
    return body, list(dict.fromkeys(tags)), dropped


def _tail(
    connector: str, body: list[str], own: list[str], style: Style, extra: int, wanted: int | None = None
) -> list[str]:
    """Hashtags to close a post with: the brief's own, then the voice's signature, then keyword
    hashtags, as many as the habit wants (or `wanted`, within the habit) and the platform takes;
    never one holding a never-publish phrase."""
    habit = _HABIT_TOTAL.get(style.hashtags, 3)
    wanted = (habit if wanted is None else min(wanted, habit)) + extra
    cap = PLATFORM_LIMITS[connector].get("max_hashtags", 30)
    present = {h.lower() for s in body for h in tx.HASHTAG.findall(s)}
    tags = [t for t in own if t.lower() not in present]
    for candidate in [*style.signature, *(tx.hashtag_of(k) for k in tx.keywords(" ".join(body), 6))]:
        if len(tags) + len(present) >= min(wanted, cap) or style.hashtags == "none" and candidate not in own:
            break
        fresh = candidate and candidate.lower() not in present and candidate.lower() not in {t.lower() for t in tags}
        if fresh and style.never_publish.find(candidate) is None:
            tags.append(candidate)
    return tags[: max(0, cap - len(present))]


def _compose(body: list[str], tags: list[str], lines: bool = False) -> str:
    """The post's text: the sentences (the first on a line of its own with `lines`), then a
    blank line and the hashtags."""
    text = f"{body[0]}\n\n{' '.join(body[1:])}" if lines and len(body) > 1 else " ".join(body)
    return f"{text}\n\n{' '.join(tags)}".strip() if tags else text


@lru_cache(maxsize=4096)
def _needed(sentence: str) -> bool:
    """A sentence holding a link or a mention: the brief's links and mentions must stay."""
    found = tx.entities(sentence)
    return bool(found.links or found.mentions)


def _shortenings(body: list[str], tags: list[str]) -> list[tuple[list[str], list[str]]]:
    """Every composition `_fit` may settle on, longest first: each step removes one more unit
    (a trailing hashtag, last first; then the parentheticals without a link or mention; then a
    sentence without a link or mention, the last first and the lead last of all)."""
    states = [(list(body), list(tags))]
    while tags:
        tags = tags[:-1]
        states.append((list(body), list(tags)))
    trimmed = [_PARENTHETICAL.sub("", s) if not _needed(_only_parenthetical(s)) else s for s in body]
    if trimmed != body:
        body = trimmed
        states.append((list(body), []))
    while len(body) > 1:
        removable = [i for i, s in enumerate(body) if not _needed(s)]
        if not removable:
            break
        later = [i for i in removable if i > 0]
        body = body[: (later or removable)[-1]] + body[(later or removable)[-1] + 1 :]
        states.append((list(body), []))
    return states


def _fit(connector: str, body: list[str], tags: list[str], lines: bool = False) -> tuple[str, list[str]]:
    """The longest composition that fits (`_shortenings`), or the shortest with its problems.
    Every step makes the text shorter, so a binary search finds it with a few counts."""
    texts = [_compose(b, t, lines) for b, t in _shortenings(body, tags)]
    low, high = 0, len(texts) - 1
    if not texts[high]:
        return "", []  # nothing to publish: the caller says so
    if shortest := part_problems(connector, texts[high]):
        return texts[high], shortest
    while low < high:
        middle = (low + high) // 2
        if part_problems(connector, texts[middle]):
            low = middle + 1
        else:
            high = middle
    return texts[low], []


def _only_parenthetical(sentence: str) -> str:
    return " ".join(_PARENTHETICAL.findall(sentence))


def _post(
    brief: str, target: Target, style: Style, variant: int = 1, *, order: list[str] | None = None, extra: int = 0
) -> Draft:
    body, own, dropped = _units(brief, style)
    if order is not None:
        body = order
    tags = _tail(target.connector, body, own, style, extra)
    text, problems = _fit(target.connector, body, tags)
    draft = Draft(target.profile, target.connector, variant, [text], problems)
    if not body and not text:
        draft.problems.append(
            "nothing of the brief is left to publish" + (" (never-publish phrases)" if dropped else "")
        )
    return draft


def _tightened(sentence: str, style: Style) -> str:
    """The sentence in fewer words, unless that would bring a never-publish phrase together."""
    tight = tx.tighten(sentence)
    return sentence if style.never_publish.find(tight) is not None else tight


def _arranged(brief: str, target: Target, style: Style, variant: int = 1) -> Draft:
    """The brief arranged as a post (core/generate/arrangement.py): the hook line, the rest
    tightened and cut to the examples' length, their emoji and hashtag count. When that cannot
    be made to fit, the brief as written, which fits whenever its lead and what must stay do."""
    body, own, _ = _units(brief, style)
    if not body:
        return _post(brief, target, style, variant)
    shape = shape_of(style.examples)
    body = [_tightened(s, style) for s in body]
    order = arrange(body, brief, shape, {s for s in body if _needed(s)})
    if style.emoji != "none" and not tx.has_emoji(brief):  # the brief's own emoji are enough
        order[0] = with_emoji(order[0], shape)
    wanted = None if shape.hashtags is None else max(shape.hashtags, len(style.signature))
    tags = _tail(target.connector, order, own, style, 0, wanted)
    text, problems = _fit(target.connector, order, tags, shape.lines)
    if problems:
        return _post(brief, target, style, variant)
    return Draft(target.profile, target.connector, variant, [text])


def generate_post(brief: str, targets: list[Target], style: Style) -> Output:
    """One draft per destination: the brief arranged in the voice, fitting each."""
    entities = tx.entities(brief)
    return Output([check(_arranged(brief, t, style), style, entities) for t in targets])


def generate_variations(brief: str, targets: list[Target], style: Style, count: int) -> Output:
    """Up to `count` distinct drafts per destination, each made another way: arranged (as
    generate_post makes it); as written; led by its most telling sentence; compact (the lead
    and what carries a link or a mention); with more hashtags; with none added."""
    entities = tx.entities(brief)
    drafts, notes = [], []
    for target in targets:
        body, _, _ = _units(brief, style)
        ranked = sorted(range(len(body)), key=lambda i: -weight(body[i], brief))
        led = [body[ranked[0]], *[s for i, s in enumerate(body) if i != ranked[0]]] if body else body
        compact = [s for i, s in enumerate(body) if i == 0 or _needed(s)]
        plain = Style(style.terms, style.emoji, "none", (), style.never_publish, style.examples)
        ways = [
            partial(_arranged, brief, target, style),
            partial(_post, brief, target, style),
            partial(_post, brief, target, style, order=led),
            partial(_post, brief, target, style, order=compact),
            partial(_post, brief, target, style, extra=3),
            partial(_post, brief, target, plain),
        ]
        seen: set[str] = set()
        for way in ways:
            if len(seen) == count:
                break
            draft = way(len(seen) + 1)
            key = "\n".join(draft.parts)
            if key not in seen:
                seen.add(key)
                drafts.append(check(draft, style, entities))
        if len(seen) < count:
            notes.append(f"{target.profile}: only {len(seen)} distinct variations can be made from this brief")
    return Output(drafts, notes=notes)


def _pieces(connector: str, unit: str, room: int) -> list[str]:
    """A unit too long for one item, split at the safest boundary that makes it fit: clauses,
    then words, then graphemes (never inside a link, a mention or a hashtag)."""
    if count(connector, unit) <= room:
        return [unit]
    for splitter, joiner in ((tx.clauses, " "), (tx.words, " "), (None, "")):
        parts = splitter(unit) if splitter else _grapheme_chunks(unit)
        if len(parts) < 2:
            continue
        out, current = [], ""
        for part in parts:
            candidate = f"{current}{joiner}{part}" if current else part
            if count(connector, candidate) <= room:
                current = candidate
            else:
                if current:
                    out.append(current)
                current = part
        if current:
            out.append(current)
        if all(count(connector, p) <= room for p in out):
            return out
    return [unit]


def _grapheme_chunks(unit: str) -> list[str]:
    """Graphemes, with links, mentions and hashtags kept whole."""
    spans = tx.protected_spans(unit)
    chunks, position = [], 0
    for start, end in spans:
        chunks += tx.graphemes(unit[position:start])
        chunks.append(unit[start:end])
        position = end
    return chunks + tx.graphemes(unit[position:])


def generate_thread(text: str, targets: list[Target], style: Style, *, numbered: bool = True) -> Output:
    """The text as a thread per destination: items packed from whole sentences, a sentence too
    long for one item split at clauses, words, then graphemes; numbered `i/n` when there is more
    than one. Platforms without threads get one post, or its problems."""
    entities = tx.entities(text)
    drafts = []
    for target in targets:
        body, own, _ = _units(text, style)
        units = body + ([" ".join(own)] if own else [])
        if target.connector not in THREAD_PLATFORMS:
            draft = _post(text, target, style)
            if not draft.fits:
                draft.problems.append(f"{PLATFORM_LIMITS[target.connector]['name']} publishes no threads")
            drafts.append(check(draft, style, entities))
            continue
        limit = PLATFORM_LIMITS[target.connector]["max_length"]
        reserve = count(target.connector, f" {MAX_THREAD_ITEMS}/{MAX_THREAD_ITEMS}") if numbered else 0
        items: list[str] = []
        current = ""
        for unit in units:
            for piece in _pieces(target.connector, unit, limit - reserve):
                candidate = f"{current} {piece}" if current else piece
                if (
                    not part_problems(target.connector, candidate)
                    and count(target.connector, candidate) <= limit - reserve
                ):
                    current = candidate
                else:
                    if current:
                        items.append(current)
                    current = piece
        if current:
            items.append(current)
        if numbered and len(items) > 1:
            items = [f"{item} {i}/{len(items)}" for i, item in enumerate(items, 1)]
        draft = Draft(target.profile, target.connector, 1, items or [""])
        if len(items) > MAX_THREAD_ITEMS:
            draft.problems.append(f"needs {len(items)} items; a thread takes at most {MAX_THREAD_ITEMS}")
        drafts.append(check(draft, style, entities))
    return Output(drafts)


def generate_hashtags(text: str, targets: list[Target], style: Style, count: int) -> Output:
    """Hashtags for the text: its own first, then the voice's signature, then ones made of its
    keywords (CamelCase for phrases); at most `count`, and no more than any named destination
    takes."""
    own = list(tx.entities(text).hashtags)
    caps = [PLATFORM_LIMITS[t.connector].get("max_hashtags") for t in targets]
    cap = min([count, *[c for c in caps if c]])
    body, _, _ = _units(text, style)  # keywords only from what may be published
    tags: list[str] = []
    for candidate in [*own, *style.signature, *(tx.hashtag_of(k) for k in tx.keywords(" ".join(body), 3 * count))]:
        fresh = candidate and candidate.lower() not in {t.lower() for t in tags}
        if fresh and style.never_publish.find(candidate) is None:
            tags.append(candidate)
        if len(tags) == cap:
            break
    return Output(hashtags=tags)


def rewrite_for_destination(text: str, target: Target, style: Style) -> Output:
    """The text made to fit one destination: in the voice, and shortened only by removing whole
    units (hashtags it ends with, parentheticals, sentences without a link or a mention)."""
    entities = tx.entities(text)
    body, own, _ = _units(text, style)
    kept, problems = _fit(
        target.connector, body, own[: PLATFORM_LIMITS[target.connector].get("max_hashtags", len(own))]
    )
    return Output([check(Draft(target.profile, target.connector, 1, [kept], problems), style, entities)])
