"""Counts a claim states itself, read whole: number phrases, groups, and sums of one kind of thing.

Why its own reading: a claim seldom gives a count bound's number as one numeral. It says "two dozen
riders", "a dozen and a half documents", "a couple of pairs of trials and a pair of monthlies", "four
stacks of a dozen trays each", "two families of four", "all four owls ..., plus a trio of hawks", "a
dozen passes ..., and then three more", "took byes twice ... and once more". Each is a count of the
things a rule bounds, once the phrase is read as English numbers are: a number noun ("dozen", "score",
"pair", "couple", "trio") times what it multiplies, a group times its size, parts of one event added up,
"two hundred", "a hundred and twenty", "both her sisters", "all but one of the five units" (four), people
listed one by one ("her mum, both her sisters and a couple of bridesmaids"), and a bound the claim states on
its own count ("never fewer than four climbers" is four or more). Vague words ("several", "a few", "a
handful", "a couple of hundred") give no number at all.

Why the claim must tie the count to the rule's event: the same noun is counted for other reasons
("Fourteen riders queued for the open session, but only twelve went onto the track"). A total is read
as a contradiction only where the clause that holds it names the rule's own event: its verb, or the
place or holder the rule bounds (with its modifiers: "the North Charging Hall" is not "the wash hall"),
or where the counted thing fills the very slot of the very verb the rule's noun fills ("carried two
families of four" for "may carry no more than 6 passengers"). A rule that bounds each of several places
("to a single lane") is not broken by a number spread over several of them ("split between lanes 3 and
4"). Pure functions over the cached parse.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from abilities.scu_guard import categories, measure, wordnet
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.forms import GENERIC, Form
from abilities.scu_guard.judge import _clause_at, _finding, _outside, band_guessed, sentence_span
from abilities.scu_guard.nlp import key, parse

# English number nouns: how many one of them is ("a pair of", "a dozen", "a score of")
NUMBER_NOUNS = {"pair": 2, "couple": 2, "trio": 3, "quartet": 4, "dozen": 12, "score": 20}
# words of number that give no sure count ("several climbers", "a few guests", "a handful of volunteers")
_VAGUE = frozenset({"several", "few", "some", "many", "handful", "numerous", "dozens", "scores", "hundreds",
                    "thousands", "multiple", "various", "countless"})
# number words that multiply the number before them ("two hundred", "a thousand")
_MULTIPLIERS = {"hundred": 100, "thousand": 1000}
# "all but one of the five units": the rest of a whole
_ALL_BUT_RE = re.compile(r"\ball but (\w+) of (?:the|their|its|his|her|our|your|those|these)\s+$", re.I)
# members of a group counted as the rule's things, not the group ("two families of four")
MEMBERS = "<members>"
# people counted by listing them ("her mum, both her sisters and a couple of bridesmaids"): the rule's only
# where any person counts as its thing, never as the rule's own noun
PEOPLE = "<people>"
_LIGHT = frozenset(key(t) for t in parse("be have go come get take put make do let keep"))
# prepositions that name where the rule's things are (a place or holder), not when or per what
_PLACE_PREPS = frozenset({"on", "in", "at", "off", "into", "onto", "inside", "aboard", "to", "within", "under"})
_UNIT_DETS = frozenset({"single", "each", "every", "any", "one", "per"})
# "a team", "each crew": one holder of many, whose count a total over several of them does not give
_ONE_OF_MANY = frozenset({"a", "an", "each", "every", "any", "one"})
# a count spread over several places or holders, not in one of them
_SPREAD_VERBS = frozenset(key(t) for t in parse("split divide spread share distribute spread"))
_SPREAD_WORDS = frozenset({"between", "among", "across", "apiece", "respectively", "evenly", "each", "per"})
_TOTAL_RE = re.compile(r"\b(?:in all|in total|altogether|all told|the whole|the entire|total of)\b", re.I)
_EXHAUSTIVE_RE = re.compile(r"\b(?:only|just|merely|no more than|in all|in total|altogether|all told|single|sole|lone|"
                            r"enough|sufficient|suffices?|by (?:it|him|her|them)sel(?:f|ves)|alone)\b", re.I)
# a rule's noun for any person ("No more than 12 people may be in the live room"): every person counted in its
# place is one of them, whatever the claim calls them ("a dozen and a half singers")
_ANY_PERSON = frozenset(key(t) for t in parse("people person persons individuals occupants"))
# nouns that name people though no agentive ending marks them
_PERSON_NOUNS = frozenset(key(t) for t in parse("guests friends children adults pupils students people persons "
                                                 "individuals relatives parents guardians mum mom mother father dad "
                                                 "brother sister son daughter wife husband partner"))
# a floating quantifier as a clause's subject stands for the things counted before it ("Two dozen vials went to
# the unit, all packed in one box"): the clause is still theirs
_FLOATING = frozenset({"all", "both", "each"})
_SIMULTANEOUS_RE = re.compile(r"\b(?:at (?:the same|one|any one|any|a) time|at once|simultaneously|together)\b", re.I)


@dataclass(frozen=True)
class Count:
    """A counted phrase: the keys it counts with how many of each (a group gives its own noun and its
    members), its head token, where it sits, and how it relates to others in its sentence."""

    counts: tuple[tuple[str, float], ...]
    head: int  # token index of the phrase's head noun
    start: int
    end: int
    more: bool  # "three more", "another two": added to what was counted before
    total: bool  # "in all", "the whole": the sum itself, not a part of it
    partitive: bool  # "two of them", "one of the pairs": a part of something counted elsewhere


def _simple_number(t: Any) -> float | None:
    """The value of one number token ("4", "four", "twelve"), not "a"/"one of", nor a vague word ("several")
    nor a multiplier read on its own ("hundred": its number comes before it, see ``_value``)."""
    if t.lower_ in ("a", "an") or t.lower_ in NUMBER_NOUNS or t.lower_ in _VAGUE or t.lower_ in _MULTIPLIERS:
        return None
    if t.like_num or t.lower_ in measure.NUMBER_WORDS:
        n = measure._number(t.text)
        return n if n is not None and n == int(n) and 0 < n < 100000 else None
    return None


def _compound(doc: Any, i: int) -> tuple[float, int] | None:
    """A number word at token ``i`` with the units word a tens word takes ("eighty-two", "thirty five"), else
    the word alone: (value, index after it). Read apart, "eighty-two passengers" would count two."""
    first = _simple_number(doc[i])
    if first is None:
        return None
    if doc[i].lower_ in measure.NUMBER_WORDS and 20 <= first <= 90 and first % 10 == 0:
        j = i + 2 if i + 1 < len(doc) and doc[i + 1].text == "-" else i + 1
        unit = _simple_number(doc[j]) if j < len(doc) and doc[j].lower_ in measure.NUMBER_WORDS else None
        if unit is not None and 1 <= unit <= 9:
            return first + unit, j + 1
    return first, i + 1


def _value(doc: Any, i: int) -> tuple[float, int] | None:
    """A number phrase starting at token ``i``: (value, index after it). "half a dozen" 6, "two dozen" 24,
    "a dozen and a half" 18, "a score of" 20, "4" 4; "a"/"an" alone is no number."""
    n = len(doc)
    low = [t.lower_ for t in doc[i : min(n, i + 5)]]
    if low[:3] in (["half", "a", "dozen"], ["half", "-", "dozen"]):  # "half a dozen", "half-dozen"
        return 6.0, i + 3
    if low[0] in ("a", "an") and low[1:4] == ["baker", "'s", "dozen"]:  # "a baker's dozen": thirteen
        return 13.0, i + 4
    if low[0] in ("a", "an") and low[1:4] == ["half", "-", "dozen"]:  # "a half-dozen players"
        return 6.0, i + 4
    # "both her sisters"; not the correlative "both the gate and the door" (unless a possessive settles it)
    if low[0] == "both" and (doc[i].dep_ != "preconj" or i + 1 < n and doc[i + 1].tag_ == "PRP$"):
        j = i + 1
        while j < n and (doc[j].dep_ in ("poss", "det") or doc[j].lower_ == "of"):
            j += 1
        head = _head_after(doc, j)
        return (2.0, j) if head is not None and head.tag_ in ("NNS", "NNPS") else None
    whole = _compound(doc, i)
    first = whole[0] if whole is not None else None
    j = whole[1] if whole is not None else i + 1 if low[0] in ("a", "an") else None
    if j is None:
        return None
    mult = first if first is not None else 1.0
    if first is not None and [t.lower_ for t in doc[j : j + 3]] == ["and", "a", "half"] and j + 3 < n and (
            doc[j + 3].lower_ in _MULTIPLIERS or doc[j + 3].lower_ == "dozen"):
        mult, j = first + 0.5, j + 3  # "two and a half thousand spectators", "three and a half dozen eggs"
    if j < n and doc[j].lower_ in _MULTIPLIERS:  # "two hundred", "a hundred and twenty"
        if low[0] == "a" and i >= 2 and doc[i - 1].lower_ == "of" or j + 1 < n and doc[j + 1].lower_ == "of":
            return None  # "a couple of hundred fans", "hundreds of": a rough number
        v = mult * _MULTIPLIERS[doc[j].lower_]
        j += 1
        rest = _compound(doc, j + 1) if j + 1 < n and doc[j].lower_ == "and" else None
        if rest is not None:
            v, j = v + rest[0], rest[1]  # "a hundred and fifty-two"
        return v, j
    if j < n and doc[j].lower_ in ("dozen", "score") and (doc[j].lower_ == "dozen" or (
            j + 1 < n and doc[j + 1].lower_ == "of")):
        v = mult * NUMBER_NOUNS[doc[j].lower_]
        j += 1
        if [t.lower_ for t in doc[j : j + 3]] == ["and", "a", "half"]:
            v *= 1.5
            j += 3
        if j < n and doc[j].lower_ == "of" and doc[i + 1].lower_ == "score":
            j += 1
        return v, j
    if first is None:  # "a pair of", "a trio of", "a group of eight"; otherwise "a" is the article
        head = _head_after(doc, j)
        if head is None:
            return None
        k = head.i + 1
        sized = k + 1 < len(doc) and doc[k].lower_ == "of" and _simple_number(doc[k + 1]) is not None
        return (1.0, j) if head.lower_ in NUMBER_NOUNS or sized else None
    return first, j


def _head_after(doc: Any, j: int) -> Any:
    """The noun a phrase starting at ``j`` ends on ("daily trials", "500 g punnets" is no count head)."""
    last = None
    k = j
    while k < len(doc) and k - j - sum(t.text == "-" for t in doc[j:k]) <= 4 and (doc[k].pos_ in ("NOUN", "PROPN", "ADJ", "VERB") and doc[k].dep_ in (
            "compound", "amod", "nmod", "dobj", "pobj", "nsubj", "nsubjpass", "conj", "attr", "appos", "ROOT", "npadvmod")
            or doc[k].text == "-"):
        if doc[k].pos_ in ("NOUN", "PROPN"):
            last = doc[k]
            hyphened = k + 2 < len(doc) and doc[k + 1].text == "-"  # "cold-chain-trained staff": not yet the head
            if doc[k].dep_ not in ("compound", "amod", "nmod") and doc[k].text != "-" and not hyphened:
                break
        k += 1
    return last


def _group(doc: Any, i: int, depth: int = 0) -> tuple[list[tuple[str, float]], Any, int] | None:
    """The counts of a phrase starting at token ``i``: [(key, how many)], its head noun, its end."""
    got = _value(doc, i)
    if got is None:
        return None
    v, j = got
    head = _head_after(doc, j)
    if head is None:
        return None
    # "a dozen 500 g punnets", "500 g punnets": a measured thing, read as an amount elsewhere (but "first-aid
    # kits", "four half-kilo tins" are counts)
    if any(t.like_num and t.tag_ == "CD" for t in doc[j : head.i]) or (
            j < head.i and doc[j].lower_ in measure.UNIT_WORDS and doc[j + 1].text != "-"):  # not "day-trippers"
        return None
    out = [(key(head), v)]
    end = head.i + 1
    size = NUMBER_NOUNS.get(head.lower_.rstrip("s")) if head.lower_ not in ("dozens", "scores") else None
    if end < len(doc) and doc[end].lower_ == "of" and end + 1 < len(doc) and depth < 2:
        # "a pair of single sculls": "single" there says what kind of thing, not how many
        inner = _group(doc, end + 1, depth + 1) if doc[end + 1].lower_ != "single" else None
        if inner is not None and not any(k == "of" for k, _ in inner[0]):
            # "four stacks of a dozen trays": 48 trays; "a couple of pairs of trials": 4 trials
            out += [(k, v * m) for k, m in inner[0]]
            return out, head, inner[2]
        nxt = doc[end + 1]
        if nxt.like_num or nxt.lower_ in measure.NUMBER_WORDS:
            m = _simple_number(nxt)
            follow = doc[end + 2] if end + 2 < len(doc) else None
            if m is not None and (follow is None or follow.pos_ not in ("NOUN", "PROPN")):
                return out + [(MEMBERS, v * m)], head, end + 2  # "two families of four"
        if size is not None:
            det = 1 if nxt.lower_ in ("the", "their", "its", "his", "her", "these", "those") else 0
            thing = _head_after(doc, end + 1 + det)
            if thing is not None and not det:
                return out + [(key(thing), v * size)], head, thing.i + 1  # "a trio of hawks"
    return out, head, end


# a share of a whole told by its count ("each took half of the eight students", "some of the 12 boxes"): the
# count is of the whole, and the part is not told by it
_SHARE_OF_RE = re.compile(r"\b(?:half|a third|a quarter|two thirds|three quarters|some|most|part|a few|a couple)\s+"
                          r"of\s+(?:the\s+|their\s+|its\s+|his\s+|her\s+|our\s+)?$")


def read_counts(text: str) -> list[Count]:
    """The counted phrases of a text, each once (the longest reading at its start)."""
    return list(_read_counts(text))


@lru_cache(maxsize=2048)
def _read_counts(text: str) -> tuple[Count, ...]:
    """``read_counts``, once per text: several readings of one claim ask for its counts."""
    doc = parse(text)
    out: list[Count] = []
    i = 0
    while i < len(doc):
        t = doc[i]
        if t.like_num and (re.fullmatch(r"\d+[:.]\d+", t.text) or t.head.lower_ in measure.MONTHS or (
                i + 1 < len(doc) and re.fullmatch(r"[ap]\.?m\.?", doc[i + 1].lower_))):
            i += 1
            continue
        got = _group(doc, i) if (_simple_number(t) is not None or t.lower_ in ("a", "an", "half", "both")) else None
        if got is not None and t.lower_ in ("a", "an") and i + 2 < len(doc) and doc[i + 1].lower_ in _VAGUE:
            got = None  # "a few guests", "a handful of volunteers"
        n = _simple_number(t)
        if got is None and n is not None and out and i + 1 < len(doc) and doc[i + 1].lower_ == "more" and (
                i + 2 >= len(doc) or doc[i + 2].pos_ not in ("NOUN", "PROPN", "ADJ")):
            # "a dozen passes ..., and then three more": more of the kind counted last
            out.append(Count(((out[-1].counts[0][0], n),), i, t.idx, doc[i + 1].idx + 4, True, False, False))
            i += 2
            continue
        val = _value(doc, i) if got is None and i >= 2 and doc[i - 1].lower_ == "of" else None
        if val is not None and doc[i - 2].pos_ == "NOUN" and (val[1] >= len(doc) or doc[val[1]].pos_ not in (
                "NOUN", "PROPN", "ADJ")):
            # "the office party of a dozen": the group's members
            g = doc[i - 2]
            out.append(Count(((key(g), 1.0), (MEMBERS, val[0])), g.i, g.idx, doc[val[1] - 1].idx + len(doc[val[1] - 1]),
                             False, False, False))
            i = val[1]
            continue
        if got is None:
            i += 1
            continue
        counts, head, end = got
        if counts[0][0] in measure.MONTHS or head.lower_ in measure.UNIT_WORDS:
            i += 1
            continue
        s, e = t.idx, doc[end - 1].idx + len(doc[end - 1].text)
        rest = _ALL_BUT_RE.search(text[max(0, s - 40) : s])
        if rest is not None:
            but = measure._number(rest.group(1))
            if but is None or len(counts) != 1 or but >= counts[0][1]:
                i = end
                continue
            counts = [(counts[0][0], counts[0][1] - but)]  # "all but one of the five units": four
        before = text[max(0, s - 20) : s].lower()
        after = text[e : e + 20].lower()
        out.append(Count(tuple(counts), head.i, s, e,
                         more=bool(re.search(r"\b(?:another|further|additional|extra)\s*$", before)
                                   or re.match(r"\s*more\b", text[doc[i].idx + len(doc[i].text):])),
                         total=bool(_TOTAL_RE.search(before) or _TOTAL_RE.match(after.strip())),
                         partitive=bool(re.match(r"\s*of\s+(?:the|them|those|these|its|their|us)\b",
                                                 text[doc[i].idx + len(doc[i].text):])
                                        or _SHARE_OF_RE.search(before))))
        i = end
    out += _gapped(doc, out)
    return tuple(out + _enumerated(doc, out))


def _gapped(doc: Any, counted: list[Count]) -> list[Count]:
    """A bare number joined to a counted noun phrase counts that noun: "the Audi's four wheels and the Volvo's
    four" (four wheels more), "six boxes and the van's eight". The number has no noun of its own after it and is
    the counted head's conjunct, so it can count nothing else."""
    by_head = {c.head: c for c in counted}
    out = []
    for t in doc:
        n = _simple_number(t)
        c = by_head.get(t.head.i)
        if n is None or t.dep_ != "conj" or c is None or len(c.counts) != 1 or any(
                d.start <= t.idx < d.end for d in counted):
            continue
        if t.i + 1 < len(doc) and doc[t.i + 1].pos_ in ("NOUN", "PROPN", "ADJ", "NUM"):
            continue
        out.append(Count(((c.counts[0][0], n),), t.i, t.idx, t.idx + len(t.text), False, False, False))
    return out


