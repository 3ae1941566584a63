"""A prohibition or a duty read as one event: the rule's own verb done to the rule's own thing.

Why: a forbidden or required event matched by shared words alone is a guess (the rule's thing named for
another reason: "battery flicker candles", "next to the cycle lane", "the optional photo sheet"), so such a
finding waits in REVIEW. Where the claim's clause does the rule's own action (the same verb) to the rule's
own thing (its object, or the subject of the passive), named with the rule's modifiers and no others, in
the rule's place, by the rule's doer, affirmed as a plain fact (no modal, no negation, no condition, not
reported or planned by another verb), the grammar says what the rule forbids outright. For a duty, the same
event negated at its verb, or done to the thing with the rule's own modifier denied ("an uncharged
extinguisher" for "a charged fire extinguisher"), drops it outright.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, TypeVar

from abilities.scu_guard import categories, wordnet
from abilities.scu_guard.form_types import Form
from abilities.scu_guard.forms import GENERIC
from abilities.scu_guard.nlp import MODALS, key, light_keys, parse, word_key
from abilities.scu_guard.reserved import has_key

_T = TypeVar("_T")

# a rule whose event holds only in some cases (a condition, an exception, an amount, a time, an order):
# which cases the claim's event falls in is not read here
_SCOPED_RE = re.compile(r"\b(?:when|whenever|if|once|while|unless|except|where|provided|as long as|in case|"
                        r"than|above|below|over|under|exceeding|during|before|after|until|only|without|"
                        r"including|such as|other than|instead)\b|\d|[:;(]", re.I)
# doers every person falls under: the rule binds whoever does the event
_UNIVERSAL = frozenset(word_key(w) for w in "one anyone nobody everyone everybody person someone".split())
# a verb governing the event's clause that makes it other than a fact told: reported, planned, tried, asked
_CLAUSE_DEPS = frozenset({"ROOT", "conj"})
_DETS_OK = frozenset({"det", "poss", "nummod", "quantmod", "case", "predet", "punct", "prep", "relcl", "acl",
                      "cc", "conj", "appos", "advmod"})


@dataclass(frozen=True)
class RuleEvent:
    """The event a plain rule forbids or requires: its verb, its thing (head and modifiers), whether the
    thing is the subject of a passive, its doer (None: anyone), the nouns of its place phrases."""

    verb: str
    thing: str
    mods: frozenset[str]
    passive: bool
    doer: str | None
    places: tuple[frozenset[str], ...]
    text: str = ""  # the rule's text: its nouns' WordNet phrases are read from it (``categories``)
    # the things coordinated with ``thing`` ("Food or drink may not be kept ..."): (head, modifiers) of each
    others: tuple[tuple[str, frozenset[str]], ...] = ()
    lemma: str = ""  # the verb's lemma: a claim's verb may do a manner of it ("stroked" for "touch")

    def alternatives(self) -> list[RuleEvent]:
        """The event once for each of its coordinated things: doing any of them is doing what is forbidden."""
        return [self] + [replace(self, thing=k, mods=m, others=()) for k, m in self.others]


def _noun_mods(t: Any) -> frozenset[str]:
    return frozenset(key(c) for c in t.children if c.dep_ in ("compound", "amod") and c.pos_ in ("NOUN", "PROPN", "ADJ",
                                                                                                 "VERB")) - GENERIC


def modal_root(doc: Any) -> Any | None:
    """The rule's main verb when it is a content verb under a modal ("must", "may", "shall", "can"), else None."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ != "VERB" or key(root) in GENERIC:
        return None
    if not any(c.dep_ in ("aux", "auxpass") and c.lower_ in ("must", "may", "shall", "can") for c in root.children):
        return None
    return root


