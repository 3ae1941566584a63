"""A thing named by a brand or a word WordNet does not know, its kind read from what the claim does to it.

Why: a ban names a kind ("Food and drink are not permitted on the platform", "Smoking is prohibited in the loft");
a claim often names the thing by a brand ("a can of Red Bull", "a Juul", "a lit Marlboro") that no word list or
WordNet holds. The claim's own grammar still tells the kind: the verb done to the thing, to its container, or to
"it" after them ("sipped from it", "snacking on a bag of ...", "puffing on ..."), by what WordNet derives that verb,
or one up to two steps above it, to ("sip" -> drink -> beverage; "snack" -> snack, a light meal, a food); and a
participle that entails the ban's doing ("a lit Marlboro": lighting up entails smoking). Only the object of the verb
or of "on / from" counts ("toasted the day with X" tells nothing of X); a word WordNet knows keeps its own kind.
"""

from __future__ import annotations

from typing import Any

from abilities.scu_guard import categories, wordnet

# prepositions by which a verb is done to a thing it takes in: "puff on", "sip from", "snack on", "drink from"
_TAKE_PREPS = frozenset({"on", "from"})
# pronouns that point back to the thing or its container ("sipped from it")
_BACK = frozenset({"it", "them"})


def unknown(t: Any) -> bool:
    """Is the noun named by a name or a word WordNet does not know (a brand: "Red Bull", "Juul", "Doritos")?"""
    if t.pos_ == "PROPN":
        return True
    return t.pos_ == "NOUN" and not wordnet.senses(t.lemma_.lower()) and not wordnet.senses(t.lower_)


def named_thing(t: Any) -> tuple[Any, list[Any]] | None:
    """The unknown thing a claim noun stands for, with the words that hold it: the noun itself ("a Juul"), or the
    content of its container or measure ("a can of Red Bull", "a bag of Doritos"); None when it names a known
    thing or an empty container."""
    if unknown(t):
        return t, [t]
    content = categories.measured(t) if t.pos_ == "NOUN" else None
    if content is not None and unknown(content) and not any(c.lower_ == "empty" for c in t.children):
        return content, [t, content]
    return None


def _uses(holders: list[Any]) -> list[str]:
    """The lemmas of the verbs the sentence does to the holders: as their object, through "on / from", or to "it"
    after them; and of a participle on them ("a lit Marlboro")."""
    first = min(h.i for h in holders)
    out: list[str] = []
    for h in holders:
        out += [c.lemma_.lower() for c in h.children if c.dep_ == "amod" and c.tag_ == "VBN"]
    for v in holders[0].sent:
        if v.pos_ != "VERB" or any(c.dep_ == "neg" for c in v.children):
            continue
        objs = [c for c in v.children if c.dep_ == "dobj"]
        objs += [o for p in v.children if p.dep_ == "prep" and p.lower_ in _TAKE_PREPS for o in p.children
                 if o.dep_ == "pobj"]
        if any(o in holders or (o.lower_ in _BACK and o.i > first) for o in objs):
            out.append(v.lemma_.lower())
    return out


def used_as(t: Any, rule_noun: str) -> bool:
    """Is the claim noun (or its container's content) an unknown thing the sentence uses as a kind of the rule's
    noun ("sipped from a can of Red Bull" for "drink")?"""
    found = named_thing(t)
    if found is None:
        return False
    return any(wordnet.things_are(wordnet.taken_things(u), rule_noun) for u in _uses(found[1]))


def done_by_use(t: Any, activity: str) -> bool:
    """Does the sentence do the rule's activity to the unknown thing: a verb of it a manner of the activity or
    entailing it ("puffed on a Juul", "a lit Marlboro" for "smoke")?"""
    found = named_thing(t)
    if found is None:
        return False
    return any(u == activity or wordnet.verb_sense_is_a(u, activity) or wordnet.verb_entails(u, activity)
               for u in _uses(found[1]))
