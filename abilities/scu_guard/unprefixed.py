"""A state a duty requires, denied by an "un-" or "non-" word the claim says of the duty's subject.

Why: claims often drop a duty with one prefixed word and no negation anywhere ("five calves, three of them
untagged" against "Every animal entering the market must carry an official ear tag"; "Pallets 14 and 15 left
the dock unlabelled" against "Every outbound pallet must carry a lot-code label"; "her ankle untagged" against
"Every body must carry identification tags on both the wrist and the ankle"). The word's stem (by WordNet's
verb forms: "unlabelled" -> label) is the rule's verb, the head of its required thing, or, said of that thing,
one of the thing's own modifiers ("an uncharged extinguisher" for "a charged fire extinguisher"); the noun it is
said of (by the parse: its noun, or the subject of the verb it is the predicate of) is the rule's subject, a kind
of it by WordNet, or a place the rule names. Not read: a word denied ("no calf went untagged"), a claim that also
does the rule's verb ("the untagged calf was tagged before it entered the pen"), a condition, a modal, a question,
a noun narrowed by words the rule does not use ("the inbound pallets arrived unlabelled").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from abilities.scu_guard import categories, wordnet
from abilities.scu_guard.events import modal_root
from abilities.scu_guard.form_types import Form
from abilities.scu_guard.forms import GENERIC
from abilities.scu_guard.nlp import MODALS, key, parse, word_key
from abilities.scu_guard.omitted import EXCEPT_RE

# a cheap gate before any parse work: a word with a denying prefix
_PREFIXED_RE = re.compile(r"\b(?:un[a-z-]{3,}(?:ed|en)|non\s?-\s?[a-z]{3,})\b", re.I)
_DUTY_MODALS = frozenset({"must", "shall"})
# how a prefixed word is said of a noun: before it, or as the predicate of a verb ("went out unlabelled",
# "came back unacidified", "left ..., unlabelled")
_PREDICATE_DEPS = frozenset({"oprd", "acomp", "advcl", "xcomp", "conj", "prt", "advmod", "ccomp"})
_DENYING = frozenset({"no", "none", "never", "nobody", "nothing", "not", "n't", "neither", "nor"})
_HYPOTHETICAL = frozenset({"if", "unless", "whether", "when", "whenever", "once", "until", "lest"})
_PLAIN_MODS = frozenset({"det", "nummod", "poss", "quantmod", "case", "punct", "predet", "prep", "appos", "cc",
                         "conj", "acl", "relcl", "amod", "compound", "nmod", "npadvmod"})


@dataclass(frozen=True)
class _Duty:
    """The words a plain duty requires of its subject: its verbs, its thing's heads and modifiers."""

    verbs: frozenset[str]
    things: frozenset[str]
    mods: frozenset[str]
    subject: str | None  # the key of the subject's head
    phrase: str  # its WordNet phrase ("animal"; the key may be folded onto a synonym)
    subject_mods: frozenset[str]
    places: frozenset[str]
    scope: frozenset[str] = frozenset()  # nouns of the subject's own place phrase ("in the back office")


def _word_keys(word: str) -> frozenset[str]:
    """A word's keys with those of the verbs it may be a form of ("labelled" -> label, "acidified" -> acidify)."""
    return frozenset({word_key(word)} | {word_key(v) for v in wordnet.verb_lemmas(word)})


def _keys(t: Any) -> frozenset[str]:
    return _word_keys(t.lower_) | {key(t)}


