"""A duty a rule's condition sets off, to be done the same day, at once or within hours or days, that the claim
dates to another day than the event that set it off: "If a resident's temperature is 38 °C or higher, the GP must
be contacted the same day" against "She ran 100.8 °F on Saturday morning ...; the GP was rung on Sunday morning".

Why its own module: a deadline counted from a rule's condition has no amount a claim measures against a band, and
no second event the rule names; it is broken by two days the claim gives: the day the condition was met (in the
rule's own terms: two of the condition's own words and at least half of them, or an amount inside the band that switches the rule on) and a
later day on which the required act was done (the rule's verb, or a verb of the same kind by WordNet's lexicographer
files: "emailed", "phoned" for "notified"). Days are compared at the resolution the claim gives them: two dates by
their days, two weekdays by their names; "the next morning" counts from the day told before it. A claim that also
tells the act without a day of its own, or on the condition's day, keeps the rule; so does a denied, permitted or
optional clause. For "within N hours/days" only dates far enough apart break it: the least time between two days
d apart is d - 1 whole days.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from abilities.scu_guard import measure, wordnet
from abilities.scu_guard.conditions import _inside
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.forms import _CONDITION_MARKS, GENERIC, Form, _condition_clause
from abilities.scu_guard.judge import ASCERTAIN_VERBS, LIGHT_VERBS, Claim, Clause, _finding
from abilities.scu_guard.nlp import key, parse

# the act must fall on the condition's own day
_SAME_DAY_RE = re.compile(r"\b(?:on\s+)?(?:the|that)\s+same\s+(?:working\s+|business\s+|calendar\s+)?day\b|"
                          r"\b(?:immediately|at\s+once|straight\s+away|without\s+delay)\b", re.I)
_WITHIN_RE = re.compile(r"\bwithin\s+(?:an?\s+|one\s+|\d+\s+)(?:hour|day)s?\b", re.I)
# a day told by its relation to the one before it
_NEXT_DAY_RE = re.compile(r"\b(?:the\s+)?(?:next|following)\s+(?:day|morning|afternoon|evening|night)\b|"
                          r"\bthe\s+day\s+after\b", re.I)
_SAME_AS_BEFORE_RE = re.compile(r"\b(?:that|the)\s+same\s+(?:day|morning|afternoon|evening|night|"
                                + "|".join(measure.WEEKDAYS) + r")\b|\b(?:later\s+)?that\s+(?:day|morning|"
                                r"afternoon|evening|night)\b|\bthe\s+same\s+day\b", re.I)
_CONTENT = ("NOUN", "PROPN", "VERB", "ADJ")


@dataclass(frozen=True)
class Deadline:
    """A conditional duty's deadline: the keys of its condition's own words, the lemmas and keys of its act, the
    keys of the act's recipient or thing, the act's kind (WordNet lexicographer file), and the time allowed
    (None: the same day)."""

    condition: frozenset[str]
    states: frozenset[str]  # the lemmas of the condition's own verbs and adjectives: what happened, or how it is
    state_keys: frozenset[str]
    act_lemmas: frozenset[str]
    act_keys: frozenset[str]
    recipients: frozenset[str]
    kinds: frozenset[int]
    seconds: float | None


@dataclass(frozen=True)
class Day:
    """A day the claim tells: its ordinal (a dated day) and its weekday (0 = Monday), either may be unknown."""

    start: int
    end: int
    ordinal: int | None
    weekday: int | None


@lru_cache(maxsize=4096)
def deadline(text: str, modality: str, seconds: float | None) -> Deadline | None:
    """The deadline a conditional duty sets, or None when the rule is not one ("If ..., X must be Yed the same
    day", "..., immediately", "... within 24 hours")."""
    if modality != "must":
        return None
    same = _SAME_DAY_RE.search(text)
    within = _WITHIN_RE.search(text) if seconds else None
    if same is None and within is None:
        return None
    doc = parse(text)
    cond = _condition_clause(doc)
    if cond is None:
        return None
    inside = _condition_span(doc, cond)
    at = same or within
    assert at is not None
    if any(t.i in inside for t in doc if at.start() <= t.idx < at.end()):
        return None  # the time is the condition's own ("began within the past 72 hours")
    main = [t for t in doc if t.i not in inside and not at.start() <= t.idx < at.end()]
    acts = [t for t in main if t.pos_ == "VERB" and t.dep_ in ("ROOT", "conj") and key(t) not in LIGHT_VERBS
            and t.lemma_.lower() not in wordnet.TOO_GENERAL_VERBS]
    if not acts:
        return None
    act_ids = {t.i for t in acts}
    recipients = {key(t) for t in main if t.pos_ in ("NOUN", "PROPN") and (
        t.dep_ in ("nsubjpass", "dobj", "dative") and t.head.i in act_ids
        or t.dep_ == "pobj" and t.head.dep_ in ("prep", "dative") and t.head.head.i in act_ids
        or t.dep_ == "compound" and t.head.dep_ in ("nsubjpass", "dobj", "pobj"))}
    main_keys = {key(t) for t in main}
    condition = frozenset(key(t) for t in doc if t.i in inside and t.pos_ in _CONTENT and key(t) not in GENERIC
                          and key(t) not in main_keys and key(t) not in LIGHT_VERBS and len(key(t)) > 1)
    kinds = frozenset(k for t in acts for k in wordnet.verb_lexfiles(t.lemma_.lower(), 1))
    states = frozenset(t.lemma_.lower() for t in doc if t.i in inside and t.pos_ in ("VERB", "ADJ")
                       and key(t) in condition and key(t) not in ASCERTAIN_VERBS)
    state_keys = frozenset(key(t) for t in doc if t.i in inside and t.lemma_.lower() in states)
    return Deadline(condition, states, state_keys, frozenset(t.lemma_.lower() for t in acts), frozenset(key(t) for t in acts),
                    frozenset(recipients - GENERIC), kinds, None if same else seconds)


def _condition_span(doc: Any, cond: Any) -> set[int]:
    """The words of the rule's condition: a condition put first runs to its comma (the parser may hang part of it
    on the duty's verb: "If a meter's casing is found cracked during a visit, ..."), else the verb's subtree."""
    if doc[0].lower_ in _CONDITION_MARKS:
        comma = next((t.i for t in doc if t.text == "," and t.i > cond.i), None)
        if comma is not None:
            return set(range(comma))
    return {t.i for t in cond.subtree}


def _days(claim: Claim) -> list[Day]:
    """The days the claim tells, in order: dates (with the weekday written beside them), bare weekdays, and days
    told from the one before ("the next morning", "that same Saturday")."""
    out: list[Day] = []
    dates = [d for d in claim.dates if d.first == d.last]
    used: set[int] = set()
    for d in dates:
        wd = next((w for w in claim.weekdays if abs(w[2] - d.end) <= 3 or abs(d.start - w[3]) <= 3), None)
        if wd is not None:
            used.add(wd[2])
        out.append(Day(min(d.start, wd[2]) if wd else d.start, max(d.end, wd[3]) if wd else d.end, d.first,
                       wd[0] if wd else None))
    for w in claim.weekdays:
        if w[2] in used or any(d.start <= w[2] < d.end for d in out):
            continue
        if w[1]:
            return []  # "the following Tuesday" without the date it counts from: not read
        out.append(Day(w[2], w[3], None, w[0]))
    out.sort(key=lambda d: d.start)
    for rx, shift in ((_NEXT_DAY_RE, 1), (_SAME_AS_BEFORE_RE, 0)):
        for m in rx.finditer(claim.text):
            if any(d.start <= m.start() < d.end or m.start() <= d.start < m.end() for d in out):
                continue
            before = [d for d in out if d.end <= m.start()]
            if not before:
                continue
            b = before[-1]
            out.append(Day(m.start(), m.end(), None if b.ordinal is None else b.ordinal + shift,
                           None if b.weekday is None else (b.weekday + shift) % 7))
        out.sort(key=lambda d: d.start)
    return out


def _clauses_at(claim: Claim, pos: int) -> list[Clause]:
    """Every clause holding the position, the innermost and those it hangs in."""
    return [c for c in claim.clauses if c.start <= pos < c.end]


def _told(claim: Claim, c: Clause) -> bool:
    """Is the clause told as a fact: not denied, not optional, its verb under no modal ("may", "should", "will";
    read from the parse, so the month "May" is no modal)?"""
    if c.negated or c.optional:
        return False
    verb = parse(claim.text)[c.head_i]
    return not any(ch.dep_ in ("aux", "auxpass") and ch.tag_ == "MD" for ch in verb.children)


def _meets_condition(rule: Deadline, form: Form, claim: Claim, day: Day) -> bool:
    """Does the clause of this day meet the rule's condition in its own terms: an amount inside the band that
    switches the rule on, or two of the condition's own words and at least half of them?"""
    clauses = _clauses_at(claim, day.start)
    doc = parse(claim.text)
    for c in list(clauses):  # "a bottle was dropped and broken on 3 April": the verbs share their subject
        verb = doc[c.head_i]
        if verb.dep_ == "conj" and not any(ch.dep_ in ("nsubj", "nsubjpass") for ch in verb.children):
            clauses += [o for o in claim.clauses if o.head_i == verb.head.i and o not in clauses]
    if not clauses or any(not _told(claim, c) for c in clauses):
        return False
    if form.trigger is not None:
        return any(a.dim == form.trigger.dimension and a.direction == "eq" and _inside(a, form.trigger)
                   and any(c.start <= a.start < c.end for c in clauses) for a, _ in claim.amounts)
    words = set().union(*(c.keys for c in clauses))
    hits = len(rule.condition & words)
    if hits < 2 or 2 * hits < len(rule.condition):
        return False
    if not rule.states:
        return True
    # what happened, or the state the rule names, told in its own word or a verb of its kind ("snapped" for
    # "broken"); the things alone ("the seal on bag 7 was found") may be found as they should be
    told = [t for t in doc if any(c.start <= t.idx < c.end for c in clauses) and t.pos_ in ("VERB", "ADJ")]
    return any(key(t) in rule.condition and (t.lemma_.lower() in rule.states or key(t) in rule.state_keys)
               or any(wordnet.verb_is_a(t.lemma_.lower(), s) for s in rule.states) for t in told)


def _tells_act(rule: Deadline, claim: Claim, c: Clause) -> bool:
    """Does the clause tell the rule's act done: its verb, or a verb of its kind (the verb's commonest sense in
    the act's lexicographer file, or any of its first senses with the act's recipient named)?"""
    if not _told(claim, c):
        return False
    verb = parse(claim.text)[c.head_i]
    lemma = verb.lemma_.lower()
    if key(verb) in rule.act_keys or lemma in rule.act_lemmas:
        return True
    if not rule.kinds:
        return False
    if set(wordnet.verb_lexfiles(lemma, 1)) & rule.kinds:
        return True
    return bool(rule.recipients & c.keys) and bool(set(wordnet.verb_lexfiles(lemma, 4)) & rule.kinds)


# two days told by different weekday names only: another day, their distance unknown
OTHER_DAY = 10**6


def _apart(a: Day, b: Day) -> int | None:
    """Days from ``a`` to ``b`` for two dated days, 0 for the same day, ``OTHER_DAY`` for two different weekdays,
    None when the two cannot be compared."""
    if a.ordinal is not None and b.ordinal is not None:
        return b.ordinal - a.ordinal
    if a.weekday is not None and b.weekday is not None:
        return 0 if a.weekday == b.weekday else OTHER_DAY
    return None


def check_deadlines(forms: list[Form] | tuple[Form, ...], claim: Claim) -> list[Finding]:
    """A conditional duty's act dated to a later day than the condition the claim meets (see the module)."""
    out: list[Finding] = []
    days: list[Day] | None = None
    for form in forms:
        q = form.quantity
        seconds = q.high if q is not None and q.dimension == "[time]" and q.low is None and not q.period else None
        rule = deadline(form.text, form.modality, seconds)
        if rule is None:
            continue
        if days is None:
            days = _days(claim)
        if len(days) < 2:
            return out
        met = [d for d in days if _meets_condition(rule, form, claim, d)]
        if len(met) != 1:
            continue
        start = met[0]
        acts = [c for c in claim.clauses if _tells_act(rule, claim, c)]
        acted: list[Day] = []
        for c in acts:
            own = [d for d in days if c.start <= d.start < c.end and d is not start]
            if not own:
                break  # the act told without a day of its own: it may have been done that very day
            acted += own
        else:
            gaps = [_apart(start, d) for d in acted]
            if not acted or any(g is None or g <= 0 for g in gaps):
                continue  # an act dated before its occasion is not the one the rule asks for
            if rule.seconds is not None and any(g == OTHER_DAY or (g - 1) * 86400 < rule.seconds for g in gaps):
                continue
            out.append(_finding(form, claim, start.start, acted[0].end, "deadline",
                                f"the claim dates {form.text!r}'s act to another day than the event that sets it off",
                                basis="deadline"))
    return out
