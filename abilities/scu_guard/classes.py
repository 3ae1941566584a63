"""A doing forbidden to a class of person, done by a person a cited record puts in that class.

Why: a rule often forbids an act to a class of person ("Apprentices must not use the spindle moulder",
"Agency workers must not operate the cutting machine", "Riders under 14 must not take the jumping course"),
and a claim names the doer only by name ("Oliver Grant ran the spindle moulder"). Who the person is lives in
a cited record: a staff list ("Oliver Grant - apprentice (2nd year)"), a roster ("Kasia Nowak - agency
(TempForce)"), a register with an age ("Kavin M., age 17"). Where the record plainly puts the named doer in
the rule's class, and the claim's clause does the rule's own act to the rule's own thing, told as a fact, the
claim breaks the rule outright. The class is the rule's subject: its person noun with the words that narrow
it ("agency" workers), or an age bound on it ("under 18"); a record that says the person is of another class,
denies the class word, or gives an age at or above the bound says nothing here, and nothing is found.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from abilities.scu_guard import ages, categories, events, roles, wordnet
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.forms import GENERIC, Form
from abilities.scu_guard.judge import Claim, _finding
from abilities.scu_guard.nlp import key, light_keys, parse, word_key

# nouns of a group everyone at a workplace belongs to: a class named by one needs a narrowing word ("agency staff")
_GROUP = frozenset(word_key(w) for w in "staff worker person people employee member personnel crew team "
                                        "individual colleague operative".split())
# a rule whose doing holds only in some cases or places: which case the claim's doing falls in is not read here
_SCOPED_RE = re.compile(r"\b(?:when|whenever|if|once|while|unless|except|where|provided|as long as|in case|"
                        r"during|before|after|until|without|alone|unsupervised|unaccompanied|other than|instead|"
                        r"more than|less than|at least|at most|between)\b|[:;(]", re.I)
# words in a record's description that deny or qualify the class word: then it is not plainly said
_NOT_PLAIN_RE = re.compile(r"\b(?:not|no|non|never|former|formerly|ex|previously|until|ex-\w+|was|left|ended|"
                           r"finished|completed|qualified|supervis\w*|mentor\w*|trainer|instructor)\b", re.I)
_BOUND_PREPS = frozenset({"under", "below"})
# to use a device is to operate it: the verbs of the first sense of "operate" ("ran the bandsaw") use it
_USE = "use"
_OPERATE = "operate"


@dataclass(frozen=True)
class ClassRule:
    """A prohibition on a class of person: the class (its noun, the words that narrow it, an age it is under)
    and the forbidden event (the rule's verb done to its thing)."""

    noun: str
    quals: frozenset[str]
    age_below: float | None
    event: events.RuleEvent


def _negated(root: Any, subj: Any | None) -> bool:
    """Is the rule's verb denied: "must not", "must never", or a subject opened by "no" ("No apprentice may ...")?"""
    return any(c.dep_ == "neg" or c.lower_ == "never" for c in root.children) or (
        subj is not None and any(c.dep_ == "det" and c.lower_ == "no" for c in subj.children))


@lru_cache(maxsize=4096)
def class_rule(text: str) -> ClassRule | None:
    """The class and the event of a plain prohibition on a class of person, or None for any other rule."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ != "VERB" or (key(root) in GENERIC and root.lemma_ != _USE):
        return None
    if not any(c.dep_ == "aux" and c.lower_ in ("must", "may", "shall", "can") for c in root.children):
        return None
    if any(c.dep_ == "auxpass" for c in root.children) or any(t.dep_ == "conj" and t.pos_ == "VERB" for t in doc):
        return None
    subj = next((c for c in root.children if c.dep_ == "nsubj"), None)
    if not _negated(root, subj):
        return None
    # a noun WordNet may read as a person ("swimmer" is also a bird): the doer must be a named person anyway
    if subj is None or subj.pos_ != "NOUN" or list(subj.conjuncts) or wordnet.names_person(subj.lemma_.lower()) is False \
            and key(subj) not in _GROUP:
        return None
    age: float | None = None
    quals: set[str] = set()
    for c in subj.children:
        if c.dep_ in ("amod", "compound"):
            quals.add(key(c))
        elif c.dep_ == "prep" and c.lower_ in _BOUND_PREPS:
            n = next((g for g in c.children if g.dep_ == "pobj" and g.like_num), None)
            if n is None or age is not None:
                return None
            age = float(n.text)
        elif c.dep_ not in ("det", "predet"):
            return None  # a clause or phrase narrowing the class ("who have not completed ..."): not read here
    quals -= GENERIC
    if key(subj) in _GROUP and not quals and age is None:
        return None  # "Staff must not ...": everyone, a doer the event reading reads
    rest = " ".join(t.text for t in doc if t.i not in {x.i for x in subj.subtree})
    if _SCOPED_RE.search(rest) or re.search(r"\d", rest):
        return None
    thing = next((c for c in root.children if c.dep_ == "dobj"), None)
    if thing is None or thing.pos_ != "NOUN" or key(thing) in GENERIC or any(
            c.dep_ in ("prep", "acl", "relcl") for c in thing.children) or thing.conjuncts:
        return None
    places = tuple(frozenset(key(w) for w in p.subtree if w.pos_ in ("NOUN", "PROPN")) - GENERIC
                   for p in root.children if p.dep_ == "prep")
    mods = frozenset(key(c) for c in thing.children if c.dep_ in ("compound", "amod")) - GENERIC
    ev = events.RuleEvent(key(root), key(thing), mods, False, None, tuple(p for p in places if p), text, (),
                          root.lemma_.lower())
    return ClassRule(key(subj), frozenset(quals), age, ev)


def _does_act(rule: ClassRule, w: Any) -> bool:
    """Is the claim's verb the rule's own, a manner of it, a word of its first sense, or (for "use" of a device)
    a word of the first sense of "operate"?"""
    if w.pos_ != "VERB":
        return False
    lemma = w.lemma_.lower()
    ev = rule.event
    if key(w) == ev.verb or categories.does_kind_of(w, ev.lemma) or lemma in wordnet.first_verb_sense(ev.lemma):
        return True
    return ev.lemma == _USE and lemma in wordnet.first_verb_sense(_OPERATE)


def _name_words(d: Any) -> list[str]:
    """The words of a person's name as the claim writes it ("Oliver Grant"), or none for no proper name."""
    if d.pos_ != "PROPN":
        return []
    return [t.text for t in d.subtree if t.pos_ == "PROPN" and (t.i == d.i or (t.dep_ == "compound" and t.head.i == d.i))
            and t.text[:1].isupper()]


def _desc_in_class(rule: ClassRule, desc: str) -> bool | None:
    """Does one description plainly give the rule's class: its noun with every word that narrows it, or, for a
    group noun ("agency staff"), those words? False when it names the class in a way that is not plain ("former
    apprentice", "apprentice supervisor"); None when it says nothing of it."""
    words = set(light_keys(desc))
    if rule.noun in _GROUP:
        named = bool(rule.quals) and rule.quals <= words
    else:
        named = rule.noun in words and rule.quals <= words
    if not named:
        return None
    return not _NOT_PLAIN_RE.search(desc)


def in_class(rule: ClassRule, names: Sequence[str], claim_text: str, chunk_texts: Sequence[str],
             own: Sequence[str] = ()) -> bool:
    """Does a cited record plainly put the named person in the rule's class, with no description saying it
    otherwise? An age bound needs one age, below it; the noun of a class bounded by age is the doing's own doer
    ("Riders under 14"), so only the words that narrow it further need a description. ``own``: what the claim
    itself says the person is ("Oliver Grant, a second-year apprentice"), read with the record's descriptions."""
    if rule.age_below is not None:
        full = " ".join(names)
        found = [a for n, a in ages.claim_ages(claim_text, chunk_texts) if n == full or n in names]
        if len(found) != 1 or found[0].hi >= rule.age_below:
            return False
        if not rule.quals:
            return True
    said = [_desc_in_class(rule, d) for d in [*roles.chunk_descriptions(names, chunk_texts), *own]]
    return True in said and False not in said


def _class_doings(form: Form, claim_text: str) -> Iterator[tuple[ClassRule, Any, list[Any]]]:
    """(the rule, the claim's verb, its doers) for each verb of the claim that does the rule's forbidden act to
    the rule's thing, told as a fact, with a doer named."""
    if form.modality != "must_not":
        return
    rule = class_rule(form.text)
    if rule is None:
        return
    doc = parse(claim_text)
    for w in doc:
        if not _does_act(rule, w) or not events._plain_fact(w):
            continue
        t = events._thing_of(w, False)
        if t is None or not events._in_place(rule.event, w, t):
            continue
        if not any(events._named_as_rule(rule.event, x) for x in (t, *t.conjuncts)):
            continue
        d = events._doer_of(w)
        if d is not None:
            yield rule, w, [d, *d.conjuncts]  # "Sam and Kavin sprayed ...": each of them a doer


def _own(person: Any, first: Any, claim_text: str) -> list[str]:
    """What the claim itself says the first named doer is (a title, an apposition)."""
    if person.i != first.i:
        return []
    return roles.claim_descriptions(claim_text, " ".join(x.lower_ for x in person.subtree))[1]


def breaking_clause(form: Form, claim_text: str, chunk_texts: Sequence[str]) -> tuple[int, int] | None:
    """(start, end) of the claim's sentence whose verb does the rule's forbidden act to the rule's thing, told as
    a fact, with a named doer a cited record puts in the rule's class; None when there is none."""
    if not chunk_texts:
        return None
    for rule, w, doers in _class_doings(form, claim_text):
        for person in doers:
            names = _name_words(person)
            if names and in_class(rule, names, claim_text, chunk_texts, _own(person, doers[0], claim_text)):
                return w.sent.start_char, w.sent.end_char
    return None


def out_of_class(rule: ClassRule, names: Sequence[str], claim_text: str, chunk_texts: Sequence[str],
                 own: Sequence[str] = ()) -> bool:
    """Does a cited record put the named person outside the rule's class: one age, at or above the bound; or a
    description of the person that names none of the class's words, in a record that uses them for others
    ("Jo Park - permanent" beside "Kasia Nowak - agency")? A record silent on the class says nothing."""
    if rule.age_below is not None:
        full = " ".join(names)
        found = [a for n, a in ages.claim_ages(claim_text, chunk_texts) if n == full or n in names]
        return not rule.quals and len(found) == 1 and found[0].lo >= rule.age_below
    descs = [*roles.chunk_descriptions(names, chunk_texts), *own]
    if not descs or any(_desc_in_class(rule, d) is not None for d in descs):
        return False
    words = rule.quals if rule.noun in _GROUP else rule.quals | {rule.noun}
    return any(words <= light_keys(text) for text in chunk_texts)


def kept_classes(forms: Sequence[Form], claim: Claim) -> set[str]:
    """Prohibitions on a class whose act the claim tells only of named doers a cited record puts outside it."""
    out = set()
    for f in forms:
        doings = list(_class_doings(f, claim.text)) if claim.chunk_texts else []
        if doings and all(out_of_class(rule, _name_words(p), claim.text, claim.chunk_texts,
                                       _own(p, doers[0], claim.text))
                          for rule, _, doers in doings for p in doers if _name_words(p)) and all(
                _name_words(p) for _, _, doers in doings for p in doers):
            out.add(f.text)
    return out


def check_classes(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """A prohibition on a class of person broken by a named doer a cited record puts in the class (firm)."""
    out = []
    for f in forms:
        at = breaking_clause(f, claim.text, claim.chunk_texts)
        if at is not None:
            out.append(_finding(f, claim, at[0], at[1], "forbid",
                                f"a cited record puts the doer in the class {f.text!r} forbids the act to",
                                firm=True, basis="class"))
    return out