def _enumerated(doc: Any, counted: list[Count]) -> list[Count]:
    """People counted by listing them: "her mum, both her sisters and a couple of bridesmaids" is five. Every
    member of the list must be people of a sure number: a counted group, or one person named by a common noun
    with "the" or a possessive ("her mum"); a name, "a friend" or anything else leaves the list unsummed (a
    name may be no person, "a head and a deputy" may restate a group). An appositive list is a list of its own
    ("a dozen people: ten players, the conductor and the engineer" restates the dozen). The parts stay counted
    apart too ("twenty pupils and three teachers" has twenty pupils); a sum never adds a list to its parts."""
    by_head = {c.head: c for c in counted}
    out: list[Count] = []
    seen: set[int] = set()
    for t in doc:
        if t.i in seen or t.dep_ == "conj" or t.pos_ != "NOUN":
            continue
        members: list[Any] = []
        stack = [t]
        while stack:
            x = stack.pop()
            members.append(x)
            stack += [c for c in x.children if c.dep_ == "conj"]
        seen.update(x.i for x in members)
        if len(members) < 2 or not any(x.i in by_head for x in members):
            continue
        total = 0.0
        for x in members:
            c = by_head.get(x.i)
            if c is not None and c.counts[-1][0] != MEMBERS and _is_person(doc, doc[x.i] if len(c.counts) == 1
                                                                                else _last_noun(doc, c)):
                total += c.counts[-1][1]
            elif c is None and x.tag_ == "NN" and _is_person(doc, x) and any(
                    d.dep_ == "poss" or d.dep_ == "det" and d.lower_ == "the" for d in x.children) and not any(
                    d.dep_ == "det" and d.lower_ != "the" for d in x.children):
                total += 1
            else:
                total = 0.0
                break
        if total:
            last = max(members, key=lambda x: x.i)
            end = by_head[last.i].end if last.i in by_head else last.idx + len(last.text)
            first = by_head.get(t.i)
            noun = _last_noun(doc, first) if first is not None and len(first.counts) > 1 else t  # "pairs of flyers"
            out.append(Count(((PEOPLE, total),), noun.i, t.left_edge.idx, end, False, False, False))
    return out


