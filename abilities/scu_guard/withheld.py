"""A duty's own thing or own act said not to be there: "worked the mixer without a hairnet", "had no CO alarm",
"Neither parcel carried a phytosanitary certificate", "used the comb on three clients without disinfecting it",
"the sheet was still unsigned".

Why its own module: a duty ("Staff must wear hairnets", "Every shipment requires a certificate", "Combs must be
disinfected between clients") is broken by a claim that says plainly that what it requires was missing, and
such claims come in a few grammatical shapes, whatever the domain: the rule's thing as the object of
"without" or under "no" ("with no harness", "no hi-vis"), as the object of a denied verb of holding ("did not
carry", "neither ... had"), the rule's verb as a gerund under "without" ("without disinfecting it"), or the
rule's verb (or the verb its thing's own modifier is: "signed" in "a signed sheet") as an "un-" participle said
of the rule's thing ("left unsigned"). The claim's thing is the rule's by its head noun, or by a kind of it in
WordNet ("a bracer" for "an arm guard"), named with no modifier the rule does not give it ("without a paper
mask" does not deny an FFP3 mask). Whether the rule's scope holds (who, where, when) is not read here: such a
finding is a suspicion (REVIEW) unless the caller's own firm reading settles the rule's scope. The doer a duty
needs said absent from the duty's own event ("went ahead without a second embryologist", ``holder_absent``) is
the one shape a plain duty's caller may take as sure: nothing else but the doer is in question there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from abilities.scu_guard import categories
from abilities.scu_guard.form_types import Form
from abilities.scu_guard.forms import GENERIC, _condition_clause
from abilities.scu_guard.nlp import MODALS, key, light_keys, parse, word_key
from abilities.scu_guard.waived import waives

# verbs of holding or wearing a thing: denying one of them for the rule's thing denies that it was held
_HOLDING = frozenset(word_key(w) for w in "have carry wear bear hold use".split())
# a clause that is not told as a fact: a condition, a purpose, a supposition
_MARKS = frozenset({"if", "unless", "whether", "in case", "so", "lest"})


_COMPARED_RE = re.compile(r"^(?:more|fewer|less|later|earlier|longer|greater|higher|lower)$")


@dataclass(frozen=True)
class Duty:
    """What a duty requires: its verb's key, its things (the head noun and those coordinated with it: "Scissors
    and combs"), each as (key, WordNet phrase, its own modifiers' keys), and the keys of the participles among
    the modifiers ("signed" in "a signed sheet")."""

    verb: str
    things: tuple[tuple[str, str, frozenset[str]], ...]
    states: frozenset[str]
    holder: str = ""  # the key of the active subject's head noun: who must hold or wear the thing
    holder_mods: frozenset[str] = frozenset()  # its own modifiers ("second" in "A second embryologist")


@lru_cache(maxsize=4096)
def duty_of(text: str) -> Duty | None:
    """The rule's required thing: the object of its main verb ("wear hairnets", "have a report", "requires a
    certificate") or the subject of its passive ("Eye and ear protection must be worn"), a common noun."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "AUX"):
        return None
    if not (root.lemma_ in ("require", "need") or any(c.dep_ == "aux" and c.lower_ in ("must", "shall")
                                                         for c in root.children)):
        return None  # "Staff may give medication only with consent": the thing required is another
    passive = any(c.dep_ == "auxpass" for c in root.children)
    head = next((c for c in root.children if c.dep_ == ("nsubjpass" if passive else "dobj")), None)
    if head is None:
        return None
    things, states = [], set()
    for thing in [head, *head.conjuncts]:
        if thing.pos_ != "NOUN" or key(thing) in GENERIC:
            continue
        mods = [c for c in thing.children if c.dep_ in ("amod", "compound")]
        states |= {key(c) for c in mods if c.tag_ == "VBN" or (c.lower_.endswith("ed") and c.pos_ in ("ADJ", "VERB"))}
        phrase = categories.phrase_of(text, key(thing)) or thing.lemma_.lower()
        things.append((key(thing), phrase, frozenset(key(c) for c in mods) - GENERIC | set(light_keys(phrase))))
    subj = next((c for c in root.children if c.dep_ == "nsubj" and c.pos_ == "NOUN"), None)
    holder = key(subj) if subj is not None and not passive else ""
    holder_mods = frozenset(key(c) for c in subj.children if c.dep_ in ("amod", "compound", "nummod")) - GENERIC \
        if subj is not None and not passive else frozenset()
    return Duty(key(root), tuple(things), frozenset(states), holder, holder_mods) if things else None


