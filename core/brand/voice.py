"""The brand voice document: its fields, their limits, and merging a profile's override into the
organization's voice (docs/brand-voice.md). Pure: no I/O."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace

import regex

from core.brand.never_publish import fold
from core.errors import ValidationError

EMOJI_HABITS = ("none", "sparing", "frequent")
HASHTAG_HABITS = ("none", "few", "many")
DEFAULT_EMOJI = "sparing"
DEFAULT_HASHTAGS = "few"

# Limits, sized after what peers take (docs/brand-voice.md, "The document": JieGou's 2,000
# characters of instructions and samples of 1,000; here examples are whole posts, up to 5,000).
MAX_DESCRIPTION = 2000
MAX_TONE = 10
MAX_TONE_WORD = 40
MAX_AUDIENCE = 1000
MAX_EXAMPLES = 10
MAX_EXAMPLE = 5000
MAX_PHRASES = 200
MAX_PHRASE = 100
MAX_TERMS = 100
MAX_TERM = 100
MAX_SIGNATURE_HASHTAGS = 10
_HASHTAG = regex.compile(r"^#?([\p{L}\p{N}_]{1,50})$")


@dataclass(frozen=True, slots=True)
class PreferredTerm:
    use: str
    instead_of: str


@dataclass(frozen=True, slots=True)
class VoiceDocument:
    """One voice as stored. In a profile's override an empty field means "as the organization's"."""

    description: str = ""
    tone: tuple[str, ...] = ()
    audience: str = ""
    examples: tuple[str, ...] = ()
    never_publish: tuple[str, ...] = ()
    preferred_terms: tuple[PreferredTerm, ...] = ()
    emoji: str = ""  # "" = not set (the default, or the organization's)
    hashtags: str = ""
    signature_hashtags: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> VoiceDocument:
        data = json.loads(text)
        return cls(
            description=data["description"],
            tone=tuple(data["tone"]),
            audience=data["audience"],
            examples=tuple(data["examples"]),
            never_publish=tuple(data["never_publish"]),
            preferred_terms=tuple(PreferredTerm(**t) for t in data["preferred_terms"]),
            emoji=data["emoji"],
            hashtags=data["hashtags"],
            signature_hashtags=tuple(data["signature_hashtags"]),
        )


def _text(name: str, value: str, limit: int) -> str:
    value = value.strip()
    if len(value) > limit:
        raise ValidationError(f"{name} is {len(value)} characters; the maximum is {limit}")
    return value


def _texts(name: str, values: tuple[str, ...], count: int, limit: int) -> tuple[str, ...]:
    if len(values) > count:
        raise ValidationError(f"{name} has {len(values)} entries; the maximum is {count}")
    cleaned = tuple(_text(f"{name}[{i}]", v, limit) for i, v in enumerate(values))
    if any(not v for v in cleaned):
        raise ValidationError(f"{name} has a blank entry")
    return cleaned


def validated(doc: VoiceDocument) -> VoiceDocument:
    """The document with its texts trimmed and hashtags spelled `#tag`, or VALIDATION_ERROR."""
    phrases = _texts("never_publish", doc.never_publish, MAX_PHRASES, MAX_PHRASE)
    folded = [fold(p) for p in phrases]
    if any(not f for f in folded):
        raise ValidationError("never_publish has a phrase with nothing to match once folded")
    repeated = sorted({p for p, f in zip(phrases, folded, strict=True) if folded.count(f) > 1})
    if repeated:
        raise ValidationError(f"never_publish lists {', '.join(map(repr, repeated[:5]))} more than once (compared folded)")
    if len(doc.preferred_terms) > MAX_TERMS:
        raise ValidationError(f"preferred_terms has {len(doc.preferred_terms)} entries; the maximum is {MAX_TERMS}")
    terms = []
    for i, term in enumerate(doc.preferred_terms):
        use = _text(f"preferred_terms[{i}].use", term.use, MAX_TERM)
        instead_of = _text(f"preferred_terms[{i}].instead_of", term.instead_of, MAX_TERM)
        if not use or not instead_of:
            raise ValidationError(f"preferred_terms[{i}] needs both `use` and `instead_of`")
        terms.append(PreferredTerm(use, instead_of))
    if doc.emoji not in ("", *EMOJI_HABITS):
        raise ValidationError(f"emoji must be one of {', '.join(EMOJI_HABITS)}")
    if doc.hashtags not in ("", *HASHTAG_HABITS):
        raise ValidationError(f"hashtags must be one of {', '.join(HASHTAG_HABITS)}")
    if len(doc.signature_hashtags) > MAX_SIGNATURE_HASHTAGS:
        raise ValidationError(f"signature_hashtags has more than {MAX_SIGNATURE_HASHTAGS} entries")
    tags = []
    for tag in doc.signature_hashtags:
        match = _HASHTAG.match(tag.strip())
        if match is None:
            raise ValidationError(f"signature_hashtags: {tag[:60]!r} is not a hashtag (1-50 letters, digits or _)")
        tags.append("#" + match.group(1))
    return VoiceDocument(
        description=_text("description", doc.description, MAX_DESCRIPTION),
        tone=_texts("tone", doc.tone, MAX_TONE, MAX_TONE_WORD),
        audience=_text("audience", doc.audience, MAX_AUDIENCE),
        examples=_texts("examples", doc.examples, MAX_EXAMPLES, MAX_EXAMPLE),
        never_publish=phrases,
        preferred_terms=tuple(terms),
        emoji=doc.emoji,
        hashtags=doc.hashtags,
        signature_hashtags=tuple(dict.fromkeys(tags)),
    )


def effective(organization: VoiceDocument, override: VoiceDocument | None) -> VoiceDocument:
    """The voice in effect for a profile: the override's set fields replace the organization's;
    never-publish phrases add up (an override can never allow what the organization forbids)."""
    if override is None:
        return _with_defaults(organization)
    merged = replace(
        organization,
        **{
            name: value
            for name, value in (
                ("description", override.description),
                ("tone", override.tone),
                ("audience", override.audience),
                ("examples", override.examples),
                ("preferred_terms", override.preferred_terms),
                ("emoji", override.emoji),
                ("hashtags", override.hashtags),
                ("signature_hashtags", override.signature_hashtags),
            )
            if value
        },
        never_publish=tuple(dict.fromkeys((*organization.never_publish, *override.never_publish))),
    )
    return _with_defaults(merged)


def _with_defaults(doc: VoiceDocument) -> VoiceDocument:
    return replace(doc, emoji=doc.emoji or DEFAULT_EMOJI, hashtags=doc.hashtags or DEFAULT_HASHTAGS)
