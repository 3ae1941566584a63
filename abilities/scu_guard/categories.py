"""A claim's noun as a kind of a rule's noun ("a Pekin drake" for "ducks", "orange juice" for "drink").

Why: a rule names its thing by a category; a claim names the thing itself, by a word of its own. The
hand lexicon folds a few categories (pets, medicines); WordNet's noun hierarchy (``wordnet.py``) covers
the rest of the language. Only common nouns are read: a proper name is no kind of anything here.

Which claim words stand for the thing: the noun with its compound modifiers when WordNet knows that phrase
("orange juice", "fire extinguisher"), else the noun itself; and the content of a container ("a yoghurt
pot", "a bottle of orange juice": the thing kept is the yoghurt, the juice), since a rule about food is about
the food in its pot. A rule's own nouns are read from its text the same way.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from abilities.scu_guard import wordnet
from abilities.scu_guard.lexicon import GENERIC
from abilities.scu_guard.nlp import key, parse, word_key


def _phrase(t: Any) -> str:
    """The noun with the words that compound it ("orange juice", "arm guard", "red wine"); callers keep the
    phrase only where WordNet knows it."""
    comps = [c for c in t.lefts if c.dep_ in ("compound", "amod") and c.pos_ in ("NOUN", "PROPN", "ADJ")]
    words = [c.lemma_.lower() for c in comps] + [t.lemma_.lower()]
    return " ".join(words)


def _candidates(t: Any) -> list[tuple[str, bool]]:
    """The phrases a claim noun may be a kind by: the compound if WordNet knows it, else the noun; and what
    a container holds ("a yoghurt pot", "a bottle of juice"). Each with whether its sense is selected: the
    content of a vessel or a measure is a substance or a food ("a pint of lager" is no camp)."""
    out: list[tuple[str, bool]] = []
    full = _phrase(t)
    if full != t.lemma_.lower() and wordnet.senses(full):
        out.append((full, False))
    else:
        out.append((t.lemma_.lower(), False))
    container = wordnet.is_a(t.lemma_.lower(), "container")
    if container:
        for c in t.lefts:
            if c.dep_ == "compound" and c.pos_ == "NOUN" and c.i == t.i - 1:
                out.append((c.lemma_.lower(), False))
    for p in t.children:
        if p.dep_ == "prep" and p.lower_ == "of":
            out += [(_phrase(o), True) for o in p.children if o.dep_ == "pobj" and o.pos_ == "NOUN" and (
                container or (_bare(o) and _measure_word(t.lemma_.lower())))]
    return out


# what "a X of Y" measures Y out in: a vessel ("a glass of wine"), its fill ("a cupful"), a unit ("a pint")
_MEASURES = ("container", "containerful", "unit of measurement")


def _bare(t: Any) -> bool:
    """Is the noun named as a mass or a kind, without a determiner or owner ("of coffee", not "of the burial")?"""
    return not any(c.dep_ in ("det", "poss", "nummod") for c in t.children)


def holds_content(t: Any) -> Any | None:
    """The word before a vessel that says what it holds ("acid drums", "fuel cans": the acid, the fuel), or
    None: a rule about acid is about the acid in its drum."""
    before = next((c for c in t.lefts if c.dep_ in ("compound", "amod") and c.pos_ in ("NOUN", "ADJ")
                   and c.i == t.i - 1), None)
    return before if before is not None and wordnet.senses(t.lemma_.lower()) and _measure_word(t.lemma_.lower()) \
        else None


@lru_cache(maxsize=4096)
def _measure_word(lemma: str) -> bool:
    """Can the noun measure out a bare noun after "of" ("a pint of lager", "a glass of wine", "a mug of tea"):
    some sense of it is a vessel, a vessel's fill or a unit; or WordNet does not know it ("a cafetière of
    coffee"), where the shape "a X of <bare noun>" says what is held?"""
    if not wordnet.available():
        return False
    if not wordnet.senses(lemma):
        return True
    return any(wordnet.is_a(lemma, m) is not False for m in _MEASURES)


def measured(t: Any) -> Any | None:
    """The bare noun a claim noun measures out after "of" ("a pinch of nutmeg", "a splash of bleach", "a pint of
    lager"): the thing meant, or None. A measure here is a vessel, its fill or a unit (``_measure_word``), or an
    amount of no fixed size ("a pinch", "a dash")."""
    lemma = t.lemma_.lower()
    if not (_measure_word(lemma) or wordnet.under_any(lemma, frozenset(wordnet.noun_senses("indefinite quantity", 1)))):
        return None
    return next((o for p in t.children if p.dep_ == "prep" and p.lower_ == "of" for o in p.children
                 if o.dep_ == "pobj" and o.pos_ in ("NOUN", "PROPN") and _bare(o)), None)


