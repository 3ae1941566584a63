"""A required step said not done: "moved on without taking the door photo", "given unwitnessed", "the loan form
was skipped", "its checklist left blank", "none were worn", "drawn with nothing recording".

Why its own module: a duty ("Every delivery must be photographed ...", "Every controlled-drug administration must
be witnessed ...", "Meteorite specimens may leave ... only with a signed loan form") is broken by a claim that tells
what it requires as missing, and writers tell that in a few grammatical shapes whatever the domain: "without" with
a noun or a gerund ("without a permit", "without being stencilled", "without the form being signed"), a participle
with "un-" ("unwitnessed", "unwashed", "ungoggled"), a verb that leaves a step out ("was skipped", "omitted"), a
thing "left blank", a subject that denies ("none were worn", "no attendant was assigned", "nothing recording"), a
thing under "no" where it would be held ("with no helmet", "there was no signed form on file"), and, since round 16,
a step told as still to come while the event went on ("with the seal still pending", "had yet to sign", "the list to
be emailed later", "the codes were to follow"): a step put off is a step not done when it was due; and, since
round 17, a thing declared not needed or lifted ("gloves weren't needed", "no ID needed", "waived the form",
``waived``), placed within the rule by whom it binds or by the occasion its duty is bound to ("for every waxing
treatment"), unless it is one of several alternatives the rule offers.
What is missing is matched to what the rule requires by the rule's own words or their WordNet derivations
("photo"/"photograph", "signature"/"sign", "unattended"/"attendant"), on the head of the missing phrase (or a
gerund naming the step: "the sanitising step"). Whether the claim's event is one the rule governs is the caller's
question; this module gives it what it needs: whom the rule binds (its subject), an exception the rule grants,
and whether the rule leaves time to do the step later (a deadline), in which case missing it now breaks nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from abilities.scu_guard import wordnet
from abilities.scu_guard.events import reported
from abilities.scu_guard.nlp import MODALS, parse
from abilities.scu_guard.waived import waiver_of
from abilities.scu_guard.withheld import clause_verb as told_in
from abilities.scu_guard.withheld import told

# verbs that carry no act of their own: the act is in their object ("taking the photo", "raising a permit")
_LIGHT = frozenset(wordnet.TOO_GENERAL_VERBS | {"raise", "fill", "complete", "carry", "perform", "conduct",
                                                "undertake", "obtain", "produce", "issue", "send", "provide"})
# verbs of having or wearing a thing: the duty's thing is their object (or their passive subject)
_HOLDING = frozenset({"have", "wear", "carry", "bear", "hold", "use", "keep", "show", "display"})
# verbs that say a step was left out
_LEAVING_OUT = frozenset({"skip", "omit", "miss", "forgo", "forego", "bypass", "neglect", "forget", "overlook"})
# what a thing left untouched is left as
_LEFT_AS = frozenset({"blank", "empty", "undone", "incomplete", "unfilled", "unsigned", "unchecked"})
_DENYING = frozenset({"none", "nothing", "nobody", "noone"})
# what a step not done yet is said to be: "the sign-off was still pending", "with the permit outstanding"
_PUT_OFF = frozenset({"pending", "outstanding", "overdue"})
# words that put an infinitive's act after the event: "the list to be emailed later", "codes were to follow"
_LATER = frozenset({"later", "afterwards", "afterward", "subsequently", "tomorrow", "next"})
# verbs that tell a thing held back, not an event that went on: "Kayak 7 stayed on the rack"
_HELD_BACK = frozenset({"stay", "remain", "wait", "sit", "keep", "hold", "park", "postpone", "cancel", "delay",
                        "stop", "halt", "defer", "suspend", "have", "be"})
EXCEPT_RE = re.compile(r"\b(?:except|unless|other than|apart from|excluding|exempt)\b(.*)$", re.I)
_DEADLINE_RE = re.compile(r"\b(?:within|later than|at the latest|until|by (?:the )?(?:end|close|noon|midnight|\d)|"
                          r"\d+\s*(?:working |business |calendar )?(?:minute|hour|day|week|month)s?)\b", re.I)
_UN_RE = re.compile(r"^(?:un|non-?)([a-z]{3,}(?:ed|en|t))$")


@dataclass(frozen=True)
class Step:
    """What a duty requires: the lemmas of its acts ("photograph", "sign") and of its things ("respirator",
    "permit", the doer who must witness), whom it binds (its subject's lemmas; empty for everyone or where the
    subject is the thing worn), the lemmas of an exception it grants, and whether it sets a deadline."""

    acts: frozenset[str]
    things: frozenset[str]
    subject: frozenset[str]
    exception: frozenset[str]
    deadline: bool
    narrowing: frozenset[str] = frozenset()  # the words describing the subject ("loaded" in "Every loaded truck")
    # the words of the doer a passive act names ("by a member of staff"): who must do the step, not whom it binds
    doer_words: frozenset[str] = frozenset()
    place: frozenset[str] = frozenset()  # where the subject is bound ("in the quarry lake" in "A diver in the quarry lake")
    # the occasion the duty's act or thing is bound to ("for every waxing treatment", "on every ride")
    occasion: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Gap:
    """A claim's statement that something was not done or not there: the lemmas of its head words (a verb of
    the act, the missing thing's head noun, a gerund naming the step), earlier nouns a pronoun may stand for,
    and the token that says so."""

    heads: frozenset[str]
    antecedents: frozenset[str]
    token: Any
    of: frozenset[str] = frozenset()  # what the missing act or thing is of ("the weighing of the empty pallets")
    at: Any = None  # the word that says it is missing ("without", "skipped", the verb of "none were worn")
    said_of: Any = None  # who or what went without it ("Leo rode without it", "the crates went back unwashed")
    put_off: bool = False  # the step told as still to come ("still pending", "had yet to", "to follow"), not refused
    waived: bool = False  # the thing declared not needed or lifted ("gloves weren't needed", "waived the form")


def _lemma(t: Any) -> str:
    return (t.lemma_ or t.text).lower()


def _parts(lemma: str) -> set[str]:
    """A word and, for a hyphenated one, its last part ("video-record" is a recording)."""
    return {lemma, lemma.rsplit("-", 1)[-1]} if "-" in lemma else {lemma}


@lru_cache(maxsize=4096)
def required_step(text: str) -> Step | None:
    """The step a duty requires, or None when the rule is no duty: "X must (be) V-ed", "X must have/wear Y",
    "X requires Y", "X may V only with Y"."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "AUX") or any(c.dep_ == "neg" for c in root.children):
        return None
    modal = any(c.dep_ in ("aux", "auxpass") and c.lower_ in ("must", "shall") for c in root.children)
    only_with = [p for p in root.children if p.dep_ == "prep" and p.lower_ == "with" and
                 any(c.lower_ == "only" for c in p.children)]
    requires = root.lemma_.lower() in ("require", "need") and not modal
    if not (modal or requires or only_with):
        return None
    if root.lemma_.lower() == "be":  # "must be video-recorded": the participle is the duty's verb
        root = next((c for c in root.children if c.dep_ == "acomp" and c.pos_ == "VERB"), root)
    passive = any(c.dep_ == "auxpass" for c in root.children) or root.dep_ == "acomp"
    acts: set[str] = set()
    things: list[Any] = []
    doers: list[Any] = []  # the doer a passive duty names ("by a second nurse"): its modifiers only describe it
    subject: list[Any] = [c for c in (root.head if root.dep_ == "acomp" else root).children
                          if c.dep_ in ("nsubj", "nsubjpass")]
    verb = root.lemma_.lower()
    if requires:
        things += [c for c in root.children if c.dep_ == "dobj"]
        things += [c.head for c in doc if c.dep_ == "nsubj" and c.head.dep_ in ("xcomp", "ccomp")
                   and c.head.head.i == root.i]  # "requires the fire marshal to be present"
        things = [t if t.pos_ in ("NOUN", "PROPN") else next((c for c in t.children if c.dep_ == "nsubj"), t)
                  for t in things]
    elif only_with:
        things += [c for p in only_with for c in p.children if c.dep_ == "pobj"]
    elif verb in _HOLDING:
        if passive:
            things += subject
            subject = []
        else:
            things += [c for c in root.children if c.dep_ == "dobj"]
    else:
        acts |= _parts(verb)
        acts |= {_lemma(c) for c in root.children if c.dep_ == "conj" and c.pos_ == "VERB"}
        for c in root.children:
            if c.dep_ == "agent":  # "witnessed by a second registered nurse": the witness is required too
                doers += [p for p in c.children if p.dep_ == "pobj"]
            if c.dep_ == "prep" and c.lower_ == "with":  # "branded with the classer's stencil number"
                things += [p for p in c.children if p.dep_ == "pobj"]
    words: set[str] = set()
    # "a respirator and nitrile gloves": the parser may hang the first of a list on the last as its nmod
    things += [c for t in things for c in t.children if c.dep_ == "nmod" and c.pos_ == "NOUN"]
    words |= {_lemma(x) for t in doers for x in (t, *t.conjuncts) if x.pos_ == "NOUN"}
    for t in [x for y in things for x in (y, *y.conjuncts)]:
        if t.pos_ not in ("NOUN", "PROPN") and not (t.pos_ == "ADJ" and t.dep_ == "dobj"):
            continue  # "a standby attendant" may be tagged an adjective
        words.add(_lemma(t))
        if not wordnet.names_person(_lemma(t)):  # "a signed form" must be signed; a registered nurse is a nurse
            acts |= {_lemma(c) for c in t.children if c.dep_ in ("amod", "acl") and c.tag_ == "VBN"}
    subj = {_lemma(x) for s in subject for x in (s, *s.conjuncts) if x.pos_ in ("NOUN", "PROPN")}
    subj -= {"anyone", "everyone", "everybody", "person", "one"}
    narrowing = {_lemma(w) for s in subject for c in s.children if c.dep_ in ("amod", "compound", "nmod", "acl", "relcl")
                 for w in c.subtree if w.pos_ in ("NOUN", "PROPN", "ADJ", "VERB") and not w.is_stop}
    m = EXCEPT_RE.search(text)
    exception = frozenset(_lemma(t) for t in parse(m.group(1)) if t.pos_ in ("NOUN", "VERB", "ADJ")) if m else \
        frozenset()
    if not (acts or words):
        return None
    by = {_lemma(w) for t in doers for w in t.subtree if w.pos_ in ("NOUN", "PROPN", "ADJ")}
    place = {_lemma(w) for s in subject for c in s.children if c.dep_ == "prep"
             for w in c.subtree if w.pos_ in ("NOUN", "PROPN") and not w.is_stop}
    occasion = {_lemma(w) for t in [root, *things] for c in t.children if c.dep_ == "prep" and c.lower_ != "with"
                for w in c.subtree if w.pos_ in ("NOUN", "VERB") and not w.is_stop} - words - subj
    return Step(frozenset(acts - _LIGHT), frozenset(words), frozenset(subj), exception,
                bool(_DEADLINE_RE.search(text)), frozenset(narrowing), frozenset(by), frozenset(place),
                frozenset(occasion))