@lru_cache(maxsize=2048)
def _duty(text: str) -> _Duty | None:
    """The rule's verbs, required thing and subject, when it is a duty ("must", "shall") with one subject and no
    exception (an unwashed carrot is no breach of "washed ..., except those sold as field stock")."""
    if EXCEPT_RE.search(text):
        return None
    doc = parse(text)
    root = modal_root(doc)
    if root is None or not any(c.dep_ in ("aux", "auxpass") and c.lower_ in _DUTY_MODALS for c in root.children) \
            or any(c.dep_ == "neg" for c in root.children):
        return None
    verbs = [root] + [c for c in root.children if c.dep_ == "conj" and c.pos_ == "VERB"]
    passive = any(c.dep_ == "auxpass" for c in root.children)
    subj = next((c for c in root.children if c.dep_ == ("nsubjpass" if passive else "nsubj")), None)
    if subj is None or subj.pos_ != "NOUN" or key(subj) in GENERIC:
        return None
    things = [c for v in verbs for c in v.children if c.dep_ == "dobj" and c.pos_ == "NOUN"]
    things += [c for t in things for c in t.conjuncts]
    mods = {key(c) for t in things for c in t.children if c.dep_ in ("amod", "compound")}
    places = {key(n) for h in verbs + things for p in h.children if p.dep_ == "prep" for n in p.subtree
              if n.pos_ == "NOUN" and n.dep_ in ("pobj", "conj")}  # "tags on the wrist and the ankle"
    return _Duty(frozenset(k for v in verbs for k in _keys(v)), frozenset(key(t) for t in things),
                 frozenset(mods) - GENERIC, key(subj), categories.phrase_of(text, key(subj)) or subj.lemma_.lower(),
                 frozenset(key(c) for c in subj.children if c.dep_ in ("amod", "compound")), frozenset(places),
                 frozenset(key(n) for p in subj.children if p.dep_ == "prep" for n in p.subtree if n.pos_ == "NOUN"))


def _prefixed(doc: Any, t: Any) -> str | None:
    """The stem a denying prefix stands before ("untagged" -> tagged, "non-grip" -> grip), or None."""
    low = t.lower_
    if low == "non" and t.i + 2 < len(doc) and doc[t.i + 1].text == "-":
        return doc[t.i + 2].lower_
    if low.startswith("non-") and len(low) > 6:
        return low[4:]
    if low.startswith("un") and len(low) > 6 and low.endswith(("ed", "en")) and t.pos_ in ("ADJ", "VERB"):
        return low[2:]
    return None