def _last_noun(doc: Any, c: Count) -> Any:
    """The noun a number noun multiplies ("a couple of bridesmaids": the bridesmaids)."""
    return next(x for x in reversed(doc) if c.start <= x.idx < c.end and x.pos_ in ("NOUN", "PROPN"))


@dataclass(frozen=True)
class _Core:
    """What a count rule's noun does, read from its parse: the verb it is the subject or object of (not a
    light verb), the places or holders it is bounded in (each a set of keys, head and modifiers), the nouns
    bounded one by one ("a single lane", "per antenna"), and whether the bound is at one time."""

    verb: str
    role: str
    places: tuple[frozenset[str], ...]
    per_unit: frozenset[str]
    simultaneous: bool
    holders: tuple[frozenset[str], ...] = ()  # "a team may have at most 5 players": the count is one team's
    lemma: str = ""  # the verb's lemma, for the verbs that are a manner of it ("escorted" for "accompany")


def _place_keys(t: Any) -> frozenset[str]:
    mods = {key(c) for c in t.children if c.dep_ in ("compound", "amod") and c.lower_ not in _UNIT_DETS}
    return frozenset({key(t)} | mods) - GENERIC


def _role(t: Any) -> str:
    """"obj" for the thing a verb acts on, "subj" for its doer, "" otherwise; a conjunct takes its first
    conjunct's role ("four owls ... and three hawks")."""
    while t.dep_ == "conj" and t.head.pos_ in ("NOUN", "PROPN"):
        t = t.head
    if t.dep_ in ("dobj", "nsubjpass"):
        return "obj"
    if t.dep_ == "nsubj":  # "had all four owls tethered": the subject of a bare participle is its patient
        return "obj" if t.head.tag_ == "VBN" and not any(c.dep_ in ("aux", "auxpass") for c in t.head.children) \
            else "subj"
    if t.dep_ == "pobj" and t.head.dep_ == "agent":  # "counted by two employees": the doer of a passive
        return "subj"
    return ""


