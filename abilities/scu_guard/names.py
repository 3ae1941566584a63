"""Allow-lists of named things, read from the rule and looked for in the claim.

"Lenses may be ordered only from Claridge Optics, Norland Lens or Vesper Vision", "Articulated buses may
be assigned only to routes 4, 12 and 19", "Only Kestrel K4, Osprey Lite 2 and Vireo 7 helicopters may use
the rooftop pad": the members share no common noun that names their kind, so the kind-noun reading
(``forms._allow_list``) cannot read them. What tells a member apart is its name: capitalised words and
codes ("Room 4", "K4", "80CrV2"). A claim breaks such a list when, speaking of the rule's thing, it puts a
name of the same sort in the list's slot (after the same kind of preposition, or with the list's label)
and that name matches no member.

Why names and codes only: a lowercase phrase in the slot ("the usual area", "a pet shop") may be any of
the members under another description; a different proper name or a different number cannot be.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from abilities.scu_guard import measure
from abilities.scu_guard.nlp import key, parse

# prepositions that open the same kind of slot: a place, a source, a recipient, a means
PREP_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"in", "at", "on", "inside", "into", "within", "over", "under", "onto"}),
    frozenset({"from"}),
    frozenset({"to", "with", "into"}),
    frozenset({"with", "using", "via", "through", "on"}),
)
# "only from A, B or C", "may only be stored in Zone H" (a verb between "only" and the slot's preposition);
# a period inside the list ("Hides & Co. or Vellum Works", "2025.5") does not end it
_ONLY_AFTER_RE = re.compile(r"(?<=\w )only\s+(?:(?:be\s+)?[a-z]+(?:ed|en)?\s+(?:place\s+)?(?=(?:to|inside|into|in|at|"
                            r"from|with|through|via|within|on|onto|over|using)\s))?(?:(?P<prep>to|inside|into|in|at|"
                            r"from|with|through|via|within|on|onto|over|using)\s+)?"
                            r"(?P<list>(?:[^.;]|\.(?=\d|\s+(?:or|and)\b|,))+)", re.I)
_ONLY_FIRST_RE = re.compile(r"^\s*only\s+(?P<list>.+?)\s+(?:may|can|must|shall|are|is)\b", re.I)
# what follows the list and is no part of it
_TAIL_RE = re.compile(r"\s+(?:when|whenever|if|unless|during|for|after|before|between|while|where|by|until|and only|"
                      r"once|except)\b.*$|,\s+(?:and|but|which|who)\b.*$", re.I)
_NOT_NAMES_RE = re.compile(r"^(?:when|whenever|if|once|after|before|between|by|during|until|while|where|one|a single|"
                           r"the first|twice|up to|at most|at least|within \d)\b|\b(?:mon|tues|wednes|thurs|fri|satur|"
                           r"sun)days?\b|\b(?:may|must|can|shall|should)\b", re.I)
# a list in brackets after the noun that names its kind: "on the approved diver list (Okafor, Lindqvist, Brennan)"
_PAREN_LIST_RE = re.compile(r"\((?P<inner>[^()]*,[^()]*)\)")
_SPLIT_RE = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
_ARTICLE_RE = re.compile(r"^(?:the|a|an|our|their|its)\s+", re.I)
_CODE_RE = re.compile(r"^(?:\d[\w.\-/]*|[A-Z]|[A-Z]+\d[\w\-]*|\w*\d\w*)$")
_CALENDAR = frozenset(measure.MONTHS) | frozenset(measure.WEEKDAYS)


def _is_code(word: str) -> bool:
    """A label's code: a number, a single capital letter, or letters and digits together ("K4", "80CrV2")."""
    return bool(_CODE_RE.match(word)) and not word.isalpha() or (len(word) == 1 and word.isupper())


def _norm(word: str) -> str:
    w = word.lower().strip(".,;:'\"()")
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


@dataclass(frozen=True)
class Member:
    """One member: its words (lowercased, a plural's "s" dropped) and its codes."""

    words: frozenset[str]
    codes: frozenset[str]


def member_of(text: str) -> Member:
    words = [w for w in re.findall(r"[\w&.\-/]+", _ARTICLE_RE.sub("", text.strip())) if w not in ("&", ".")]
    codes = frozenset(w.lower().strip(".") for w in words if _is_code(w.strip(".")))
    return Member(frozenset(_norm(w) for w in words if not _is_code(w.strip(".")) and _norm(w)), codes)


@dataclass(frozen=True)
class NamedList:
    """An allow-list of names as read from a rule: the members as written (lowercased, without an article),
    the preposition that opens the list's slot ("from"; "" when none) and the key of the noun that names the
    members' kind when the rule gives one ("helicopter" in "Only ... Vireo 7 helicopters may ...")."""

    names: tuple[str, ...]
    prep: str
    kind: str


def _has_name(item: str, first_word: str) -> bool:
    """Does a list item carry a name: a capitalised word (not merely the rule's first word) or a code?"""
    words = item.split()
    return any(_is_code(w.strip(".,")) or (w[:1].isupper() and w != first_word and w.lower() not in _CALENDAR)
               for w in words)


