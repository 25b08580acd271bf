"""Text processing for the built-in writing engine: the spans a rewrite must keep whole (links,
mentions, hashtags), sentences and clauses, keywords, and splitting at safe boundaries only
(never inside a link, a mention, a hashtag or a grapheme). Pure functions."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import regex

from core.posts.x_count import extract_urls_with_indices

# @user, and Mastodon's @user@instance.
MENTION = regex.compile(
    r"(?<![\p{L}\p{N}_@/.])@[\p{L}\p{N}_]+(?:[.\-][\p{L}\p{N}_]+)*(?:@[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)+)?"
)
HASHTAG = regex.compile(r"(?<![\p{L}\p{N}_&#/])#[\p{L}\p{N}_]*\p{L}[\p{L}\p{N}_]*")
_EMOJI_CHAR = regex.compile(r"[\p{Extended_Pictographic}\p{Regional_Indicator}]")
# Sentence ends: . ! ? … followed by space, or CJK full stops (no space follows them).
_SENTENCE_END = regex.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|(?<=[。！？])")
_CLAUSE_END = regex.compile(r"(?<=[,;:—–])\s+")
_SPACE = regex.compile(r"[ \t]+")
_WORD = regex.compile(r"[\p{L}\p{N}][\p{L}\p{N}'’\-]*")

# Function words no hashtag is made of (English; the built-in engine's keywords are lexical).
STOPWORDS = frozenset(
    regex.findall(
        r"\w+",
        """
        a about above after again against all also am an and any are as at be because been before being
        below between both but by can could did do does doing down during each few for from further had has
        have having he her here hers herself him himself his how i if in into is it its itself just let me
        more most my myself new no nor not now of off on once only or other our ours ourselves out over own
        same she should so some such than that the their theirs them themselves then there these they this
        those through to too under until up us very was we were what when where which while who whom why
        will with would you your yours yourself yourselves today tomorrow yesterday get got make made one
        two three via per read thanks thank next week see like need want know use using used four five six
        seven eight nine ten first last single every many much really keep tell think said says say go
        going come came take took put give gave look looks find found thing things way ways may might must
        monday tuesday wednesday thursday friday saturday sunday january february april june july august
        september october november december
        """,
    )
)


@dataclass(frozen=True, slots=True)
class Entities:
    links: tuple[str, ...]
    mentions: tuple[str, ...]
    hashtags: tuple[str, ...]

    def missing_from(self, text: str) -> list[str]:
        """What of these a text does not contain (links and mentions a draft must keep)."""
        return [e for e in (*self.links, *self.mentions) if e not in text]


# A link with a scheme, whatever its domain (twitter-text knows only real top-level domains);
# closing punctuation at its end belongs to the sentence.
_SCHEME_URL = regex.compile(r"https?://[^\s<>\"]+?(?=[.,;:!?)\]'’”]*(?:\s|$))", regex.IGNORECASE)


def link_spans(text: str) -> list[tuple[int, int]]:
    """Links: twitter-text's (bare domains too) and any URL with a scheme, merged."""
    spans = {tuple(u["indices"]) for u in extract_urls_with_indices(text)}
    spans |= {m.span() for m in _SCHEME_URL.finditer(text)}
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def protected_spans(text: str) -> list[tuple[int, int]]:
    """Spans no split may fall inside: links (with or without a scheme), mentions, hashtags."""
    links = link_spans(text)
    spans = list(links)
    for pattern in (MENTION, HASHTAG):
        spans += [m.span() for m in pattern.finditer(text) if not any(s <= m.start() < e for s, e in links)]
    return sorted(spans)


def entities(text: str) -> Entities:
    links = link_spans(text)

    def outside_links(m: regex.Match) -> bool:
        return not any(s <= m.start() < e for s, e in links)

    return Entities(
        tuple(dict.fromkeys(text[s:e] for s, e in links)),
        tuple(dict.fromkeys(m.group() for m in MENTION.finditer(text) if outside_links(m))),
        tuple(dict.fromkeys(m.group() for m in HASHTAG.finditer(text) if outside_links(m))),
    )


def _safe(position: int, spans: list[tuple[int, int]]) -> bool:
    return not any(s < position < e for s, e in spans)