@lru_cache(maxsize=2048)
def _core(text: str, noun: str) -> _Core | None:
    """The rule's event around its counted noun (see ``_Core``), or None when the noun is not found."""
    doc = parse(text)
    n = next((t for t in doc if key(t) == noun and any(c.dep_ == "nummod" for c in t.children)), None)
    if n is None:
        return None
    p = n.head
    while p.pos_ in ("NOUN", "PROPN", "ADP") and p.head.i != p.i:
        p = p.head
    preds = [p] + [c for c in p.children if c.dep_ in ("acomp", "xcomp") and c.pos_ == "VERB"]
    verb_tok = next((v for v in reversed(preds) if v.pos_ == "VERB" and key(v) not in _LIGHT), None)
    if verb_tok is None and p.pos_ == "ADJ" and p.dep_ == "acomp":
        verb_tok = p  # "may be responsible for more than 4 patients": the predicate adjective names the event
    verb = key(verb_tok) if verb_tok is not None else ""
    places: list[frozenset[str]] = []
    per_unit: set[str] = set()
    holders: list[frozenset[str]] = []
    for v in preds + [n]:
        for prep in (c for c in v.children if c.dep_ == "prep"):
            # a preposition's object is a noun phrase even where the tagger calls a rare noun an adjective
            # ("off the windchest")
            for obj in (c for c in prep.children if c.dep_ == "pobj" and c.pos_ in ("NOUN", "PROPN", "ADJ")):
                if prep.lower_ == "per" or any(c.lower_ in _UNIT_DETS for c in obj.children):
                    per_unit.add(key(obj))
                if prep.lower_ in _PLACE_PREPS and obj.lower_ != "time":
                    places.append(_place_keys(obj))
    for t in doc:
        if t.dep_ == "pobj" and t.head.lower_ == "per":
            per_unit.add(key(t))
    if _role(n) == "obj" or n.dep_ == "nsubj" and any(v.tag_ == "VBN" for v in preds[1:]):
        for s in (c for c in p.children if c.dep_ == "nsubj" and c.i != n.i and c.pos_ in ("NOUN", "PROPN")):
            places.append(_place_keys(s))  # the holder: "a roll cage may hold at most 40 trays"
            if any(c.dep_ == "det" and c.lower_ in _ONE_OF_MANY for c in s.children):
                holders.append(_place_keys(s))
            if any(c.lower_ in _UNIT_DETS for c in s.children):
                per_unit.add(key(s))
    role = _role(n)
    if n.dep_ == "nsubj" and any(v.tag_ == "VBN" for v in preds[1:]):
        role = "obj"  # "birds may be tethered", parsed with "be" as the root: still the passive's patient
    return _Core(verb, role, tuple(pl for pl in places if pl), frozenset(per_unit),
                 bool(_SIMULTANEOUS_RE.search(text)), tuple(h for h in holders if h),
                 verb_tok.lemma_.lower() if verb_tok is not None else "")


def _governor(t: Any) -> Any:
    """The verb a noun phrase belongs to, through coordination and "of" ("a trio of hawks" joined by "plus")."""
    while t.dep_ in ("conj", "appos", "pobj", "prep") and t.head.i != t.i and t.head.pos_ not in ("VERB", "AUX"):
        t = t.head
    return t.head if t.head.pos_ in ("VERB", "AUX") else t


def _scope(t: Any) -> list[Any]:
    """The tokens of a counted phrase's own event: the subtree of the verb it belongs to, without the
    clauses joined to it that have a subject of their own ("Fourteen riders queued ..., but the steward
    let only twelve onto the track": the track is the second clause's)."""
    gov = _governor(t)
    out: list[Any] = []
    stack = [gov]
    while stack:
        x = stack.pop()
        out.append(x)
        for c in x.children:
            if c.i != t.i and c.dep_ in ("conj", "advcl", "ccomp", "parataxis", "relcl") and any(
                    g.dep_ in ("nsubj", "nsubjpass", "expl") and g.lower_ not in _FLOATING for g in c.children):
                continue
            stack.append(c)
    return out


def _in_place(scope: list[Any], gov: Any, place: frozenset[str]) -> bool:
    """Does the event put its things in the rule's place or holder: the place after a preposition of
    place ("on the track", "in the wash hall"), or as the holder ("the jellyfish gallery held", "Cage 18
    went out with"), with every modifier the rule gives it? "Queued for the lift" is not in the lift."""
    keys_ = {key(x) for x in scope}
    for x in scope:
        if key(x) not in place or not (x.dep_ == "pobj" and x.head.lower_ in _PLACE_PREPS
                                       or x.dep_ in ("nsubj", "nsubjpass") and x.head.i == gov.i):
            continue
        # the rule's modifiers all said, or none of the claim's own ("Cage 18" is a roll cage; the North
        # Charging Hall is not the wash hall); a modifier that says when ("Sam's Wednesday run") names no other
        # place or holder, unless the rule's own place is told by a time ("the night shift" is not "the day shift")
        if place <= keys_ or not _place_keys(x) - {key(x)} - _when_keys(x, place):
            return True
    return False


def _when_keys(t: Any, place: frozenset[str]) -> frozenset[str]:
    """The keys of a place's modifiers that name a time period by WordNet ("Wednesday", "morning"), or none when
    the rule's place itself has such a modifier (there a time tells one holder from another)."""
    mods = [c for c in t.children if c.dep_ in ("compound", "amod")]
    if any(wordnet.is_a(w, "time period") is not False for w in place - {key(t)}):
        return frozenset()
    return frozenset(key(c) for c in mods if wordnet.is_a(c.lower_, "time period") is True)


