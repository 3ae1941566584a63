"""A duty to stop or hold a thing on an occasion, broken where the claim tells the occasion and the thing went on.

Why its own module: a conditional duty set off by an event rather than an amount ("If the kiln alarm sounds, the
firing must be halted"; "When a sample fails its seal test, the whole rack must be quarantined") is not read by
the amount check. People telling such a breach rarely deny the duty's verb; they say the thing ran its ordinary
course, often after a step that handled only part of it: "when the alarm sounded the potter noted it and the
firing carried on", "the bad vial was binned and the rest of the rack went ahead to shipping". So the reading
is: the condition's words told as a fact in a sentence (the occasion), and in the same sentence the duty's own
thing (or the rest of it) said to carry on, go ahead, go on, continue or proceed, or to stay as it was ("the
furnace was left running", read in stayed.py), with the duty's verb not told
as done. Read only where grammar ties the two (the occasion is a when/after/although clause of the going-on, or
of the verb it is joined to); sure where the occasion's verb is the condition's own or a kind of it, else a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from abilities.scu_guard import stayed, wordnet
from abilities.scu_guard.conditions import condition_keys
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.form_types import Form
from abilities.scu_guard.forms import GENERIC, _condition_clause
from abilities.scu_guard.judge import STOP_CONSEQUENCE, Claim, _finding
from abilities.scu_guard.nlp import MODALS, key, parse

# the kinds of doing that stop a thing or keep it apart, by WordNet's verb hierarchy
_HOLD_KINDS = ("halt", "suspend", "isolate", "restrain")
# a going-on told by a verb and its particle or adverb: "carried on", "went ahead", "went on"
_GO_ON = frozenset({("carry", "on"), ("go", "on"), ("go", "ahead")})
_GO_ON_ALONE = frozenset({"continue", "proceed"})
# conjunctions that tie a clause to the time of another as a fact told
_OCCASION_MARKS = frozenset({"when", "after", "although", "though", "once", "as", "while", "whenever"})
_HYPOTHETICAL = frozenset({"if", "unless", "whether", "should", "lest"})
_CONTENT = ("NOUN", "PROPN", "VERB")
# words that end a "with" phrase: another clause or conjunct begins
_PHRASE_ENDS = frozenset({"and", "but", "while", "whereas", "because", "so", "as", "since", "which", "who", "until"})


def _holds(verb: Any) -> bool:
    """Is the duty's verb one that stops a thing or keeps it apart ("halted", "quarantined", "suspended")?"""
    lemma = verb.lemma_.lower()
    return key(verb) in STOP_CONSEQUENCE or any(wordnet.verb_sense_is_a(lemma, k) for k in _HOLD_KINDS)


def _rule_parts(text: str) -> tuple[set[str], set[str], set[str], str] | None:
    """(duty verbs, keys of the duty's thing, keys of the condition, the condition's verb) of a rule "If/When X,
    Y must be <held>"; None when the rule is not of that shape."""
    doc = parse(text)
    cond = _condition_clause(doc)
    if cond is None:
        return None
    inside = {t.i for t in cond.subtree}
    roots = [t for t in doc if t.dep_ == "ROOT" and t.i not in inside]
    if not roots:
        return None
    root = roots[0]
    duty = [root] + [c for c in root.children if c.dep_ == "conj" and c.pos_ == "VERB"]
    verbs = {key(t) for t in duty}
    if not any(_holds(t) for t in duty):
        return None
    things = {key(w) for t in duty for c in t.children if c.dep_ in ("nsubjpass", "dobj", "nsubj")
              for w in c.subtree if w.pos_ in ("NOUN", "PROPN") and w.i not in inside} - GENERIC
    main = {key(t) for t in doc if t.i not in inside}
    occasion = {key(t) for t in cond.subtree if t.pos_ in _CONTENT and t.i != cond.i} - main - GENERIC
    if not things or not occasion:
        return None
    return verbs, things, occasion, cond.lemma_.lower()


def _went_on(t: Any) -> bool:
    """Is the token a going-on verb told as a fact ("carried on", "went ahead", "continued")?"""
    if t.pos_ != "VERB":
        return False
    lemma = t.lemma_.lower()
    parts = {c.lower_ for c in t.children if c.dep_ in ("prt", "advmod")}
    if lemma not in _GO_ON_ALONE and not any((lemma, p) in _GO_ON for p in parts):
        return False
    return not _unreal(t)


def _unreal(t: Any) -> bool:
    """Is the verb negated, under a modal, or in a hypothetical clause ("if", "unless"), or asked?"""
    for w in [t, *t.ancestors]:
        if any(c.dep_ == "neg" or (c.dep_ == "aux" and c.lower_ in MODALS) for c in w.children):
            return True
        if any(c.dep_ == "mark" and c.lower_ in _HYPOTHETICAL for c in w.children):
            return True
    return t.sent.text.rstrip().endswith("?")


