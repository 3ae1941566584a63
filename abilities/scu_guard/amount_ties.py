"""Which thing a claim's reading is of: the evidence that ties an amount to the rule's measured thing.

Why: an amount tied to a rule by its unit alone ("It peaked at 712 °F" against "The crude heater outlet
temperature must not exceed 370 °C"), or one of several amounts of the rule's dimension ("read 38 °F at 06:00,
rose to 41 °F by 18:00"), is a guess about what the number measures, so it is only suspected. Two kinds of
evidence settle that guess without the wording of any domain:

- a cited record gives the very reading (the same number) in a line, or under a heading, that names the
  rule's measured thing: its subject noun ("vehicle SK19 ... recorded 12 mph" for "Vehicles must not exceed
  10 km/h"), or, where that noun is itself a measure ("temperature", "speed"; WordNet says so), a word of what
  it is the measure of ("crude heater ... 02:00 712 °F" for "the crude heater outlet temperature");
- among several amounts of the dimension, no other one is told of more of the rule's words than the
  reading (a series of one thing at several times: "Pan 3 peaked at 185 °F, then eased back to 169 °F"), and
  two amounts in one clause are told apart by the claim's own word for the extreme ("peaked at 2,230 °F, a
  little above its 2,190 °F set point"). Where another amount is told of the rule's own words ("the filter
  inlet held at 188 °C", "7 km/h once inside the warehouse"), that one is the rule's, and the guess stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from abilities.scu_guard import measure, wordnet
from abilities.scu_guard.forms import GENERIC, Form
from abilities.scu_guard.judge import sentence_span
from abilities.scu_guard.nlp import key, light_keys, parse, span_head

# a measure noun's senses: an attribute, a measure, a magnitude, a rate or a property (temperature, speed,
# level, weight, concentration); such a subject names no thing, the words around it do
_MEASURE_CATEGORIES = (("attribute", 3), ("measure", 3), ("magnitude", 2), ("rate", 2), ("property", 3))
_CONTENT_POS = frozenset({"NOUN", "PROPN", "ADJ"})
_CLAUSE_DEPS = frozenset({"conj", "advcl", "relcl", "ccomp", "parataxis", "acl"})
# a claim's own word for the extreme of a series it reports ("peaked at", "topped out at", "a maximum of")
_HIGH_WORDS = frozenset({"peak", "top", "max", "maximum", "highest", "high"})
_LOW_WORDS = frozenset({"bottom", "minimum", "lowest", "low", "trough"})
_NUM_RE = re.compile(r"[-+−]?\d[\d,]*(?:\.\d+)?")
# a number standing alone in a record (not part of a date, a clock time, a code or a longer number)
_RECORD_NUM_RE = re.compile(r"(?<![\w.,:/−-])[-+−]?\d[\d,]*(?:\.\d+)?(?![\w/:]|[.,]\d)")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")


@lru_cache(maxsize=1)
def _measure_senses() -> frozenset[int]:
    return frozenset(o for word, n in _MEASURE_CATEGORIES for o in wordnet.senses(word)[:n])


def _is_measure(noun: str) -> bool:
    """Is the noun's most common sense a measure of something ("temperature", "speed"), not a thing?"""
    return any(wordnet.under(noun, _measure_senses(), 1))


@lru_cache(maxsize=1024)
def rule_thing(rule: str) -> frozenset[str]:
    """Keys (``light_keys``) of the thing a rule's bound measures: its subject noun, or, where that noun is a
    measure, the words of what it measures ("crude heater outlet" of "the crude heater outlet temperature",
    "vacuum pans" of "the massecuite temperature in the vacuum pans"). Empty when the rule has no subject noun."""
    doc = parse(rule)
    subj = next((t for t in doc if t.dep_ in ("nsubj", "nsubjpass") and t.pos_ in ("NOUN", "PROPN")), None)
    if subj is None or key(subj) in GENERIC:
        return frozenset()
    if not _is_measure(subj.lemma_.lower()):
        return frozenset(light_keys(subj.text)) - GENERIC
    words = " ".join(w.text for w in subj.subtree if w.i != subj.i and w.pos_ in _CONTENT_POS)
    return frozenset(light_keys(words)) - GENERIC


def _value(text: str) -> float | None:
    m = _NUM_RE.search(text)
    if m is None:
        return None
    try:
        return float(m.group(0).replace(",", "").replace("−", "-"))
    except ValueError:
        return None