@lru_cache(maxsize=4096)
def rule_nouns(text: str) -> tuple[tuple[str, str], ...]:
    """(key, WordNet phrase) of each common noun of a rule ("arm guard" -> ("guard", "arm guard")); a
    compound noun stands on its own where the whole is no WordNet phrase ("medicine refrigerator")."""
    out: list[tuple[str, str]] = []
    doc = parse(text)
    for t in doc:
        if t.pos_ != "NOUN" or key(t) in GENERIC:
            continue
        if t.dep_ == "compound":
            if t.head.pos_ == "NOUN" and wordnet.senses(_phrase(t.head)):
                continue  # part of a phrase WordNet knows ("arm guard")
            out.append((key(t), t.lemma_.lower()))
            continue
        full = _phrase(t)
        out.append((key(t), full if wordnet.senses(full) else t.lemma_.lower()))
    return tuple(out)


def phrase_of(rule_text: str, k: str) -> str | None:
    """The WordNet phrase of the rule's noun with this key."""
    return next((p for kk, p in rule_nouns(rule_text) if kk == k), None)


_ARG_DEPS = frozenset({"nsubj", "nsubjpass", "dobj", "attr"})
# prepositions that place or time a verbless rule's thing ("No glass containers on the production floor"):
# the phrase says where the ban holds, it does not narrow which things are banned
_PLACE_PREPS = frozenset("""in on at inside within near around onto into beyond across throughout during aboard
    beside behind""".split())


def _noun_like(t: Any) -> bool:
    """A noun, or a word the tagger took for a verb that is coordinated with a noun and has no subject, object
    or auxiliary of its own ("No food or drink in the fridge")."""
    return t.pos_ == "NOUN" or (t.pos_ == "VERB" and t.dep_ == "conj" and t.head.pos_ == "NOUN" and not any(
        c.dep_ in ("nsubj", "nsubjpass", "dobj", "aux", "auxpass") for c in t.children))


def _placed_only(t: Any) -> bool:
    """Has the noun no phrase or clause of its own but places and times ("containers on the production floor")?"""
    return all(c.lower_ in _PLACE_PREPS for c in t.children if c.dep_ == "prep") and \
        not any(c.dep_ in ("acl", "relcl") for c in t.children)


@lru_cache(maxsize=4096)
def thing_nouns(text: str) -> tuple[tuple[str, str], ...]:
    """The rule's things: (key, WordNet phrase) of the nouns that are its verb's arguments (subject, object,
    passive subject, and their conjuncts: "Food and drink are never to be stored") of its main verb, not narrowed by a phrase
    or a clause of their own ("a document in which the notary is a party" is not any document), and not its
    places or times (a place may be named by a kind without the rule's thing being there)."""
    out: list[tuple[str, str]] = []
    doc = parse(text)
    for t in doc:
        if not _noun_like(t) or key(t) in GENERIC or t.dep_ == "compound":
            continue
        head = t
        while head.dep_ == "conj" and head.head.i != head.i:
            head = head.head
        if head.dep_ == "ROOT":  # a verbless rule: "No glass containers on the production floor."
            if _placed_only(head) and _placed_only(t):
                full = _phrase(t)
                out.append((key(t), full if wordnet.senses(full) else t.lemma_.lower()))
            continue
        verb = head.head
        if verb.dep_ in ("aux", "auxpass") and verb.head.i != verb.i:
            verb = verb.head  # a subject the parser hung on an auxiliary ("Food ... are never to be stored")
        main = verb.dep_ == "ROOT" or (verb.dep_ in ("xcomp", "conj") and verb.head.dep_ == "ROOT")
        if head.dep_ not in _ARG_DEPS or not main or any(c.dep_ in ("prep", "acl", "relcl") for c in t.children):
            continue
        full = _phrase(t)
        out.append((key(t), full if wordnet.senses(full) else t.lemma_.lower()))
    return tuple(out)


