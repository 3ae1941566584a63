"""A rule's own requirement declared optional: "The 25-page limit for briefs is a recommendation, not a rule",
"The walking test was treated as merely recommended", "the buddy check became optional".

Why its own module: an "optional" in a claim is often said of another thing ("the optional photo sheet",
"optional reed touch-ups"), so a duty made optional by shared words alone waits in REVIEW. Where grammar
predicates the waiver ("is optional", "became optional", "is a recommendation", "was treated as guidance")
of a noun phrase that names the rule's own requirement (two of its words, or its own number and one word),
told as a plain statement (no negation on the verb, no modal, no question, not reported by another verb: "some
say ..."), the claim says outright that what
the rule requires need not be done.
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