def _subject_keys(t: Any) -> set[str]:
    """Keys of the going-on verb's subject, or of the subject of the verb it is joined to; a verb the parser
    hung on a noun ("the rest of the tray carried on" read as a modifier of "tray") has that noun's phrase."""
    if t.dep_ in ("acl", "relcl"):
        top = t.head
        while top.dep_ == "pobj" and top.head.dep_ == "prep" and top.head.head.pos_ in ("NOUN", "PROPN"):
            top = top.head.head
        mine = {w.i for w in t.subtree}
        return {key(x) for x in top.subtree if x.i not in mine}
    for w in (t, t.head if t.dep_ == "conj" else t):
        subj = [c for c in w.children if c.dep_ in ("nsubj", "nsubjpass")]
        if subj:
            return {key(x) for c in subj for x in c.subtree}
    return set()


def _clause_verbs(t: Any) -> set[int]:
    """The going-on verb, the verb whose clause holds it (when the parser hung it on a noun), and the verbs
    these are joined to as conjuncts."""
    out = {t.i}
    w = t
    while w.dep_ in ("acl", "relcl", "pobj", "prep", "conj", "dobj", "nsubj", "nsubjpass") and w.head.i != w.i:
        w = w.head
        if w.pos_ in ("VERB", "AUX"):
            out.add(w.i)
            if w.dep_ != "conj":
                break
    if t.dep_ == "conj":
        out.add(t.head.i)
    return out


def _occasion(t: Any, occasion: set[str]) -> Any:
    """The verb of the sentence's clause that tells the rule's condition as a fact (its words named), if any."""
    best = None
    for v in t.sent:
        if v.pos_ not in ("VERB", "AUX") or v.i == t.i or _unreal(v):
            continue
        own = {key(w) for w in v.subtree if not (w.pos_ == "VERB" and w.i != v.i)}
        if own & occasion and (best is None or v.dep_ == "advcl"):
            best = v
    return best


def _tied(went: Any, occ: Any) -> bool:
    """Does grammar tie the occasion to the going-on: a when/after/although clause of the going-on verb, or of
    the verb it is joined to as a conjunct?"""
    heads = _clause_verbs(went)
    marked = any(c.dep_ == "mark" and c.lower_ in _OCCASION_MARKS for c in occ.children) or any(
        c.dep_ == "advmod" and c.lower_ in _OCCASION_MARKS for c in occ.children)
    return occ.dep_ == "advcl" and occ.head.i in heads and marked


def _with_occasion(t: Any, condition: frozenset[str]) -> Any:
    """A "with" phrase of the going-on verb (or of its complement: "kept running with ...") that tells every
    word of the condition as its circumstance ("CO2 enrichment kept running with the vents open" for "... when
    vents are open"), none of it denied."""
    heads = [t] + [c for c in t.children if c.dep_ in ("xcomp", "acomp", "prt", "advmod")]
    for c in (w for h in heads for w in h.children):
        if c.dep_ != "prep" or c.lower_ != "with":
            continue
        words = []  # the phrase runs to the clause's end: the parser may hang its state word on the verb
        for w in c.doc[c.i + 1:]:
            if w.is_punct or w.lower_ in _PHRASE_ENDS:
                break
            words.append(w)
        if condition and condition <= {key(w) for w in words} and not any(
                w.lower_ in ("no", "not", "never", "without") or w.dep_ == "neg" for w in words):
            return c
    return None


def _same_event(occ: Any, cond_verb: str) -> bool:
    """Is the occasion's verb the condition's own, or a kind of it by WordNet?"""
    v = occ.lemma_.lower()
    return v == cond_verb or wordnet.verb_sense_is_a(v, cond_verb, None)


def check_carried_on(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """Event-conditioned duties to stop or hold a thing, broken where the claim tells the occasion and the thing
    going on."""
    out: list[Finding] = []
    doc = parse(claim.text)
    for f in forms:
        if f.modality != "must" or f.trigger is not None or f.quantity is not None:
            continue
        parts = _rule_parts(f.text)
        if parts is None:
            continue
        verbs, things, occasion, cond_verb = parts
        kept = {head.i for verb, head, state in stayed.kept_states(doc) if state == "going" and not _unreal(verb)}
        for t in doc:
            if not (_went_on(t) or t.i in kept) or not _subject_keys(t) & things:
                continue
            sent = t.sent
            if any(key(w) in verbs and not _unreal(w) for w in sent):
                continue  # the duty's own verb told as done in the sentence
            occ = _occasion(t, occasion)
            if occ is not None and _tied(t, occ):
                sure = _same_event(occ, cond_verb)
            else:
                occ = _with_occasion(t, condition_keys(f.text) - GENERIC)
                if occ is None:
                    continue  # the condition's words told apart from the going-on may tell it unmet
                sure = True
            out.append(_finding(f, claim, sent.start_char, sent.end_char, "conditional",
                                f"{occ.text!r} tells the occasion of {f.text!r}, and the thing it holds went on",
                                sure=sure, basis="carried_on"))
            break
    return out