def _units_of_each(doc: Any, clause_start: int, clause_end: int, core: _Core, rule: str) -> list[Any]:
    """The plural nouns by which the clause splits its things into several of the units the rule bounds one by
    one, with a count for each ("two stacks of half a dozen each" for "no more than 6 wheels in one pile",
    "three crates of ten apiece" for "per box"). The unit is the rule's own noun, a kind of it by WordNet,
    or the noun of the rule's own verb (stacked: stacks). The count per unit is then the one to compare."""
    if not core.per_unit:
        return []
    units = [p for p in (categories.phrase_of(rule, u) for u in core.per_unit) if p]
    out = []
    for t in doc:
        if not clause_start <= t.idx < clause_end or t.tag_ not in ("NNS", "NNPS"):
            continue
        if not any(w.lower_ in ("each", "apiece") and w.i > t.i for w in t.subtree):
            continue
        if key(t) in core.per_unit or key(t) == core.verb or any(wordnet.is_a(t.lemma_, u) for u in units):
            out.append(t)
    return out


def per_unit_counts(forms: Sequence[Form], claim: Any) -> tuple[list[Finding], set[str]]:
    """(findings, kept constraints) for count bounds per unit ("no more than 6 wheels in one pile") read against
    the count the claim gives per unit ("two stacks of half a dozen each" is 6 a stack), never the total."""
    out: list[Finding] = []
    kept: set[str] = set()
    if not re.search(r"\b(?:each|apiece)\b", claim.text, re.I):
        return out, kept
    rules = _count_rules(forms)
    if not rules:
        return out, kept
    doc = parse(claim.text)
    counted = read_counts(claim.text)
    for f, band, noun, core in rules:
        each: list[tuple[Count, float]] = []
        for t in _units_of_each(doc, 0, len(claim.text), core, f.text):
            span = (t.left_edge.idx, t.right_edge.idx + len(t.right_edge))
            for c in counted:
                got = dict(c.counts)
                whole = got.get(MEMBERS) or got.get(noun)
                if whole and span[0] <= c.start < span[1]:
                    each.append((c, whole / max(1.0, got.get(key(t), 1.0))))  # a group's size times its number
        if not each:
            continue
        broken = []
        for c, v in each:
            a = measure.Amount(v, v, band.dimension, "eq", False, c.start, c.end, claim.text[c.start:c.end])
            if _outside(a, band):
                broken.append((c, v))
        if not broken:
            kept.add(f.text)
            continue
        c, v = broken[0]
        out.append(_finding(f, claim, c.start, c.end, "numeric_bound",
                            f"{claim.text[c.start:c.end]!r} puts {v:g} {noun} in each, outside what {f.text!r} allows",
                            basis="count_per_unit"))
    return out, kept


def _spread(doc: Any, clause_start: int, clause_end: int, core: _Core, counted: list[Count]) -> bool:
    """Is the number spread over several of the places the rule bounds one by one ("split evenly between
    lanes 3 and 4", "per lane")? An appositive count that places each part ("one pair in each lane") is
    not the claim's own spreading of the total."""
    appos = [(t.left_edge.idx, t.right_edge.idx + len(t.right_edge)) for t in doc if t.dep_ == "appos"]
    ends = {c.end for c in counted}
    for t in doc:
        if not clause_start <= t.idx < clause_end or any(s <= t.idx < e for s, e in appos):
            continue
        if t.lower_ == "between" and any(c.dep_ == "pobj" and c.pos_ == "NUM" for c in t.children):
            continue  # "between 14:00 and 15:00": a span of time, nothing spread over places
        if key(t) in _SPREAD_VERBS or (t.lower_ in _SPREAD_WORDS and not (t.lower_ == "each" and t.idx - 1 in ends)):
            return True
        if key(t) in core.per_unit and (t.tag_ in ("NNS", "NNPS") or any(c.dep_ == "conj" for c in t.children)):
            return True
    return False


def _phrase(doc: Any, t: Any) -> str:
    """A head noun with the word a hyphen joins to it ("walk-ins")."""
    if t.i >= 2 and doc[t.i - 1].text == "-":
        return f"{doc[t.i - 2].lower_}-{t.lower_}"
    return t.lower_


def _is_person(doc: Any, t: Any) -> bool:
    """Does the claim's counted noun name people: a noun whose common sense is a person, a noun for kin or
    company, or an agentive noun WordNet cannot rank ("climbers")?"""
    said = wordnet.names_person(_phrase(doc, t))
    return key(t) in _PERSON_NOUNS or said is True or (said is None and bool(
        re.search(r"(?:er|or|ist|ian|ant|ent|ee)s?$", t.lower_)))


def _kind_counted(doc: Any, c: Count, k: str, rule: str, noun: str) -> bool:
    """Are the things counted under key ``k`` a kind of the rule's counted noun by WordNet ("four owls" for "no
    more than six birds", ``categories``)? The noun must be the count's own, plain (no noun or adjective
    before it that may make it another thing: "four toy owls")."""
    phrase = categories.phrase_of(rule, noun)
    if phrase is None or k == MEMBERS:
        return False
    toks = [t for t in doc if c.start <= t.idx < c.end and t.pos_ == "NOUN" and key(t) == k]
    return any(categories.is_kind(t, phrase) and not any(
        w.dep_ in ("compound", "amod") and w.pos_ != "PROPN" for w in t.lefts) for t in toks)


def _times_apart(doc: Any, parts: list[Count], end: int) -> bool:
    """Do the parts of a sum each come with a time of their own, and the times differ ("two in the morning and two
    more in the afternoon", "three at 09:00, four at 11:00")? The stretch of each part runs to the next part."""
    said: list[frozenset[str]] = []
    for i, c in enumerate(parts):
        stop = parts[i + 1].start if i + 1 < len(parts) else end
        said.append(frozenset(t.lower_ for t in doc if c.end <= t.idx < stop and (
            re.fullmatch(r"\d{1,2}[:.]\d{2}", t.text) or t.pos_ in ("NOUN", "PROPN")
            and wordnet.is_a(t.lower_, "time period") is True)))
    timed = [w for w in said if w]
    return len(timed) >= 2 and len(set(timed)) >= 2


def _added_one(text: str, doc: Any, c: Count, noun: str, counted: list[Count], core: _Core) -> list[Count]:
    """One more of the rule's things joined to a count's own event: "held half a dozen trams, with rescue tram 3001
    squeezed in as well", "plus the spare van too". The added thing is the rule's own noun, singular and counted
    nowhere else, hung by "with" or "plus" on the counted phrase's verb (so a clause with its own subject, "and
    tram 3001 was put on Road 12", is another event), and the sentence says it is in addition ("as well",
    "too", "also"): without that word "with" may name what the counted things had or restate one of them. A place
    the added phrase names must be the rule's or a region of the place named ("at the buffer end"): "with the
    spare van parked in the lane too" may be outside the rule's place."""
    if dict(c.counts).get(noun) is None or c.total:
        return []
    gov = _governor(doc[c.head])
    scope = {x.i for x in _scope(doc[c.head])}
    s0, s1 = sentence_span(text, c.start, c.end)
    out = []
    for t in doc:
        if t.i not in scope or key(t) != noun or t.tag_ != "NN" or any(d.start <= t.idx < d.end for d in counted):
            continue
        path, x = [], t
        while x.i != gov.i and x.head.i != x.i:
            path.append(x.head)
            x = x.head
        joined = any(p.lower_ in ("with", "plus") for p in path) or any(
            w.lower_ == "plus" and w.head.i == t.i for w in doc)
        if t.dep_ not in ("nsubj", "nsubjpass", "dobj", "pobj", "conj") or x.i != gov.i or not joined \
                or not _ADDED_RE.search(text[t.idx : s1]):
            continue
        top = path[-2] if len(path) >= 2 else t
        places = [p for p in top.subtree if p.dep_ == "pobj" and p.head.lower_ in _PLACE_PREPS and p.i != t.i]
        if all(any(key(p) in pl for pl in core.places) or wordnet.is_a(_last_word(doc, p), "region") is True
               for p in places):
            out.append(Count(((noun, 1.0),), t.i, t.idx, t.idx + len(t.text), True, False, False))
    return out