def read_named_list(text: str) -> NamedList | None:
    """The named allow-list of a rule, or None. Lists of times, days, amounts, doers ("only by"), conditions
    ("only when") and lists of common nouns are not read here."""
    first_word = text.strip().split()[0] if text.strip() else ""
    m = _ONLY_AFTER_RE.search(text)
    leading = _ONLY_FIRST_RE.match(text)
    if m is not None:
        prep, body = (m.group("prep") or "").lower(), m.group("list")
    elif leading is not None:
        prep, body = "", leading.group("list")
    else:
        return None
    body = _TAIL_RE.sub("", body).strip()
    kind = ""
    paren = _PAREN_LIST_RE.search(body) if ":" not in body else None
    if paren is not None:  # "Only acts on the approved act list (Duo Kestrel, Zorin the Juggler, ...) may perform"
        nouns = [t for t in parse(body[: paren.start()].strip()) if t.pos_ == "NOUN"]
        kind = key(nouns[0]) if nouns else ""  # the members' kind: "acts", not "list"
        body = paren.group("inner").strip()
    elif ":" in body:  # "the approved coopers: Hartwell Cooperage, Dunmore Barrels and Ostrander & Sons"
        head, body = body.split(":", 1)
        kind_tok = parse(head.strip())[-1] if head.strip() else None
        kind = key(kind_tok) if kind_tok is not None and kind_tok.pos_ == "NOUN" else ""
        body = body.strip()
    if not body or _NOT_NAMES_RE.search(body) or measure.find_clock_times(body):
        return None
    if any(not a.dim.startswith("count:") for a in measure.find_amounts(body)) or re.search(r"\d\.\d", body):
        return None  # "only on 2025.5 MHz or 2083.0 MHz": amounts (a decimal is measured, not a label)
    items = [_ARTICLE_RE.sub("", i.strip()) for i in _SPLIT_RE.split(body) if i.strip()]
    if not items or not all(_has_name(i, first_word) for i in items):
        return None
    if leading is not None and m is None and paren is None:
        # "Only A, B and C helicopters may ...": names, then the lowercase words of their kind; a role described
        # in words ("Only staff holding a Level 2 certificate", "Only the QA supervisor") is a doer, not a list
        last = parse(items[-1])[-1]
        if last.pos_ != "NOUN" or not last.text.islower():
            return None
        kind = key(last)
        words = items[-1].split()
        while words and words[-1].islower():
            words.pop()
        items[-1] = " ".join(words)
        if len(items) < 2 or not all(i and all(w[:1].isupper() or _is_code(w) or w == "&" for w in i.split())
                                     for i in items):
            return None
    # "routes 4, 12 and 19": a bare code takes the label of the item before it
    label = ""
    named: list[str] = []
    for item in items:
        words = item.split()
        if all(_is_code(w.strip(".,")) for w in words) and label:
            named.append(f"{label} {item}".lower())
            continue
        codes_at = [n for n, w in enumerate(words) if _is_code(w.strip(".,"))]
        label = " ".join(words[: codes_at[0]]) if codes_at and codes_at[0] > 0 else ""
        named.append(item.lower())
    if not kind and label:
        kind = key(parse(label)[-1])
    return NamedList(tuple(named), prep, kind)


def same_slot(rule_prep: str, claim_prep: str) -> bool:
    """Do two prepositions open the same kind of slot ("in"/"at"/"on" a place, "from" a source, ...)?"""
    return any(rule_prep in g and claim_prep in g for g in PREP_GROUPS)


def _shared(members: Sequence[Member]) -> frozenset[str]:
    """Words every member has (the label: "room" of "Consulting Room 1", "Consulting Room 2")."""
    if len(members) < 2:
        return frozenset()
    return frozenset.intersection(*(m.words for m in members))


def _acronym(short: Member, long: Member) -> bool:
    """Is one of ``short``'s words the initials of ``long``'s words ("cvp", "cloud video platform")?"""
    if len(long.words) < 2:
        return False
    return any(len(w) == len(long.words) and set(w) <= {x[0] for x in long.words} and
               sorted(w) == sorted(x[0] for x in long.words) for w in short.words)


def matches(candidate: Member, members: Sequence[Member], label: Iterable[str] = ()) -> bool:
    """Is a name the claim uses one of the members (or short for one: "Claridge" for "Claridge Optics")?
    Codes decide where both have them ("Room 3" is not "Room 1"); otherwise a word of its own in common."""
    shared = _shared(members) | frozenset(_norm(w) for w in label)
    for m in members:
        if _acronym(candidate, m) or _acronym(m, candidate):
            return True  # "Cloud Video Platform" is "CVP"
        if candidate.codes and m.codes:
            if candidate.codes & m.codes:
                return True
            continue
        own_c, own_m = candidate.words - shared, m.words - shared
        if (own_c & own_m) or not own_c or not own_m:
            return True
    return False


def name_spans(doc: Any, start: int, end: int, kind: str) -> list[list[Any]]:
    """Runs of name tokens in the sentence doc[start:end] (character offsets): capitalised words that are
    not the sentence's first word unless the parser calls them proper nouns, codes after such a word or
    after the kind's noun ("route 21"), joined by "&" or "-"."""
    runs: list[list[Any]] = []
    cur: list[Any] = []
    for t in doc:
        if not (start <= t.idx < end):
            continue
        first = t.idx == start or (t.i > 0 and doc[t.i - 1].text in ('"', "(", ":"))
        cap = t.text[:1].isupper() and t.is_alpha and (t.pos_ == "PROPN" or not first) and \
            t.lower_ not in _CALENDAR and t.pos_ not in ("PRON", "DET")
        code = _is_code(t.text) and not measure.find_clock_times(t.text) and (
            bool(cur) or (t.i > 0 and key(doc[t.i - 1]) == kind) or not t.like_num)
        label = bool(kind) and key(t) == kind and t.i + 1 < len(doc) and _is_code(doc[t.i + 1].text)
        if cap or code or label or (cur and t.text in ("&", "-")):
            cur.append(t)
            continue
        if cur:
            runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    return [r for r in runs if any(x.text[:1].isupper() or _is_code(x.text) for x in r)]