def _record_lines(chunk: str, value: float, dimension: str) -> list[str]:
    """The lines of a cited record that give ``value``: for each place it stands, the record's heading (its first
    sentence up to its first ": " or ";"), its own item (";"-separated) and, for a bare number under a unit the
    list gives once ("hot tub controller (°F) 12:00 102; 14:00 105"), the lead of its list up to the list's first
    number. An item that gives its own unit is a reading of its own thing ("boxes in cold storage at 3 °C; the
    reading room store at 19 °C"). A number given with a unit of another dimension is not the reading."""
    sentences = _SENTENCE_RE.split(chunk)
    heading = re.split(r";|\||: ", sentences[0])[0] if sentences else ""
    units = measure.find_amounts(chunk)
    out = []
    at = 0
    for sent in sentences:
        base = chunk.find(sent, at)
        at = base + len(sent)
        items = re.split(r"(;|\|)", sent)
        first = _RECORD_NUM_RE.search(items[0])
        lead = items[0][: first.start()] if first else items[0]
        pos = base
        for item in items:
            for m in _RECORD_NUM_RE.finditer(item):
                n = _value(m.group(0))
                if n is None or abs(n - value) > 1e-9 * max(1.0, abs(value)):
                    continue
                where = pos + m.start()
                given = next((a for a in units if a.start <= where < a.end), None)
                if given is not None and given.dim != dimension:
                    continue
                out.append(" ".join((heading, item) if given is not None else (heading, lead, item)))
            pos += len(item)
    return out


def record_ties(form: Form, amount_text: str, dimension: str, chunk_texts: Sequence[str]) -> bool:
    """Does a cited record give the claim's reading (the same number) in a line that names the rule's
    measured thing?"""
    thing = rule_thing(form.text)
    value = _value(amount_text)
    if not thing or value is None:
        return False
    return any(thing & light_keys(line) for chunk in chunk_texts for line in _record_lines(chunk, value, dimension))


_VERB_DEPS = frozenset({"ROOT", "advcl", "relcl", "acl", "ccomp", "xcomp", "parataxis", "pcomp", "conj", "dep"})


def _verb_of(t: Any, skip: set[int]) -> Any:
    """The verb of the clause a token is told in (a word the tagger took for a verb inside a noun phrase, "the
    4.2 m cave", is no clause of its own)."""
    while t.head.i != t.i and (t.i in skip or t.pos_ not in ("VERB", "AUX") or t.dep_ not in _VERB_DEPS
                               or t.dep_ == "conj" and t.head.pos_ not in ("VERB", "AUX")):
        t = t.head
    return t


def _told_of(doc: Any, verb: Any) -> list[Any]:
    """The words a clause tells: its verb's own words (not those of clauses hanging from it) and the subject it
    shares with the clause it is joined to ("Cold room B read 38 °F, rose to 41 °F")."""
    skip = {w.i for c in verb.children if c.dep_ in _CLAUSE_DEPS or c.dep_ == "dep" and c.pos_ in ("VERB", "AUX")
            for w in c.subtree}
    out = [w for w in verb.subtree if w.i not in skip and w.pos_ in _CONTENT_POS | {"VERB"}]
    v = verb
    while not any(c.dep_ in ("nsubj", "nsubjpass") for c in v.children) and v.dep_ in ("conj", "xcomp") \
            and v.head.i != v.i:
        v = v.head
    if v is not verb:
        out += [w for c in v.children if c.dep_ in ("nsubj", "nsubjpass") for w in c.subtree]
    if verb.dep_ in ("relcl", "acl"):  # "the walk-in, which was holding at 3 °C"
        out += [w for w in verb.head.lefts if w.pos_ in _CONTENT_POS] + [verb.head]
    return out


def _keys(tokens: list[Any]) -> set[str]:
    return {key(t) for t in tokens} | set(light_keys(" ".join(t.text for t in tokens)))


def _marked_extreme(unit: Any, verb: Any, high: bool) -> bool:
    """Is the amount the claim's own extreme of what it reports: the object of a verb of the extreme ("peaked
    at 2,230 °F") or what a noun of it is of ("a maximum of 9 m")?"""
    words = _HIGH_WORDS if high else _LOW_WORDS
    if unit.dep_ == "pobj" and unit.head.lower_ == "of" and unit.head.head.lemma_.lower() in words:
        return True
    direct = unit.head.i == verb.i or unit.dep_ == "pobj" and unit.head.dep_ == "prep" and unit.head.head.i == verb.i
    return unit.dep_ in ("dobj", "pobj", "attr") and direct and verb.lemma_.lower() in words


def _clause(doc: Any, claim: str, a: measure.Amount) -> tuple[Any, list[Any]]:
    """(verb, words) of the clause an amount is told in, within its sentence (a ";" ends one too, whatever
    the parse made of it)."""
    s0, s1 = sentence_span(claim, a.start, a.end)
    unit = span_head(doc, a.start, a.end)
    verb = _verb_of(unit, {t.i for t in doc if a.start <= t.idx < a.end})
    if not s0 <= verb.idx < s1:
        return None, [t for t in doc if s0 <= t.idx < s1 and t.pos_ in _CONTENT_POS | {"VERB"}]
    # what is conjoined to the amount itself is another item, not what the amount is told of (a parse that
    # hangs "and the vaccine fridge read 5 °C" on "95 °C")
    joined = {w.i for c in unit.children if c.dep_ == "conj" for w in c.subtree}
    return verb, [t for t in _told_of(doc, verb) if s0 <= t.idx < s1 and t.i not in joined]