@lru_cache(maxsize=4096)
def rule_event(text: str) -> RuleEvent | None:
    """The event of a plain prohibition or duty ("Visitors must not touch the formations", "Every crate must
    be labelled with its harvest date"), or None when the rule is not one verb done to one named thing with
    nothing narrowing when it holds."""
    if _SCOPED_RE.search(text):
        return None
    doc = parse(text)
    root = modal_root(doc)
    if root is None:
        return None
    if any(t.dep_ == "conj" and t.pos_ == "VERB" for t in doc):
        return None  # two events in one rule: which one the claim does is another question
    passive = any(c.dep_ == "auxpass" for c in root.children)
    thing = next((c for c in root.children if c.dep_ == ("nsubjpass" if passive else "dobj")), None)
    if thing is None or any(_narrowed(t) for t in (thing, *thing.conjuncts)):
        return None  # no thing, or one narrowed by a phrase the claim would have to match
    if thing.conjuncts and not all(c.lower_ in ("or", "and", "nor", ",") for c in doc[thing.i:thing.conjuncts[-1].i]
                                   if c.dep_ in ("cc", "punct")):
        return None  # "either ... or", "as well as": not a plain list of things
    doer: str | None = None
    if not passive:
        subj = next((c for c in root.children if c.dep_ == "nsubj"), None)
        if subj is None or list(subj.conjuncts) or any(c.dep_ in ("amod", "compound", "prep", "relcl", "acl")
                                                         for c in subj.children):
            return None  # no doer, or one narrowed by a description the claim would have to match
        doer = None if key(subj) in _UNIVERSAL or subj.lower_ in ("no", "nobody") else key(subj)
    places = []
    for p in root.children:
        if p.dep_ == "prep":
            nouns = [w for w in p.subtree if w.pos_ in ("NOUN", "PROPN")]
            if nouns:
                places.append(frozenset(key(w) for w in nouns) - GENERIC)
    others = tuple((key(c), _noun_mods(c)) for c in thing.conjuncts)
    return RuleEvent(key(root), key(thing), _noun_mods(thing), passive, doer, tuple(places), text, others,
                     root.lemma_.lower())


def _narrowed(t: Any) -> bool:
    """Is the rule's thing no plain common noun, or one narrowed by a phrase or clause of its own?"""
    return t.pos_ not in ("NOUN", "PROPN") or key(t) in GENERIC or any(c.dep_ in ("prep", "acl", "relcl")
                                                                        for c in t.children)


def _plain_fact(w: Any) -> bool:
    """Is the verb told as a fact: a main verb (or one coordinated with it), with no modal, no condition or
    subordinating word, no negation on it, in a sentence that asks nothing?"""
    if w.dep_ not in _CLAUSE_DEPS or (w.dep_ == "conj" and w.head.dep_ != "ROOT"):
        return False
    chain = [w] + ([w.head] if w.dep_ == "conj" else [])
    for v in chain:
        for c in v.children:
            if c.dep_ in ("aux", "auxpass") and c.lower_ in MODALS:
                return False
            if c.dep_ in ("neg", "mark") or c.lower_ in ("never", "nothing", "nobody", "no"):
                return False
    return not w.sent.text.rstrip().endswith("?")


def _thing_of(w: Any, passive: bool) -> Any | None:
    """The verb's thing: its direct object, or the subject of its passive (taken from the verb it is
    coordinated with when it has none of its own)."""
    own_passive = any(c.dep_ == "auxpass" for c in w.children) or (
        w.dep_ == "conj" and w.tag_ == "VBN" and any(c.dep_ == "auxpass" for c in w.head.children))
    dep = "nsubjpass" if own_passive else "dobj"
    t = next((c for c in w.children if c.dep_ == dep), None)
    if t is None and own_passive and w.dep_ == "conj":
        t = next((c for c in w.head.children if c.dep_ == "nsubjpass"), None)
    return t


def _doer_of(w: Any) -> Any | None:
    for c in w.children:
        if c.dep_ == "nsubj":
            return c
        if c.dep_ == "agent":
            return next((p for p in c.children if p.dep_ == "pobj"), None)
    if w.dep_ == "conj":
        return next((c for c in w.head.children if c.dep_ == "nsubj"), None)
    return None


