"""An event of a rule of order told by a kind of its own word: "her hot stone massage" for "treatment",
"unplugged the wind vane" for "disconnected".

Why its own module: a rule of order names its two events in general words ("before their first treatment",
"before any sensor is disconnected"), while a claim tells what was done ("had her massage at 14:00",
"unplugged the vane at 10:02"). Matched by spelling alone, the later event is not found and the order is never
read. WordNet says which of the claim's nouns and verbs are kinds of the rule's; only those words are added to the
event's own, and only where the event is not found otherwise, so the order check then reads the claim as before.
"""

from __future__ import annotations

from functools import lru_cache

from abilities.scu_guard import wordnet
from abilities.scu_guard.forms import GENERIC
from abilities.scu_guard.nlp import key, parse, word_key

# verbs of a rule's event too general to have kinds worth reading: nearly every act is a kind of them
_BROAD_VERBS = frozenset(word_key(w) for w in "be have go come get take put move make do run let give set keep "
                                              "start begin complete finish carry end use work perform conduct "
                                              "happen occur".split())


@lru_cache(maxsize=2048)
def _rule_words(rule: str, words: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """(part of speech, lemma) of the rule's own nouns and verbs among the event's words, broad verbs left out;
    the event's doer too, where the event has words of its own act ("Every boat has to show a valid licence
    disc": a kayak is a boat, but a kayak that went down showed no disc)."""
    out, doers = [], []
    for t in parse(rule):
        k = key(t)
        if k in words and k not in GENERIC and t.pos_ in ("NOUN", "VERB") and k not in _BROAD_VERBS:
            (doers if t.dep_ == "nsubj" and t.pos_ == "NOUN" else out).append((t.pos_, t.lemma_.lower()))
    return tuple(dict.fromkeys(out or doers))


def kind_keys(rule: str, words: set[str], claim: str) -> set[str]:
    """Keys of the claim's nouns and verbs that WordNet puts, by their first sense, under one of the event's own
    nouns or verbs in the rule ("massage" under "treatment", "unplug" under "disconnect"); empty without WordNet."""
    if not wordnet.available():
        return set()
    mine = _rule_words(rule, frozenset(words))
    if not mine:
        return set()
    out = set()
    for t in parse(claim):
        k = key(t)
        if t.pos_ not in ("NOUN", "VERB") or k in words or k in GENERIC or k in _BROAD_VERBS:
            continue
        lemma = t.lemma_.lower()
        for pos, rule_lemma in mine:
            if pos != t.pos_ or lemma == rule_lemma:
                continue
            if pos == "NOUN" and wordnet.is_a(lemma, rule_lemma) is True or \
                    pos == "VERB" and wordnet.verb_sense_is_a(lemma, rule_lemma, 1):
                out.add(k)
                break
    return out