def _split(text: str, pattern: regex.Pattern) -> list[str]:
    spans = protected_spans(text)
    pieces, start = [], 0
    for m in pattern.finditer(text):
        if m.end() > start and _safe(m.start(), spans) and _safe(m.end(), spans):
            piece = text[start : m.start()].strip() if m.start() > start else ""
            if m.start() == m.end():  # a zero-width end (CJK full stop)
                piece = text[start : m.end()].strip()
            if piece:
                pieces.append(piece)
            start = m.end()
    rest = text[start:].strip()
    if rest:
        pieces.append(rest)
    return pieces


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in regex.split(r"\n\s*\n", text.strip()) if p.strip()]


def sentences(text: str) -> list[str]:
    """Sentences, in order, lines kept apart; never split inside a link, mention or hashtag."""
    out = []
    for line in text.splitlines():
        line = _SPACE.sub(" ", line).strip()
        if line:
            out += _split(line, _SENTENCE_END)
    return out


def clauses(sentence: str) -> list[str]:
    """A sentence cut after commas, semicolons, colons and dashes, where that is safe."""
    return _split(sentence, _CLAUSE_END)


def words(text: str) -> list[str]:
    """Whitespace-separated tokens (a link, a mention or a hashtag is one token)."""
    return text.split()


def graphemes(text: str) -> list[str]:
    return regex.findall(r"\X", text)


def has_emoji(grapheme: str) -> bool:
    return bool(_EMOJI_CHAR.search(grapheme))


def strip_emoji(text: str) -> str:
    """The text without emoji graphemes (links, mentions and hashtags left as they are)."""
    spans = protected_spans(text)
    out, position = [], 0
    for g in graphemes(text):
        if not (has_emoji(g) and _safe(position, spans)):
            out.append(g)
        position += len(g)
    return _SPACE.sub(" ", "".join(out)).replace(" \n", "\n").strip()


def replace_terms(text: str, terms: list[tuple[str, str]]) -> str:
    """`instead_of` → `use`, as whole words, case-insensitively, never inside a link, mention or
    hashtag. A term written with capitals is the brand's casing and is kept exactly (`GitHub`,
    `iPhone`, also where the text wrote `github`); a lowercase one takes the capital of a word
    that had one (a sentence's first word)."""
    for use, instead_of in terms:
        pattern = regex.compile(
            rf"(?<![\p{{L}}\p{{N}}]){regex.escape(instead_of)}(?![\p{{L}}\p{{N}}])", regex.IGNORECASE
        )
        spans = protected_spans(text)
        pieces, last = [], 0
        for m in pattern.finditer(text):
            if not _safe(m.start(), spans) or not _safe(m.end() - 1, spans) or any(s == m.start() for s, _ in spans):
                continue
            found = m.group()
            replacement = use[:1].upper() + use[1:] if found[:1].isupper() and use == use.lower() else use
            pieces += [text[last : m.start()], replacement]
            last = m.end()
        text = "".join(pieces) + text[last:]
    return text


_NOUNISH = regex.compile(r"(?:tion|sion|ment|ness|ity|ship|ism|ence|ance|ics|ist|ogy|ware|er|or)$")
_VERBISH = regex.compile(r"(?:ed|ly)$")