@lru_cache(maxsize=4096)
def scope_keys(text: str) -> frozenset[str]:
    """The nouns and adjectives that narrow whom or when a duty binds: those describing its doer ("Every
    piano leaving the workshop", "Bull riders", "worn by everyone on the firing line") and those of its when/if condition ("whenever live flame is used
    on stage"). A claim that says the duty's thing was missing without naming them may be outside the rule."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    out: set[str] = set()
    # the subject of an active duty, or the "by" agent of a passive one (the passive subject is the thing itself,
    # its modifiers part of its name: "an arm guard")
    doers = [t for t in doc if root is not None and (t.dep_ == "nsubj" and t.head.i == root.i or
                                                    t.dep_ == "pobj" and t.head.dep_ == "agent" and t.head.head.i == root.i)]
    for s in doers:
        for c in s.children:
            if c.dep_ in ("amod", "compound", "nmod", "acl", "relcl", "prep", "npadvmod"):
                out |= {key(w) for w in c.subtree if w.pos_ in ("NOUN", "PROPN", "ADJ")}
    cond = _condition_clause(doc)
    if cond is not None:
        out |= {key(w) for w in cond.subtree if w.pos_ in ("NOUN", "PROPN", "ADJ")}
    return frozenset(out - GENERIC)


def _is_thing(duty: Duty, t: Any) -> bool:
    """Is the claim's noun one of the rule's things (its head noun, or a kind of it by WordNet), with no modifier
    the rule does not give it? A noun said to be missing ("without a bracer", "no bracer") stands where the
    rule's verb of holding or wearing would have it, so its sense is the one that slot selects."""
    if t.pos_ != "NOUN":
        return False
    own = {key(c) for c in t.children if c.dep_ in ("amod", "compound") and c.pos_ in ("NOUN", "ADJ", "VERB")}
    own -= GENERIC
    slot = (t.dep_ == "pobj" and t.head.lower_ == "without") or any(c.lower_ == "no" for c in t.children)
    return any((key(t) == k or categories.is_kind(t, phrase, slot)) and not (own - mods)
               for k, phrase, mods in duty.things)


def told(t: Any, own: Any = None) -> bool:
    """Is the token's clause told as a fact and affirmed: no question, no modal on its verbs, no condition or
    purpose, no verb above it denied ("Nobody boarded without an altimeter", "Medication is never given without
    a note", "not a single pair ... without being sanitised": the missing thing is then denied again)? ``own``:
    the verb whose denial is the reading itself ("did not carry a certificate"), not counted."""
    if t.sent.text.rstrip().endswith("?"):
        return False
    w = t
    while True:
        if any((c.dep_ in ("aux", "auxpass") and c.lower_ in MODALS) or (c.dep_ == "mark" and c.lower_ in _MARKS
                                                                          and not _result(c)) for c in w.children):
            return False
        if w.pos_ in ("VERB", "AUX", "ADJ") and (own is None or w.i != own.i) and _denied_verb(w):
            return False
        if w.head.i == w.i:
            return True
        w = w.head


def _result(mark: Any) -> bool:
    """Is a "so" after a comma or semicolon one of result ("the recorder failed, so the draw went unrecorded"), told
    as a fact, not one of purpose ("so that it stays dry")?"""
    return mark.lower_ == "so" and mark.i > 0 and mark.doc[mark.i - 1].text in (",", ";") and \
        mark.doc[mark.i + 1].lower_ != "that" if mark.i + 1 < len(mark.doc) else False