def _heads_of(t: Any) -> set[str]:
    """The words that name what a missing phrase is: its head, its conjuncts, the verb of a hyphened head
    ("sign-off", "check-in"), and a gerund or participle that names the step ("the sanitising step", "a signed
    form"), never a light verb."""
    out = {_lemma(x) for x in (t, *t.conjuncts) if x.pos_ in ("NOUN", "PROPN", "VERB")}
    doc = t.doc
    out |= {_lemma(doc[x.i - 2]) for x in (t, *t.conjuncts) if x.i >= 2 and doc[x.i - 1].text == "-" and
            doc[x.i - 2].head.i == x.i}
    out |= {_lemma(c) for x in (t, *t.conjuncts) for c in x.children
            if c.dep_ in ("amod", "compound", "acl", "relcl") and c.tag_ in ("VBG", "VBN")}
    return out - _LIGHT


def _gerund_heads(v: Any) -> set[str]:
    """A gerund's act: the verb itself, or, for a light verb, its object ("taking the door photo")."""
    out = set() if _lemma(v) in _LIGHT else {_lemma(v)}
    for c in v.children:
        if c.dep_ in ("dobj", "nsubjpass", "nsubj") and c.pos_ in ("NOUN", "PROPN"):
            out |= _heads_of(c)
    return out