def _named_as_rule(ev: RuleEvent, t: Any) -> bool:
    """The claim's thing is the rule's, with every modifier the rule gives it and none the rule does not
    ("flash photography" for "flash photography"; not "red torches" for "torches"). A kind of the rule's
    thing by WordNet ("a Pekin drake" for "ducks") counts where the rule's thing has no modifiers and the claim's
    names it with none but a proper name (a noun or an adjective before it may make it another thing: "a toy
    duck", "a chocolate rabbit")."""
    if key(t) != ev.thing:
        return _kind_of_thing(ev, t) and not any(c.dep_ == "neg" or c.lower_ in ("no", "non") for c in t.children)
    return _noun_mods(t) == ev.mods and not any(c.dep_ in ("neg",) or c.lower_ in ("no", "non") for c in t.children)


def _kind_of_thing(ev: RuleEvent, t: Any) -> bool:
    """Is the claim's noun a kind of the rule's thing by WordNet (``categories``), where the rule's thing has no
    modifiers but those of its WordNet phrase (the noun fills the slot of the rule's own verb, which selects
    its sense) and the claim names it with none but a proper name (a noun or an adjective before it may make
    it another thing: "a toy duck", "a chocolate rabbit")?"""
    phrase = categories.phrase_of(ev.text, ev.thing)
    if phrase is None:
        return False
    found = categories.kind_phrase(t, phrase, slot=True)
    if found is None:
        return False
    # modifiers of the rule's thing outside its WordNet phrase ("glass containers") must be the claim's own, word
    # for word ("a glass jar"); the words of the phrase that makes the noun a kind stand beside it too ("orange
    # juice", the "yoghurt" of a yoghurt pot), and proper names; any other word may make it another thing
    extra = ev.mods - {word_key(w) for w in phrase.split()[:-1]}
    mods = [c for c in t.children if c.dep_ in ("compound", "amod")]
    return extra <= {key(c) for c in mods} and all(
        c.pos_ == "PROPN" or c.lemma_.lower() in found.split() or key(c) in extra for c in mods)


def _in_place(ev: RuleEvent, w: Any, t: Any | None = None) -> bool:
    """Every place phrase of the rule is named among the verb's own phrases ("on the observing floor"), or those
    the parser hung on its thing ``t`` ("took a revolver in pawn": the phrase places the taking)."""
    if not ev.places:
        return True
    # a preposition the parser labelled a predicate ("were kept in/oprd the fridge") places the verb too
    preps = [p for p in w.children if p.dep_ == "prep" or (p.dep_ == "oprd" and p.pos_ == "ADP")]
    if t is not None:
        preps += [p for p in t.children if p.dep_ == "prep" and p.lower_ != "of"]
    own = [frozenset(key(x) for x in p.subtree if x.pos_ in ("NOUN", "PROPN")) for p in preps]
    # a phrase that names no place noun ("at all times") narrows nothing
    return all(not place or any(place <= o or _kinds_of(ev, place - o, p) for o, p in zip(own, preps, strict=True))
               for place in ev.places)


def _kinds_of(ev: RuleEvent, missing: frozenset[str], prep: Any) -> bool:
    """Does the phrase name each missing place noun of the rule by a kind of it ("the vaccine fridge" for "a
    medicine refrigerator": a fridge is a refrigerator)?"""
    nouns = [x for x in prep.subtree if x.pos_ == "NOUN"]
    for k in missing:
        phrase = categories.phrase_of(ev.text, k)
        if phrase is None or not any(categories.is_kind(x, phrase) for x in nouns):
            return False
    return True


def _event_verbs(form: Form, ev: RuleEvent, doc: Any, start: int, end: int, manners: bool = False) -> list[Any]:
    """The claim's verbs that are the rule's own; with ``manners``, also those that do a manner of it ("stroked"
    for "touch"): doing a manner of a forbidden doing does it, but not doing a manner of a required one ("was not
    stencilled") does not leave the duty undone."""
    return [w for w in doc if start <= w.idx < end and w.pos_ == "VERB" and (
        key(w) == ev.verb or (manners and bool(ev.lemma) and categories.does_kind_of(w, ev.lemma)))]


