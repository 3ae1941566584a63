"""A rule's own requirement declared optional: "The 25-page limit for briefs is a recommendation, not a rule",
"The walking test was treated as merely recommended", "the buddy check became optional".

Why its own module: an "optional" in a claim is often said of another thing ("the optional photo sheet",
"optional reed touch-ups"), so a duty made optional by shared words alone waits in REVIEW. Where grammar
predicates the waiver ("is optional", "became optional", "is a recommendation", "was treated as guidance")
of a noun phrase that names the rule's own requirement (two of its words, or its own number and one word),
told as a plain statement (no negation on the verb, no modal, no question, not reported by another verb: "some
say ..."), the claim says outright that what
the rule requires need not be done.
Since round 17 (``waiver_of``) the shapes that lift a thing outright, for the required-step reading: "gloves weren't
needed", "no ID needed", "contractors don't need dosimeters", "the customer waived the certificate", "made helmets
optional", whoever decided or said it.
"""

from __future__ import annotations

import re
from typing import Any

from abilities.scu_guard.events import reported
from abilities.scu_guard.form_types import Form
from abilities.scu_guard.forms import GENERIC
from abilities.scu_guard.nlp import key
from abilities.scu_guard.reserved import has_key

_WAIVER_RE = re.compile(r"^(?:optional|recommend(?:ed|ation)|guidance|guideline|advisory|voluntary|discretionary|"
                        r"suggestion|suggested)$", re.I)
# verbs that predicate a state of their subject ("is", "became") or, actively, of their object ("treated X as")
_PREDICATING = frozenset({"be", "become", "remain", "stay", "seem", "treat", "regard", "consider", "count", "see",
                          "make", "deem", "class", "classify", "list", "call", "describe", "mark",
                          "declare", "designate"})
_MODALS = frozenset({"may", "might", "can", "could", "would", "should", "will", "shall", "must"})


def _numbers(form: Form) -> set[str]:
    out = set()
    for band in (form.quantity, form.trigger):
        if band is not None:
            out |= {f"{v:g}" for v in (band.low, band.high) if v is not None}
    return out


def _governing_verb(w: Any) -> Any | None:
    """The verb that predicates the waiver word: its head, through an "as" phrase ("treated as guidance")."""
    h = w.head
    if h.dep_ == "prep" and h.lower_ == "as":
        h = h.head
    return h if h.pos_ in ("VERB", "AUX") and h.lemma_.lower() in _PREDICATING else None


