"""Parse a constraint sentence into a typed rule (sans-I/O, deterministic).

Kinds, tried in this order:
- ``exclusion``: "A and B must never be in the same region" (two entities, a scope noun).
- ``temporal``: "never before 09:00", "no deployments on Fridays", "only between 01:00 and 04:00".
- ``numeric``: "at most 3 retries", "must not exceed 30 seconds", "at least 12 characters".
- ``allow_list``: "only example.com", "only EUR and USD" (members of a known kind).
- ``forbid`` / ``require`` / ``permit``: a polarity rule over subject, action and object
  ("X rejects null keys", "never log access tokens", "all requests must use TLS").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from abilities.scu_guard.lexicon import (
    ACTION_CONCEPTS,
    DENY,
    DOMAIN_RE,
    EMAIL_RE,
    GENERIC,
    KIND_MEMBERS,
    NEGATORS,
    PERMIT,
    REGION_RE,
    REQUIRE,
    STOP,
    UNIVERSAL,
    stem,
)
from abilities.scu_guard.quantities import (
    GT,
    LT,
    TIME_RE,
    Quantity,
    find_days,
    find_quantities,
    find_times,
    unit_of,
)
from abilities.scu_guard.text import Token, polarity, tokenize

VERSION_RE = re.compile(
    r"\b(TLS|SSL|HTTP|Python|Java|Node(?:\.js)?|PHP|Ruby|Go|OpenSSL|IPv|Postgres(?:QL)?|MySQL)\s*v?(\d+(?:\.\d+)*)\b",
    re.I,
)
MODAL_CHAIN = frozenset(
    {
        "must",
        "never",
        "not",
        "n't",
        "be",
        "been",
        "is",
        "are",
        "only",
        "always",
        "ever",
        "may",
        "can",
        "should",
        "shall",
        "to",
        "will",
        "do",
        "does",
        "no",
        "longer",
        "exclusively",
        "solely",
        "also",
    }
)
LOCATIVE = frozenset({"in", "on", "at", "inside", "within", "during", "throughout", "across"})
PREPOSITIONS = frozenset(
    {
        "as",
        "inside",
        "outside",
        "beyond",
        "during",
        "throughout",
        "in",
        "on",
        "at",
        "to",
        "from",
        "for",
        "with",
        "by",
        "via",
        "using",
        "into",
        "of",
        "over",
        "under",
        "about",
        "across",
        "through",
        "within",
    }
)
CLAUSE_LINKS = frozenset({"before", "after", "until", "when", "while", "once"})
INSTRUMENT = frozenset({"with", "using", "via", "by", "through"})
SCOPES = (
    "region",
    "zone",
    "host",
    "rack",
    "datacenter",
    "data center",
    "cluster",
    "node",
    "server",
    "availability zone",
    "account",
    "subnet",
    "machine",
    "vpc",
    "building",
    "team",
    "shift",
)
CABIN_RE = re.compile(
    r"\b(premium\s+economy|economy|business(?=\s+class)|first(?=\s+class))(?:\s+(?:class|cabin|seats?))?\b",
    re.I,
)
LABEL_RE = re.compile(
    r"\b(zone|gate|dock|bay|building|wing|ward|lane|platform|terminal|hangar|pier|berth|room|floor|level)"
    r"\s+([A-Z]|\d{1,4}[A-Za-z]?)\b(?![%°.,:]?\d)(?!\s*(?:%|°))"
)
PAYMENT_RE = re.compile(
    r"\b(?:cash|gift cards?|vouchers?|cheques?|credit cards?|debit cards?|paypal|crypto(?:currency)?)\b", re.I
)
EXCLUSION_RE = re.compile(
    r"\b(?:same|shared?|co-?locat\w*|colocat\w*|together|different|separate|distinct)\b", re.I
)


@dataclass(frozen=True)
class Rule:
    """A typed reading of one constraint. Unused fields stay empty for a kind."""

    kind: str
    constraint: str
    subject: frozenset[str] = frozenset()
    subject_head: str = ""
    subject_universal: bool = False
    action: str = ""
    action_stems: frozenset[str] = frozenset()
    obj: frozenset[str] = frozenset()
    obj_head: str = ""
    obj_optional: bool = False
    obj_locative: bool = False
    obj_np: frozenset[str] = frozenset()
    keys: frozenset[str] = frozenset()
    members: tuple[str, ...] = ()
    member_kind: str = ""
    bound: Quantity | None = None
    forbidden_minutes: tuple[tuple[float, float], ...] = ()
    forbidden_days: frozenset[int] = frozenset()
    entities: tuple[str, ...] = ()
    scope: str = ""
    then: Rule | None = None  # conditional: the rule that holds when ``bound`` (the trigger) is met
    all_stems: frozenset[str] = field(default_factory=frozenset)


def _content(tokens: list[Token]) -> list[str]:
    out = []
    for t in tokens:
        if t.negator or t.low in STOP or t.low in UNIVERSAL:
            continue
        out.extend(s for s in t.stems if s not in STOP and s not in NEGATORS and len(s) > 0)
    return out


def _is_cue(t: Token) -> bool:
    if t.negator or t.low in ("must", "may", "can", "should", "shall", "only", "always"):
        return True
    return any(
        s in DENY or s in PERMIT or s in REQUIRE or any(s in v for v in ACTION_CONCEPTS.values())
        for s in t.stems
    )


def _is_strong_cue(t: Token) -> bool:
    """Modals, negators, deny/permit/require words: they mark the predicate more surely than verbs."""
    if t.negator or t.low in ("must", "may", "can", "should", "shall", "only", "always"):
        return True
    return any(s in DENY or s in PERMIT or s in REQUIRE for s in t.stems)


def action_concept(stems: set[str] | frozenset[str] | tuple[str, ...]) -> str:
    """The first action concept (alphabetical, so deterministic) any of the stems belongs to."""
    for name in sorted(ACTION_CONCEPTS):
        if any(s in ACTION_CONCEPTS[name] for s in stems):
            return name
    return ""


def member_mentions(text: str, kind: str) -> list[tuple[str, int, int]]:
    """Members of ``kind`` named in ``text``: (normalized member, start, end)."""
    out: list[tuple[str, int, int]] = []
    if kind == "domain":
        seen: list[tuple[int, int]] = []
        for m in EMAIL_RE.finditer(text):
            out.append((m.group(1).lower(), m.start(), m.end()))
            seen.append((m.start(), m.end()))
        for m in DOMAIN_RE.finditer(text):
            if not any(s <= m.start() < e for s, e in seen):
                out.append((m.group(0).lower(), m.start(), m.end()))
    elif kind == "region":
        out.extend((m.group(0).lower(), m.start(), m.end()) for m in REGION_RE.finditer(text))
    elif kind.startswith("label:"):
        noun = kind.split(":", 1)[1]
        for m in LABEL_RE.finditer(text):
            if m.group(1).lower() == noun:
                out.append((f"{noun} {m.group(2).lower()}", m.start(), m.end()))
    elif kind == "cabin":  # travel classes, ordered economy < premium economy < business < first
        for m in CABIN_RE.finditer(text):
            out.append((re.sub(r"\s+", " ", m.group(1).lower()), m.start(), m.end()))
    elif kind == "payment":
        for m in PAYMENT_RE.finditer(text):
            out.append((" ".join(stem(w) for w in m.group(0).lower().split()), m.start(), m.end()))
    elif kind == "version":
        for m in VERSION_RE.finditer(text):
            out.append((f"{m.group(1).lower()} {m.group(2)}", m.start(), m.end()))
    elif kind in KIND_MEMBERS:
        lex = KIND_MEMBERS[kind]
        for m in re.finditer(r"[\w$€£]+", text):
            w = m.group(0).lower()
            if w in lex:
                out.append((lex[w], m.start(), m.end()))
    return sorted(out, key=lambda x: x[1])


def _members(text: str) -> tuple[str, tuple[str, ...]]:
    for kind in (
        "version",
        "domain",
        "region",
        "currency",
        "format",
        "database",
        "cabin",
        "colour",
        "payment",
    ):
        found = member_mentions(text, kind)
        if found:
            return kind, tuple(dict.fromkeys(m for m, _, _ in found))
    labels = LABEL_RE.search(text)  # "zone H", "gate 3": labelled places form a kind of their own
    if labels:
        kind = "label:" + labels.group(1).lower()
        return kind, tuple(dict.fromkeys(m for m, _, _ in member_mentions(text, kind)))
    return "", ()


def parse_rule(constraint: str) -> Rule:
    """Read one constraint. Unreadable ones become a ``require``/``forbid`` rule on their words."""
    text = constraint.strip()
    low = text.lower()
    tokens = tokenize(text)
    stems = frozenset(s for t in tokens for s in t.stems)
    pol = polarity(tokens)
    rule = (
        _exclusion(text, tokens, pol)
        or _temporal(text, tokens, pol)
        or _conditional(text, tokens)
        or _numeric(text, tokens)
        or _allow_list(text, low, tokens)
    )
    if rule is None:
        rule = _only_agent(text) or _polarity_rule(text, tokens, pol)
    return Rule(**{**rule.__dict__, "all_stems": stems})


def _exclusion(text: str, tokens: list[Token], pol: int) -> Rule | None:
    m = EXCLUSION_RE.search(text)
    if m is None:
        return None
    word = m.group(0).lower()
    different = word in ("different", "separate", "distinct")
    if (pol < 0) == different:  # "never the same" or "must be different"; anything else is not exclusion
        return None
    scope = ""
    rest = text[m.end() :].lower()
    for sc in SCOPES:
        if re.match(rf"\s*{sc}s?\b", rest) or (word.startswith("share") and re.search(rf"\b{sc}", rest)):
            scope = sc
            break
    if not scope:
        nxt = re.match(r"\s*(?:an?\s+|the\s+)?([a-z][a-z-]+)", rest)
        if nxt and nxt.group(1) not in STOP:
            scope = nxt.group(1).rstrip("s")
    if not scope and not word.startswith(("co", "together")):
        return None
    head_end = min(
        (t.start for t in tokens if _is_cue(t) or t.low in ("be", "is", "are", "run", "share", "shares")),
        default=len(text),
    )
    subject_text = text[:head_end]
    parts = re.split(r"\band\b|\bwith\b|,", subject_text, flags=re.I)
    if len(parts) < 2 and " with " in text.lower():
        parts = [subject_text, text.lower().split(" with ", 1)[1]]
    ents = []
    for p in parts:
        c = _content(tokenize(p))
        c = [s for s in c if s not in ("it", "their", "the", "its")]
        if c:
            ents.append(c[0])
    if len(ents) < 2:
        return None
    return Rule("exclusion", text, entities=tuple(ents[:2]), scope=scope)


def _temporal(text: str, tokens: list[Token], pol: int) -> Rule | None:
    times = find_times(text, 0, len(text))
    days, day_spans = find_days(text, 0, len(text))
    if not times and not days:
        return None
    only = bool(re.search(r"\bonly\b|\bexclusively\b", text, re.I))
    minutes: list[tuple[float, float]] = []
    split = []
    for ts in times:  # a window across midnight (22:00 to 06:00) is two windows
        if ts.hi < ts.lo:
            split += [type(ts)(ts.lo, 1440.0, ts.start, ts.end), type(ts)(0.0, ts.hi, ts.start, ts.end)]
        else:
            split.append(ts)
    times = split
    for ts in times:
        if only and pol > 0:
            if ts.lo > 0:
                minutes.append((0.0, ts.lo))
            if ts.hi < 1440:
                minutes.append((ts.hi, 1440.0))
        elif pol < 0:
            minutes.append((ts.lo, ts.hi))
    fdays: frozenset[int] = frozenset()
    if days:
        fdays = (
            frozenset(set(range(7)) - set(days)) if (only and pol > 0) else (days if pol < 0 else frozenset())
        )
    if not minutes and not fdays:
        return None
    masked = [(ts.start, ts.end) for ts in times] + day_spans
    keep = [t for t in tokens if not any(s <= t.start < e for s, e in masked)]
    content = [s for s in _content(keep) if s not in _TEMPORAL_NOISE]
    return Rule(
        "temporal", text, keys=frozenset(content), forbidden_minutes=tuple(minutes), forbidden_days=fdays
    )


_TEMPORAL_NOISE = frozenset(
    {
        "allow",
        "befor",
        "after",
        "between",
        "utc",
        "local",
        "time",
        "happen",
        "tak",
        "plac",
        "permit",
        "schedul",
        "start",
        "run",
        "day",
    }
)
_NUMERIC_NOISE = frozenset(
    {
        "most",
        "least",
        "more",
        "less",
        "fewer",
        "exceed",
        "maximum",
        "minimum",
        "max",
        "min",
        "limit",
        "within",
        "up",
        "than",
        "long",
        "longer",
        "no",
        "tim",
        "rat",
        "per",
        "exc",
        "mor",
        "minut",
        "second",
        "hour",
        "day",
    }
)


COND_LEAD = re.compile(r"\b(?:when|whenever|if|where|for|on)\s+(?P<what>[^,;]*)$", re.I)


def _conditional(text: str, tokens: list[Token]) -> Rule | None:
    """A threshold that triggers a rule: "Claims above 5,000 USD require an inspection", "Concrete must
    not be poured when the temperature is below 5 °C", "book economy for flights under 6 hours".
    The comparative is the trigger (``bound``), the rest of the sentence the rule it triggers (``then``).
    """
    masked = [(ts.start, ts.end) for ts in find_times(text, 0, len(text))]
    qs = [q for q in find_quantities(text, 0, len(text), masked) if q.comparative]
    if not qs:
        return None
    q = qs[0]
    op = GT.search(text[: q.start]) or LT.search(text[: q.start])
    if op is None:
        return None
    num = re.match(r"[\d.,]+", text[q.start :])
    cut = q.end
    if num and any(_is_strong_cue(t) for t in tokens if q.start + num.end() <= t.start < q.end):
        cut = q.start + num.end()  # "under 16 require": the verb was read as the count's noun
    cue = next((t for t in tokens if _is_strong_cue(t) and not (op.start() <= t.start < cut)), None)
    if cue is None:
        return None
    if cut <= cue.start:  # the trigger qualifies the subject
        rest = text[: op.start()] + text[cut:]
    else:  # a trailing condition clause that names what it measures ("when the temperature is ...")
        lead = COND_LEAD.search(text[: op.start()])
        if lead is None or lead.start() < cue.end or not _content(tokenize(lead.group("what"))):
            return None
        rest = text[: lead.start()] + text[cut:]
    rest = re.sub(r"\s+", " ", rest).strip()
    rtoks = tokenize(rest)
    then = _polarity_rule(rest, rtoks, polarity(rtoks))
    kind, members = _members(rest)
    if members:
        then = Rule(**{**then.__dict__, "members": members, "member_kind": kind})
    keep = [t for t in tokens if not (op.start() <= t.start < q.end)]
    keys = frozenset(s for s in _content(keep) if s not in _NUMERIC_NOISE and unit_of(s) is None)
    return Rule("conditional", text, keys=keys, bound=q, then=then)


def _numeric(text: str, tokens: list[Token]) -> Rule | None:
    masked = [(ts.start, ts.end) for ts in find_times(text, 0, len(text))]
    qs = [q for q in find_quantities(text, 0, len(text), masked) if q.form in ("ceiling", "floor", "range")]
    if not qs:
        return None
    q = qs[0]
    keep = [t for t in tokens if not (q.start <= t.start < q.end) and not any(ch.isdigit() for ch in t.low)]
    content = [s for s in _content(keep) if s not in _NUMERIC_NOISE]
    content = [s for s in content if not s.isdigit()]
    content = [s for s in content if unit_of(s) is None]  # unit words are not keys
    return Rule("numeric", text, keys=frozenset(content), bound=q)


def _allow_list(text: str, low: str, tokens: list[Token]) -> Rule | None:
    if not re.search(r"\bonly\b|\bexclusively\b|\bsolely\b", low):
        return None
    kind, members = _members(text)
    if not members:
        return None
    return Rule("allow_list", text, members=members, member_kind=kind)


ONLY_AGENT_RE = re.compile(
    r"^\s*only\s+(?P<who>[\w'’ -]{1,60}?)\s+(?P<modal>may|can|are allowed to|is allowed to|are permitted to"
    r"|is permitted to|should|shall)\s+(?P<rest>.+)$",
    re.I,
)


def _only_agent(text: str) -> Rule | None:
    """ "Only registrars may handle loaned artworks": the action is reserved to one kind of agent."""
    m = ONLY_AGENT_RE.match(text)
    if m is None:
        return None
    inner_text = f"{m.group('who')} may {m.group('rest')}"
    inner_toks = tokenize(inner_text)
    inner = _polarity_rule(inner_text, inner_toks, polarity(inner_toks))
    if not inner.subject_head or not inner.action_stems or inner.kind != "permit":
        return None
    return Rule(**{**inner.__dict__, "kind": "only_agent", "constraint": text})


def _np_head(stems: list[str]) -> str:
    return stems[-1] if stems else ""


# "of any kind", "of every sort": a postmodifier that stresses the noun before it ("Glass items of any kind"),
# not a noun of its own nor a universal subject ("any item")
_KIND_WORDS = frozenset({"kind", "kinds", "sort", "sorts", "type", "types", "description", "descriptions",
                         "form", "forms", "variety", "varieties"})


def _drop_kind_phrase(toks: list[Token]) -> list[Token]:
    """The tokens without an "of any kind" that follows a noun: "Glass items of any kind" is said of glass
    items, read as "glass items"; a phrase standing first ("Any kind of glass") is left as it is."""
    out: list[Token] = []
    i = 0
    while i < len(toks):
        if i > 0 and i + 2 < len(toks) and toks[i].low == "of" and toks[i + 1].low in ("any", "every", "all") \
                and toks[i + 2].low in _KIND_WORDS:
            i += 3
            continue
        out.append(toks[i])
        i += 1
    return out


def _polarity_rule(text: str, tokens: list[Token], pol: int) -> Rule:
    tokens = _drop_kind_phrase(tokens)
    idx = next((i for i, t in enumerate(tokens) if _is_strong_cue(t)), None)
    if idx is None:
        idx = next((i for i, t in enumerate(tokens) if i > 0 and _is_cue(t)), None)
    if idx is None:
        content = _content(tokens)
        return Rule(
            "require",
            text,
            subject=frozenset(content[:1]),
            subject_head=_np_head(content[:1]),
            obj=frozenset(content[1:]),
            obj_head=_np_head(content[1:2]),
        )
    subj_toks = tokens[:idx]
    universal = any(t.low in UNIVERSAL for t in subj_toks) or not subj_toks
    subj = _content(subj_toks)
    j = idx
    while j < len(tokens) and (tokens[j].low in MODAL_CHAIN or tokens[j].negator):
        j += 1
    action_tok = None
    pred_tok = tokens[idx]
    if (
        any(s in DENY or s in PERMIT or s in REQUIRE for s in pred_tok.stems)
        and not pred_tok.negator
        and pred_tok.low not in MODAL_CHAIN
    ):
        action_tok = pred_tok
        j = idx + 1
    elif j < len(tokens) and tokens[j].low not in PREPOSITIONS and tokens[j].low not in UNIVERSAL:
        action_tok = tokens[j]
        j += 1
    rest = tokens[j:]
    locative = bool(rest) and rest[0].low in LOCATIVE
    instrument = bool(rest) and rest[0].low in INSTRUMENT or locative
    obj_universal = bool(rest) and any(t.low in UNIVERSAL for t in rest[:3])
    while rest and (rest[0].low in PREPOSITIONS or rest[0].low in STOP):
        rest = rest[1:]
    first_np: list[Token] = []
    for t in rest:
        if t.low in PREPOSITIONS or t.low in CLAUSE_LINKS:
            break
        first_np.append(t)
    if any(t.low.endswith(("'s", "’s")) for t in first_np[:-1]):  # "the patient's identity": not the patient
        k = max(i for i, t in enumerate(first_np[:-1]) if t.low.endswith(("'s", "’s")))
        first_np = first_np[k + 1 :]
    obj = _content([t for t in rest if t.low not in PREPOSITIONS and t.low not in CLAUSE_LINKS])
    np_stems = _content(first_np)
    head = _np_head(np_stems)
    if head in GENERIC and len(np_stems) > 1:
        head = np_stems[-2]
    action = ""
    astems: frozenset[str] = frozenset()
    kind = "require"
    if action_tok is not None:
        astems = frozenset(action_tok.stems)
        if any(s in DENY for s in action_tok.stems):
            action, kind = "PERMIT", "forbid" if pol < 0 else "require"
            if pol > 0:  # "X rejects null keys" has polarity -1, so this is a doubly negated deny
                action = "PERMIT"
        elif any(s in PERMIT for s in action_tok.stems) and action_concept(action_tok.stems) in (
            "PERMIT",
            "",
        ):
            action, kind = "PERMIT", "forbid" if pol < 0 else "permit"
        else:
            action = action_concept(action_tok.stems)
            kind = "forbid" if pol < 0 else "require"
            lows = {t.low for t in tokens}
            if kind == "require" and lows & {"may", "can"} and not lows & {"must", "only", "shall", "always"}:
                kind = "permit"
    elif pol < 0:
        kind = "forbid"
    elif any(t.low in ("may", "can") for t in tokens) and not any(t.low == "only" for t in tokens):
        kind = "permit"
    subj_stems = [s for s in subj if s not in REQUIRE]
    subj_head = _np_head(subj_stems)
    if subj_head in GENERIC and len(subj_stems) > 1:  # "firmware updates" are about firmware
        subj_head = subj_stems[-2]
    return Rule(
        kind,
        text,
        subject=frozenset(subj_stems),
        subject_head=subj_head,
        subject_universal=universal,
        action=action,
        action_stems=astems,
        obj=frozenset(s for s in obj if s not in REQUIRE),
        obj_head=head,
        obj_np=frozenset(np_stems) - GENERIC,
        obj_optional=instrument or obj_universal or not obj,
        obj_locative=locative or obj_universal or not obj,
        keys=frozenset(subj_stems) | frozenset(obj),
    )


def rule_summary(rule: Rule) -> dict[str, object]:
    """A small JSON-safe view of a rule for receipts and traces."""
    out: dict[str, object] = {"kind": rule.kind}
    if rule.kind in ("forbid", "require", "permit", "only_agent"):
        out.update(subject=sorted(rule.subject), action=rule.action, object=sorted(rule.obj))
    elif rule.kind == "allow_list":
        out.update(member_kind=rule.member_kind, members=list(rule.members))
    elif rule.kind == "numeric" and rule.bound is not None:
        b = rule.bound
        out.update(form=b.form, dim=b.dim, lo=_num(b.lo), hi=_num(b.hi), keys=sorted(rule.keys))
    elif rule.kind == "temporal":
        out.update(
            forbidden_minutes=[list(x) for x in rule.forbidden_minutes],
            forbidden_days=sorted(rule.forbidden_days),
            keys=sorted(rule.keys),
        )
    elif rule.kind == "exclusion":
        out.update(entities=list(rule.entities), scope=rule.scope)
    elif rule.kind == "conditional" and rule.bound is not None and rule.then is not None:
        b = rule.bound
        out.update(
            trigger={"form": b.form, "dim": b.dim, "lo": _num(b.lo), "hi": _num(b.hi)},
            then=rule_summary(rule.then),
            keys=sorted(rule.keys),
        )
    return out


def _num(x: float) -> float | str:
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return round(x, 9)


__all__ = ["Rule", "parse_rule", "rule_summary", "member_mentions", "action_concept", "TIME_RE"]