def does_forbidden(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the clause (``start``..``end`` of the claim ``doc``) do what a plain prohibition forbids, told as a
    fact: the rule's verb, the rule's thing with its modifiers as that verb's object (or passive subject), the
    rule's places, the rule's doer when it names one?"""
    ev = _plain_event(form, "must_not")
    if ev is None:
        return False
    for w in _event_verbs(form, ev, doc, start, end, manners=True):
        if not _plain_fact(w):
            continue
        t = _thing_of(w, ev.passive)
        if t is None or not _in_place(ev, w, t) or not _doer_as_rule(ev, w):
            continue
        # any of the claim's coordinated things ("a yoghurt pot and a bottle of juice") as any of the rule's
        if any(_named_as_rule(e, x) for e in ev.alternatives() for x in (t, *t.conjuncts)):
            return True
    return False


def _own_verbs(doc: Any, start: int, end: int, verb: str) -> list[Any]:
    """The claim's verbs between ``start`` and ``end`` that are the rule's own verb (by key)."""
    return [w for w in doc if start <= w.idx < end and w.pos_ == "VERB" and key(w) == verb]


def _forbidden_verbs(form: Form, doc: Any, start: int, end: int,
                     reader: Callable[[str], tuple[str, _T] | None]) -> list[tuple[Any, _T]]:
    """For a prohibition: the claim's verbs (between ``start`` and ``end``) that are its own verb, each with what
    ``reader`` took from the rule beside its verb (its narrowed phrases, its targets); none for another rule."""
    if form.modality != "must_not":
        return []
    rule = reader(form.text)
    if rule is None:
        return []
    verb, what = rule
    return [(w, what) for w in _own_verbs(doc, start, end, verb)]


@lru_cache(maxsize=4096)
def _rule_verb_things(text: str) -> tuple[str, bool, tuple[str, ...]] | None:
    """A prohibition's own verb, whether it is passive, and the WordNet phrases of its things (its object, or
    the subject of its passive, with their coordinated nouns), whatever else narrows the rule; None when the rule
    is no modal verb with such a thing or WordNet knows none of them."""
    doc = parse(text)
    root = modal_root(doc)
    if root is None:
        return None
    passive = any(c.dep_ == "auxpass" for c in root.children)
    thing = next((c for c in root.children if c.dep_ == ("nsubjpass" if passive else "dobj")), None)
    if thing is None or thing.pos_ != "NOUN":
        return None
    phrases = tuple(categories.phrase_of(text, key(t)) for t in (thing, *thing.conjuncts))
    if any(p is None for p in phrases):
        return None
    return key(root), passive, tuple(p for p in phrases if p)


def does_to_other_thing(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the clause do the prohibition's own verb to a thing that is surely not the rule's ("A helicopter was
    flown over the dam" for "Drones may not be flown over the dam")? Shared words (the verb and the place) then
    speak of another event: the word-level reading's agreement is no evidence. Surely: each thing the claim's
    verb takes is a common noun WordNet knows and no sense of it is a kind of any of the rule's things; a word
    WordNet does not know ("quadcopter") may be one, so it says nothing."""
    return form.modality == "must_not" and acts_on_other_thing(form, doc, start, end)