def _last_word(doc: Any, t: Any) -> str:
    """The last word of the noun phrase a noun starts, English's head ("at the buffer end" when the parser hung
    "end" elsewhere and left "buffer" as the object)."""
    j = t.i
    while j + 1 < len(doc) and doc[j + 1].is_alpha and doc[j + 1].pos_ not in (
            "ADP", "DET", "ADV", "CCONJ", "SCONJ", "PART", "PRON", "AUX"):
        j += 1
    return doc[j].lower_


_ADDED_RE = re.compile(r"\b(?:as well|too|also)\b", re.I)


def _stated(text: str, total: float, dim: str, start: int, end: int, summed: bool) -> measure.Amount | None:
    """What the claim says of the count: exactly ``total``, or a bound of its own ("never fewer than four
    climbers" is four or more, "no more than two staff" two or fewer). Only a part of a sum is no bound."""
    direction = measure._direction(text, start, end)
    if direction == "eq":
        return measure.Amount(total, total, dim, "eq", False, start, end, text[start:end])
    if summed:
        return None
    lo, hi = (total, math.inf) if direction == "min" else (0.0, total)
    return measure.Amount(lo, hi, dim, direction, False, start, end, text[start:end])


def _count_rules(forms: Sequence[Form]) -> list[tuple[Form, Any, str, Any]]:
    """The rules that bound a count whose noun their own words name (``_core``) with a bound not guessed:
    (form, band, counted noun, core) each."""
    out = []
    for f in forms:
        band = f.quantity
        if band is None or not band.dimension.startswith("count:"):
            continue
        noun = band.dimension[6:]
        core = _core(f.text, noun)
        if core is not None and not band_guessed(f, band):
            out.append((f, band, noun, core))
    return out


def count_totals(forms: Sequence[Form], claim: Any) -> list[Finding]:
    """Count bounds broken by a total the claim states and ties to the rule's event (see the module
    docstring). Only findings on that evidence are returned; other counts are left to ``check_counts``."""

    out: list[Finding] = []
    rules = _count_rules(forms)
    if not rules:
        return out
    counted = read_counts(claim.text)
    if not counted:
        return out
    doc = parse(claim.text)
    for f, band, noun, core in rules:
        split = _split_sentences(claim, doc, counted, f, band, noun, core, out)
        tied: list[tuple[Count, float, Any]] = []
        # a rule counting people by their presence ("visitors", "companions") counts every person the claim
        # places there, unless the claim itself names the rule's noun (then the others are someone else)
        rule_person = noun in _ANY_PERSON or wordnet.names_person(categories.phrase_of(f.text, noun) or noun) is True
        named = any(key(t) == noun for t in doc)
        guessed: set[int] = set()
        for c in counted:
            clause = _clause_at(claim.clauses, c.start)
            if clause.negated and not measure.direction_info(claim.text, c.start, c.end)[1] or c.partitive:
                continue  # "never fewer than four climbers": the negation is the count's bound, not a denial
            if measure.names_a_whole(claim.text, c.start):
                continue  # "took 25 of the 55 weaners": the whole the part was taken from
            scope = _scope(doc[c.head])
            said = {key(x) for x in scope}
            gov = _governor(doc[c.head])
            # another noun counts as the rule's things only in the rule noun's own slot of its own verb, and
            # only as a count ("the 100 fly" names a race: a plural count needs a plural noun)
            head = doc[c.head]
            agrees = head.tag_ in ("NNS", "NNPS") or c.counts[0][1] == 1
            same_slot = bool(core.verb) and key(gov) == core.verb and core.role != "" and _role(head) == core.role \
                and agrees
            person = rule_person and _is_person(doc, head) and (noun in _ANY_PERSON or not named) \
                and (_role(head) != "subj" or core.role != "obj")
            for k, v in c.counts:
                # a kind of the rule's noun is weaker evidence than the noun: the rest of the reading must be whole,
                # the rule's place named in the sentence with all its words ("the weathering lawn had four owls
                # tethered, plus a trio of hawks"; not "four owls were tethered on the lawn in the morning")
                s0, s1 = sentence_span(claim.text, c.start, c.end)
                sent_keys = {key(x) for x in doc if s0 <= x.idx < s1}
                kind = k != noun and any(pl and pl <= sent_keys for pl in core.places) \
                    and _kind_counted(doc, c, k, f.text, noun)
                # the rule's verb, a manner of it by WordNet ("escorted" for "accompany"), or its place
                event = bool(core.verb and core.verb in said or any(_in_place(scope, gov, pl) for pl in core.places)
                             or core.lemma and categories.does_kind_of(gov, core.lemma)) \
                    and not any(_other_place(scope, gov, pl) for pl in core.places)  # "in the weaving room"
                own = k == noun or kind
                # another noun in the slot counts as the rule's things only where the claim never names them: "carried
                # 43 bags and 30 passengers" tells the bags from the passengers
                slot = k not in (MEMBERS, PEOPLE) and same_slot and len(c.counts) == 1 and not named or \
                    k == MEMBERS and same_slot
                # people of another noun counted as the rule's: "two pairs of flyers and a trio of catchers" for
                # "performers" (but engineers in the booth may be no "visitors": whose role, WordNet cannot say)
                by_person = not own and not slot and person and k in (key(head), PEOPLE) and event
                if not (own and event or not own and slot or by_person):
                    continue
                if _spread(doc, clause.start, clause.end, core, counted) or \
                        _units_of_each(doc, clause.start, clause.end, core, f.text):  # see per_unit_counts
                    continue
                s0, s1 = sentence_span(claim.text, c.start, c.end)
                if core.holders and not any(h & {key(t) for t in doc if s0 <= t.idx < s1} for h in core.holders):
                    continue  # "ten players" for "a team may have at most five": no team is named
                tied.append((c, v, clause))
                if by_person and noun not in _ANY_PERSON:
                    guessed.add(c.start)
                break
        for c, _, clause in list(tied):
            tied += [(one, 1.0, clause) for one in _added_one(claim.text, doc, c, noun, counted, core)]
        for c, _, _clause in list(tied):
            # "a dozen passes ..., and then three more were scheduled": more of the very things counted before
            prev = [d for d in counted if d.end <= c.start and sentence_span(claim.text, d.start, d.end)
                    == sentence_span(claim.text, c.start, c.end)]
            if c.more and prev and all(d is not x for d in prev[-1:] for x, _, _ in tied):
                v = dict(prev[-1].counts).get(noun)
                own_clause = _clause_at(claim.clauses, prev[-1].start)
                if v is not None and not own_clause.negated:
                    tied.append((prev[-1], v, own_clause))
        tied.sort(key=lambda x: x[0].start)
        if not tied:
            continue
        best = max(tied, key=lambda x: x[1])
        total, start, end = best[1], best[0].start, best[0].end
        summed = False
        by_sentence: dict[tuple[int, int], list[tuple[Count, float, Any]]] = {}
        lists = [c for c, _, _ in tied if c.counts[0][0] == PEOPLE]
        for c, v, clause in tied:
            if c.total or doc[c.head].dep_ == "appos" or any(
                    e is not c and e.start <= c.start and c.end <= e.end for e in lists):
                continue  # a restatement, or a part of a list summed already
            by_sentence.setdefault(sentence_span(claim.text, c.start, c.end), []).append((c, v, clause))
        for (s0, s1), parts in by_sentence.items():
            if core.simultaneous:
                parts = [p for p in parts if p[2] is parts[0][2]]  # one clause: one moment
                if _times_apart(doc, [p[0] for p in parts], s1):
                    continue  # "two visitors in the morning and two more in the afternoon": not at one time
            days = [d for d in claim.dates if s0 <= d.start < s1] + [w for w in claim.weekdays if s0 <= w[2] < s1]
            if len(parts) < 2 or len(days) > 1:
                continue
            if sum(v for _, v, _ in parts) > total:
                total, start, end = sum(v for _, v, _ in parts), parts[0][0].start, parts[-1][0].end
                summed = True
        if sentence_span(claim.text, start, end) in split:
            continue  # a total over several of the units the rule bounds one by one
        a = _stated(claim.text, total, band.dimension, start, end, summed)
        if a is None:
            continue
        if band.low is not None and total < band.low and a.direction == "eq":
            s0, s1 = sentence_span(claim.text, start, end)
            if not _EXHAUSTIVE_RE.search(claim.text[s0:s1]):
                continue  # "a couple of samples went to the lab" says nothing of how many were taken
            if doc[best[0].head].conjuncts:
                continue  # "front, back and both sides": the count is one part of a list that adds to it
        if not _outside(a, band):
            continue
        out.append(_finding(f, claim, start, end, "numeric_bound",
                            f"{claim.text[start:end]!r} counts {total:g} {noun}, outside what {f.text!r} allows",
                            sure=not any(start <= g < end for g in guessed), basis="count_total"))
    return out