_ATTRIBUTIVE = frozenset({"compound", "nummod", "amod", "appos"})
# where a reading stands in its clause: what a verb reads, reaches or holds at ("held at 3 °C", "read -22 °C")
_READING_DEPS = frozenset({"dobj", "pobj", "attr", "acomp", "npadvmod", "conj", "nsubj", "nsubjpass", "oprd"})


def _phrase(unit: Any) -> list[Any]:
    """The words of an amount's own phrase: what it is of or over ("8.5 kn over the ground", "4 inches of wind
    pressure"), or the noun it describes ("an 8 m berm"); not the amounts joined to it."""
    if unit.dep_ in _ATTRIBUTIVE:
        return [unit.head, *(w for w in unit.head.lefts if w.pos_ in _CONTENT_POS)]
    skip = {w.i for c in unit.children if c.dep_ in ("conj", "cc") for w in c.subtree}
    return [w for w in unit.subtree if w.i not in skip and w.i != unit.i and w.pos_ in _CONTENT_POS]


def own_reading(form: Form, claim: str, start: int) -> tuple[bool, bool]:
    """(tied, alone) for the claim's amount at ``start`` of the rule's dimension: tied when the claim tells
    the amount of the rule's measured thing; alone when no other amount of the dimension is told of more of
    the rule's words, and one told in the same clause is set apart by the claim's word for the extreme."""
    tied, alone, _ = _contest(form, claim, start)
    return tied, alone


def outranked(form: Form, claim: str, start: int) -> bool:
    """Is the claim's amount at ``start`` told of nothing of the rule's measured thing while another reading of
    the dimension, inside the rule's band, is told of more of the rule's words ("the drinks fridge had crept up
    to 7 °C ..., the walk-in was holding at 3 °C" against "The walk-in cooler must be kept at or below 4 °C")?
    Then the rule's reading is that one, and kept: the amount is of another thing."""
    tied, _, beaten = _contest(form, claim, start)
    return beaten and not tied


def _contest(form: Form, claim: str, start: int) -> tuple[bool, bool, bool]:
    """(tied, alone, beaten by a kept reading) of the claim's amount at ``start``."""
    q = form.quantity
    if q is None:
        return False, False, False
    doc = parse(claim)
    amounts = [a for a in measure.find_amounts(claim) if a.dim == q.dimension]
    mine = next((a for a in amounts if a.start <= start < a.end), None)
    if mine is None or not [t for t in doc if mine.start <= t.idx < mine.end]:
        return False, False, False
    verb, words = _clause(doc, claim, mine)
    unit = span_head(doc, mine.start, mine.end)
    told = _keys(words)
    thing = rule_thing(form.text)
    tied = bool(thing & (told | _keys(_phrase(unit))))
    rule_words = _keys([t for t in parse(form.text) if t.pos_ in _CONTENT_POS | {"VERB"}]) - GENERIC
    ours = rule_words & told
    high = q.high is not None and mine.lo > q.high
    alone, beaten = True, False
    for other in amounts:
        if other is mine or _joined(claim, mine, other):
            continue
        if not [t for t in doc if other.start <= t.idx < other.end]:
            alone = False
            continue
        o_verb, o_words = _clause(doc, claim, other)
        o_unit = span_head(doc, other.start, other.end)
        # a kept reading: told as it was, inside the band, and not a measure that names a kind of another thing
        # ("four rolls of 8 oz Dacron"; "a €60 penalty" is the rule's own penalty)
        kept = other.direction == "eq" and (q.low is None or other.lo >= q.low) and \
            (q.high is None or other.hi <= q.high) and (o_unit.dep_ in _READING_DEPS or o_unit.dep_ in _ATTRIBUTIVE
                                                         and bool(rule_words & _keys([o_unit.head])))
        if verb is not None and o_verb is not None and o_verb.i == verb.i:
            if _marked_extreme(unit, verb, high) and not _marked_extreme(o_unit, o_verb, high):
                continue
            # "made 6.5 kn through the water and 8.5 kn over the ground": the amount's own phrase names the
            # rule's thing, the other's none of the rule's words
            mine_phrase, o_phrase = _keys(_phrase(unit)), _keys(_phrase(o_unit))
            if not (unit.dep_ not in _ATTRIBUTIVE and thing & mine_phrase and not rule_words & o_phrase):
                alone = False
                beaten = beaten or kept and o_unit.dep_ not in _ATTRIBUTIVE and bool(thing & o_phrase) \
                    and not rule_words & mine_phrase
        else:
            theirs = rule_words & _keys(o_words)
            if theirs - ours:
                alone = False
                beaten = beaten or kept and ours < theirs
    return tied, alone, beaten