def acts_on_other_thing(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the clause do the rule's own verb, of any modality, to a thing that is surely not the rule's (see
    ``does_to_other_thing``)?"""
    return bool(other_things(form, doc, start, end))


def other_things(form: Form, doc: Any, start: int, end: int) -> list[Any]:
    """The things the clause does the rule's own verb to, where each is surely none of the rule's things (empty
    where the clause does not do the verb or one of its things may be the rule's)."""
    rule = _rule_verb_things(form.text)
    if rule is None:
        return []
    verb, passive, phrases = rule
    for w in _own_verbs(doc, start, end, verb):
        t = _thing_of(w, passive)
        if t is None:
            continue
        things = [t, *t.conjuncts]
        if all(_surely_not_kind(x, phrases) for x in things):
            return things
    return []


def _owners(verb: Any) -> dict[tuple[str, str], Any]:
    """(preposition, key of its noun) -> the noun that owns it by "of", for each prepositional phrase of the
    verb whose noun is narrowed so ("fitted to the steer axle of a coach": ("to", "axle") -> coach)."""
    out = {}
    for p in verb.children:
        if p.dep_ != "prep":
            continue
        for n in p.children:
            if n.dep_ != "pobj":
                continue
            of = next((c for c in n.children if c.dep_ == "prep" and c.lower_ == "of"), None)
            owner = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
            if owner is not None:
                out[(p.lower_, key(n))] = owner
    return out


@lru_cache(maxsize=1024)
def _rule_owners(text: str) -> tuple[str, tuple[tuple[str, str, str], ...]] | None:
    """A prohibition's verb and, for each of its phrases narrowed by an "of" noun, (preposition, noun key,
    WordNet phrase of the owner)."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ != "VERB" or key(root) in GENERIC:
        return None
    got = []
    for (prep, noun), owner in _owners(root).items():
        phrase = categories.phrase_of(text, key(owner)) if owner.pos_ == "NOUN" else None
        if phrase:
            got.append((prep, noun, phrase))
    return (key(root), tuple(got)) if got else None


def done_to_other_owner(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the clause do the prohibition's verb to the same part of another owner ("Retreads were fitted to the
    steer axle of a tipper lorry" for "Retreaded tyres must never be fitted to the steer axle of a coach")? The
    "of" noun narrows the rule to one owner's part; one WordNet surely puts apart from it is another event."""
    for w, narrowed in _forbidden_verbs(form, doc, start, end, _rule_owners):
        owners = _owners(w)
        for prep, noun, phrase in narrowed:
            o = owners.get((prep, noun))
            if o is not None and all(_surely_not_kind(x, (phrase,)) and wordnet.is_a(phrase, x.lemma_.lower())
                                     is False for x in (o, *o.conjuncts)):
                return True  # apart both ways: "a bus" may be the rule's "school bus"
    return False


def _targets(verb: Any) -> dict[str, list[Any]]:
    """preposition -> the nouns (with their coordinated ones) of the verb's prepositional phrases."""
    out: dict[str, list[Any]] = {}
    for p in verb.children:
        if p.dep_ == "prep":
            for n in p.children:
                if n.dep_ == "pobj":
                    out.setdefault(p.lower_, []).extend((n, *n.conjuncts))
    return out


@lru_cache(maxsize=1024)
def _rule_targets(text: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """A prohibition's verb and, for each of its prepositional phrases with a common noun WordNet knows,
    (preposition, WordNet phrase of the noun): "on dogs" in "must never be used on dogs". A light verb ("use")
    counts here: its phrase, not the verb, is what tells one such event from another."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ != "VERB" or key(root) in ("be", "have", "do"):
        return None
    got = []
    for prep, nouns in _targets(root).items():
        for n in nouns:
            phrase = categories.phrase_of(text, key(n)) if n.pos_ == "NOUN" else None
            if phrase:
                got.append((prep, phrase))
    return (key(root), tuple(got)) if got else None


def done_on_other_target(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the clause do the prohibition's verb with the rule's preposition to something WordNet surely puts
    apart from the rule's noun both ways ("the soap he used on his own hands" for "must never be used on
    dogs")? The rule forbids the event done to its own target; done to another, it is another event."""
    for w, targets in _forbidden_verbs(form, doc, start, end, _rule_targets):
        got = _targets(w)
        for prep in {p for p, _ in targets}:
            nouns, phrases = got.get(prep, []), [ph for p, ph in targets if p == prep]
            if nouns and all(_apart(x, ph) for x in nouns for ph in phrases):
                return True  # "to the client or label": apart from each of the rule's nouns
    return False


def _apart(t: Any, phrase: str) -> bool:
    """Is the noun (and each noun compounded with it) surely neither a kind of the rule's noun nor above it?
    Adjectives ("his own hands") do not change what the noun is."""
    if t.pos_ != "NOUN":
        return False
    words = [t, *(c for c in t.children if c.dep_ == "compound")]
    return all(wordnet.is_a(w.lemma_.lower(), phrase) is False and wordnet.is_a(phrase, w.lemma_.lower()) is False
               for w in words)


def _surely_not_kind(t: Any, phrases: tuple[str, ...]) -> bool:
    """Is the claim's noun surely none of the rule's things: a common noun WordNet knows, no sense of it below
    any of them, and the same of each noun that may say what it holds or is made of (its modifiers, "a yoghurt
    pot"; what it is "of", "a bottle of orange juice")?"""
    if t.pos_ != "NOUN":
        return False
    words = [t, *(c for c in t.children if c.dep_ in ("compound", "amod", "nmod"))]
    words += [o for p in t.children if p.dep_ == "prep" and p.lower_ == "of" for o in p.children if o.dep_ == "pobj"]
    return all(wordnet.is_a(w.lemma_.lower(), p) is False for w in words for p in phrases)


def _plain_event(form: Form, modality: str) -> RuleEvent | None:
    """The one event of a plain rule of this modality, or None: a rule with a measured part, an order or a
    reserved doer is read by the other checks."""
    if form.modality != modality or form.quantity or form.trigger or form.window or form.order or form.agents:
        return None
    ev = rule_event(form.text)
    if ev is not None and ev.others and modality != "must_not":
        return None  # a duty of several things: which of them the claim drops is read by the word-level check
    return ev


def _doer_as_rule(ev: RuleEvent, w: Any) -> bool:
    """Does the verb's doer fit the rule's (no doer named by the rule fits any; else the same noun, unqualified)?"""
    if ev.doer is None:
        return True
    d = _doer_of(w)
    return d is not None and key(d) == ev.doer and not any(c.dep_ in ("amod", "compound") for c in d.children)


def _negated_verb(w: Any) -> bool:
    """Is the verb itself denied ("were not labelled", "never carried")? Only a negation on the verb or its
    auxiliaries counts, not one elsewhere in the sentence."""
    chain = [w] + ([w.head] if w.dep_ == "conj" and not any(c.dep_ in ("nsubj", "nsubjpass") for c in w.children)
                   else [])
    if any(c.dep_ == "neg" or c.lower_ == "never" for v in chain for c in v.children):
        return True
    # "Neither Leo nor Sasha was wearing ...": a subject opened by "neither" denies the verb of each of its members
    return any(c.dep_ in ("nsubj", "nsubjpass") and any(d.lower_ == "neither" and d.i < c.i for d in c.children)
               for c in w.children)


def _denied_mod(ev: RuleEvent, t: Any) -> bool:
    """Does the claim's thing carry one of the rule's own modifiers denied by its prefix ("an uncharged
    extinguisher" for "a charged fire extinguisher", "non-sterile gloves" for "sterile gloves")?"""
    own = {c.lower_ for c in t.children if c.dep_ in ("amod", "compound")}
    denied = {word_key(w[len(p):].lstrip("-")) for w in own for p in ("un", "non") if w.startswith(p) and len(w) > len(p) + 3}
    return bool(denied & ev.mods)


def drops_required(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the clause drop what a plain duty requires, told as a fact: the rule's verb, with the rule's
    thing (its modifiers, no others of its kind) as its object or passive subject, denied at the verb ("The
    crates were not labelled with ..."), or done to the thing with the rule's own modifier denied ("carried
    an uncharged extinguisher" for "must carry a charged fire extinguisher")?"""
    ev = _plain_event(form, "must")
    if ev is None:
        return False
    for w in _event_verbs(form, ev, doc, start, end):
        if w.dep_ not in _CLAUSE_DEPS or (w.dep_ == "conj" and w.head.dep_ != "ROOT") or \
                w.sent.text.rstrip().endswith("?"):
            continue
        if any(c.dep_ in ("aux", "auxpass") and c.lower_ in MODALS for c in w.children) or \
                any(c.dep_ == "mark" for c in w.children):
            continue
        t = _thing_of(w, ev.passive)
        if t is None or not _in_place(ev, w) or not _doer_as_rule(ev, w):
            continue
        if key(t) != ev.thing:  # a kind of the rule's thing ("never wore a bracer" for "an arm guard") counts denied
            if _negated_verb(w) and _kind_of_thing(ev, t):
                return True
            continue
        if _negated_verb(w) and _noun_mods(t) == ev.mods and not any(c.lower_ in ("no", "non") for c in t.children):
            return True
        if not _negated_verb(w) and _denied_mod(ev, t):
            return True
    return False


# how a participle with "un-" says of a thing that the rule's event was not done to it: as the predicate of
# its verb ("went out unlabelled", "were left unsigned", "came back untested"); a modifier ("the unlabelled
# trays were set aside and labelled") only describes a state the claim may go on to mend
_UNDONE_DEPS = frozenset({"advcl", "oprd", "acomp", "xcomp", "conj"})


def _undone_verb(ev: RuleEvent, w: Any) -> bool:
    """Is the word the rule's own verb as a participle denied by "un-" ("unlabelled" for "must be labelled")?"""
    low = w.lower_
    if not low.startswith("un") or len(low) < 7 or not re.search(r"(?:ed|en)$", low):
        return False
    return has_key(set(light_keys(low[2:])), ev.verb)


def leaves_undone(form: Form, doc: Any, start: int, end: int) -> bool:
    """Does the claim (between ``start`` and ``end``) say, as a fact, that the rule's own thing was left
    without the event a plain passive duty requires of it ("Seed trays go out unlabelled" for "Seed trays must
    be labelled with the sowing date", "Delivery notes came back unsigned" for "Delivery notes must be
    signed")? The "un-" participle is the rule's verb, the predicate of a verb told as a plain fact whose
    subject is the rule's thing named with the rule's own modifiers; a thing denied ("no trays") is not, nor a
    sentence that also does the rule's verb ("arrived unlabelled and were labelled on receipt")."""
    ev = _plain_event(form, "must")
    if ev is None or not ev.passive:
        return False
    for w in doc:
        if not (start <= w.idx < end) or w.dep_ not in _UNDONE_DEPS or not _undone_verb(ev, w):
            continue
        verb = w.head
        t = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if t is None or key(t) != ev.thing or verb.pos_ not in ("VERB", "AUX") or not _plain_fact(verb):
            continue
        if any(x.pos_ == "VERB" and key(x) == ev.verb and not _negated_verb(x) for x in w.sent):
            continue  # the event is also told as done: which state the claim ends on is not read here
        if _noun_mods(t) == ev.mods and not any(c.lower_ in ("no", "non", "none") or c.dep_ == "neg"
                                                for c in t.children):
            return True
    return False


# verbs that report or weigh a statement without asserting it: "some say the cap is a recommendation"
_REPORTING = frozenset({"say", "claim", "think", "believe", "argue", "suggest", "assume", "suppose", "wonder", "ask",
                        "insist", "feel", "suspect", "guess", "hope", "fear", "doubt", "propose", "rumour", "rumor"})


def reported(t: Any) -> bool:
    """Is the token's clause the content of a verb that reports or weighs it ("Some tutors say the cap is only a
    recommendation", "Tenants believe they may bring a puppy")? Such a clause states nothing as the claim's own."""
    w = t
    while w.head.i != w.i:
        if w.dep_ in ("ccomp", "xcomp", "parataxis") and w.head.lemma_.lower() in _REPORTING:
            return True
        w = w.head
    return False