def _earlier_nouns(t: Any) -> frozenset[str]:
    return frozenset(_lemma(x) for x in t.sent if x.i < t.i and x.pos_ == "NOUN")


def _without(w: Any) -> Gap | None:
    """ "without a permit", "without it", "without taking the photo", "without the form being signed"."""
    g = _without_what(w)
    return replace(g, said_of=_doer(w.head)) if g is not None else None


def _doer(v: Any) -> Any | None:
    """The subject of a verb (or of the verb it is coordinated with), or the noun a word describes."""
    if v.pos_ in ("NOUN", "PROPN", "PRON"):
        return v
    for w in (v, v.head) if v.dep_ in ("conj", "advcl", "xcomp") else (v,):
        s = next((c for c in w.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if s is not None:
            return s
    return None


def _without_what(w: Any) -> Gap | None:
    for c in w.children:
        if c.dep_ == "pcomp" and c.pos_ in ("VERB", "AUX"):
            return Gap(frozenset(_gerund_heads(c)), frozenset(), c)
        if c.dep_ == "pobj":
            if c.pos_ == "PRON" or c.lower_ in ("one", "ones"):
                return Gap(frozenset(), _earlier_nouns(w), c)
            if c.pos_ in ("NOUN", "PROPN"):
                heads = _heads_of(c)
                heads |= {h for x in c.children if x.dep_ in ("acl", "relcl") for h in _gerund_heads(x)}
                return Gap(frozenset(heads), frozenset(), c)
    return None


def _un_participle(t: Any) -> Gap | None:
    """ "given unwitnessed", "milled unwashed", "walked in ungoggled": the act (or the thing: "goggled") undone."""
    m = _UN_RE.match(t.lower_)
    if m is None or t.pos_ not in ("VERB", "ADJ"):
        return None
    rest = m.group(1)
    heads = set(wordnet.verb_lemmas(rest))
    for cut in (1, 2):  # "goggled" -> goggle(s), "attended" -> attend
        heads |= {rest[:-cut], rest[:-cut] + "s"}
    return Gap(frozenset(heads - _LIGHT), frozenset(), t, said_of=t.head if t.dep_ == "amod" else _doer(t.head))


def _left_out(v: Any) -> Gap | None:
    """ "the loan form was skipped", "omitted the second count", "forgot to lock the door"."""
    if v.pos_ != "VERB" or _lemma(v) not in _LEAVING_OUT:
        return None
    for c in v.children:
        if c.dep_ in ("dobj", "nsubjpass") and c.pos_ in ("NOUN", "PROPN"):
            of = frozenset(_lemma(n) for p in c.children if p.dep_ == "prep" and p.lower_ == "of"
                           for n in p.children if n.dep_ == "pobj")
            return Gap(frozenset(_heads_of(c)), frozenset(), v, of)
        if c.dep_ == "xcomp" and c.pos_ == "VERB":
            return Gap(frozenset(_gerund_heads(c)), frozenset(), v)
    return None


def _left_blank(t: Any) -> Gap | None:
    """ "its checklist left blank", "the log was left empty"."""
    if t.lower_ not in _LEFT_AS or _lemma(t.head) != "leave":
        return None
    v = t.head
    owner = v.head if v.dep_ in ("acl", "relcl") else next((c for c in v.children if c.dep_ == "nsubjpass"), None)
    if owner is None or owner.pos_ not in ("NOUN", "PROPN"):
        return None
    return Gap(frozenset(_heads_of(owner)), frozenset(), t)


def _denied_subject(v: Any) -> Gap | None:
    """ "none were worn", "no standby attendant was assigned", "with nothing recording"."""
    if v.pos_ not in ("VERB", "AUX") or any(w.lower_ == "than" for w in v.subtree):
        return None  # "Nothing departed later than 06:00" denies a breach of a bound, not a step
    for c in v.children:
        denied = c.lower_ in _DENYING and c.dep_ in ("nsubj", "nsubjpass", "compound")
        no = c.dep_ in ("nsubj", "nsubjpass") and c.pos_ == "NOUN" and any(
            d.dep_ == "det" and d.lower_ == "no" for d in c.children)
        if not (denied or no):
            continue
        heads = ({_lemma(v)} if v.pos_ == "VERB" else set()) | (_heads_of(c) if no else set())
        verb = v if v.pos_ == "VERB" else next((x for x in v.children if x.dep_ == "acomp" and x.pos_ == "VERB"), None)
        if verb is not None:
            heads.add(_lemma(verb))
        return Gap(frozenset(heads - _LIGHT), _earlier_nouns(v) if denied else frozenset(), c)
    return None


def _with_doer(t: Any) -> Any | None:
    """Who went with what a "with" phrase holds ("the van left with the sign-off still pending"): the doer of the
    verb the phrase hangs from; None when the phrase is no "with"."""
    if t.dep_ == "advcl" and any(c.dep_ == "mark" and c.lower_ == "with" for c in t.children):
        return _doer(t.head)  # "left on Friday, with its declaration to be sent later"
    w = t
    while w.head.i != w.i and w.dep_ not in ("pobj", "pcomp"):
        w = w.head
    return _doer(w.head.head) if w.dep_ in ("pobj", "pcomp") and w.head.lower_ == "with" else None


def _owner(v: Any) -> Any | None:
    """The noun a state or an infinitive is told of: its own subject ("the approval still pending"), the subject of
    the verb it completes ("the signature was still outstanding", "the codes were to follow"), or the noun it
    describes ("the list to be emailed later")."""
    own = next((c for c in v.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if own is None and v.dep_ in ("acomp", "xcomp", "attr"):
        own = next((c for c in v.head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if own is None and v.dep_ in ("acl", "relcl", "amod"):
        own = v.head
    return own if own is not None and own.pos_ in ("NOUN", "PROPN") else None


def _put_off(t: Any) -> Gap | None:
    """A step told as still to come, not done when the event went on: "with the sign-off still pending", "the
    signature was still outstanding", "the driver had yet to sign the sheet", "its permit is yet to be issued",
    "the list to be emailed later", "their lot codes were to follow by email". A thing merely described so ("the
    pending order") is no step put off."""
    if t.lower_ in _PUT_OFF and t.dep_ in ("acomp", "pcomp", "advcl", "xcomp"):
        own = _owner(t)
        return Gap(frozenset(_heads_of(own)), frozenset(), own, said_of=_with_doer(t), put_off=True) \
            if own is not None else None
    if t.lower_ == "yet" and t.dep_ == "advmod" and _lemma(t.head) in ("have", "be"):
        v = next((c for c in t.head.children if c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX")), None)
        if v is None:
            return None
        heads = _gerund_heads(v)
        if any(c.dep_ == "auxpass" for c in v.children):  # "its permit is yet to be issued"
            own = _owner(t.head)
            heads |= _heads_of(own) if own is not None else set()
        return Gap(frozenset(heads), frozenset(), v, put_off=True)
    if t.pos_ == "VERB" and (t.dep_ in ("acl", "relcl", "pcomp", "xcomp") or _with_doer(t) is not None) and \
            any(c.dep_ == "aux" and c.lower_ == "to" for c in t.children) and \
            (_lemma(t) == "follow" or any(w.lower_ in _LATER for c in t.children if c.dep_ in ("advmod", "npadvmod")
                                          for w in c.subtree)):
        if t.dep_ == "xcomp" and _lemma(t.head) != "be":
            return None  # "they planned to fill it in later": an intention, told by the verb above
        own = _owner(t)
        if own is None:
            return None
        act = set() if _lemma(t) == "follow" else _gerund_heads(t)
        return Gap(frozenset(_heads_of(own) | act), frozenset(), own, said_of=_with_doer(t), put_off=True)
    return None


def _none_held(t: Any) -> Gap | None:
    """A thing under "no" where it would be held: "went ahead with no signed permit", "had no consent form",
    "there was no signed form on file". Not "no more than", not "no" before an amount."""
    if t.pos_ != "NOUN" or not any(c.dep_ == "det" and c.lower_ == "no" for c in t.children):
        return None
    v = t.head
    held = (t.dep_ == "pobj" and v.lower_ == "with") or (t.dep_ == "dobj" and _lemma(v) in _HOLDING) or \
        (t.dep_ == "attr" and _lemma(v) == "be" and any(c.dep_ == "expl" for c in v.children))
    if not held or any(c.pos_ == "NUM" or c.like_num for c in t.children):
        return None
    said_of = _doer(v.head) if v.lower_ == "with" else None
    return Gap(frozenset(_heads_of(t)), frozenset(), t, said_of=said_of)


def _waived(t: Any) -> Gap | None:
    """ "gloves weren't needed", "the customer waived the certificate", "made helmets optional" (``waived``): told
    as a fact (no modal, no question, no condition, no denial above it), though it may be what someone decided or
    said ("Jo decided gloves weren't needed"): the waiver is the doing."""
    w = waiver_of(t)
    if w is None or not told(t, own=w[1]):
        return None
    s = w[0]
    if s.pos_ == "PRON":
        return Gap(frozenset(), _earlier_nouns(s), s, at=t, waived=True)
    return Gap(frozenset(_heads_of(s)), frozenset(), s, at=t, waived=True)


def gaps(doc: Any, start: int = 0, end: int | None = None) -> list[Gap]:
    """Every statement in the span that something was not done or not there, told as a fact (no modal, no
    question, not reported, not itself denied again: "nobody left without a permit")."""
    end = len(doc.text) if end is None else end
    out = []
    for t in doc:
        if not (start <= t.idx < end):
            continue
        w = _waived(t)
        if w is not None:
            if w.heads or w.antecedents:
                out.append(w)
            continue
        g = (_without(t) if t.lower_ == "without" else None) or _un_participle(t) or _left_out(t) or \
            _left_blank(t) or _denied_subject(t) or _put_off(t) or _none_held(t)
        if g is None or not (g.heads or g.antecedents) or reported(g.token) or not told(t, own=t if g.token is not t else None):
            continue
        if g.token is not t and not told(g.token, own=t):
            continue
        out.append(replace(g, at=t))
    return out


@lru_cache(maxsize=16384)
def _family(lemma: str) -> frozenset[str]:
    return frozenset(x for w in _parts(lemma) for x in wordnet.derivations(w))


def how_matched(step: Step, gap: Gap) -> str:
    """"own" when the gap names one of the rule's required words, "derived" when a WordNet derivation of one
    ("photo" for "photographed", "unattended" for "attendant"), "" otherwise. A pronoun ("without it", "none")
    stands for an earlier noun of its sentence only by the rule's own word for its thing."""
    required = step.acts | step.things
    rule = {p for w in required for p in _parts(w)}
    if gap.of and not gap.of & (rule | step.subject):
        return ""  # the step done to another thing than the rule's
    if gap.heads & rule or (gap.antecedents & step.things and not gap.heads - {"wear", "have"} - rule):
        return "own"
    for h in gap.heads:
        if _family(h) & rule or any(h in _family(r) for r in required):
            return "derived"
    return ""


def done_elsewhere(step: Step, gap: Gap, doc: Any) -> bool:
    """Does the claim tell the rule's act done after all, as a fact, outside the gap ("Sam skipped the photo, so
    Lena took it", "the form was signed the next morning")? Then the step was done, by someone else or later."""
    inside = {x.i for w in (gap.token, gap.at) if w is not None for x in w.subtree}
    for v in doc:
        if v.i in inside or v.pos_ != "VERB" or v.dep_ in ("amod", "pcomp", "xcomp", "compound"):
            continue
        if not (_family(_lemma(v)) & step.acts):
            continue
        if any(c.dep_ == "neg" or (c.dep_ in ("aux", "auxpass") and c.lower_ in MODALS) for c in v.children):
            continue  # "would sign it on the next visit", "planned to fill it in" (an xcomp, above) do nothing yet
        if not reported(v) and not v.sent.text.rstrip().endswith("?"):
            return True
    return False


def _event(v: Any) -> bool:
    """Is the verb an event told as a past fact, not a thing held back ("stayed on the rack", "was postponed")?"""
    return v.pos_ == "VERB" and v.tag_ in ("VBD", "VBN") and v.dep_ not in ("amod", "acl") and \
        _lemma(v) not in _HELD_BACK and not reported(v) and told(v)


def went_on(gap: Gap) -> str:
    """Did an event go on while the step was still to come? "with": the step put off is told as the very event's
    circumstance ("The van left at noon with the sign-off still pending"); "beside": the sentence tells such an
    event apart from it ("Kayak 7 went out; the instructor had yet to inspect it": whether the step was done before
    it went is not told, "yet" may be of an earlier moment); "" when nothing went on ("the sign-off is still
    pending, so the van waits"): a step put off before anything happened breaks nothing yet."""
    if gap.said_of is not None:
        v = gap.said_of.head
        if _event(v) and v.i not in {x.i for x in gap.token.subtree}:
            return "with"
    inside = {x.i for w in (gap.token, gap.at) if w is not None for x in w.subtree}
    if gap.at is not None:
        inside.add(gap.at.head.i)  # "had" of "had yet to sign"
    return "beside" if any(v.i not in inside and _event(v) for v in gap.token.sent) else ""


def tied(step: Step, gap: Gap) -> bool:
    """Is what went without the step the rule's own subject, or someone the words leave open (a name, a pronoun),
    or is the subject named within the missing phrase ("without the nameplate being checked")? "The crates went
    back unwashed" for "Apples must be washed" tells of crates, not apples."""
    if not step.subject:
        return True
    if any(_lemma(x) in step.subject for x in gap.token.subtree):
        return True
    s = gap.said_of
    if s is None or s.pos_ in ("PRON", "PROPN") or not s.pos_ == "NOUN":
        return True
    return any(_lemma(x) in step.subject or _family(_lemma(x)) & step.subject for x in (s, *s.conjuncts))


def held_elsewhere(step: Step, gap: Gap, doc: Any) -> bool:
    """Does the claim also tell the rule's thing held or worn, as a fact ("The welders wore face shields; the
    apprentice swept up without one")? Then who went without it is a question the words may not settle."""
    inside = {x.i for w in (gap.token, gap.at) if w is not None for x in w.subtree}
    for t in doc:
        if t.i in inside or t.pos_ != "NOUN" or _lemma(t) not in step.things:
            continue
        v = t.head
        if t.dep_ in ("dobj", "nsubjpass") and _lemma(v) in _HOLDING and not any(
                c.dep_ == "neg" or (c.dep_ in ("aux", "auxpass") and c.lower_ in MODALS) for c in v.children):
            return True
    return False


def narrowed_named(step: Step, doc: Any) -> bool:
    """Does the claim name every word that narrows whom the rule binds ("loaded" in "Every loaded truck"), by
    itself or a derivation? "Truck 9 left untarped, but it was empty" may be outside the rule."""
    words = {_lemma(t) for t in doc}
    return all(w in words or _family(w) & words for w in step.narrowing)


def placed(step: Step, gap: Gap) -> bool:
    """Does the claim name where the rule binds its subject ("A diver in the quarry lake"), in the clause that tells
    the step missing or in one told of the rule's subject ("The penstock was entered ...; no attendant was
    assigned" for "Entry into the penstock")? Named only in a clause of someone else it is said of something else
    ("swept the yard unsupervised while Gary was on the roof")."""
    if not step.place:
        return True
    verb = _clause(told_in(gap.at if gap.at is not None else gap.token))
    words = {_lemma(t) for t in gap.token.doc if _clause(told_in(t)).i == verb.i or _of_subject(step, _clause(told_in(t)))}
    return all(w in words or _family(w) & words for w in step.place)


def _clause(v: Any) -> Any:
    """The head of a verb's clause: up through participles and infinitives with no subject of their own ("left
    unwatched in the workshop"), stopping at a clause of its own ("while Gary was on the roof")."""
    while v.head.i != v.i and v.dep_ not in ("relcl", "ccomp", "advcl", "conj") and \
            not any(c.dep_ in ("nsubj", "nsubjpass") for c in v.children):
        v = v.head
    return v


def _of_subject(step: Step, v: Any) -> bool:
    """Is the clause told of the rule's subject: its verb the subject's own act ("entered" for "entry"), or its
    subject the rule's ("the cash count went ...")?"""
    if _family(_lemma(v)) & step.subject:
        return True
    return any(c.dep_ in ("nsubj", "nsubjpass") and (_lemma(c) in step.subject or _family(_lemma(c)) & step.subject)
               for c in v.children)


def one_of_several(rule: str, gap: Gap) -> bool:
    """Is the waived thing one of the alternatives the rule offers ("concrete or compacted gravel")? Lifting one
    of them leaves the others to meet the rule."""
    for t in parse(rule):
        if _lemma(t) in gap.heads and any(c.lower_ == "or" for w in (t, t.head if t.dep_ == "conj" else t)
                                          for c in w.subtree):  # "concrete or compacted gravel": or in its words
            return True
    return False


def occasion_named(step: Step, gap: Gap, doc: Any) -> bool:
    """Does the claim name, outside the waived phrase, the occasion the duty is bound to ("brow wax" for "for every
    waxing treatment")? A thing declared not needed on the rule's own occasion is the rule's thing waived there, by
    whoever did it: the occasion places the claim within the rule as its subject would."""
    inside = {x.i for x in gap.token.subtree}
    return any(t.i not in inside and (_lemma(t) in step.occasion or _family(_lemma(t)) & step.occasion)
               for t in doc if t.pos_ in ("NOUN", "VERB", "PROPN"))


def names_subject(step: Step, doc: Any) -> bool:
    """Does the claim name whom the rule binds, by its own word or a derivation ("rode" for "riders")?"""
    if not step.subject:
        return True
    words = {_lemma(t) for t in doc}
    return any(s in words or _family(s) & words for s in step.subject)


def excepted(step: Step, doc: Any) -> bool | None:
    """Does the rule grant an exception (None when it grants none), and does the claim name it (True)?"""
    if not step.exception:
        return None
    words = {_lemma(t) for t in doc}
    return bool((step.exception - _LIGHT) & words)