def _joined(claim: str, a: measure.Amount, b: measure.Amount) -> bool:
    """Are two amounts the ends of one range ("between 30 °F and 44 °F", "3-5 kg")?"""
    first, second = (a, b) if a.start < b.start else (b, a)
    return bool(re.fullmatch(r"\s*(?:and|to|through|until|-|–|or)\s*", claim[first.end:second.start], re.I))


# a pronoun that stands for the thing a question asks about ("It peaked at 712 °F"), not a relative one
_ANSWER_PRONOUNS = frozenset({"it", "they", "she", "he", "its", "their"})


@lru_cache(maxsize=1024)
def asked_thing(rule: str) -> frozenset[str]:
    """Keys of the rule's measured thing as a question may name it: ``rule_thing`` and, where the subject noun is
    a thing itself, the words that place or qualify it ("car deck" of "Vehicles on the car deck")."""
    doc = parse(rule)
    subj = next((t for t in doc if t.dep_ in ("nsubj", "nsubjpass") and t.pos_ in ("NOUN", "PROPN")), None)
    thing = rule_thing(rule)
    if subj is None or not thing or _is_measure(subj.lemma_.lower()):
        return thing
    words = " ".join(w.text for w in subj.subtree if w.pos_ in _CONTENT_POS)
    return thing | (frozenset(light_keys(words)) - GENERIC)


def _subject_of(verb: Any) -> Any:
    """The subject a clause tells its amount of: its own, the one it shares with the clause it is joined to, or
    the noun a clause describing it hangs from ("a van doing 10 mph", "the walk-in, which held at 3 °C")."""
    v = verb
    while True:
        subj = next((c for c in v.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subj is not None and not (v.dep_ in ("relcl", "acl") and subj.tag_ in ("WDT", "WP")):
            return subj
        if v.dep_ in ("relcl", "acl") and v.head.pos_ in ("NOUN", "PROPN"):
            return v.head
        if v.dep_ not in ("conj", "xcomp") or v.head.i == v.i:
            return None
        v = v.head


def _answers(form: Form, doc: Any, subj: Any, asked: frozenset[str]) -> bool:
    """Does the subject stand for what the question asks about: a pronoun with nothing else named before it in
    the claim, words all of the question's or the rule's thing, or a kind of the rule's subject noun (in one of
    the noun's common senses: the question has named the rest of the thing)?"""
    if subj.pos_ == "PRON":
        before = [t for t in doc[: subj.i] if t.pos_ in ("NOUN", "PROPN")]
        return subj.lower_ in _ANSWER_PRONOUNS and not (_keys(before) - asked - GENERIC)
    words = [w for w in subj.subtree if w.pos_ in _CONTENT_POS]
    if not (_keys(words) - GENERIC) - asked - asked_thing(form.text):
        return True
    rule_subj = next((t for t in parse(form.text) if t.dep_ in ("nsubj", "nsubjpass") and t.pos_ in ("NOUN", "PROPN")),
                     None)
    return rule_subj is not None and subj.pos_ in ("NOUN", "PROPN") and not _is_measure(rule_subj.lemma_.lower()) and \
        any(wordnet.under(subj.lemma_.lower(), frozenset(wordnet.senses(rule_subj.lemma_.lower())[:1]), 3))


def question_ties(form: Form, claim: str, start: int, question: str) -> bool:
    """Does the user's question name the rule's measured thing (``asked_thing``) and the claim answer it with the
    amount at ``start``: the amount's clause is told of a pronoun standing for it, of what the question names, or
    of a kind of the rule's subject ("What was the crude heater outlet temperature at 02:00?" then "It peaked at
    712 °F")? The question is context only: it says what the answer's number is of, never that anything
    happened; an amount told of another thing ("the sauna hit 190 °F") is not tied by it."""
    q = form.quantity
    if q is None or not question.strip():
        return False
    asked = frozenset(light_keys(question)) - GENERIC
    if not asked & asked_thing(form.text):
        return False
    doc = parse(claim)
    mine = next((a for a in measure.find_amounts(claim) if a.dim == q.dimension and a.start <= start < a.end), None)
    if mine is None or not [t for t in doc if mine.start <= t.idx < mine.end]:
        return False
    verb, _ = _clause(doc, claim, mine)
    subj = _subject_of(verb) if verb is not None else None
    return subj is not None and _answers(form, doc, subj, asked)