def _subject_of(v: Any) -> Any | None:
    """The subject of the verb, or of the verb it is coordinated with or an adverbial clause of."""
    for _ in range(4):
        s = next((c for c in v.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if s is not None or v.dep_ not in ("conj", "advcl", "xcomp") or v.head.i == v.i:
            return s
        v = v.head
    return None


def _whole(n: Any | None) -> Any | None:
    """The noun a part of it stands for: "Two of the samples" -> samples; any other noun itself."""
    if n is not None and n.pos_ in ("NUM", "PRON"):
        of = next((c for c in n.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        pobj = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
        if pobj is not None and pobj.pos_ == "NOUN":
            return pobj
    return n


def _owners(t: Any) -> list[Any]:
    """The nouns a prefixed word may be said of: the noun it modifies, its own subject ("her ankle untagged"), or
    the subject of the verb it is the predicate of ("Pallets ... left the dock unlabelled"); a bare participle
    the parser hung on the verb's object ("left the yard/dobj unnetted/acl") may be the subject's too."""
    if t.dep_ in ("amod", "compound") and t.head.pos_ in ("NOUN", "PROPN"):
        return [t.head]
    if t.dep_ == "acl" and t.head.dep_ == "dobj" and not any(c.dep_ in ("dobj", "nsubj", "agent") for c in t.children):
        return [t.head] + [s for s in [_whole(_subject_of(t.head.head))] if s is not None]
    if t.dep_ not in _PREDICATE_DEPS:
        return []
    own = [c for c in t.children if c.dep_ in ("nsubj", "nsubjpass") and c.i < t.i]
    if own:
        return [_whole(own[-1])]
    s = _whole(_subject_of(t.head)) if t.head.pos_ in ("VERB", "AUX") else None
    return [s] if s is not None else []


def _denied(t: Any) -> bool:
    """Is the word, or a verb or subject it hangs from, denied or put as a condition, a question or a modal?"""
    if t.sent.text.rstrip().endswith("?"):
        return True
    w = t
    while True:
        for c in w.children:
            if c.dep_ == "neg" or (c.lower_ in _DENYING and c.dep_ != "intj") or (c.dep_ == "mark" and c.lower_ in _HYPOTHETICAL) or (
                    c.dep_ in ("aux", "auxpass") and c.lower_ in MODALS):
                return True
            if c.dep_ in ("nsubj", "nsubjpass") and (c.lower_ in _DENYING or any(
                    d.dep_ == "neg" or d.lower_ in _DENYING for d in c.children)):
                return True
        if w.head.i == w.i:
            return False
        w = w.head


def _plain_holder(owner: Any, duty: _Duty) -> bool:
    """Is the noun the rule's subject (or a kind of it by WordNet) named with none but the rule's own narrowing
    words, or a place the rule names?"""
    if owner.pos_ not in ("NOUN", "PROPN") or any(c.lower_ in _DENYING or c.dep_ == "neg" for c in owner.children):
        return False
    k = key(owner)
    if k in duty.places:
        return True
    extra = {key(c) for c in owner.children if c.dep_ in ("amod", "compound") and c.pos_ != "PROPN"
             and _prefixed(owner.doc, c) is None and c.lower_ != "-"} - duty.subject_mods
    if extra or duty.subject is None:
        return False
    if k == duty.subject:
        return True
    return owner.pos_ == "NOUN" and categories.is_kind(owner, duty.phrase)


def _done_anyway(doc: Any, stems: frozenset[str], skip: Any, nouns: bool) -> bool:
    """Does the claim also tell the stem's verb as done ("the untagged calf was tagged before ...") or, with
    ``nouns``, name the stem's thing not denied ("the unlabelled rolls were ... given batch labels")?"""
    for x in doc:
        if x.i == skip.i or x.lower_.startswith(("un", "non")) or not (_keys(x) & stems):
            continue
        if x.pos_ == "VERB" and not any(c.dep_ == "neg" for c in x.children):
            return True
        if nouns and x.pos_ == "NOUN" and not any(c.lower_ in _DENYING for c in x.children) and \
                not (x.head.lower_ == "without"):
            return True
    return False


def _described_otherwise(owner: Any, duty: _Duty) -> bool:
    """Where the rule narrows its subject by a word the claim does not repeat ("Every loaded truck"), does the
    claim's sentence describe the subject by a state of its own ("Truck 9 left untarped, but it was empty")? The
    narrowing may then not hold."""
    if not duty.subject_mods - {key(c) for c in owner.children}:
        return False
    return any(x.dep_ in ("acomp", "attr") and x.head.lemma_ in ("be", "seem", "stay", "remain") and any(
        c.dep_ in ("nsubj", "nsubjpass") and (c.i == owner.i or c.pos_ == "PRON") for c in x.head.children)
        for x in owner.sent)


def denies_required(form: Form, doc: Any, start: int, end: int) -> Any | None:
    """The claim's prefixed word (between ``start`` and ``end``) that denies what the plain duty requires of
    its subject, told as a fact, or None."""
    if form.modality != "must" or form.quantity or form.trigger or form.window or form.agents or form.exclusion:
        return None
    if not _PREFIXED_RE.search(doc.text[start:end]):
        return None
    duty = _duty(form.text)
    if duty is None or duty.scope - {key(x) for x in doc}:
        return None  # "Every cash count in the back office": whether the claim's count was there is not told
    for t in doc:
        if not (start <= t.idx < end):
            continue
        stem = _prefixed(doc, t)
        if stem is None or (t.pos_ == "VERB" and any(c.dep_ in ("aux", "auxpass", "dobj") for c in t.children)):
            continue  # "unlocked the safe", "was unloaded": an act of undoing, no state
        stems = _word_keys(stem)
        if stems & (duty.verbs | duty.things):
            owner = next((o for o in _owners(t) if _plain_holder(o, duty)), None)
            ok = owner is not None and not _described_otherwise(owner, duty)
        elif stems & duty.mods and t.dep_ == "amod" and key(t.head) in duty.things:
            v = t.head.head if t.head.dep_ == "dobj" else None  # "carrying an uncharged extinguisher"
            doer = _subject_of(v) if v is not None and v.pos_ == "VERB" else None
            ok = doer is not None and _plain_holder(doer, duty)
        else:
            continue
        # a modifier before its noun ("the unlabelled rolls were ...") describes a state the claim may go on to mend
        mendable = t.dep_ == "amod" and t.i < t.head.i
        if ok and not _denied(t) and not _done_anyway(doc, stems, t, nouns=mendable):
            return t
    return None