@lru_cache(maxsize=1024)
def keywords(text: str, limit: int) -> tuple[str, ...]:
    """The text's most telling words and names, best first. A word scores by how often it
    appears, more when it is capitalised inside a sentence (a name, a product), looks like a noun
    (-tion, -ment, -ness, -er…), or comes early; less when it looks like a past verb or an adverb
    (-ed, -ly), and half when it opens a sentence (where verbs and imperatives stand: "Launching",
    "Join"), so a brief's first word is not its keyword by position alone. Two words make a
    phrase when both are capitalised (a name: "Brand Voice"), when the pair repeats, or when its
    second word, not a name, recurs in the text (the thing the text is about, with the word that
    qualifies it: "scheduled posts"). Links, mentions, existing hashtags and function words are never
    keywords."""
    cleaned = text
    for s, e in reversed(protected_spans(text)):
        cleaned = cleaned[:s] + " . " + cleaned[e:]
    scores: Counter[str] = Counter()
    shown: dict[str, str] = {}
    pairs: Counter[str] = Counter()
    occurrences: Counter[str] = Counter()
    capitals: set[str] = set()
    for sentence_index, sentence in enumerate(sentences(cleaned)):
        tokens = _WORD.findall(sentence)
        previous: str | None = None
        for position, token in enumerate(tokens):
            lower = token.lower().strip("'’-")
            if len(lower) < 3 or lower in STOPWORDS or any(c.isdigit() for c in lower):
                previous = None
                continue
            capital = token[:1].isupper() and position > 0
            if capital:
                capitals.add(lower)
            weight = (1.0 if position > 0 else 0.5) + (1.0 if capital else 0.0) + (0.3 if sentence_index == 0 else 0.0)
            weight += 0.4 if _NOUNISH.search(lower) else 0.0
            weight -= 0.6 if _VERBISH.search(lower) else 0.0
            scores[lower] += weight
            occurrences[lower] += 1
            shown.setdefault(lower, token)
            if previous is not None:
                pairs[f"{previous} {lower}"] += 1
                shown.setdefault(f"{previous} {lower}", f"{shown[previous]} {token}")
            previous = lower
    for pair, seen in pairs.items():
        first, second = pair.split(" ")
        qualified = occurrences[second] > 1 and second not in capitals and first not in capitals
        if (first in capitals and second in capitals) or seen > 1 or qualified:
            scores[pair] = scores[first] + scores[second]
    ranked = sorted(scores, key=lambda k: (-scores[k], k))
    out: list[str] = []
    for key in ranked:
        if any(key in kept.lower().split() or key == kept.lower() or kept.lower() in key.split() for kept in out):
            continue
        out.append(shown[key])
        if len(out) == limit:
            break
    return tuple(out)


def hashtag_of(phrase: str) -> str | None:
    """`launch day` → `#LaunchDay` (letters and digits only; None when nothing is left)."""
    parts = [regex.sub(r"[^\p{L}\p{N}_]", "", w) for w in phrase.split()]
    parts = [p for p in parts if p]
    if not parts:
        return None
    body = "".join(p[:1].upper() + p[1:] for p in parts) if len(parts) > 1 else parts[0]
    return "#" + body if regex.search(r"\p{L}", body) else None


# Wordy phrasings and their tight forms (English, as the stopwords): an arrangement says the same
# in fewer words. Announcement openers go whole ("We're excited to announce that X" → "X").
_WORDY = tuple(
    (regex.compile(rf"(?<![\p{{L}}\p{{N}}]){pattern}(?![\p{{L}}\p{{N}}])", regex.IGNORECASE), tight)
    for pattern, tight in (
        (
            r"(?:we|i)(?:'re|’re|'m|’m| are| am) (?:so |very |really |super )?"
            r"(?:excited|thrilled|happy|pleased|proud|delighted) to (?:announce|share|say|tell you) that",
            "",
        ),
        (r"(?:please )?note that", ""),
        (r"in order to", "to"),
        (r"due to the fact that", "because"),
        (r"at this (?:point|moment) in time", "now"),
        (r"in the near future", "soon"),
        (r"for the purpose of", "for"),
        (r"with regards? to", "about"),
        (r"prior to", "before"),
        (r"(?:is|are) able to", "can"),
        (r"a (?:large |great )?number of", "many"),
        (r"(?:very|really|actually|basically|literally|truly|quite)(?= [\p{L}\p{N}])", ""),
    )
)


@lru_cache(maxsize=4096)
def tighten(sentence: str) -> str:
    """The sentence in fewer words: wordy phrasings replaced by their tight forms and filler
    (announcement openers, intensifiers) removed, never inside a link, mention or hashtag; the
    first letter keeps the capital a removed opener had."""
    out = sentence
    for pattern, tight in _WORDY:
        if pattern.search(out) is None:
            continue  # most patterns find nothing: no spans to compute
        spans = protected_spans(out)
        pieces, last = [], 0
        for m in pattern.finditer(out):
            if _safe(m.start(), spans) and _safe(m.end(), spans) and all(s != m.start() for s, _ in spans):
                pieces += [out[last : m.start()], tight]
                last = m.end()
        out = "".join(pieces) + out[last:]
    out = regex.sub(r"\s+([,.;:!?…])", r"\1", _SPACE.sub(" ", out)).strip(" ,;:")
    if not regex.search(r"[\p{L}\p{N}]", out):
        return sentence  # nothing but filler: keep it as written
    starts_protected = any(start == 0 for start, _ in protected_spans(out))  # a link keeps its case
    if sentence[:1].isupper() and out[:1].islower() and not starts_protected:
        out = out[:1].upper() + out[1:]
    return out