def _denied_verb(w: Any) -> bool:
    """Is the verb denied at itself, or by a "neither/no/none/not one" subject ("Neither the Yamaha nor the
    Bechstein had ...", "none was worn", "Not one of the shipments left ...")?"""
    if any(c.dep_ == "neg" or c.lower_ == "never" for c in w.children):
        return True
    for s in (c for c in w.children if c.dep_ in ("nsubj", "nsubjpass")):
        if s.lower_ in ("none", "nobody", "nothing", "noone") or any(
                d.lower_ in ("neither", "no", "not", "never") and d.dep_ in ("det", "preconj", "cc", "neg", "advmod")
                for d in s.children):
            return True
    return False


def _no(t: Any) -> bool:
    """Is the noun denied by its own determiner ("no harness", "not a single steward"), not "no more than"?"""
    return any((c.dep_ == "det" and c.lower_ == "no" and not _COMPARED_RE.match(t.doc[c.i + 1].lower_)) or
               (c.dep_ == "neg" and c.i < t.i) for c in t.children)


def holder_words(text: str) -> frozenset[str]:
    """The modifiers of the doer a duty requires ("second" in "A second embryologist must witness ..."): what
    "with no second embryologist" denies is the doer itself, not the rule's scope."""
    duty = duty_of(text)
    return duty.holder_mods if duty is not None else frozenset()


# what a doer who is not there is said to be not doing: being there, attending, or the rule's own act
_PRESENCE = frozenset(word_key(w) for w in "be attend stay remain present assign post station".split())


def clause_verb(t: Any) -> Any:
    """The verb a word's clause hangs from, above the word itself ("went" in "went ahead with no second
    embryologist present", "rejected" in "Parcels without a photo are rejected"); the root when none is."""
    w = t
    while w.head.i != w.i and not (w.pos_ in ("VERB", "AUX") and w.i != t.i):
        w = w.head
    return w


# verbs that say the event did not go ahead: its doer's absence then breaks nothing
_CALLED_OFF = frozenset({"postpone", "cancel", "delay", "stop", "halt", "abandon", "suspend", "reschedule", "defer",
                         "refuse", "decline", "abort", "scrap", "pause"})


def _argument_of(x: Any, verb: Any) -> bool:
    """Is the noun the verb's own argument, or in a phrase of its own ("present for the transfer"), not a
    noun's ("the meeting about the transfers")?"""
    w = x.head
    while w.i != verb.i:
        if w.pos_ not in ("ADP", "ADJ", "ADV", "CCONJ", "PART") or w.head.i == w.i:
            return False  # a noun's phrase, or another verb's (a parser may tag "meeting" a verb)
        w = w.head
    return True


def holder_absent(form: Form, doc: Any, start: int, end: int) -> Any | None:
    """Does the claim, between ``start`` and ``end``, say as a fact that the doer a duty requires was not there,
    in a sentence naming the duty's thing: "went ahead with no second embryologist present", "Neither the vet
    nor the steward was present", "Not a single steward was present", "without a second embryologist"? The doer
    is the rule's by its head noun, named with none but the rule's own modifiers. The token, or None."""
    duty = duty_of(form.text) if not (form.quantity or form.order or form.trigger) else None
    if duty is None or not duty.holder:
        return None
    for t in doc:
        if not (start <= t.idx < end) or t.pos_ != "NOUN" or key(t) != duty.holder:
            continue
        own = {key(c) for c in t.children if c.dep_ in ("amod", "compound", "nummod")} - GENERIC
        gov = clause_verb(t)
        if gov.lemma_.lower() in _CALLED_OFF or any(c.dep_ == "prt" and c.lower_ == "off" for c in gov.children):
            continue  # "Without a second embryologist, the transfer was postponed": the event did not happen
        if own - duty.holder_mods or not any(_is_thing(duty, x) and _argument_of(x, gov) for x in gov.subtree):
            continue  # absent from the event the duty is about, not from a staff meeting about it
        v = t.head
        first = t.head.head if t.dep_ == "conj" else v  # "Neither the vet nor the steward was present"
        there = key(v) in _PRESENCE or key(v) == duty.verb or (t.dep_ == "nsubj" and v.dep_ == "pobj")
        if t.dep_ == "pobj" and v.lower_ == "without" and told(t):
            return t
        if there and _no(t) and told(t, own=v):
            return t
        if t.dep_ in ("nsubj", "conj") and (key(first) in _PRESENCE or key(first) == duty.verb) and \
                _denied_verb(first) and told(t, own=first):
            return t
    return None