def _split_sentences(claim: Any, doc: Any, counted: list[Count], f: Form, band: Any, noun: str, core: _Core,
                     out: list[Finding]) -> set[tuple[int, int]]:
    """The sentences that count the rule's things and put them in several of the units the rule bounds one by
    one ("Seven capes are in pickle, four in bath 1 and three in bath 2"): each unit's count is read against
    the bound (a finding added to ``out`` for the first over it), never the total."""
    split: set[tuple[int, int]] = set()
    for c in counted:
        span = sentence_span(claim.text, c.start, c.end)
        if span in split or dict(c.counts).get(noun) is None:
            continue
        parts = _unit_parts(doc, *span, core, f.text, noun)
        if parts is None:
            continue
        split.add(span)
        for v, ps, pe in parts:
            if _outside(measure.Amount(v, v, band.dimension, "eq", False, ps, pe, claim.text[ps:pe]), band):
                out.append(_finding(f, claim, ps, pe, "numeric_bound",
                                    f"{claim.text[ps:pe]!r} puts {v:g} {noun} in one unit, outside what "
                                    f"{f.text!r} allows", sure=True, basis="count_per_unit"))
                break
    return split


def _unit_label(doc: Any, t: Any, heads: frozenset[str]) -> tuple[str, ...]:
    """What tells one unit from another of its kind: a number, a name or a modifier on it ("bath 1", "run B",
    "the north pen"), read from the parse and, where the parser hung a short label elsewhere, from the word
    right after the noun."""
    label = {c.lower_ for c in t.children if c.dep_ in ("nummod", "compound", "amod", "appos")
             and key(c) not in heads and c.lower_ not in _UNIT_DETS}
    if t.i + 1 < len(doc):
        nxt = doc[t.i + 1].text.rstrip(".")
        if nxt.isdigit() or nxt.isalpha() and nxt.isupper() and len(nxt) <= 2:
            label.add(nxt.lower())
    return tuple(sorted(label))


def _unit_heads(rule: str, core: _Core) -> frozenset[str]:
    """The head nouns of the units a rule bounds one by one ("a pickle bath", "per tank", "in any one room")."""
    units = set(core.per_unit).union(*core.holders)
    return frozenset(key(t) for t in parse(rule) if key(t) in units and t.dep_ != "compound"
                     and t.pos_ in ("NOUN", "PROPN"))


def _unit_parts(doc: Any, s0: int, s1: int, core: _Core, rule: str, noun: str) -> list[tuple[float, int, int]] | None:
    """The counts a sentence puts in each of several units the rule bounds one by one, or None: "seven capes
    ..., four in bath 1 and three in bath 2" gives 4 and 3 for "a pickle bath may hold no more than 5 capes".
    The units are the rule's unit noun told apart by labels of their own (a number, a name, a modifier), at
    least two of them; each part is a number before "in"/"on"/"at" the unit, its noun the rule's or left out."""
    heads = _unit_heads(rule, core)
    if not heads:
        return None
    labels: set[tuple[str, ...]] = set()
    parts: list[tuple[float, int, int]] = []
    for t in doc:
        if not s0 <= t.idx < s1 or key(t) not in heads or t.pos_ not in ("NOUN", "PROPN"):
            continue
        label = _unit_label(doc, t, heads)
        if not label or t.dep_ != "pobj" or t.head.lower_ not in _PLACE_PREPS:
            return None  # a unit named without its own label: the sentence may speak of one unit
        labels.add(label)
        prep = t.head
        if prep.i == 0:
            return None
        h = doc[prep.i - 1]  # the word right before the preposition: "four in", "four capes in"
        if h.pos_ in ("NOUN", "PROPN") and key(h) == noun:
            h = next((c for c in h.children if c.dep_ == "nummod"), h)
        v = _simple_number(h)
        if v is None:
            return None
        parts.append((v, min(h.idx, t.head.idx), t.idx + len(t.text)))
    return parts if len(labels) >= 2 and len(parts) == len(labels) else None