def declares_optional(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the claim, between ``start`` and ``end``, predicate a waiver of a noun phrase naming the rule's own
    requirement?"""
    return waives((set(form.subject) | set(form.object) | set(form.action)) - GENERIC, _numbers(form), doc, start,
                  end)


def waives(own: set[str], numbers: set[str], doc: Any, start: int, end: int, step: bool = False,
           rule: set[str] | None = None) -> bool:
    """Does the claim, between ``start`` and ``end``, predicate a waiver of a noun phrase holding two of the
    ``own`` words (or one and one of the ``numbers``; or, for the words of one step of an order, ``step``, a
    phrase whose head noun is one of them: "the pre-swim shower was optional")?"""
    for w in doc:
        if not (start <= w.idx < end) or not _WAIVER_RE.match(w.text) or w.dep_ not in ("acomp", "attr", "oprd",
                                                                                           "pobj", "amod", "ROOT"):
            continue
        if w.dep_ == "amod" and not (w.head.lower_ == "as" and w.head.dep_ == "prep"):
            continue  # "the optional photo sheet": a word describing a thing waives nothing
        if any(c.dep_ == "neg" and c.i < w.i for c in w.children) or w.sent.text.rstrip().endswith("?"):
            continue
        v = _governing_verb(w)
        if v is None or reported(v) or any(c.dep_ == "neg" or (c.dep_ in ("aux", "auxpass") and c.lower_ in _MODALS)
                            for c in v.children):
            continue
        deps = ("nsubj", "nsubjpass") if v.lemma_.lower() in ("be", "become", "remain", "stay", "seem") or \
            any(c.dep_ == "auxpass" for c in v.children) else ("dobj",)
        for s in (c for c in v.children if c.dep_ in deps):
            words = {key(t) for t in s.subtree if not t.is_punct}
            texts = {t.text for t in s.subtree}
            hits = sum(1 for k in own if has_key(words, k))
            head = any(has_key({key(s)}, k) for k in own)  # "the pre-swim shower": the step itself, named
            if rule is not None and any(not any(has_key({key(n)}, k) for k in rule) for p in s.children
                                        if p.dep_ == "prep" for n in p.subtree if n.pos_ in ("NOUN", "PROPN")):
                continue  # "attendance at the open day": the act, but of another thing than the rule's
            if hits >= 2 or (hits >= 1 and (numbers & texts or (head and step))):
                return True
    return False


def act_waived(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the claim, between ``start`` and ``end``, declare the rule's own act, named by its noun, optional
    ("attendance is treated as voluntary" for "must attend", "the inspection became optional" for "must be
    inspected")? The phrase's head must be that noun ("the replacement interval" waives an interval), and what
    it is of must be the rule's ("attendance at the open day" is not attendance at a work party)."""
    own = (set(form.subject) | set(form.object) | set(form.action)) - GENERIC
    return waives(set(form.action) - GENERIC, set(), doc, start, end, step=True, rule=own)


# verbs that say an act was left out: "the weighing was skipped", "they omitted the second count"
_SKIPPING = frozenset({"skip", "omit", "waive", "forgo", "forego", "miss", "drop", "bypass", "dispense"})


def act_skipped(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the claim, between ``start`` and ``end``, say as a plain fact that the rule's own act, named by its
    noun, was left out ("the weighing was skipped", "staff omitted the pre-issue inspection")? The noun heads
    the skipped phrase, and what it is of is the rule's ("the inspection of the van" is not of a harness)."""
    own = set(form.action) - GENERIC
    rule = (set(form.subject) | set(form.object) | own) - GENERIC
    for w in doc:
        if not (start <= w.idx < end) or w.pos_ != "VERB" or w.lemma_.lower() not in _SKIPPING or reported(w):
            continue
        if w.sent.text.rstrip().endswith("?") or any(c.dep_ in ("neg", "mark") or (c.dep_ in ("aux", "auxpass") and
                                                     c.lower_ in _MODALS) for c in w.children):
            continue
        for s in (c for c in w.children if c.dep_ in ("nsubjpass", "dobj") and c.pos_ == "NOUN"):
            if not any(has_key({key(s)}, k) for k in own):
                continue
            if any(not any(has_key({key(n)}, k) for k in rule) for p in s.children if p.dep_ == "prep"
                   for n in p.subtree if n.pos_ in ("NOUN", "PROPN")):
                continue
            return True
    return False


# words that call a thing needed: denied ("gloves weren't needed", "photos were not necessary") they waive it
_NEEDED_RE = re.compile(r"^(?:needed|necessary|required|compulsory|mandatory|obligatory|essential)$", re.I)
_NEEDLESS_RE = re.compile(r"^(?:unnecessary|unneeded|needless)$", re.I)
# verbs that lift a requirement from a thing: "the customer waived the certificate", "we dispensed with the photos"
_WAIVING = frozenset({"waive", "dispense"})
_CLAUSE_DEPS = ("ROOT", "ccomp", "conj", "xcomp", "advcl", "acomp", "oprd", "parataxis")


def _subject(v: Any, deps: tuple[str, ...] = ("nsubj", "nsubjpass")) -> Any | None:
    return next((c for c in v.children if c.dep_ in deps), None)


def _denied(v: Any) -> bool:
    return any(c.dep_ == "neg" for c in v.children)


def waiver_of(t: Any) -> tuple[Any, Any] | None:
    """(the phrase the word waives, the verb whose own denial is the waiver) when the word declares a thing not
    needed or lifts it: "gloves weren't needed", "photos beforehand were not necessary", "an escort was
    unnecessary", "no ID needed", "contractors don't need dosimeters", "the customer waived the certificate",
    "isolation was waived", "dispensed with the photos",
    "made helmets optional", "the respirator was considered optional". Why: a claim that says the very thing a rule
    requires was not needed tells, in its own words, that it was not done. Who waived it ("Jo decided", "they told
    us") does not matter: the waiver is the act. The phrase is a noun, or a pronoun for an earlier one."""
    own = t
    subj = None
    if _NEEDED_RE.match(t.text) and t.dep_ in _CLAUSE_DEPS:
        if t.pos_ == "VERB" and t.dep_ != "acomp":  # "was not needed", "no ID needed"
            subj = _subject(t, ("nsubjpass", "nsubj"))
            if not (_denied(t) or (subj is not None and any(c.dep_ == "det" and c.lower_ == "no"
                                                            for c in subj.children))):
                subj = None
        elif t.dep_ == "acomp" and t.head.lemma_.lower() in ("be", "seem", "become"):  # "were not necessary"
            own = t.head
            subj = _subject(own) if _denied(own) or _denied(t) else None
    elif _NEEDLESS_RE.match(t.text) and t.dep_ == "acomp" and t.head.lemma_.lower() in ("be", "seem", "become"):
        own = t.head
        subj = None if _denied(own) else _subject(own)
    elif t.pos_ == "VERB" and t.lemma_.lower() == "need" and _denied(t):  # "contractors don't need dosimeters"
        subj = _subject(t, ("dobj",))
        if subj is not None and subj.pos_ == "PRON":
            return None  # "it didn't need one": what it stands for is the speaker's, not the rule's
    elif t.pos_ == "VERB" and t.lemma_.lower() in _WAIVING and not _denied(t):
        if t.lemma_.lower() == "dispense":  # "dispensed with the photos", "the photos were dispensed with"
            subj = _subject(t, ("nsubjpass",)) or next((p for c in t.children if c.dep_ == "prep" and
                                                        c.lower_ == "with" for p in c.children if p.dep_ == "pobj"),
                                                       None)
        else:
            subj = _subject(t, ("dobj", "nsubjpass"))
    elif _WAIVER_RE.match(t.text) and t.pos_ in ("ADJ", "NOUN") and t.dep_ in ("acomp", "oprd", "ccomp", "attr",
                                                                                "pobj"):
        v = _governing_verb(t) if t.dep_ != "ccomp" else (t.head if t.head.lemma_.lower() in _PREDICATING else None)
        if v is None or _denied(v) or _denied(t) or any(c.dep_ in ("aux", "auxpass") and c.lower_ in _MODALS
                                                        for c in v.children):
            return None
        own = v
        if t.dep_ == "ccomp":  # "made helmets optional": the parser gives the small clause its own subject
            subj = _subject(t)
        elif v.lemma_.lower() in ("be", "become", "remain", "stay", "seem") or any(c.dep_ == "auxpass"
                                                                                  for c in v.children):
            subj = _subject(v)
        else:
            subj = _subject(v, ("dobj",))
    if subj is None or subj.pos_ not in ("NOUN", "PROPN", "PRON") or subj.lower_ in ("none", "nothing", "nobody"):
        return None
    return subj, own