def thing_withheld(form: Form, doc: Any, start: int, end: int) -> Any | None:
    """Does the claim, between ``start`` and ``end``, say as a fact that the rule's thing was not there:
    "without (a|any|his) X", "no X", "X ... not held" (a denied verb of holding, or the rule's own verb)? The
    token that says so, or None."""
    duty = duty_of(form.text) if not (form.quantity or form.order or form.trigger) else None
    if duty is None:
        return None
    for t in doc:
        if not (start <= t.idx < end) or not _is_thing(duty, t):
            continue
        if t.dep_ == "pobj" and t.head.lower_ == "without" and told(t):
            return t
        if _no(t) and t.dep_ != "npadvmod" and told(t, own=t.head if t.dep_ in ("nsubj", "nsubjpass") else None):
            return t  # "no harness", "No spotter was assigned"; not "no more than two dozen pipes"
        v = t.head
        if t.dep_ in ("dobj", "nsubjpass") and v.pos_ in ("VERB", "AUX") and (
                key(v) in _HOLDING or key(v) == duty.verb) and _denied_verb(v) and told(t, own=v):
            return t
    return None


_UN_RE = re.compile(r"^un([a-z]{3,}(?:ed|en|t))$")


def act_withheld(form: Form, doc: Any, start: int, end: int) -> Any | None:
    """Does the claim, between ``start`` and ``end``, say as a fact that the rule's own act was not done to the
    rule's thing: its verb as a gerund under "without" in a sentence naming the thing ("used the comb ...
    without disinfecting it"), or as an "un-" participle (also the participle the rule's thing must carry:
    "unsigned" for "a signed sheet") said of the thing ("came back unacidified", "the sheet ... unsigned")? The
    token that says so, or None."""
    duty = duty_of(form.text) if not (form.quantity or form.order or form.trigger) else None
    if duty is None:
        return None
    acts = {duty.verb} | set(duty.states)
    for t in doc:
        if not (start <= t.idx < end) or not told(t):
            continue
        if t.dep_ == "pcomp" and t.head.lower_ == "without" and key(t) in acts:
            if any(_is_thing(duty, x) for x in t.sent):
                return t
        m = _UN_RE.match(t.lower_)
        if m is None:
            continue
        stem = set(light_keys(m.group(1))) | {word_key(m.group(1))}
        said_of = [t.head] if t.dep_ == "amod" else [
            c for w in (t.head, t.head.head) for c in w.children if c.dep_ in ("nsubj", "nsubjpass")
        ] if t.dep_ in ("acomp", "oprd", "advcl", "xcomp", "conj", "ccomp") else []
        if acts & stem and any(_is_thing(duty, x) for x in said_of):
            return t
        # "Pallets left the dock unlabelled" for "Every pallet must carry a label": the holder without the thing
        if duty.holder and {k for k, _, _ in duty.things} & stem and any(key(x) == duty.holder for x in said_of):
            return t
    return None


def thing_waived(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the claim, between ``start`` and ``end``, declare the rule's thing itself optional or a mere
    recommendation ("vests were made optional", "staff treat the hairnets as optional")? See ``waived``."""
    duty = duty_of(form.text) if not (form.quantity or form.order or form.trigger) else None
    return duty is not None and waives({k for k, _, _ in duty.things}, set(), doc, start, end, step=True)
