"""Whether a claim does the event a prohibition forbids, when an amount or age in the claim meets its condition.

Why its own module: a rule such as "The wall stands must not be used for bikes heavier than 25 kg" or "Guests
under 18 must never be assigned to a mixed dorm" has two parts: a condition (the bike's weight, the guest's
age) and the forbidden event (using the wall stands, assigning to a mixed dorm). A claim whose amount meets the
condition breaks the rule only where it also does the event. People writing about such cases most often say
that the event was avoided: "worked on in floor stand F1 rather than on the wall stands", "put in the girls'
room instead of a mixed dorm", "the beginners stayed ashore". So the event's words are read in the claim:
said in a phrase the claim denies or sets aside ("rather than X", "instead of X", "not X"), the event is
denied; not said at all, the claim is silent on it and an amount alone is no sure break.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from abilities.scu_guard.forms import Form, _condition_clause
from abilities.scu_guard.nlp import key, parse

_CONTENT = ("NOUN", "PROPN", "VERB", "ADJ")
_NEGATORS = frozenset({"not", "no", "never", "nor", "neither"})
# "rather than X", "instead of X": the pair of function words that sets a phrase aside
_SET_ASIDE = frozenset({("rather", "than"), ("instead", "of")})
# where a set-aside phrase ends: punctuation, or a word that opens another clause or conjunct
_PHRASE_ENDS = frozenset({"while", "whereas", "and", "but", "because", "so", "as", "since", "which", "who"})


def _amount_tokens(doc: Any, text: str) -> list[Any]:
    """The number tokens of the rule's band text."""
    at = doc.text.find(text)
    if at < 0:
        return []
    return [t for t in doc if at <= t.idx < at + len(text) and t.like_num]


def _holder(t: Any) -> Any:
    """The noun an amount describes through a modifier ("bikes heavier than 25 kg", "guests under 18"), or
    None when the amount hangs from a verb (the amount is then the event's own: "must not exceed 60 km/h")."""
    seen_modifier = False
    while t.head.i != t.i:
        t = t.head
        if t.pos_ == "ADJ" or t.dep_ in ("amod", "prep", "relcl", "acl") and t.lower_ != "of":
            seen_modifier = True
        if t.pos_ in ("NOUN", "PROPN") and seen_modifier:
            return t
        if t.pos_ in ("VERB", "AUX"):
            return None
    return None


@lru_cache(maxsize=4096)
def event_of(text: str, band_text: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """(verb keys, thing keys) of the event a prohibition forbids, when its amount ``band_text`` lies in its
    condition (a when/if clause or a modifier of a noun); None when the amount is the event's own."""
    doc = parse(text)
    nums = _amount_tokens(doc, band_text)
    if not nums:
        return None
    cond: set[int] = set()
    clause = _condition_clause(doc)
    if clause is not None:
        cond |= {t.i for t in clause.subtree}
    if not all(n.i in cond for n in nums):
        holders = [_holder(n) for n in nums]
        if any(h is None for h in holders):
            return None
        for h in holders:
            cond |= {t.i for t in h.subtree}
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if not roots:
        return None
    root = roots[0]
    doer = {t.i for c in root.children if c.dep_ == "nsubj" for t in c.subtree}
    # the event's verb is the rule's main verb and its conjuncts; every other content word outside the
    # condition and the doer is the event's thing or place (a tagger may call "repair stands" a verb)
    main = {root.i} | {c.i for c in root.children if c.dep_ == "conj" and c.pos_ == "VERB"}
    verbs = frozenset(key(doc[i]) for i in main)
    things = frozenset(key(t) for t in doc if t.pos_ in _CONTENT and t.i not in cond and t.i not in doer
                       and t.i not in main)
    return verbs, things


@lru_cache(maxsize=4096)
def doer_of(text: str) -> frozenset[str]:
    """Keys of the doer of a prohibition's main verb ("Beginner sessions must not launch")."""
    roots = [t for t in parse(text) if t.dep_ == "ROOT"]
    return frozenset(key(t) for r in roots[:1] for c in r.children if c.dep_ == "nsubj" for t in c.subtree
                     if t.pos_ in _CONTENT)


def _others_clause(doc: Any, doers: frozenset[str]) -> set[int]:
    """Tokens of a clause that sets the rule's doer against others ("the beginners stayed in the shed while the
    advanced squad went sailing"): a while/whereas clause whose subject is none of the doer's words, hung on a
    verb whose subject is the doer. What the others did there is not said of the doer."""
    out: set[int] = set()
    for t in doc:
        if t.dep_ != "advcl" or not any(c.dep_ == "mark" and c.lower_ in ("while", "whereas") for c in t.children):
            continue
        theirs = {key(w) for c in t.children if c.dep_ in ("nsubj", "nsubjpass") for w in c.subtree}
        ours = {key(w) for c in t.head.children if c.dep_ in ("nsubj", "nsubjpass") for w in c.subtree}
        if theirs and not theirs & doers and ours & doers:
            out |= {w.i for w in t.subtree}
    return out


def _set_aside(doc: Any) -> set[int]:
    """Tokens of the phrases the claim denies or sets aside: after "rather than" / "instead of" up to the end of
    the phrase, a noun phrase under "no"/"not", a verb with its own negation."""
    out: set[int] = set()
    for t in doc[1:]:
        pair = (doc[t.i - 1].lower_, t.lower_)
        if pair in _SET_ASIDE or (t.lower_ in _NEGATORS and t.dep_ != "neg"):
            for w in doc[t.i + 1:]:
                if w.is_punct or w.lower_ in _PHRASE_ENDS:
                    break
                out.add(w.i)
    for t in doc:
        if t.pos_ in ("VERB", "AUX") and any(c.dep_ == "neg" for c in t.children):
            out.add(t.i)  # only the verb: "did not stop the crew from lighting" denies the stopping
    return out


def _phrases(doc: Any) -> list[tuple[set[int], set[str]]]:
    """Each noun phrase of the claim: its token ids and its keys."""
    return [({t.i for t in np}, {key(t) for t in np}) for np in doc.noun_chunks]


def stance(form: Form, band_text: str, claim: str) -> str:
    """What the claim says of the event a prohibition forbids, when the amount ``band_text`` is in the rule's
    condition: "denied" (set aside or negated), "elsewhere" (not said of the rule's doer, who is set against
    others doing something), "silent" (the event's words absent: people name an event in many ways, so this
    is no evidence either way) or "affirmed" (also when the amount is not in the condition)."""
    if form.modality != "must_not":
        return "affirmed"
    event = event_of(form.text, band_text)
    if event is None:
        return "affirmed"
    verbs, things = event
    doc = parse(claim)
    aside = _set_aside(doc)
    others = _others_clause(doc, doer_of(form.text))
    # a set-aside phrase is read whole (the tagger may break "the wall stands" into a noun and a verb)
    denied = len({key(doc[i]) for i in aside} & things)
    affirmed = max((len(k & things) for ids, k in _phrases(doc) if not ids & (aside | others)), default=0)
    if things and denied > affirmed:
        return "denied"
    said = [t for t in doc if t.pos_ == "VERB" and key(t) in verbs and t.i not in others]
    if affirmed or any(t.i not in aside for t in said):
        return "affirmed"
    if said:
        return "denied"
    return "elsewhere" if others else "silent"
