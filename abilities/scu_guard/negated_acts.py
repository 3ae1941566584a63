"""A denial of another act than the one a duty requires ("Nobody smoked on the scaffold" beside "Scaffolding must
be inspected by the site supervisor"; "Tote T-4102 wasn't let go" beside "... the whole tote must be quarantined").

Why: a duty is dropped when the claim denies the duty's own act or its own thing ("no dosimeter was worn", "skipped
the pre-trip inspection", "without a respirator"). The readings that look for a dropped duty take any denied clause
that shares a word with the rule for one, even where what is denied is another doing by another doer, with the
rule's thing only as a place ("on the scaffold"). What a denial denies is grammar: the verb a "not"/"never" hangs
on, the noun a "no" determines, a "nobody"/"nothing" pronoun. When none of these, the denied verb and the head nouns
of its subject and object is one of the rule's words, and the clause holds no word of omission ("skip", "waive",
"without", "need", "optional") nor a rule word with a negative prefix ("unlabelled"), the claim denies another act
and drops nothing the rule requires.
"""

from __future__ import annotations

from typing import Any

from abilities.scu_guard.judge import NEGATING, _content_keys
from abilities.scu_guard.nlp import NEGATIVE_PREFIXES, key, parse, verb_at_or_above, word_key

_NEGATOR_WORDS = frozenset({"not", "n't", "never", "no", "nobody", "none", "nothing", "neither", "nor", "nowhere"})
_NEGATIVE_PRONOUNS = frozenset({"nobody", "none", "nothing", "nowhere", "neither"})
# words that tell a thing left out or made optional: a clause holding one may well drop the duty
_OMISSION = frozenset(word_key(w) for w in (
    "without skip omit waive forgo bypass optional need require necessary lack miss forget leave "
    "voluntary exempt".split())) | NEGATING
_CORE_ARGS = frozenset({"nsubj", "nsubjpass", "dobj", "attr", "oprd"})


def _denied_words(neg: Any) -> list[Any] | None:
    """The words a negator denies: the verb of "not"/"never", the noun of "no", a negative pronoun itself. None
    where the denial may be of a thing had, carried or used ("with no bracer", "carried nothing"): the rule's thing
    may be told in other words there, so only a denied doer ("nobody", "no passenger"), a denied time ("at no
    point") or a denied verb counts."""
    t = neg if neg.lower_ in _NEGATIVE_PRONOUNS else neg.head
    if t.pos_ in ("VERB", "AUX"):
        return [t]
    if t.dep_ in ("nsubj", "nsubjpass") or (t.dep_ == "pobj" and t.head.lower_ == "at"):
        return [t]
    return None


def _prefixed_rule_word(t: Any, rule: frozenset[str]) -> bool:
    """A word that may deny a rule word by its prefix ("unlabelled" for "labelled"): its rest begins like one of the
    rule's words (a loose test, since it only keeps a doubt)."""
    low = t.lower_
    for p in NEGATIVE_PREFIXES:
        rest = low[len(p):].lstrip("-")
        if low.startswith(p) and len(rest) >= 4 and any(rest.startswith(w[:4]) for w in rule if len(w) >= 4):
            return True
    return False


def denies_another_act(rule: str, claim: str, start: int, end: int) -> bool:
    """Is every denial in the claim's [start, end) the denial of another act than the rule's (see the module
    docstring)? False when the span holds no denial at all: then the finding rests on something else."""
    words = _content_keys(rule)
    if not words:
        return False
    doc = parse(claim)
    span = [t for t in doc if start <= t.idx < end]
    negs = [t for t in span if t.lower_ in _NEGATOR_WORDS and (t.dep_ in ("neg", "det", "preconj", "cc")
                                                                 or t.lower_ in _NEGATIVE_PRONOUNS)]
    if not negs:
        return False
    for t in span:
        if key(t) in _OMISSION or t.lower_ in _OMISSION or _prefixed_rule_word(t, words):
            return False
    for n in negs:
        denied = _denied_words(n)
        if denied is None:
            return False
        verb = verb_at_or_above(n)
        told = denied + [verb] + [c for c in verb.children if c.dep_ in _CORE_ARGS]
        if any(key(t) in words for t in told if t.pos_ not in ("PRON", "DET", "AUX") or t.lower_ in _NEGATIVE_PRONOUNS):
            return False
    return True