@lru_cache(maxsize=4096)
def coordinated_things(text: str) -> tuple[frozenset[str], ...]:
    """The words (head and modifiers) of each of the rule's things coordinated in one list ("Food, drink and
    clinical specimens are never to be stored ..."): doing the event with any one of them is what the rule
    forbids, so a claim need name only one. Empty when the rule names one thing."""
    heads = {k for k, _ in thing_nouns(text)}
    doc = parse(text)
    for t in doc:
        if key(t) in heads and t.dep_ != "conj" and t.conjuncts:
            members = [t, *t.conjuncts]
            if all(key(m) in heads for m in members):
                return tuple(frozenset({key(m)} | {key(c) for c in m.children if c.dep_ in ("compound", "amod")})
                             for m in members)
    return ()


@lru_cache(maxsize=4096)
def coordinated_places(text: str) -> tuple[tuple[frozenset[str], ...], ...]:
    """The words of each place in a list the rule's phrase names ("in the mounting room or the specimen store"):
    a claim in any one of them is in the rule's place."""
    out = []
    for t in parse(text):
        if t.dep_ == "pobj" and t.pos_ == "NOUN" and t.conjuncts and all(m.pos_ == "NOUN" for m in t.conjuncts):
            out.append(tuple(frozenset({key(m)} | {key(c) for c in m.children if c.dep_ in ("compound", "amod")})
                             for m in (t, *t.conjuncts)))
    return tuple(out)


def kind_keys(rule_text: str, doc: Any, start: int, end: int, have: set[str] | frozenset[str],
              denied: set[str] | frozenset[str] = frozenset(), verbs: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """The keys of the rule's things (``thing_nouns``) that a common noun of the claim's span names a kind of
    (its most common sense lies below the rule noun's), leaving out those the span already names. A noun that
    only modifies another ("the penguin pool") or that the clause denies ("no beer") names no thing here. A noun
    that is the object of one of the rule's own ``verbs`` is read in the sense that verb selects (``wordnet.is_a``
    with ``slot``)."""
    wanted = [(k, p) for k, p in thing_nouns(rule_text) if k not in have]
    if not wanted or not wordnet.available():
        return set()
    out: set[str] = set()
    for t in doc:
        if not (start <= t.idx < end) or t.pos_ != "NOUN" or key(t) in GENERIC or t.dep_ == "compound" or \
                key(t) in denied:
            continue
        slot = t.dep_ in ("dobj", "nsubjpass") and key(t.head) in verbs
        for cand, selected in _candidates(t):
            for k, p in wanted:
                if k not in out and cand != p and wordnet.is_a(cand, p, slot or selected):
                    out.add(k)  # with the words of its phrase ("a bracer" names an "arm guard" whole)
                    out |= {word_key(w) for w in p.split()}
    return out


def does_kind_of(t: Any, rule_verb: str) -> bool:
    """Is the claim's verb a manner of doing the rule's verb (its lemma) by WordNet's verb hierarchy ("stroked"
    for "touch", "sipped" for "drink"); the rule's own verb is matched by its word elsewhere."""
    return t.pos_ == "VERB" and wordnet.verb_is_a(t.lemma_.lower(), rule_verb) is True


@lru_cache(maxsize=4096)
def rule_verbs(text: str, actions: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(key, lemma) of the rule's verbs that are its action."""
    return tuple((key(t), t.lemma_.lower()) for t in parse(text) if t.pos_ == "VERB" and key(t) in actions)


def verb_kind_keys(rule_text: str, actions: tuple[str, ...], doc: Any, start: int, end: int) -> set[str]:
    """The keys of the rule's action verbs that a verb of the claim's span does a manner of ("stroked" for
    "must not touch")."""
    wanted = rule_verbs(rule_text, actions)
    if not wanted or not wordnet.available():
        return set()
    return {k for t in doc if start <= t.idx < end and t.pos_ == "VERB" for k, lemma in wanted
            if does_kind_of(t, lemma)}


def is_kind(t: Any, rule_noun: str, slot: bool = False) -> bool:
    """Is the claim's token a kind of the rule's noun (by its most common sense; with ``slot``, by the sense the
    rule's own verb selects, see ``wordnet.is_a``)?"""
    return kind_phrase(t, rule_noun, slot) is not None


def kind_phrase(t: Any, rule_noun: str, slot: bool = False) -> str | None:
    """The claim's phrase by which its token is a kind of the rule's noun ("orange juice" for "drink", the
    content "yoghurt" of "a yoghurt pot" for "food"), or None: a caller may then let the words of that phrase
    stand beside the noun without making it another thing."""
    if t.pos_ != "NOUN":
        return None
    return next((c for c, selected in _candidates(t) if wordnet.is_a(c, rule_noun, slot or selected)), None)