def _other_place(scope: list[Any], gov: Any, place: frozenset[str]) -> bool:
    """Does the event put its things in a place of the rule's kind that its own modifiers tell apart from the
    rule's ("charged in the North Charging Hall" for "in the wash hall"), and nowhere in the rule's own?"""
    if _in_place(scope, gov, place):
        return False
    for x in scope:
        if key(x) in place and x.dep_ == "pobj" and x.head.lower_ in _PLACE_PREPS:
            own = _place_keys(x) - {key(x)} - _when_keys(x, place)
            if own and not place <= _place_keys(x):
                return True
    return False


def _spread_over_units(doc: Any, clause_start: int, clause_end: int, core: _Core) -> bool:
    """Does the clause split its things over several of the units the rule bounds one by one: a word that
    spreads ("split", "between") and the rule's unit named as several ("between lanes 3 and 4")? "Per day"
    alone is the rule's own rate, and "spread over three orders" names no unit of the rule's."""
    told = [t for t in doc if clause_start <= t.idx < clause_end]
    spreads = any(key(t) in _SPREAD_VERBS or t.lower_ in ("between", "among", "across") for t in told)
    return spreads and any(key(t) in core.per_unit and (t.tag_ in ("NNS", "NNPS") or any(
        c.dep_ == "conj" for c in t.children)) for t in told)


def count_elsewhere(form: Form, claim: Any, start: int) -> str | None:
    """Why a count the claim gives of the rule's noun (a ``check_counts`` finding at ``start``) is not the count
    the rule bounds, or None: the clause spreads it over several of the units the rule bounds one by one
    ("split evenly between lanes 3 and 4" for "to a single lane"), or puts its things in another place of the
    rule's kind ("the North Charging Hall" for "the wash hall")."""
    band = form.quantity
    if band is None or not band.dimension.startswith("count:"):
        return None
    core = _core(form.text, band.dimension[6:])
    if core is None:
        return None
    doc = parse(claim.text)
    tok = next((t for t in doc if t.idx == start), None)
    if tok is None:
        return None
    noun = tok.head if tok.dep_ == "nummod" else tok
    clause = _clause_at(claim.clauses, start)
    if _spread_over_units(doc, clause.start, clause.end, core):
        return "the claim spreads the count over several of the units the rule bounds one by one"
    parts = _unit_parts(doc, *sentence_span(claim.text, start, start + 1), core, form.text, band.dimension[6:])
    if parts is not None and not any(_outside(measure.Amount(v, v, band.dimension, "eq", False, ps, pe, ""), band)
                                     for v, ps, pe in parts):
        return "the claim puts the count in several of the units the rule bounds one by one, each within it"
    scope = _scope(noun)
    gov = _governor(noun)
    if any(_other_place(scope, gov, pl) for pl in core.places):
        return "the claim's count is in another place of the rule's kind"
    return None


# the words by which a clause states a norm of its own: a permission, a sufficiency or a need ("may hold up to",
# "are fine", "is enough", "need at least"); "could", "possible" or "open" tell of what might be, not of a norm
_NORM_RE = re.compile(r"\b(?:may|can|fine|ok|okay|acceptable|allowed|permitted|enough|sufficient|suffices?|"
                      r"needs?|required?)\b", re.I)
# a sentence that hangs its statement on a condition or a supposition says nothing of what was done or allowed
_SUPPOSED_RE = re.compile(r"\b(?:if|unless|would|could|might|should|whenever|when|once|until|assuming)\b", re.I)


@lru_cache(maxsize=1024)
def _rule_words(text: str, noun: str) -> tuple[frozenset[str], tuple[frozenset[str], ...]]:
    """(the counted noun's own modifiers, the groups of words that name the rule's event) in a count rule: its
    verb, not a light one ("hold", "carry over"), and its subject with its modifiers ("each dorm room")."""
    doc = parse(text)
    n = next((t for t in doc if key(t) == noun and any(c.dep_ == "nummod" for c in t.children)), None)
    if n is None:
        return frozenset(), ()
    plain = GENERIC | _LIGHT
    # a word before the number is the bound's ("at most 5"), not the noun's
    num = min(c.i for c in n.children if c.dep_ == "nummod")
    mods = frozenset(key(c) for c in n.children if c.dep_ in ("compound", "amod") and c.i > num
                     and not c.like_num and c.lower_ not in _UNIT_DETS and key(c) not in plain)
    mods |= frozenset(key(o) for p in n.children if p.dep_ == "prep" and p.lower_ == "of"
                      for o in p.children if o.dep_ == "pobj" and o.pos_ in ("NOUN", "PROPN"))
    v = n
    while v.pos_ not in ("VERB", "AUX") and v.head.i != v.i:
        v = v.head
    groups: list[frozenset[str]] = []
    if v.pos_ == "VERB" and key(v) not in plain:
        groups.append(frozenset({key(v)}))
    for s in (c for c in v.children if c.dep_ in ("nsubj", "nsubjpass") and c.pos_ in ("NOUN", "PROPN")):
        groups.append(frozenset({key(s)} | {key(c) for c in s.children if c.dep_ in ("compound", "amod")
                                            and key(c) not in plain}) - plain)
    return mods, tuple(g for g in groups if g)


def restated_bound(form: Form, claim: Any, start: int, end: int) -> bool:
    """Does the claim state, as a norm of its own, a bound on the very count the rule bounds ("A barn may hold up
    to 25,000 hens" for "Each barn may hold at most 20,000 hens", "Up to five production deployments per day are
    fine", "Passwords need at least 10 characters")? Then the count is not matched by its noun alone: the claim
    speaks of the rule's own event and thing. It must say so in one clause, not denied, with a word of
    permission, sufficiency or need, and name the counted noun with every modifier the rule gives it and the
    rule's verb or subject (or, where the rule has neither, a modifier of its noun); its sentence gives no other
    number (no second count to tell apart: "can hold 300, but the licence allows 250") and no condition or
    supposition ("if", "would", "could"); the norm is the sentence's own main clause, not a question nor what
    someone said ("the old policy said a barn may hold ...")."""
    band = form.quantity
    if band is None or not band.dimension.startswith("count:") or band_guessed(form, band):
        return False
    mods, groups = _rule_words(form.text, band.dimension[6:])
    # the innermost clause that holds the count ("said a greenhouse may hold ...": the holding, not the saying)
    clause = min((c for c in claim.clauses if c.start <= start < c.end), key=lambda c: c.end - c.start, default=None)
    if clause is None or clause.negated or clause.optional:
        return False
    text = claim.text
    s0, s1 = sentence_span(text, start, end)
    doc = parse(text)
    if any(t.like_num and not start <= t.idx < end for t in doc if s0 <= t.idx < s1) or \
            _SUPPOSED_RE.search(text[s0:s1]) or not _NORM_RE.search(text[clause.start:clause.end]):
        return False
    top = doc[clause.head_i]
    while top.dep_ == "conj":
        top = top.head
    if top.dep_ != "ROOT" or text[s0:s1].rstrip().endswith("?"):
        return False  # "the old policy said a barn may hold ...", "can a barn hold ...?": no norm the claim states
    said = {key(t) for t in doc if clause.start <= t.idx < clause.end}
    if not mods <= said:
        return False
    return any(g <= said for g in groups) or not groups and bool(mods)
