"""The words that name a calendar rule's own event when the rule's verb only permits or places it.

Why: a rule such as "Plant production is permitted only between 1 March and 30 November", "No fishing is
allowed in the closed area between 1 March and 30 April" or "The rooftop terrace is open to guests only from
1 May" names its event by a noun of a doing ("production", "fishing") or by a state ("open"), not by a verb:
its verb ("is permitted", "is allowed", "may take place", "is") says only that the event may or may not
happen. A claim tells the same event with the verb the noun is formed from ("produced the last 480 t on
Monday 1 December", "we fished the closed area on 12 April") or the state's own verb ("the terrace opened to
guests on 26 April"). WordNet's derivation links give the verbs a noun of a doing is formed from; a noun of a
thing ("plant", "pool") gives none. Pure functions over the rule's text, cached.
"""

from __future__ import annotations

from functools import lru_cache

from abilities.scu_guard import wordnet
from abilities.scu_guard.nlp import parse, word_key

# verbs that say only that the event may, may not, or does happen: its name is their subject
_PLACING = frozenset({"permit", "allow", "be", "take", "occur", "happen", "forbid", "prohibit", "ban"})


@lru_cache(maxsize=2048)
def event_keys(rule: str) -> frozenset[str]:
    """Keys of the verbs that tell the rule's event where its main verb only permits or places it (see the
    module docstring): the verbs its subject noun of a doing is formed from, and a state adjective said of
    the subject that is also a verb ("open"). Empty when the rule's main verb names the event itself."""
    doc = parse(rule)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.lemma_.lower() not in _PLACING:
        return frozenset()
    if root.lemma_.lower() == "take" and not any(c.dep_ == "dobj" and c.lower_ == "place" for c in root.children):
        return frozenset()  # "take place" places the event; "take" alone is a doing of its own
    out: set[str] = set()
    for c in root.children:
        if c.dep_ in ("nsubj", "nsubjpass") and c.pos_ == "NOUN":
            out |= {word_key(v) for v in _doing_verbs(c.lemma_.lower())}
        elif c.dep_ == "acomp" and c.pos_ == "ADJ" and root.lemma_.lower() == "be":
            out |= {word_key(v) for v in wordnet.verb_lemmas(c.lower_) if v == c.lower_}
    return frozenset(out)


@lru_cache(maxsize=2048)
def event_nouns(rule: str) -> frozenset[str]:
    """Keys of the words that name the event itself (the noun of a doing, the state), not a thing of it."""
    doc = parse(rule)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or not event_keys(rule):
        return frozenset()
    return frozenset(word_key(c.lemma_.lower()) for c in root.children if c.dep_ in ("nsubj", "nsubjpass", "acomp")
                     and (c.pos_ == "ADJ" or _doing_verbs(c.lemma_.lower())))


@lru_cache(maxsize=4096)
def _doing_verbs(noun: str) -> frozenset[str]:
    """The verbs a noun of a doing is formed from ("production" -> produce, "fishing" -> fish): WordNet's
    derivations that keep the noun's first four letters and are verbs; none for a noun of a thing."""
    if not wordnet.is_doing(noun):
        return frozenset()
    derived = {w for w in wordnet.derivations(noun) if w != noun and w[:4] == noun[:4] and w in wordnet.verb_lemmas(w)}
    return frozenset(derived | set(wordnet.verbs_of_noun(noun)))
