"""Compare a parsed claim with the typed forms of the locked constraints (sans-I/O).

The claim is parsed once (spaCy) and cut into clauses: a verb with its own arguments, so that
"the dog stayed in her room while she visited the spa" puts the dog and the spa in different
clauses. Each clause knows its polarity (negation attached to its verb, "never", "no X",
"without X"), whether it grants a permission ("may", "can", "is fine") or denies an obligation
("optional", "not required", "don't need"), its agents (active subject or passive "by" agent), and
its amounts, clock times and dates. Facts from the cited chunks about things the claim names
("Room 2 holds the chlorine cylinders", "the TX-9 costs 3,100 USD") join the clause that names
them. Each constraint kind has one comparison; each claim amount is judged only against the
constraint it fits best (same dimension, most shared words), so a shared word cannot drag in the
wrong constraint.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from abilities.scu_guard import (
    ages,
    apart,
    attributive,
    bare_days,
    calendar_days,
    categories,
    count_scope,
    credential,
    denials,
    event_kinds,
    event_words,
    events,
    given_names,
    kept_logs,
    measure,
    names,
    omitted,
    places,
    recurrence,
    reldates,
    roles,
    scoped,
    stand_in,
    stayed,
    two_roles,
    unprefixed,
    waived,
    windows,
    withheld,
    wordnet,
)
from abilities.scu_guard import together as together_
from abilities.scu_guard.absent import minimum_absent
from abilities.scu_guard.conditions import condition_keys, reading_unnamed, trigger_keys
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.forms import (
    GENERIC,
    HAVE,
    Band,
    Form,
    allowed_period,
    event_due,
    keys,
    pair_by_grammar,
    rule_dates,
)
from abilities.scu_guard.nlp import key, light_keys, parse, span_head, verb_at_or_above, word_key
from abilities.scu_guard.reserved import MEMBER_NOUNS, alternatives, desc_keys, has_key
from abilities.scu_guard.spent import place_unnamed, spent_elsewhere
from abilities.scu_guard.while_scope import bare_while, scope_told

PERMISSIVE = frozenset({"may", "can", "allow", "permit", "welcome", "fine", "ok", "okay", "acceptable", "free",
                        "enough", "sufficient", "could", "open", "accept", "possible"})
OPTIONAL_RE = re.compile(
    r"\b(?:optional|recommend\w*|(?:not|\w+n't) (?:required|mandatory|needed|necessary|compulsory|obligatory)|"
    r"(?:do|does|did)(?: not|n't) (?:need|have) to|(?:do|does|did)(?: not|n't) need|no need|needn't|"
    r"not need|not have to|up to the|voluntary|at (?:their|his|her|your) discretion)\b", re.I)
PROHIBITIVE_RE = re.compile(r"\b(?:not allowed|prohibited|forbidden|banned|may not|cannot|can't|must not|"
                            r"never allowed|not permitted|is not|are not)\b", re.I)
REQUIRE_VERBS = frozenset(word_key(w) for w in "require need demand".split())
STOP_CONSEQUENCE = frozenset(word_key(w) for w in "close stop halt suspend cancel evacuate shut pause".split())
NEGATING_CONSEQUENCE = frozenset(word_key(w) for w in "void invalidate cancel annul disqualify reject".split())
UNBOUNDED_RE = re.compile(
    r"\b(?:unlimited|no limit|without (?:a |any )?(?:limit|cap)|as (?:many|much|long) (?:\w+ ){0,2}as "
    r"(?:they|you|we|he|she|needed|necessary|wanted|desired|required|they like|you like)|any number of|indefinitely|"
    r"forever|no cap|uncapped|no maximum|however (?:many|long|much))\b", re.I)
COMPANY_VERBS = frozenset(word_key(w) for w in "accompany supervise escort chaperone attend".split())
ALONE_RE = re.compile(r"\b(?:alone|on (?:his|her|their|its) own|by (?:him|her|them|it)sel(?:f|ves)|unaccompanied|"
                      r"unsupervised|unescorted|unattended|without (?:an? )?(?:adult|supervisor|escort|chaperone))\b", re.I)
LIGHT_VERBS = frozenset(word_key(w) for w in "be have go come get take put move make do run let".split())
BLOCKERS = frozenset({"stop", "prevent", "keep", "deter", "hinder"})
# verbs and words that deny the thing they govern: a clause built on them undoes an action, not does it
NEGATING = frozenset(word_key(w) for w in (
    "reject refuse deny block prevent prohibit forbid ban disable remove strip redact exclude omit withhold "
    "hide mask avoid survive escape exempt spare refrain decline filter scrub delete purge off closed shut "
    "outside away skip waive bypass forgo".split()))
ANTONYM_PAIRS = [("inside", "outside"), ("open", "close"), ("open", "closed"), ("open", "shut"), ("on", "off"),
                 ("enable", "disable"), ("include", "exclude"), ("public", "private"), ("allow", "deny"),
                 ("accept", "reject"), ("internal", "external"), ("encrypt", "decrypt"), ("lock", "unlock")]
ANTONYMS: dict[str, set[str]] = {}
for _a, _b in ANTONYM_PAIRS:
    ANTONYMS.setdefault(word_key(_a), set()).add(word_key(_b))
    ANTONYMS.setdefault(word_key(_b), set()).add(word_key(_a))
CLAUSE_DEPS = frozenset({"ROOT", "conj", "advcl", "ccomp", "relcl", "parataxis", "acl", "pcomp"})
ORDER_LATER = re.compile(r"\b(?:afterwards?|later|then|next day|the day after|subsequently|(?:following|next) "
                         r"(?:day|morning|afternoon|evening|night|week|weekend|month|year|shift))\b", re.I)
# "the following morning", "the next day": a time, not the verb "follow"
_LATER_TIME_RE = re.compile(r"\b(?:following|next)\s+(?:day|morning|afternoon|evening|night|week|weekend|month|year|"
                            r"shift)\b", re.I)
_FOLLOW_RE = re.compile(r"\bfollow(?:s|ed|ing)?\b", re.I)


@dataclass
class Clause:
    """One verb with its own arguments, read for polarity, permission, agents and amounts."""

    start: int
    end: int
    text: str
    keys: set[str]
    verbs: set[str]
    negated: bool
    permissive: bool
    optional: bool
    denied: set[str]
    agents: list[tuple[set[str], str]]  # (keys of the agent phrase, its text)
    head_i: int
    order_pos: int
    negverb: bool = False
    mods: dict[str, set[str]] = field(default_factory=dict)
    facts: set[str] = field(default_factory=set)
    named: set[str] = field(default_factory=set)
    # agent text -> (key of the verb it is the subject or "by" agent of, the keys of that verb's own
    # objects, is it a common noun phrase: a role, not a name or a pronoun, the key of its head noun)
    doers: dict[str, tuple[str, set[str], bool, str]] = field(default_factory=dict)


def _clause_heads(doc: Any) -> list[Any]:
    heads = []
    for t in doc:
        if t.pos_ in ("VERB", "AUX") and (t.dep_ in CLAUSE_DEPS) and not (t.dep_ == "pcomp" and t.head.lower_ == "from"):
            if t.pos_ == "AUX" and t.dep_ != "ROOT" and not any(c.dep_ in ("nsubj", "nsubjpass") for c in t.children):
                continue  # an auxiliary heads a clause only when it has its own subject ("but fireworks may not")
            heads.append(t)
        elif t.dep_ == "ROOT":
            heads.append(t)
    return heads


def read_clauses(claim: str) -> list[Clause]:
    """The claim's clauses (see the module docstring)."""
    doc = parse(claim)
    heads = _clause_heads(doc)
    head_ids = {h.i for h in heads}
    owner: dict[int, int] = {}
    for t in doc:
        a = t
        while a.i not in head_ids and a.head.i != a.i:
            a = a.head
        owner[t.i] = a.i if a.i in head_ids else heads[0].i if heads else t.i
    out = []
    by_head: dict[int, list[Any]] = {}
    for t in doc:
        by_head.setdefault(owner[t.i], []).append(t)
    for n, h in enumerate(heads):
        toks = by_head.get(h.i, [])
        if not toks:
            continue
        low = " ".join(t.lower_ for t in toks)
        chain = [h] + ([h.head] if h.dep_ in ("xcomp", "conj") else [])
        chain_ids = {c.i for c in chain} | {t.i for t in toks if t.dep_ in ("aux", "auxpass") and t.head.i == h.i}
        negs = [t for t in toks if (t.dep_ == "neg" and (t.head.i in chain_ids or t.head.pos_ in ("VERB", "AUX")))
                or t.lower_ in ("never", "neither", "nor")]
        negs = [t for t in negs if not (t.is_sent_start and t.i + 1 < len(doc) and doc[t.i + 1].is_punct)]
        negated = bool(negs) and not (h.lemma_ in BLOCKERS and any(c.lower_ == "from" for c in h.children))
        negated = negated or any(  # "No one handled ...", "Nobody entered ...", "No employee bid ..."
            t.dep_ in ("nsubj", "nsubjpass") and t.head.i in chain_ids and (
                t.lower_ in ("nobody", "none", "noone", "nothing") or any(c.lower_ == "no" and c.dep_ == "det" for c in t.children)
                or any(c.dep_ == "neg" for c in t.children))  # "Not one of the discharges went out untested"
            for t in toks) or _negative_front(h, toks)
        denied: set[str] = set()
        for t in toks:  # "left his probe at the hut", "left the harness behind": not taken along
            if t.lemma_ == "leave" and any(c.lower_ in ("at", "behind", "in") for c in t.children):
                for c in t.children:
                    if c.dep_ == "dobj":
                        denied |= set(keys(c.subtree))
        for t in toks:  # "non-root", "non-vaccinated": the prefixed word is denied
            if t.lower_ == "non" and t.i + 2 < len(doc) and doc[t.i + 1].text == "-":
                denied.add(key(doc[t.i + 2]))
            elif t.lower_.startswith("non-") and len(t.lower_) > 5:
                denied.add(word_key(t.lower_[4:]))
            elif t.lower_.startswith("un") and len(t.lower_) > 5 and t.pos_ in ("ADJ", "VERB") and not (
                    t.dep_ == "amod" and any(c.dep_ == "det" and c.lower_ == "no" for c in t.head.children)):
                denied.add(word_key(t.lower_[2:]))  # "unpinned", "unlicensed"; not "no unharnessed climbs"
        for t in toks:
            if t.lower_ == "without":
                denied |= set(keys(t.subtree))
            if t.lower_ == "no" and t.dep_ == "det":
                denied |= set(keys([t.head] + [c for c in t.head.children if c.dep_ in ("compound", "amod")]))
            if t.lower_ == "no" and t.dep_ != "det" and t.i + 1 < len(doc):
                denied |= set(keys([doc[t.i + 1]]))
        if negated and denied == set():
            pass
        # a permission word that only describes a noun ("free-flight", "open day", "an acceptable dose") grants nothing
        # nor does a noun of the same spelling ("on 9 May", "the petrol can", "a hot-work permit")
        auxes = {key(t) for t in toks if t.dep_ in ("aux", "auxpass")} | {
            t.lemma_.lower() for t in toks if t.dep_ not in ("amod", "compound") and t.pos_ not in (
                "NOUN", "PROPN", "NUM") and not (t.i + 1 < len(doc) and doc[t.i + 1].text == "-")}
        permissive = bool(auxes & PERMISSIVE) and not negated
        negverb = bool({key(t) for t in toks if t.pos_ in ("VERB", "ADJ", "ADV", "ADP")
                        and t.dep_ not in ("amod", "compound")} & NEGATING) or bool(
            re.search(r"\b(?:stays?|remains?|kept|keeps?|is|are|was|were|turned|switched|left)\s+"
                      r"(?:off|closed|shut|disabled|locked)\b", low))
        agents = []
        doers: dict[str, tuple[str, set[str], bool, str]] = {}
        for t in toks:
            if t.dep_ == "agent":
                for p in t.children:
                    if p.dep_ == "pobj":
                        for c in [p] + list(p.conjuncts):
                            agents.append((set(keys(c.subtree)), _neg_prefix_text(c)))
                            doers[_neg_prefix_text(c)] = _doer_of(t.head, c)
            if t.dep_ in ("nsubj",) and t.head.i in [c.i for c in chain]:
                agents.append((set(keys(t.subtree)), _neg_prefix_text(t)))
                doers[_neg_prefix_text(t)] = _doer_of(t.head, t)
        # an agent coordinated through "or by ..." hangs off the verb as another prep
        for t in toks:
            if t.lower_ == "by" and t.dep_ == "prep":
                for p in t.children:
                    if p.dep_ == "pobj":
                        agents.append((set(keys(p.subtree)), _neg_prefix_text(p)))
        # doers known only by their name ("Rosa", "Jo"): whether they hold the reserved role is not said
        named = {_neg_prefix_text(t) for t in doc if t.pos_ == "PROPN" and t.dep_ != "compound"
                 and not any(c.dep_ in ("appos", "acl", "relcl") for c in t.children)  # "Lee, a certified mechanic"
                 and any(_neg_prefix_text(t) == txt for _, txt in agents)}
        ks = set(keys(toks))
        out.append(Clause(
            start=toks[0].idx, end=toks[-1].idx + len(toks[-1].text), text=claim[toks[0].idx: toks[-1].idx
                                                                              + len(toks[-1].text)],
            keys=ks, verbs={key(t) for t in toks if t.pos_ == "VERB"}, negated=negated, permissive=permissive,
            optional=bool(OPTIONAL_RE.search(low)), denied=denied, agents=agents, head_i=h.i, order_pos=n,
            negverb=negverb, mods=_noun_mods(list(toks) + _shared_subject(h)), named=named, doers=doers))
    return out


def _doer_of(verb: Any, doer: Any) -> tuple[str, set[str], bool, str]:
    """What a doer is tied to by grammar: the verb it is the subject or passive agent of, that verb's own
    objects (its direct object, or its passive subject: "the burn was ignited by X"), and whether the doer
    is named by a role ("a seasonal firefighter", "Jamie Ortiz, one of our volunteer docents") rather than
    by a bare name or a pronoun, whose role the text does not give."""
    objs = [c for c in verb.children if c.dep_ in ("dobj", "nsubjpass", "dative")]
    things = set(keys(w for o in objs for w in o.subtree)) - set(keys(doer.subtree))
    role = doer.pos_ == "NOUN" or (doer.pos_ == "PROPN" and any(
        c.dep_ == "appos" and c.pos_ == "NOUN" for c in doer.children))
    return key(verb), things, role, key(doer)


def _shared_subject(h: Any) -> list[Any]:
    """The subject a coordinated verb shares with the verb before it ("Line pilot Mark Ellis signed off and
    flew ..."): its words say which kind of doer the second verb has too, though they stand in the first
    clause."""
    if h.dep_ != "conj" or any(c.dep_ in ("nsubj", "nsubjpass") for c in h.children):
        return []
    return [w for c in h.head.children if c.dep_ in ("nsubj", "nsubjpass") for w in c.subtree]


def _generic_word(t: Any) -> bool:
    """Is a modifier a word that names no kind ("same", "other", "first")? By its stem, unless the stem only
    looks generic because it cut a noun short ("evening" -> "even")."""
    return key(t) in GENERIC and (t.pos_ != "NOUN" or t.lemma_.lower() in GENERIC or t.lower_ in GENERIC)


def _noun_mods(tokens: Iterable[Any]) -> dict[str, set[str]]:
    """Each noun's own modifiers ("GPU instances" -> instanc: {gpu}): what kind of the thing is meant."""
    out: dict[str, set[str]] = {}
    for t in tokens:
        if t.pos_ in ("NOUN", "PROPN"):
            out.setdefault(key(t), set()).update(
                key(c) for c in t.children if c.dep_ in ("compound", "amod") and c.pos_ in ("NOUN", "PROPN", "ADJ")
                and not _generic_word(c))
    return out


def _neg_prefix_text(tok: Any) -> str:
    return " ".join(t.lower_ for t in tok.subtree)


# ---- chunk facts -----------------------------------------------------------------------------------

_SENT_RE = re.compile(r"(?<=[.!?;])(?<!\b[A-Za-z]\.)(?<!\bvs\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)"
                      r"(?<!\bSt\.)(?<!\bNo\.)\s+(?=[A-Z0-9\"'(])")


def split_sentences(text: str) -> list[str]:
    """Sentences of a chunk, without cutting at "v.", "Dr.", "A. Kim" or "e.g."."""
    return [s for s in _SENT_RE.split(text) if s.strip()]


_NAME_RES = [re.compile(p) for p in (
    r"\b[A-Z][\w.-]*\d[\w-]*\b",                      # TX-9, S-4
    r"\b[A-Z][a-z]+ (?:[A-Z]|\d+)\b",                  # Room 2, Magazine B
    r"\b[A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)+\b",       # Late Film
    r"(?<=[a-z,;:] )[A-Z][a-z]{2,}\b",                  # Freedonia, mid-sentence
    r"\b[A-Z]{2,}[\w-]*\b",                            # acronyms
    r"\b[A-Z]\.\s?[A-Z][a-z]+\b",                      # A. Kim
    r"\b(?!(?:for|at|on|in|to|by|of|from|within|than|about|after|before|under|over|every|each|the|and|or|is|"
    r"are|was|were|with|up|into|per|until|till|around|near|past)\b)[a-z]{3,} \d{1,4}\b(?![.:,]\d)",  # car 1
)]


def _names(text: str) -> set[str]:
    """Names a chunk and a claim can share: proper names and labels ("Room 2", "TX-9", "Magazine B")."""
    return {m.group(0).lower() for r in _NAME_RES for m in r.finditer(text) if len(m.group(0)) > 2}


def chunk_facts(claim: str, chunk_texts: Sequence[str]) -> list[tuple[str, str]]:
    """(name, chunk sentence) for each name in the claim that a cited chunk also names; of a list ("car KX12
    towing a 4.2 m trailer; car LM70 towing a 2.5 m trailer") the entry that names it."""
    return [(n, sent) for n, sent, _ in entry_facts(claim, chunk_texts)]


# whole month and weekday words: "Marta", "Janet", "Augustine" are names, not dates
_CALENDAR_RE = re.compile(r"\b(?:" + "|".join(sorted(measure.MONTHS, key=len, reverse=True)) + r")\b|\b(?:mon|tues|"
                          r"wednes|thurs|fri|satur|sun)day\b", re.I)


def _entities(text: str) -> set[str]:
    """The names of a text that name a thing, not a date ("April 2026" is no entry's name)."""
    return {n for n in _names(text) if not _CALENDAR_RE.search(n)}



def _negative_front(h: Any, toks: list[Any]) -> bool:
    """ "At no point did either driver ...", "Under no circumstances was ...": a fronted phrase of "no"
    with the auxiliary before the subject (an inversion; "In no time, the crew had ..." keeps its order)."""
    front = any(t.dep_ == "prep" and t.head.i == h.i and t.i < h.i and any(
        p.dep_ == "pobj" and any(c.lower_ == "no" and c.dep_ == "det" for c in p.children) for p in t.children)
        for t in toks)
    subj = [t.i for t in toks if t.dep_ in ("nsubj", "nsubjpass") and t.head.i == h.i]
    aux = [t.i for t in toks if t.dep_ in ("aux", "auxpass") and t.head.i == h.i]
    return front and bool(subj) and bool(aux) and min(aux) < min(subj)

def _list_sentences(text: str) -> list[str]:
    """Sentences of a chunk, a list of entries separated by semicolons kept as one sentence."""
    out: list[str] = []
    for sent in split_sentences(text):
        if out and out[-1].rstrip().endswith(";"):
            out[-1] = f"{out[-1]} {sent}"
        else:
            out.append(sent)
    return out


_ENTRY_SPLIT_RE = re.compile(r"(?<=[.;])\s+")


def _coded_entry(sent: str, codes: set[str]) -> str | None:
    """The one entry of a record sentence that names a code the claim uses, where each entry (cut at "." or
    ";") names a thing of its own: "Logger downloads: box B-12 - min 3.1 °C, max 7.4 °C. Box B-16 - min 1.6
    °C, ..." gives box B-12 its own readings, not the next box's. None when no code or several entries name it."""
    if not codes:
        return None
    parts = [p for p in _ENTRY_SPLIT_RE.split(sent) if p.strip()]
    mine = [p for p in parts if codes & _names(p)]
    if len(parts) < 2 or len(mine) != 1 or not all(_names(p) for p in parts):
        return None
    return mine[0]


def entry_facts(claim: str, chunk_texts: Sequence[str]) -> list[tuple[str, str, bool]]:
    """(name, chunk sentence or list entry, is an entry): an entry when the sentence lists several named
    things, each with its own facts, and only this entry names the claim's name (a date names no entry)."""
    names = _names(claim)
    codes = {n for n in names if re.search(r"\d", n)}
    facts = []
    for text in chunk_texts:
        for sent in _list_sentences(text):
            there = _names(sent)
            if codes and not codes & there and any(re.search(r"\d", n) for n in there):
                continue  # "Box B-16 - min 1.6 °C" speaks of another box than the claim's "Box B-12"
            found = names & there
            found = {n for n in found if not any(n != m and n in m for m in found)}  # "mill" in "mill bridge"
            # "box B-12 - ... max 7.4 °C. Box B-14 - ...", read as one sentence: the entry of the claim's code
            own = _coded_entry(sent, {n for n in found if re.search(r"\d", n) and not _CALENDAR_RE.search(n)})
            if own is not None:
                facts.extend((n, own, True) for n in sorted(found) if n in _names(own))
                continue
            for n in sorted(found):
                parts = [p for p in sent.split(";") if p.strip()]
                mine = [p for p in parts if n in _names(p)]
                if len(parts) >= 2 and len(mine) == 1 and all(_names(p) for p in parts) and \
                        not _CALENDAR_RE.search(n):
                    facts.append((n, mine[0], True))
                else:
                    facts.append((n, sent, False))
    return facts


def _says_what_it_is(name: str, sent: str) -> bool:
    """A sentence that states what the named thing is ("Freedonia is embargoed", "the TX-9 is on the
    dual-use list"), not one that merely mentions it."""
    return bool(re.search(rf"{re.escape(name)}\b.{{0,60}}?\b(?:is|are|was|were|counts? as|belongs? to|holds?|"
                          rf"contains?|stores?|houses?|keeps?)\b", sent.lower()))


# ---- the comparisons --------------------------------------------------------------------------------

def _topic(form: Form) -> set[str]:
    return set(form.subject) | set(form.object) | set(form.action)


def _naming_keys(clause: Clause) -> set[str]:
    """Keys of the clause's words less those that only help name another thing: a word inside an organisation's
    name ("the Toll Authority Board" is a board) or a counted unit that measures its head ("the 6,000-item
    backlog" is a backlog), so a date in that clause dates neither tolls nor items. A plain noun modifier
    still names the event ("the next farrier visit", "Weir W-3")."""
    def helper(t: Any) -> bool:
        return t.dep_ == "compound" and (t.pos_ == "PROPN" and t.head.pos_ == "PROPN" and t.head.is_alpha
                                         or any(c.dep_ == "nummod" for c in t.children))
    return {key(t) for t in parse(clause.text) if not helper(t)} & clause.keys


def _overlap(form: Form, clause: Clause) -> int:
    return len(_topic(form) & (clause.keys | clause.facts))


def _in_band(value_lo: float, value_hi: float, band: Band) -> bool:
    """Whether the whole value lies inside the band."""
    lo_ok = band.low is None or value_lo > band.low - 1e-9 if not band.strict else band.low is None or value_lo > band.low
    hi_ok = band.high is None or value_hi < band.high + 1e-9 if not band.strict else band.high is None or value_hi < band.high
    return lo_ok and hi_ok


def _outside(a: measure.Amount, band: Band) -> bool:
    """Does a claim amount state something outside the allowed band?"""
    eps = 1e-9 * max(1.0, abs(band.low or 0), abs(band.high or 0))
    lo, hi = a.lo, a.hi
    day = 86400.0
    if band.business_days and not a.business:  # calendar days against business days: the kindest reading
        lo = measure.calendar_to_business(a.lo / day)[0] * day
        hi = measure.calendar_to_business(a.hi / day)[1] * day
    elif a.business and not band.business_days:
        lo = measure._business_span(a.lo / day)[0] * day
        hi = measure._business_span(a.hi / day)[1] * day
    if band.high is not None and lo > band.high + eps:
        return True
    return band.low is not None and hi < band.low - eps


def _dim_ok(a: measure.Amount, band: Band) -> bool:
    return a.dim == band.dimension and a.period == band.period


@dataclass
class Claim:
    """A claim read once: clauses, amounts with their clause, times, dates, chunk facts."""

    text: str
    clauses: list[Clause]
    amounts: list[tuple[measure.Amount, Clause]]
    chunk_amounts: list[tuple[measure.Amount, Clause]]
    clocks: list[measure.Clock]
    dates: list[measure.DateMention]
    weekdays: list[tuple[int, bool, int, int]]
    chunk_texts: list[str]
    # ids of the chunk amounts read from a list entry that alone names the thing the claim names
    entry_amounts: set[int] = field(default_factory=set)


def _clause_at(clauses: list[Clause], pos: int) -> Clause:
    for c in clauses:
        if c.start <= pos < c.end:
            return c
    return min(clauses, key=lambda c: min(abs(c.start - pos), abs(c.end - pos)))


# a weekday label right before a log's reading ("Mon 42%", "Thu: 58 %")
_DAY_LABEL_RE = re.compile(r"\b(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\s*:?\s*$", re.I)
_DAY_INDEX = {d[:3]: i for d, i in measure.WEEKDAYS.items()}


def _days_read(sent: str, claim: str) -> list[measure.Amount]:
    """The amounts of a cited sentence, without the readings a log labels with a weekday the claim does not
    name when the claim names its days ("Humidity on the Monday and Wednesday of week 44 was within the band"
    against "week 44: Mon 42%, Tue 47%, Wed 53%, Thu 58%": Thursday's 58 % is not the claim's)."""
    amounts = measure.find_amounts(sent)
    days = {w for w, _, _, _ in measure.find_weekdays(claim)}
    if not days:
        return amounts
    out = []
    for a in amounts:
        m = _DAY_LABEL_RE.search(sent[max(0, a.start - 12) : a.start])
        if m is None or _DAY_INDEX[m.group(1).lower()] in days:
            out.append(a)
    return out


# ISO dates ("2025-03-07") are read by ``measure.find_dates`` already
_NUMERIC_DATE_YEAR_RE = re.compile(r"\b\d{1,2}[/.]\d{1,2}[/.](?P<y>(?:19|20)\d\d)\b")


def read_claim(claim: str, chunk_texts: Sequence[str] = ()) -> Claim:
    clauses = read_clauses(claim) or [Clause(0, len(claim), claim, set(), set(), False, False, False, set(), [],
                                             0, 0)]
    amounts = [(a, _clause_at(clauses, a.start)) for a in attributive.stated_amounts(claim)]
    chunk_amounts = []
    entries = set()
    for name, sent, entry in entry_facts(claim, chunk_texts):
        pos = claim.lower().find(name)
        cl = _clause_at(clauses, max(pos, 0))
        if _says_what_it_is(name, sent):
            cl.facts |= set(light_keys(sent)) - {name}
        for a in _days_read(sent, claim):
            am = measure.Amount(a.lo, a.hi, a.dim, a.direction, a.period, cl.start, cl.end, a.text, a.business)
            chunk_amounts.append((am, cl))
            if entry:
                entries.add(id(am))
    for name, a in ages.claim_ages(claim, chunk_texts):  # "Rider list: Amy is 12" for "Amy jumped ..."
        cl = _clause_at(clauses, max(claim.find(name), 0))
        am = measure.Amount(a.lo, a.hi, a.dim, a.direction, a.period, cl.start, cl.end, a.text)
        chunk_amounts.append((am, cl))
        entries.add(id(am))
    for a, cl in list(amounts):
        if re.search(r"\b(?:another|an additional|a further|additional|further|more|extra)\s*$",
                     claim[max(0, a.start - 16) : a.start], re.I):
            for b, _ in chunk_amounts:
                if b.dim == a.dim and not b.period:
                    amounts.append((measure.Amount(a.lo + b.lo, a.hi + b.hi, a.dim, a.direction, a.period, a.start,
                                                   a.end, f"{a.text} + {b.text}", a.business), cl))
                    break
    records = " ".join(chunk_texts)
    years = [d for d in measure.find_dates(records) if d.year_known]
    # a record's day/month/year dates ("28/02/2025") give the year too: without it a bare "28 February" would
    # fall in the default leap year, a day longer before March than in 2025
    numeric = None if years else _NUMERIC_DATE_YEAR_RE.search(records)
    year = dt.date.fromordinal(years[0].first).year if years else int(numeric.group("y")) if numeric else 2000
    dates = measure.find_dates(claim, year)
    told = calendar_days.context_year([claim]) or calendar_days.context_year(chunk_texts)
    dates = calendar_days.with_named_dates(claim, dates, told, year)
    dates = sorted(dates + reldates.relative_weekday_dates(claim, dates) + reldates.later_dates(claim, dates),
                   key=lambda d: d.start)
    return Claim(claim, clauses, amounts, chunk_amounts, measure.find_clock_times(claim),
                 dates, measure.find_weekdays(claim), list(chunk_texts), entries)


_FRONT_PLACE_PREPS = frozenset({"at", "in", "on", "inside", "within"})


@lru_cache(maxsize=1024)
def _front_place(rule: str) -> frozenset[str]:
    """Keys of a place a rule opens with ("At the Greyfield Farm location, nothing may be fired ..."): the rule
    holds there only."""
    doc = parse(rule)
    first = next((t for t in doc if not t.is_punct), None)
    if first is None or first.lower_ not in _FRONT_PLACE_PREPS or first.dep_ != "prep" or first.head.dep_ != "ROOT":
        return frozenset()
    return frozenset(k for k in keys(first.subtree) if k not in GENERIC) - {first.lower_}


def _place_unnamed(form: Form, claim: Claim) -> bool:
    """Does the rule open with a place the claim never names? Then whether the claim's event was there is not
    said ("the interior explosion was fired at 23:15" for "At the Greyfield Farm location, nothing may be fired
    between 22:00 and 07:00"): a guess."""
    place = set(_front_place(form.text))
    if not place or _stem_hits(place, {k for c in claim.clauses for k in c.keys}):
        return False
    labels = {n for n in _names(claim.text) if " " in n or any(ch.isdigit() for ch in n)}
    # a cited entry that shares a label with the claim and names the place puts it there ("Day 14 - Greyfield Farm")
    return not any(labels & _names(sent) and _stem_hits(place, set(light_keys(sent)))
                   for text in claim.chunk_texts for sent in split_sentences(text))


def _finding(form: Form, claim: Claim, start: int, end: int, rule: str, detail: str, sure: bool = True,
             by_name: bool = False, firm: bool = False, arbitrable: bool = True, basis: str = "") -> Finding:
    start, end = max(0, start), min(len(claim.text), end)
    return Finding(form.text, start, end, claim.text[start:end], rule, detail, sure and not by_name and arbitrable,
                   by_name, firm, arbitrable, basis)


# the amount of a rule read as its bound although the wording makes it something else: a condition
# ("must not jump when winds exceed 14 knots", "must begin once depth reaches 3 cm") or the scope of a
# reserved action ("only the manager may approve a loan above $1,000")
_CONDITION_RE = re.compile(r"\b(?:when|whenever|if|once(?! (?:every|a|an|per)\b)|while|unless|where)\b", re.I)
_SCOPE_RE = re.compile(r"\b(?:above|over|below|under|(?<!no )more than|(?<!no )less than|exceeding|worth)\s*$",
                       re.I)
_EVERY_RE = re.compile(r"\bevery\s*$", re.I)
_PERIODS = {"second": "second", "minute": "minute", "hour": "hour", "day": "day", "daily": "day",
            "week": "week", "weekly": "week", "month": "month", "monthly": "month", "year": "year",
            "yearly": "year", "annum": "year", "annually": "year", "annual": "year"}
_PER_RE = re.compile(r"^\s*(?:(?:per|a|an|each|every|/)\s*)?(second|minute|hour|day|daily|week|weekly|month|"
                     r"monthly|year|yearly|annum|annually|annual)\b", re.I)


def _per(text: str, end: int) -> str | None:
    """The time a rate is counted over, from the words right after its amount ("3 % per month")."""
    m = _PER_RE.match(text[end : end + 16])
    return _PERIODS[m.group(1).lower()] if m else None


@lru_cache(maxsize=4096)
def _band_guessed(text: str, band_text: str, dimension: str, low: float | None, high: float | None,
                  modality: str) -> str:
    """Is the band a guess from the rule's wording rather than a bound it states? "review": an interval
    read as an exact amount ("at least every 40 heats"), an amount in the condition of a duty ("must begin
    once it reaches 3 cm") or in the scope of a reserved action ("a loan above $1,000"): no claim-side
    evidence settles what the rule meant, so REVIEW; so too with two amounts of one dimension (which one bounds
    what?). "" when the band is what the rule states (the type leaves room for guesses the model may
    arbitrate)."""
    pos = text.find(band_text) if band_text else -1
    if pos < 0:
        return ""  # a range ("between 2 and 8 °C") is read whole, its text is not one amount
    before = text[:pos]
    exact = low is not None and high is not None and abs(low - high) <= 1e-9 * max(1.0, abs(low))
    if exact and _EVERY_RE.search(before):
        return "review"  # "at least every 40 heats" bounds the interval between events, not a count
    if (modality != "must_not" and _CONDITION_RE.search(before)) or (
            modality in ("only", "may") and _SCOPE_RE.search(before)):
        return "review"  # ("must not ... when winds exceed 20 km/h" does bound the permitted state)
    if dimension.startswith("count:"):
        return ""
    several = sum(a.dim == dimension and bool(re.search(r"\d", a.text)) for a in measure.find_amounts(text)) > 1
    return "review" if several else ""


_PERIOD_DAYS = {"second": 1 / 86400, "minute": 1 / 1440, "hour": 1 / 24, "day": 1.0, "week": 7.0,
                "month": 365.25 / 12, "year": 365.25}


def _per_band(form: Form, band: Band, a: measure.Amount, claim: Claim) -> measure.Amount:
    """A rate the claim counts over another time than the rule ("30 % a year" against "3 % per month"),
    rescaled to the rule's time; any other amount as it is."""
    pos = form.text.find(band.text) if band.text else -1
    mine = _per(form.text, pos + len(band.text)) if pos >= 0 else None
    theirs = _per(claim.text, a.end)
    if mine is None or theirs is None or mine == theirs or a.dim == "[time]":
        return a
    k = _PERIOD_DAYS[mine] / _PERIOD_DAYS[theirs]
    return measure.Amount(a.lo * k, a.hi * k, a.dim, a.direction, a.period, a.start, a.end, a.text, a.business)


def band_guessed(form: Form, band: Band) -> str:
    """See ``_band_guessed`` (cached by the rule's text)."""
    return _band_guessed(form.text, band.text, band.dimension, band.low, band.high, form.modality)


def _best_forms(a: measure.Amount, clause: Clause, forms: Sequence[Form], trigger: bool) -> list[Form]:
    """The forms this amount belongs to: same dimension, most shared words (ties kept)."""
    cands = []
    for f in forms:
        band = f.trigger if trigger else f.quantity
        if band is None or not _dim_ok(a, band):
            continue
        cands.append((_overlap(f, clause), f))
    if not cands:
        return []
    best = max(s for s, _ in cands)
    if best == 0 and len(cands) > 1:
        return []
    tied = [f for s, f in cands if s == best]
    return _by_reference(a, clause, tied) if len(tied) > 1 else tied


_LEAD_RE = re.compile(r"\s*(?P<side>before|after|ahead of|prior to|from|of)\b(?P<rest>[^,;.]{0,60})", re.I)


def _by_reference(a: measure.Amount, clause: Clause, tied: list[Form]) -> list[Form]:
    """Of rules tied by shared words, those whose counted-from event the amount is told against ("three weeks
    and a day before the 13 June regatta" is a lead time before the regatta, not a delay after a test); all of
    them when the claim names no such event or none fits."""
    if not clause.start <= a.end <= clause.end:
        return tied
    m = _LEAD_RE.match(clause.text[a.end - clause.start:])
    if m is None:
        return tied
    side = "before" if m.group("side").lower() in ("before", "ahead of", "prior to") else "after"
    named = set(keys(parse(m.group("rest"))))
    fit = [f for f in tied if (b := f.quantity) is not None and b.reference and b.reference_side == side
           and named & set(b.reference)]
    return fit or tied


def _reference_ordinal(form: Form, claim: Claim) -> int | None:
    """The date of the event a deadline counts from, when a cited chunk (or the claim) dates it; of a list
    chunk ("Results: B-301 negative, reported 28 April. B-304 positive, reported 13 February.") the dated
    entry that names the thing the claim names, else the first sentence naming the event."""
    ref = set(form.quantity.reference) if form.quantity else set()
    if not ref:
        return None
    names = _entities(claim.text)
    for text in claim.chunk_texts:
        sents = split_sentences(text)
        if not any(ref & light_keys(sent) for sent in sents):
            continue
        dated = [(sent, measure.find_dates(sent)) for sent in sents]
        own = [ds for sent, ds in dated if ds and names & _entities(sent)]
        if own:
            return own[0][0].first
        for sent, ds in dated:
            if ds and ref & light_keys(sent):
                return ds[0].first
    return None


def _named_date(claim: Claim) -> int | None:
    """The date a cited chunk gives for a thing the claim names ("Batch 112 was brewed on 1 October")."""
    names = _names(claim.text)
    for text in claim.chunk_texts:
        for sent in split_sentences(text):
            if names & _names(sent):
                ds = measure.find_dates(sent)
                if ds:
                    return ds[0].first
    return None


def _reference_weekday(form: Form, claim: Claim) -> int | None:
    """The weekday a cited chunk gives for the rule's reference event, or for a thing the claim names."""
    ref = set(form.quantity.reference) if form.quantity else set()
    names = _names(claim.text)
    for text in claim.chunk_texts:
        for sent in split_sentences(text):
            if (ref and _stem_hits(ref, set(light_keys(sent)))) or names & _names(sent):
                wd = measure.find_weekdays(sent)
                if wd:
                    return wd[0][0]
    return None


def _linked_reference(form: Form, claim: Claim) -> str | None:
    """The one cited sentence or list entry that names both the event the rule counts from and a thing the
    claim names ("Tank 4 was emptied on Monday at 08:00" for "cleaned within 24 hours of emptying" and "Tank 4
    was cleaned on Wednesday"): its day and time are that very event's, of that very thing. None when no
    entry, or more than one, says so."""
    ref = set(form.quantity.reference) - GENERIC if form.quantity else set()
    names = _entities(claim.text)
    if not ref or not names:
        return None
    found = [part for text in claim.chunk_texts for sent in _list_sentences(text) for part in sent.split(";")
             if names & _entities(part) and _stem_hits(ref, set(light_keys(part)))]
    return found[0] if len(found) == 1 else None


def _linked_gap(form: Form, claim: Claim) -> tuple[float, int, int] | None:
    """(seconds, start, end): the time from the rule's reference event, dated by weekday (and time) in the
    one cited entry of the thing the claim names (``_linked_reference``), to the claim's event on a weekday
    of its own, when that time is outside the rule's band however the unnamed hours fall. The claim's
    weekday is the first one on the rule's side of the chunk's ("Monday" .. "Wednesday" is two days
    later); a time of day narrows each end. None when the claim dates its event otherwise (a date, two
    weekdays, two times), or speaks of the reference event itself where its weekday stands."""
    band = form.quantity
    sent = _linked_reference(form, claim) if band is not None else None
    if sent is None or claim.dates or len(claim.weekdays) != 1 or len(claim.clocks) > 1:
        return None
    ref_days = measure.find_weekdays(sent)
    ref_times = measure.find_clock_times(sent)
    if len(ref_days) != 1 or len(ref_times) > 1:
        return None
    w, _, s0, e0 = claim.weekdays[0]
    ref = set(band.reference) - GENERIC
    clause = _clause_at(claim.clauses, s0).keys
    if _stem_hits(ref, clause) or not _stem_hits(_topic(form) - ref - GENERIC - LIGHT_VERBS, clause):
        return None  # the claim's weekday is of the reference event, or of an event the rule does not name
    after = band.reference_side != "before"
    days = (w - ref_days[0][0]) % 7 if after else (ref_days[0][0] - w) % 7
    day = 24 * 60
    mine = claim.clocks[0].minutes if claim.clocks else None
    theirs = ref_times[0].minutes if ref_times else None
    late, early = (mine, theirs) if after else (theirs, mine)  # the later end's time, the earlier end's
    lo = days * day + (late if late is not None else 0) - (early if early is not None else day)
    hi = days * day + (late if late is not None else day) - (early if early is not None else 0)
    if lo < 0:
        return None
    if band.high is not None and lo * 60.0 > band.high + 1e-9:
        return lo * 60.0, s0, e0
    if band.low is not None and hi * 60.0 < band.low - 1e-9:
        return hi * 60.0, s0, e0
    return None


def _lead_gap(form: Form, claim: Claim) -> tuple[float, int, int] | None:
    """(seconds, start, end): the lead a rule demands before an event ("The regulator must be notified at
    least 14 days before licensed work begins"), when the claim dates that later event in a clause that names
    it ("Licensed removal began on 9 March") and one cited entry dates the rule's own earlier action, sharing
    two of its words, or one and a name the claim uses ("Notification to the regulator was sent on 2
    March"), and never the later event's. Only a lead shorter than the rule's at any hour of the two days
    (9 March to 10 March is under 48 hours), counted forward; None else."""
    band = form.quantity
    if band is None or band.reference_side != "before" or band.low is None or band.high is not None \
            or band.period or len(claim.dates) != 1:
        return None
    ref = set(band.reference) - GENERIC
    d = claim.dates[0]
    if not ref or d.first != d.last or not _stem_hits(ref, _clause_at(claim.clauses, d.start).keys):
        return None
    own = _topic(form) - ref - GENERIC - LIGHT_VERBS
    names = _entities(claim.text)
    found = []
    for text in claim.chunk_texts:
        for sent in _list_sentences(text):
            for part in sent.split(";"):
                ks = set(light_keys(part))
                hits = _stem_hits(own, ks)
                if _stem_hits(ref, ks) or not (hits >= 2 or hits and names & _entities(part)):
                    continue
                ds = [x for x in measure.find_dates(part) if x.first == x.last]
                if len(ds) == 1:
                    found.append(ds[0])
    if len(found) != 1:
        return None
    done, mine = found[0].first, d.first
    if d.year_known and not found[0].year_known:  # a log's "2 March" in the claim's year, and the other way
        done = _with_year(done, dt.date.fromordinal(mine).year)
    elif found[0].year_known and not d.year_known:
        mine = _with_year(mine, dt.date.fromordinal(done).year)
    lead = (mine - done) * 86400.0
    # two days with no hours: the lead is under a day more than their distance, whatever the hours
    return (lead, d.start, d.end) if 0 <= lead and lead + 86400.0 <= band.low + 1e-9 else None


def _topic_sentences(form: Form, claim: Claim) -> Iterator[str]:
    """Sentences of the cited chunks about the rule's own event: sharing two of its words, or one of
    them and a name the claim uses."""
    words = set(form.subject) | set(form.action) | set(form.object)
    names = _names(claim.text)
    for text in claim.chunk_texts:
        for sent in split_sentences(text):
            hits = _stem_hits(words, set(light_keys(sent)))
            if hits >= 2 or (hits and names & _names(sent)):
                yield sent


def _topic_date(form: Form, claim: Claim) -> int | None:
    """The date a cited chunk gives for the constraint's own event ("Source S-4 was leak-tested on 10
    January 2026")."""
    got = _last_done(form, claim)
    return got[0] if got else None


_LAST_RE = re.compile(r"\b(?:last|latest|most recent|previous|previously)\b", re.I)


def _last_done(form: Form, claim: Claim) -> tuple[int, bool] | None:
    """(date, firm) a cited chunk gives for the rule's own event; of a list ("bike 204 last checked on 1
    April; bike 318 last checked on 28 April") the entry of the thing the claim names. ``firm``: the
    entry says the event was last done then ("last swept 3 November 2024") and is the only one, or the
    one of the thing the claim names."""
    got = _done_entries(form, claim)
    if got is None:
        return None
    sent, entries, own = got
    if len(own) == 1:
        p, ds = own[0]
        return ds[0].first, bool(_LAST_RE.search(p))
    p, ds = entries[0]
    return ds[0].first, len(entries) == 1 and len(ds) == 1 and bool(_LAST_RE.search(sent))


def _done_entries(form: Form, claim: Claim) -> tuple[str, list[tuple[str, list[measure.DateMention]]],
                                                     list[tuple[str, list[measure.DateMention]]]] | None:
    """(sentence, dated entries, entries of the thing the claim names) of the first cited sentence about the
    rule's own event that dates it. A date without a year takes the year the sentence gives ("filter log
    2025: changed 3 February"), else the claim's: a log's "3 February" is not the year 2000."""
    names = _entities(claim.text)
    labels = {n for n in names if re.search(r"\d", n)}
    claim_years = [d.first for d in claim.dates if d.year_known]
    for sent in _topic_sentences(form, claim):
        sent = _with_entries(sent, claim.chunk_texts)
        own_labels = {n for n in _entities(sent) if re.search(r"\d", n)}
        if labels and own_labels and not labels & own_labels:
            continue  # "Weir W-3 inspection log: ..." dates another weir than the claim's "Weir W-2"
        years = re.findall(r"\b((?:19|20)\d\d)\b", sent)
        year = int(years[0]) if years else dt.date.fromordinal(claim_years[0]).year if claim_years else 2000
        entries = [(p, measure.find_dates(p, year)) for p in re.split(r";|,(?=[^,]*\b(?:last|latest)\b)", sent)]
        entries = [(p, ds) for p, ds in entries if ds]
        if not entries:
            continue
        return sent, entries, [(p, ds) for p, ds in entries if names & _entities(p)]
    return None


def _with_entries(sent: str, chunk_texts: Sequence[str]) -> str:
    """A sentence ending in ";" with the entries that follow it in its chunk and open with their date ("register:
    Wed 1 Apr - G. Olsen; Wed 8 Apr - ..."): a log's later entries are of the same event though they repeat
    none of its words."""
    if not sent.rstrip().endswith(";"):
        return sent
    for text in chunk_texts:
        parts = split_sentences(text)
        if sent in parts:
            n = parts.index(sent)
            while n + 1 < len(parts) and parts[n].rstrip().endswith(";"):
                n += 1
                ds = measure.find_dates(parts[n])
                if not ds or not _LOG_ENTRY_RE.fullmatch(parts[n][: ds[0].start]):
                    break  # "; Kelso Bridge, last inspected May 2023" is another thing's entry
                sent = f"{sent} {parts[n]}"
            return sent
    return sent


_WEEKDAY_ABBR = r"(?:mon|tues?|wed|thu(?:rs)?|fri|sat|sun)(?:day|nesday|urday|sday)?\.?,?"
_LOG_ENTRY_RE = re.compile(rf"\s*(?:{_WEEKDAY_ABBR}\s*|(?-i:[a-z]+)\s+(?:on\s+)?|on\s+)?", re.I)


def _register_gap(form: Form, claim: Claim) -> tuple[int, int, int] | None:
    """(days, start, end): the longest wait the claim's dates leave when a cited log lists the rule's event on
    several dates ("inspection register: 1 Apr; 8 Apr; 14 Apr; ..."): each claim date counts from the latest
    date before it, the log's or the claim's own. The first entry of a log is not when the event was last
    done; measuring from it reads a kept schedule as a lapse."""
    got = _done_entries(form, claim)
    if got is None:
        return None
    _, entries, own = got
    if own:
        return None  # the entry of the thing the claim names ("Mill Bridge, last inspected ...") says when
    # a later entry is of the same log only when it opens with its date ("; Wed 8 Apr - G. Olsen", "; greased
    # 8 March"); one that opens with another name ("; Tara's on 20 September") is another thing's
    log = sorted({d.first for d in entries[0][1]} | {
        d.first for p, ds in entries[1:] for d in ds[:1] if _LOG_ENTRY_RE.fullmatch(p[: ds[0].start])})
    if len(log) < 2 or not claim.dates:
        return None
    year = dt.date.fromordinal(log[-1]).year
    days = [(d.first, d.last, d) if d.year_known else (_with_year(d.first, year), _with_year(d.last, year), d)
            for d in claim.dates]
    worst = None
    for first, _, d in days:  # a month named ("through February") counts from its last day
        before = [x for x in log if x < first] + [last for _, last, _ in days if last < first]
        if before and (worst is None or first - max(before) > worst[0]):
            worst = (first - max(before), d.start, d.end)
    return worst


def _topic_clock(form: Form, claim: Claim) -> int | None:
    """A time of day a cited chunk gives for the rule's event, in minutes; when the chunk and the claim
    both name a weekday ("09:00 on Friday" .. "10:00 on Saturday"), counted from the chunk's day."""
    for sent in _topic_sentences(form, claim):
        times = measure.find_clock_times(sent)
        if times:
            days = measure.find_weekdays(sent)
            if days and claim.weekdays:
                return times[0].minutes - ((claim.weekdays[0][0] - days[0][0]) % 7) * 24 * 60
            return times[0].minutes
    return None


# words that make a claim's date the next time of an event a cited entry says was last done: "next test in
# October", "due on 3 May", "gave whole blood again on 20 April"
_NEXT_TIME_RE = re.compile(r"\b(?:next|due|booked|scheduled|planned|programmed|again)\b", re.I)


_HOURS_RE = re.compile(r"\b(?:hours?|minutes?|hrs?|mins?|h)\b", re.I)


def _dated_clock_gap(claim: Claim, a: Any, b: Any) -> int | None:
    """Minutes between two clock times that each carry one date of their own clause ("opened at 10:30 on
    Thursday 14 August; ... checked out at 09:40 on Tuesday 12 August"): exact across the days, whichever is
    told first. None when a time has no date, or more than one, of its own."""
    if not claim.clauses:
        return None
    ends = []
    for t in (a, b):
        c = _clause_at(claim.clauses, t.start)
        mine = [d for d in claim.dates if c.start <= d.start < c.end and d.first == d.last]
        if len(mine) != 1 or not (c.start <= t.start < c.end):
            return None
        ends.append(mine[0])
    if ends[0] is ends[1] or ends[0].year_known != ends[1].year_known or abs(ends[0].first - ends[1].first) > 180:
        return None
    return abs((ends[1].first - ends[0].first) * 24 * 60 + b.minutes - a.minutes)


def _derived_gaps(form: Form, claim: Claim) -> list[tuple[float, bool, int, int, bool]]:
    """(gap in seconds, is business days, start, end, firm): between two times or dates the claim gives,
    or between a claim date and the chunk-dated event the rule counts from. ``firm``: both ends are the
    claim's own or the chunk dates the very event the rule names; a chunk event found by a shared name
    or word only is a guess."""
    band = form.quantity
    out: list[tuple[float, bool, int, int, bool]] = []
    if band is None or band.dimension != "[time]":
        return out
    if band.period:  # "last leak-tested on 10 January" (chunk) .. "next test in October" (claim)
        done = _last_done(form, claim)
        if done is not None and claim.dates and recurrence.day_key(claim.dates[0].first) in recurrence.register_days(
                set(form.action) - GENERIC - LIGHT_VERBS, (set(form.subject) | set(form.object)) - GENERIC,
                claim.chunk_texts):
            done = None  # the claim restates a register entry: the gaps between entries speak, not the first one
        register = _register_gap(form, claim)
        if register is not None:  # a log of the event: each claim date counts from the latest before it
            days, s0, e0 = register
            firm = done is not None and done[1] and len(claim.dates) == 1 and _overlap(
                form, _clause_at(claim.clauses, s0)) > 0 and bool(_NEXT_TIME_RE.search(claim.text))
            if days > 0:
                out.append((days * 86400.0, False, s0, e0, firm))
        elif done is not None and claim.dates:
            last, firm = done
            d = claim.dates[0]
            first = d.first
            if not d.year_known:
                first = dt.date.fromordinal(first).replace(year=dt.date.fromordinal(last).year).toordinal()
            if first > last:  # firm only for the next time of the very event, said in the claim's own words
                firm = firm and len(claim.dates) == 1 and _overlap(form, _clause_at(claim.clauses, d.start)) > 0 \
                    and bool(_NEXT_TIME_RE.search(claim.text))
                out.append(((first - last) * 86400.0, False, d.start, d.end, firm))
        lapse = kept_logs.log_lapse(form, claim.text, claim.chunk_texts, _entities)
        if lapse is not None:  # "inspected within the required interval" against the cited log's own gap
            out.append((lapse[0], False, lapse[1], lapse[2], True))
        return out + _repeat_gaps(form, claim)
    if len(claim.clocks) >= 2:
        a, b = claim.clocks[0], claim.clocks[1]
        overnight = re.search(r"\b(?:until|till|to|next|overnight|following)\b", claim.text[a.end : b.end], re.I)
        gap = (b.minutes - a.minutes) % (24 * 60) if overnight else abs(b.minutes - a.minutes)
        firm = not claim.weekdays and not claim.dates  # a named day may put the times on different days
        if len(claim.weekdays) >= 2:  # "18:00 on Friday ... 10:00 on Saturday": the days count too
            days = (claim.weekdays[1][0] - claim.weekdays[0][0]) % 7
            gap, firm = days * 24 * 60 + b.minutes - a.minutes, True
        if gap == 0 and claim.text[a.start : a.end].lower() == claim.text[b.start : b.end].lower() and not (
                _topic(form) & (_clause_at(claim.clauses, a.start).keys | _clause_at(claim.clauses, b.start).keys)
                if claim.clauses else False):
            return out  # one time told twice ("... at noon", "so did the batch ... at noon") of no event the rule names
        exact = _dated_clock_gap(claim, a, b)
        if exact is not None:  # "at 10:30 on Thursday 14 August ... at 09:40 on Tuesday 12 August": 48 h 50 min
            gap, firm = exact, True
        out.append((gap * 60.0, False, a.start, b.end, firm))
    elif len(claim.clocks) == 1:  # "went back in at 14:00" after a cited "sprayed at 06:00" of the same thing
        before = _topic_clock(form, claim)
        if before is not None:
            t = claim.clocks[0]
            gap = t.minutes - before if before < 0 else (t.minutes - before) % (24 * 60)
            out.append((gap * 60.0, False, t.start, t.end, False))
    ref = _reference_ordinal(form, claim)
    dates = claim.dates
    if ref is not None and dates:
        first, s0, e0, shift, firm = _event_date(claim, ref)
        days = first - ref if band.reference_side == "after" else ref - first
        if band.low is not None and band.high is None:
            days = abs(days)
        if band.business_days:
            n = measure.business_days_between(min(ref, first) + shift, max(ref, first) + shift)
            out.append((n * 86400.0, True, s0, e0, firm))
        else:
            out.append((days * 86400.0, False, s0, e0, firm))
    elif len(dates) >= 2 and not _reference_unnamed(form, claim) and not _one_event_dates(form, claim) and \
            not _within(dates[0], dates[1]):  # "checked every Monday through June ... at the 30 June check"
        a, b = dates[0], dates[1]
        # a date without its year takes the year of the other ("2 December 2026 ... on Christmas Eve")
        (fa, _), (fb, _) = _chain_ordinals([a, b]) if a.year_known != b.year_known else [(a.first, 0), (b.first, 0)]
        if band.business_days:  # "within 5 business days": Wednesday to the next Wednesday is 5, not 7
            lo, hi = sorted((fa, fb))
            named, other = (a, b) if fa == lo else (b, a)
            # the weekday may be named with either date ("fall on 14 March ... on Tuesday 18 March")
            shift = _named_weekday_shift(claim, named.start, named.end, lo) or \
                _named_weekday_shift(claim, other.start, other.end, hi)
            n = measure.business_days_between(lo + shift, hi + shift)
            out.append((n * 86400.0, True, a.start, b.end,
                        not _other_event_end(form, claim) and not _occurrences(claim, a, b)))
        elif len(claim.clocks) < 2 or _dated_clock_gap(claim, claim.clocks[0], claim.clocks[1]) is None or \
                band.text and not _HOURS_RE.search(band.text):  # a bound in hours counts the hours the clocks give
            out.append((abs(fb - fa) * 86400.0, False, a.start, b.end,
                        not _other_event_end(form, claim) and not _occurrences(claim, a, b)))
    elif dates and not band.reference:  # "Batch 112 will be kegged on 10 October" / "brewed on 1 October"
        named = _named_date(claim)
        if named is not None:
            d = dates[0]
            first = d.first if d.year_known else dt.date.fromordinal(d.first).replace(
                year=dt.date.fromordinal(named).year).toordinal()
            if first >= named:
                out.append(((first - named) * 86400.0, False, d.start, d.end, False))
    if claim.weekdays and not dates and (band.reference or _names(claim.text)):
        ref_day = _reference_weekday(form, claim)
        if ref_day is not None:  # "emptied on Monday" (chunk) .. "cleaned on Wednesday" (claim)
            w, _, s0, e0 = claim.weekdays[0]
            days = (w - ref_day) % 7
            out.append((days * 86400.0, False, s0, e0, False))
    lead = _lead_gap(form, claim)
    if lead is not None:  # "notified ... 2 March" (chunk) .. "removal began on 9 March" (claim)
        out.append((lead[0], False, lead[1], lead[2], True))
    linked = _linked_gap(form, claim)
    if linked is not None:  # a weekday (and time) of the very event the rule counts from, of the claim's thing
        out.append((linked[0], False, linked[1], linked[2], True))
    if band.reference and band.reference_side == "before" and band.low is not None:
        m = re.search(r"\b(?:until|till|right up to|up to)\s+(?:the\s+)?(.{0,40})", claim.text, re.I)
        if m and _stem_hits(set(band.reference), set(light_keys(m.group(1)))) and _lasts_own_event(form, claim, m.start()):
            out.append((0.0, False, m.start(), m.end(), True))
    if len(claim.weekdays) >= 2 and band.business_days and not _reference_unnamed(form, claim):
        (w1, _, s1, _), (w2, _, _, e2) = claim.weekdays[0], claim.weekdays[1]
        cal = (w2 - w1) % 7 or 7
        # the dates give the weeks, when each is one day ("the Thursday before Easter" names no day of its own)
        if len(dates) >= 2 and all(d.first == d.last for d in dates[:2]) and \
                (dates[1].first - w2 - dates[0].first + w1) % 7 == 0:
            cal = dates[1].first - dates[0].first
        base = dt.date(2001, 1, 1 + w1).toordinal()  # 1 Jan 2001 was a Monday
        n = measure.business_days_between(base, base + cal)
        out.append((n * 86400.0, True, s1, e2, True))
    return out


def _date_spans(claim: Claim, dates: Sequence[measure.DateMention]) -> list[tuple[int, int]]:
    """(start, end) of each date with the weekday named just before it ("Friday 22 May", "Mon, 2 March"), so
    the parse climbs from the date past its weekday to the word the date is said of."""
    out = []
    for d in dates:
        start = d.start
        for _, _, ws, we in claim.weekdays:
            if we <= d.start and re.fullmatch(r"[\s,]*(?:the\s+)?", claim.text[we : d.start]):
                start = ws
        out.append((start, d.end))
    return out


def _reference_unnamed(form: Form, claim: Claim) -> bool:
    """Does the rule count from an event ("within 3 business days of the test") that none of the claim's first
    two dates can be? The claim never names that event, and each date is said, by the parse, of an event of
    its own: the rule's action ("entered on 22 May") or another ("the 13 June regatta", "shot on 5 April").
    A date said through a light verb ("came in on 3 June", "the appointment is 19 June") may be the event
    under another word, and keeps the gap; so does a month, which this reading does not place."""
    ref = set(form.quantity.reference) - GENERIC if form.quantity else set()
    if not ref or len(claim.dates) < 2 or _stem_hits(ref, set(light_keys(claim.text))):
        return False
    doc = parse(claim.text)
    spans = _date_spans(claim, claim.dates)
    for d in claim.dates[:2]:
        anchor, listed = _date_anchor(doc, d, spans)
        if d.first != d.last or anchor is None or listed is not None or not _anchor_keys(anchor)[1]:
            return False
    return True


_CYCLE_MONTH_RE = re.compile(r"\b(?:every|each)\s+(january|february|march|april|may|june|july|august|september|"
                             r"october|november|december)\b", re.I)


def _one_event_dates(form: Form, claim: Claim) -> bool:
    """Are the claim's first two dates times of one event, where the rule counts from one event to another
    ("within 10 business days of the unpaid trip")? Dates listed together ("revised in January and July")
    or a yearly cycle the claim states and its dates restate ("calibrated every January: on 8 January 2024,
    and on 9 January 2023") give that event's period, which is neither end of the rule's gap."""
    if not form.quantity or not form.quantity.reference or form.quantity.period:
        return False
    b = claim.dates[1]
    cycle = {m.group(1).lower() for m in _CYCLE_MONTH_RE.finditer(claim.text)}
    if cycle:
        days = [d for d in claim.dates if d.first == d.last]
        if len(days) >= 2 and all(dt.date.fromordinal(d.first).strftime("%B").lower() in cycle for d in days):
            return True
    doc = parse(claim.text)
    _, listed = _date_anchor(doc, b, _date_spans(claim, claim.dates))
    return listed == 0


def _occurrences(claim: Claim, a: measure.DateMention, b: measure.DateMention) -> bool:
    """Are two dates times of one thing told twice with one preposition ("slept in the ice rooms on Christmas Eve
    and thirty-four on New Year's Eve"): both said of one word, each after "on", "at" or "in"? A stretch ("from
    2 March to 9 March") or two events ("received on 2 March and answered on 9 March") is no such pair."""
    doc = parse(claim.text)
    spans = _date_spans(claim, claim.dates)
    (ha, _), (hb, _) = _date_anchor(doc, a, spans), _date_anchor(doc, b, spans)
    if ha is None or hb is None or ha.i != hb.i:
        return False
    preps = [claim.text[: d.start].rstrip().rsplit(None, 1)[-1].lower() if claim.text[: d.start].strip() else ""
             for d in (a, b)]
    return preps[0] == preps[1] and preps[0] in ("on", "at", "in")


def _other_event_end(form: Form, claim: Claim) -> bool:
    """Of the claim's first two dates, is one said of the rule's reference event ("their final session on 5
    November") and the other of an event of its own that shares no word with the rule's counted event, its
    verb nor its arguments ("the multitracks were purged on 10 February" for "Invoices must be issued within
    5 business days of a project's final session")? The gap then runs to another event: a guess, not a reading."""
    ref = set(form.quantity.reference) - GENERIC if form.quantity else set()
    ev = (set(form.action) | set(form.subject) | set(form.object)) - ref - GENERIC - LIGHT_VERBS
    if not ref or not ev:
        return False
    doc = parse(claim.text)
    spans = _date_spans(claim, claim.dates)
    said = []
    for d in claim.dates[:2]:
        anchor, listed = _date_anchor(doc, d, spans)
        if anchor is None or listed is not None:
            return False
        ks, own = _anchor_keys(anchor)
        args = {key(t) for c in anchor.children if c.dep_ in ("nsubj", "nsubjpass", "dobj", "attr")
                for t in c.subtree if not any(s <= t.idx < e for s, e in spans)}
        said.append((ks | args, own))
    for (here, _), (there, own) in (said, said[::-1]):
        if _stem_hits(ref, here) and own and not _stem_hits(ev, there) and not _stem_hits(ref, there):
            return True
    return False


# verbs that only carry an event named by their object ("had a vet check", "passed its inspection", "put through
# their test", "the next test came on 8 June"): the event is in their arguments, not in the verb
_SUPPORT_VERBS = LIGHT_VERBS | frozenset(word_key(w) for w in "undergo receive pass complete carry perform hold "
                                                               "happen occur follow fall".split())
# between two dates of one event: a list ("on 2 May, 19 May and 1 June") or a word saying the event recurs
_LIST_JOINT_RE = re.compile(r"^[\s,]*(?:and\s+)?(?:then\s+)?(?:again\s+)?(?:on|at)?\s*(?:the\s+)?$", re.I)
_NOT_SEQUENCE_RE = re.compile(r"^\s*(?:-|–|to|until|till|through)\s*$|\b(?:or|respectively)\b", re.I)
_RECUR_RE = re.compile(r"\b(?:next|again|then|later|subsequently|afterwards|following)\b", re.I)


def _token_at(doc: Any, pos: int) -> Any:
    """The token of a parse covering character ``pos``."""
    for t in doc:
        if t.idx <= pos < t.idx + len(t.text):
            return t
    return doc[-1]


def _date_anchor(doc: Any, d: measure.DateMention, spans: list[tuple[int, int]]) -> tuple[Any, int | None]:
    """(word the date is said of, index of the date this one is listed with): up from the date's root past
    prepositions to the first verb or noun outside any date ("tested on 3 June" -> tested, "a vet check on 4
    January" -> check); a date coordinated with another date ("on 2 May, 19 May and 1 June") is listed."""
    toks = [t for t in doc if d.start <= t.idx < d.end]
    if not toks:
        return None, None
    root = next((t for t in toks if not (d.start <= t.head.idx < d.end) or t.head.i == t.i), toks[-1])
    tok = root
    while tok.head.i != tok.i:
        h = tok.head
        if tok.dep_ in ("conj", "appos"):
            for n, (s, e) in enumerate(spans):
                if s <= h.idx < e:
                    return None, n
        if h.pos_ == "ADP" or any(s <= h.idx < e for s, e in spans):
            tok = h
            continue
        if h.pos_ in ("VERB", "AUX", "NOUN", "PROPN", "NUM", "PRON"):
            return h, None
        tok = h
    return None, None


def _anchor_keys(anchor: Any) -> tuple[set[str], bool]:
    """(keys naming the event a date is said of, is the anchor a word of its own event): a support verb
    or a copula brings the keys of its subject, object or prepositional object ("the next test came")."""
    own = key(anchor)
    if anchor.pos_ in ("NOUN", "PROPN", "VERB") and own not in _SUPPORT_VERBS and anchor.lower_ != "one":
        return {own}, True
    out = {own}
    for c in anchor.children:
        if c.dep_ in ("nsubj", "nsubjpass", "dobj", "attr", "csubj"):
            out.add(key(c))
        elif c.dep_ == "prep":
            out |= {key(p) for p in c.children if p.dep_ == "pobj"}
    return out, False


def _repeat_gaps(form: Form, claim: Claim) -> list[tuple[float, bool, int, int, bool]]:
    """Gaps between successive dates the claim gives for one repeated event ("checked the seals on 1 July and
    was next in to check them on 17 July", "tested on 2 May, 19 May and 1 June"), smallest reading (a month
    counts from its last day). Two dates are of one event when the second is listed with the first or said
    to recur ("next", "again", "then"); firm when a date is said of the rule's own action (or its
    object, after a support verb: "passed its inspection") and no date of the chain is said of another
    event, unless the claim says it recurs ("examined on 10 January and seen again on 2 April")."""
    ev = (set(form.action) | set(form.object)) - GENERIC - LIGHT_VERBS
    # days told by their ordinal alone ("its next one on Friday the 8th") are days of the month told before
    dates = bare_days.with_bare_days(claim.text, recurrence.listed_dates(claim.text, claim.dates))
    if len(dates) < 2 or not ev:
        return []
    doc = parse(claim.text)
    spans = _date_spans(claim, dates)
    info: list[tuple[bool, bool]] = []  # (said of the rule's event, said of another event)
    for d in dates:
        anchor, listed = _date_anchor(doc, d, spans)
        if listed is not None:
            info.append(info[listed] if listed < len(info) else (False, False))
        elif anchor is None:
            info.append((False, False))
        else:
            ks, own = _anchor_keys(anchor)
            hit = _stem_hits(ev, ks) > 0
            info.append((hit, own and not hit))
    out = []
    # a run of dates told without a stop between them ("on 2, 9 and 16 April; the hoist's exam ... November
    # ... May"): a date said of the rule's event speaks for the other dates of its run only
    run = [0]
    for i in range(1, len(dates)):
        run.append(run[-1] + bool(re.search(r"[.!?;]", claim.text[dates[i - 1].end : dates[i].start])))
    firsts = _chain_ordinals(dates)
    # a cited register of the rule's own action that holds a claim date dates that very event
    logged = recurrence.register_days(set(form.action) - GENERIC - LIGHT_VERBS,
                                      (set(form.subject) | set(form.object)) - GENERIC, claim.chunk_texts)
    back: int | None = None  # a date told as earlier than the one before it leaves that one the latest
    for i in range(1, len(dates)):
        a, b = dates[i - 1], dates[i]
        between = recurrence.without_weekdays(claim.text[a.end : b.start])
        if back is not None:  # "... 1 April, a week after the 25 March test, and the next is due on 8 April"
            a, firsts[i - 1], info[i - 1] = dates[back], firsts[back], info[back]
            if not b.year_known:
                firsts[i] = _on_or_after(b, firsts[back][0])
        following = bool(_FOLLOWING_RE.search(between))
        back = i - 1 if following else None
        if re.search(r"[.!?;]", between) or _NOT_SEQUENCE_RE.search(between) or re.search(
                r"\b(?:between|from)\s+(?:the\s+)?$", claim.text[: a.start], re.I):
            continue  # alternatives, a range, "respectively" (dates of several things)
        marked = _RECUR_RE.search(between) and not _LATER_TIME_RE.search(between)
        if not (marked or _LIST_JOINT_RE.match(between)):
            continue
        (a_ev, a_other), (b_ev, b_other) = info[i - 1], info[i]
        # "the next measurement was on 11 March": the recurring word is the rule's event
        b_ev = b_ev or any(t.lower_ in ("next", "again") and _stem_hits(ev, {key(t.head)}) > 0
                           for t in doc if a.end <= t.idx < b.start)
        recur = bool(re.search(r"\b(?:next|again)\b", between, re.I))
        in_log = {recurrence.day_key(firsts[i - 1][0]), recurrence.day_key(firsts[i][0])} <= logged
        if (a_other or b_other) and not (recur and (a_ev or b_ev)) and not in_log:
            continue
        gap = firsts[i][0] - firsts[i - 1][1]
        if following:  # "last done on 2 April, following its 6 January service"
            gap = firsts[i - 1][0] - _before_ordinal(b, firsts[i - 1][0])
        if gap <= 0:
            continue
        chain_ev = a_ev or b_ev or any(x for j, (x, _) in enumerate(info) if run[j] == run[i])
        out.append((gap * 86400.0, False, a.start, b.end, in_log or (chain_ev and not (a_other and b_other))))
    return out


# "X on 2 April, following its 6 January service": the date after the preposition is the earlier one
_FOLLOWING_RE = re.compile(r"\b(?:following|after)(?:\s+(?:its|the|their|his|her|our|this|that|a|an))?\s*$", re.I)


def _before_ordinal(d: measure.DateMention, later: int) -> int:
    """Last day of date ``d``, said to come before the day ``later``: a date without a year takes the latest
    year that puts it before (a "6 January service" followed by "2 April" is of the same year)."""
    if d.year_known:
        return d.last
    year = dt.date.fromordinal(later).year
    last = _with_year(d.last, year)
    return last if last <= later else _with_year(d.last, year - 1)


def _on_or_after(d: measure.DateMention, earlier: int) -> tuple[int, int]:
    """(first, last) day of date ``d`` without a year, said to come on or after the day ``earlier``."""
    year = dt.date.fromordinal(earlier).year
    first, last = _with_year(d.first, year), _with_year(d.last, year)
    return (first, last) if first >= earlier else (_with_year(d.first, year + 1), _with_year(d.last, year + 1))


def _within(a: measure.DateMention, b: measure.DateMention) -> bool:
    """Does one date lie inside the other ("through June" .. "30 June")? A day within a stretch the claim
    names is no second event: the two measure no gap."""
    if a.year_known != b.year_known:
        return False
    return a.first <= b.first and b.last <= a.last or b.first <= a.first and a.last <= b.last


def _lasts_own_event(form: Form, claim: Claim, at: int) -> bool:
    """Is what lasts "until" the reference the rule's own event or thing ("sales stayed open right up to the
    draw"), not another thing's stay ("the ball sets stayed in the vault until Wednesday's draw")? Read from
    the words of the sentence before the "until"."""
    ref = set(form.quantity.reference) if form.quantity else set()
    own = (set(form.action) | set(form.subject) | set(form.object)) - ref - GENERIC - LIGHT_VERBS
    start = max(claim.text.rfind(p, 0, at) for p in ".!?;")
    said = set(light_keys(claim.text[start + 1 : at]))
    for c in claim.clauses:
        if c.start < at and c.end > start:  # an irregular past the parse keeps ("rang") by its verb lemmas
            said |= c.keys | {word_key(v) for w in c.verbs for v in wordnet.verb_lemmas(w)}
    return not own or _stem_hits(own, said) > 0


def _chain_ordinals(dates: list[measure.DateMention]) -> list[tuple[int, int]]:
    """(first, last) day of each date of a sequence, a date without a year taking the year of the next date
    that has one ("on 2 January and 15 February 2024"), and a sequence without years running forward
    ("1 December, 1 January and 1 February")."""
    out: list[tuple[int, int]] = []
    for n, d in enumerate(dates):
        first, last = d.first, d.last
        if not d.year_known:
            later = next((x for x in dates[n + 1 :] if x.year_known), None)
            y = dt.date.fromordinal(later.first).year if later else None
            if y is None and out:
                y = dt.date.fromordinal(out[-1][0]).year
            if y is not None:
                first, last = _with_year(first, y), _with_year(last, y)
                if later is not None and first > later.first:
                    first, last = _with_year(first, y - 1), _with_year(last, y - 1)
                elif later is None and out and first < out[-1][0]:
                    first, last = _with_year(first, y + 1), _with_year(last, y + 1)
        out.append((first, last))
    return out


def _with_year(ordinal: int, year: int) -> int:
    """The same day and month in another year (29 February falls back to the 28th)."""
    d = dt.date.fromordinal(ordinal)
    try:
        return d.replace(year=year).toordinal()
    except ValueError:
        return d.replace(year=year, day=28).toordinal()


def _event_date(claim: Claim, ref: int) -> tuple[int, int, int, int, bool]:
    """(day, start, end, weekday shift, firm) of the claim's date for the rule's event, against ``ref``, the
    chunk's date of the event the rule counts from. The claim's first date, in the reference's year when it
    gives none; but when the claim restates the reference date too ("bagged on 2 May, ... picked them up on
    6 June"), the other date it gives, firm when there is one other ("the Friday before" a date counts).
    ``shift`` moves both days so the event's day falls on the weekday the claim names for it ("Monday 2
    June" in a year the text does not give), so business days count on the right weekdays."""
    ref_year = dt.date.fromordinal(ref).year
    cands = [(d.first if d.year_known else _with_year(d.first, ref_year), d.start, d.end)
             for d in claim.dates if d.first == d.last or d is claim.dates[0]]
    cands += _relative_days(claim)
    firm = True
    if len(cands) > 1 and any(c[0] == ref for c in cands):
        others = sorted({c for c in cands if c[0] != ref}, key=lambda c: c[1])
        if others:
            firm = len({c[0] for c in others}) == 1
            cands = others
    first, s0, e0 = cands[0]
    return first, s0, e0, _named_weekday_shift(claim, s0, e0, first), firm


def _named_weekday_shift(claim: Claim, start: int, end: int, first: int) -> int:
    """Days to move ``first`` so it falls on the weekday the claim names for the date at ``start``..``end``
    ("Wednesday 22 April", "Friday, 6 June", "22 April (a Wednesday)"); 0 when none is named. Business days
    then count on the claim's days."""
    for w, _, ws, we in claim.weekdays:
        if (we <= start and re.fullmatch(r"[\s,(]*(?:the\s+)?", claim.text[we:start])) or (
                end <= ws and re.fullmatch(r"[\s,(]*(?:a\s+)?", claim.text[end:ws])):
            return (w - dt.date.fromordinal(first).weekday()) % 7
    return 0


def _relative_days(claim: Claim) -> list[tuple[int, int, int]]:
    """(day, start, end) of a weekday the claim places by another date: "confirmed on the Friday before"
    (the one date the claim gives), "repaired on the Thursday after the 3 May inspection"."""
    if not claim.weekdays or not claim.dates:
        return []
    doc = parse(claim.text)
    out = []
    for w, _, s, _ in claim.weekdays:
        tok = _token_at(doc, s)
        if tok.i + 1 >= len(doc) or not any(c.lower_ == "the" for c in tok.children):
            continue
        nxt = doc[tok.i + 1]
        if nxt.lower_ not in ("before", "after"):
            continue
        objs = [c for c in nxt.children if c.dep_ == "pobj"]
        if objs:
            lo, hi = objs[0].left_edge.idx, objs[0].right_edge.idx + len(objs[0].right_edge.text)
            base = [d for d in claim.dates if lo <= d.start < hi and d.first == d.last]
        else:
            base = [d for d in claim.dates if d.first == d.last]
            base = base if len({d.first for d in base}) == 1 else []
        if not base:
            continue
        day = base[0].first
        if nxt.lower_ == "before":
            day -= (dt.date.fromordinal(day).weekday() - w) % 7 or 7
        else:
            day += (w - dt.date.fromordinal(day).weekday()) % 7 or 7
        out.append((day, s, nxt.idx + len(nxt.text)))
    return out


def sentence_span(text: str, start: int, end: int, stops: str = ".!?;") -> tuple[int, int]:
    """(start, end) of the sentence of ``text`` holding ``text[start:end]``: from just after the last
    ".", "!", "?" or ";" and space before ``start`` to just after the first one from ``end`` on. ``stops``:
    the marks that end a sentence (".!?" reads two halves joined by a semicolon as one sentence)."""
    s0 = max([0] + [m.end() for m in re.finditer(rf"[{stops}]\s+", text[:start])])
    stop = re.search(rf"[{stops}](?:\s|$)", text[end:])
    return s0, end + stop.end() if stop else len(text)


def _triggered(form: Form, claim: Claim, a: measure.Amount) -> bool:
    """Is the condition of a conditional bound met in the sentence of amount ``a``?"""
    band = form.trigger
    assert band is not None
    start, end = sentence_span(claim.text, a.start, a.end)
    return any(b.dim == band.dimension and start <= b.start < end and _in_band(b.lo, b.hi, band)
               for b, _ in claim.amounts + claim.chunk_amounts)


def _names_the_limit(claim: Claim, a: measure.Amount, band: Band) -> bool:
    """Does the sentence of ``a`` name the constraint's own limit as a limit ("the 35 kg box exceeds the
    30 kg limit, so it must be split")? Then it reasons about the rule rather than breaking it."""
    for b in measure.find_amounts(claim.text):
        if b.dim != a.dim or b.start == a.start:
            continue
        if not any(v is not None and abs(b.lo - v) <= 1e-9 * max(1.0, abs(v)) for v in (band.low, band.high)):
            continue
        near = claim.text[max(0, b.start - 25) : b.end + 25].lower()
        if re.search(r"\b(?:limit|maximum|max|cap|ceiling|minimum|allowance|threshold|exceeds|over the)\b", near):
            return True
    return False



def _measured_thing(doc: Any, a: measure.Amount) -> set[str]:
    """Keys of what a claim amount measures, by grammar: the noun it modifies ("a 4 km visibility"), the
    noun it is "of" ("visibility of 4 km"), the subject of the verb it completes ("visibility was 4 km",
    "the WBGT climbed to 83 °F"), or else the noun right before it in its phrase ("with visibility only 4 km")."""
    toks = [t for t in doc if a.start <= t.idx < a.end]
    if not toks:
        return set()
    unit = span_head(doc, a.start, a.end)
    head = unit.head
    if unit.dep_ in ("compound", "amod", "nummod") and head.pos_ in ("NOUN", "PROPN"):
        return {key(head)}
    if unit.dep_ == "pobj" and head.lower_ == "of" and head.head.pos_ in ("NOUN", "PROPN"):
        return {key(head.head)}
    verb = head.head if unit.dep_ == "pobj" and head.dep_ == "prep" else head
    if unit.dep_ in ("attr", "dobj", "pobj", "acomp") and verb.pos_ in ("VERB", "AUX"):
        subj = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
        if subj:
            return {key(subj[0])}
    first = toks[0].i
    for t in reversed(doc[max(0, first - 3) : first]):
        if t.pos_ in ("NOUN", "PROPN"):
            return {key(t)}
        if t.pos_ not in ("ADV", "DET", "ADJ", "PART"):
            break
    return set()


def _measures_other_condition(a: measure.Amount, form: Form, forms: Sequence[Form], claim: Claim) -> bool:
    """Does the amount measure what another rule's condition names, a thing this rule never names ("with
    visibility only 4 km" against "flights must not climb above 3,000 feet" beside "If visibility is below
    5 kilometres, the flight must be cancelled")? Then the amount is that condition's, not this bound's."""
    thing = _measured_thing(parse(claim.text), a)
    if not thing or thing & set(light_keys(form.text)) or thing & set(keys(parse(form.text))):
        return False
    return any(g is not form and g.trigger is not None and g.trigger.dimension == a.dim
               and thing & condition_keys(g.text) for g in forms)


def _share_of_unnamed(a: measure.Amount, form: Form, claim: Claim) -> bool:
    """Is the claim's amount a bare share ("at 0.2%") while the claim never names what the rule measures?
    A percentage's unit says nothing of its quantity (a dilution, a grade, a humidity), so "a sanitiser at
    0.2%" against "relative humidity must never drop below 85%" is a guess."""
    if a.dim != "dimensionless":
        return False
    words = _measured_words(form.text)
    return bool(words) and not _stem_hits(set(words), {k for c in claim.clauses for k in c.keys})


def _describes_other_noun(a: measure.Amount, form: Form, claim: Claim) -> bool:
    """Is the amount set off beside a noun the rule never names ("the crusher pad, just 80 m from blast 48"
    against "the exclusion zone must extend at least 500 metres")? An apposition describes its noun: the
    number is that thing's, not the rule's."""
    toks = [t for t in parse(claim.text) if a.start <= t.idx < a.end]
    unit = next((t for t in reversed(toks) if t.head.i not in {x.i for x in toks}), None)
    if unit is None or unit.dep_ != "appos" or unit.head.pos_ not in ("NOUN", "PROPN"):
        return False
    return not _stem_hits({key(unit.head)}, set(light_keys(form.text)) | set(keys(parse(form.text))))


_WHERE_PREPS = frozenset({"in", "at", "on", "inside", "within", "across", "throughout"})


@lru_cache(maxsize=1024)
def _measured_words(rule: str) -> frozenset[str]:
    """Keys of what a rule's bound measures: its subject less where it is ("relative humidity", not "in a
    fruiting room"), and the nouns after its amount ("55 % relative humidity")."""
    doc = parse(rule)
    out: set[str] = set()
    for s in (t for t in doc if t.dep_ in ("nsubj", "nsubjpass")):
        where = {w.i for p in s.children if p.dep_ == "prep" and p.lower_ in _WHERE_PREPS for w in p.subtree}
        out |= {key(w) for w in s.subtree if w.i not in where and w.pos_ in ("NOUN", "PROPN", "ADJ")}
    for a in measure.find_amounts(rule):
        after = [t for t in doc if t.idx >= a.end][:3]
        out |= {key(t) for t in after if t.pos_ in ("NOUN", "ADJ")}
    return frozenset(out - GENERIC)


_ANCHOR_RE = re.compile(r"\s*(?:(?P<before>before|prior\s+to|ahead\s+of)|(?P<after>after|following|since))\s+"
                        r"(?P<what>[^.;,]+)", re.I)


def _other_side_of_reference(form: Form, claim: Claim, a: measure.Amount, clause: Clause) -> bool:
    """Does the claim's length of time run to the rule's reference event from the other side, for an event the
    rule does not name ("the defibrillator was taken out two days before his cremation" against "remains must
    be kept at least 30 days after the cremation")? Then it measures another stretch: the one the rule bounds
    starts where this one ends. The rule's own event on the wrong side ("the heat lists went up twenty minutes
    after the race started") is the rule's stretch, and broken."""
    band = form.quantity
    m = _ANCHOR_RE.match(claim.text[a.end :])
    if band is None or m is None or not band.reference or a.dim != "[time]":
        return False
    own = _topic(form) - set(band.reference) - GENERIC - LIGHT_VERBS
    if _stem_hits(own, set(light_keys(claim.text[clause.start : a.start]))):
        return False
    side = "before" if m.group("before") else "after"
    head = {band.reference[0]} - GENERIC
    return side != band.reference_side and bool(head) and _stem_hits(head, set(light_keys(m.group("what")))) > 0


_OFF_RE = re.compile(r"^\s*(?:off|later|earlier|early|late)\b", re.I)


def _lead_to_other_event(form: Form, claim: Claim, a: measure.Amount) -> bool:
    """Is the claim's length of time a lead to or from an event of which the rule names nothing, on another scale
    than the rule's ("two minutes before the 4 o'clock lock-up" against "listed for adoption no sooner than 7 days
    after intake")? It measures a stretch the rule does not bound."""
    band = form.quantity
    m = _ANCHOR_RE.match(_OFF_RE.sub("", claim.text[a.end :], count=1))  # "half an hour off before the sectionals"
    if band is None or m is None or not band.reference or a.dim != "[time]":
        return False
    what = set(light_keys(m.group("what"))) - GENERIC
    # of another scale too (minutes against a bound in days): an event the rule names in other words ("an hour
    # before the crew arrived" for "24 hours before treatment") is still read
    return bool(what) and _stem_hits((_topic(form) | set(band.reference)) - GENERIC, what) == 0 and \
        not _same_scale(a.hi, band)


def _gap_to_reference(form: Form, claim: Claim, s: int, e: int) -> bool:
    """Does the gap between two dates of the claim end at the rule's reference event instead of starting there
    ("the coffin arrived on Friday 8 November and he was cremated the following Tuesday" against "kept at least
    30 days after the cremation")? The later end names the reference, the earlier end does not: it measures the
    stretch before the reference, which the rule does not bound (and the other way round for a lead before it)."""
    band = form.quantity
    ends = [d for d in claim.dates if d.start == s or d.end == e]
    if band is None or not band.reference or len(ends) != 2 or len(claim.clauses) < 2:
        return False
    year = next((dt.date.fromordinal(d.first).year for d in ends if d.year_known), None)

    def day(d: measure.DateMention) -> int:  # "5 March 2026 ... 13 March": the year told once holds for both
        if d.year_known or year is None:
            return d.first
        try:
            return dt.date.fromordinal(d.first).replace(year=year).toordinal()
        except ValueError:  # 29 February in a common year
            return d.first

    early, late = sorted(ends, key=day)
    if day(early) == day(late):
        return False
    ref = set(band.reference[:1]) - GENERIC
    k_early = _clause_at(claim.clauses, early.start)
    k_late = _clause_at(claim.clauses, late.start)
    if not ref or k_early is k_late:
        return False
    hit_e, hit_l = (_stem_hits(ref, k.keys | k.facts) > 0 for k in (k_early, k_late))
    return (hit_l and not hit_e) if band.reference_side == "after" else (hit_e and not hit_l)



_CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ"})


@lru_cache(maxsize=4096)
def _content_keys(text: str) -> frozenset[str]:
    """Keys of the text's content words, less function words and the units of its amounts ("8 hours")."""
    return frozenset(key(t) for t in parse(text) if t.pos_ in _CONTENT_POS and not t.is_stop
                     and not any(c.dep_ == "nummod" or c.like_num for c in t.children)) - GENERIC - LIGHT_VERBS


def _event_words(form: Form) -> set[str]:
    """The rule's own content words: its doer, thing, action and the events it bounds."""
    return set(_content_keys(form.text))


def _rival_reading(form: Form, forms: Sequence[Form], a: measure.Amount, clauses: Sequence[Clause]) -> str | None:
    """Does another locked rule bounding the same dimension speak of the amount or gap better, and keep it?
    ("off feed for half a day and an hour" breaks "not shorn within 42 days before lambing" but keeps "held off
    feed for at least 8 hours before shearing".) "guess" when the clauses name the rival by more of its own words
    (at least two) than the rule; "drop" when they name none of the rule's; None when no rival fits."""
    band = form.quantity
    if band is None:
        return None
    present = set().union(*(c.keys for c in clauses)) if clauses else set()
    present -= _content_keys(a.text)  # the amount's own unit ("12 hours") names no event
    mine = _event_words(form)
    for g in forms:
        rival = g.quantity
        if g is form or g.text == form.text or rival is None or rival.dimension != band.dimension:
            continue
        if windows.count_window(g) or rival.low is None and rival.high is None:
            continue
        theirs = _event_words(g)
        own = _stem_hits(mine - theirs, present)  # words both rules use ("drivers") tell neither apart
        hits = _stem_hits(theirs - mine, present)
        if hits >= 2 and hits > own and not _outside(a, rival):
            return "drop" if own == 0 else "guess"
    return None


def _negation_read(text: str, a: measure.Amount) -> bool:
    """Whether the amount's own words already hold the clause's negation ("never fewer than 13")."""
    return measure.direction_info(text, a.start, a.end)[1]

def check_bounds(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    out = []
    own = {id(a) for a, _ in claim.amounts}
    for a, clause in claim.amounts + claim.chunk_amounts:
        if clause.negated and (a.direction == "eq" or a.direction == "min" and id(a) in own and not _negation_read(claim.text, a)):
            continue  # "the level was not 8 ft"; "at no point ... longer than 30 minutes" states no length
        for f in _best_forms(a, clause, forms, trigger=False):
            band = f.quantity
            assert band is not None
            if f.trigger is not None and not _triggered(f, claim, a):
                continue  # "Students under 12 may not dive deeper than 12 m" says nothing of adults
            if id(a) in own and _measures_other_condition(a, f, forms, claim):
                continue  # "with visibility only 4 km" is the condition of "If visibility is below 5 km, ..."
            if id(a) in own and _other_side_of_reference(f, claim, a, clause):
                continue  # "taken out two days before his cremation" for "kept 30 days after the cremation"
            if id(a) in own and _lead_to_other_event(f, claim, a):
                continue  # "out two minutes before the 4 o'clock lock-up" for "listed 7 days after intake"
            if band.reference_side == "before" and f.modality == "may":
                continue
            if id(a) in own and _other_adjective_kind(f, claim, clause, a):
                continue  # "the human-hair unit" for a bound on "synthetic hair": another kind, outside the scope
            if windows.count_window(f):
                continue  # "at most 3 tours in a single day": the day is where the tours are counted
            if _overlap(f, clause) == 0 and not _distinctive(f, forms):
                continue
            if a.dim.startswith("count:") or a.dim == "age":
                continue
            if id(a) in own and a.dim == "[time]" and spent_elsewhere(f.text, band.text, claim.text, a.start, a.end):
                continue  # "dried in the oven for 50 minutes" for "must stay on the block for at least 12 hours"
            a = _per_band(f, band, a, claim)
            if _outside(a, band) and not _names_the_limit(claim, a, band):
                # "stayed below 14" against a floor of 15: every value the claim allows is under the floor (not a
                # time: "did not start until four minutes after" tells a wait, whose "until" is no ceiling)
                floor_only = band.high is None and band.low is not None and id(a) in own and a.dim != "[time]"
                if a.direction == "max" and not floor_only and not (clause.permissive or re.search(
                        r"\b(?:up to|capped|any|allowed|limit|within|due|deadline|no later than|maximum|"
                        r"permitted|may|can|at most)\b", clause.text, re.I)):
                    continue
                rival = _rival_reading(f, forms, a, [clause]) if id(a) in own else None
                if rival == "drop":
                    continue  # the amount is the rival rule's, which it keeps; nothing here speaks of this one
                guessed = band_guessed(f, band) or ("review" if rival else None)
                out.append(_finding(f, claim, a.start, a.end, "numeric_bound",
                                    f"{a.text!r} is outside what {f.text!r} allows",
                                    sure=(id(a) in own and not _share_of_unnamed(a, f, claim)
                                          and not _describes_other_noun(a, f, claim)
                                          or id(a) in claim.entry_amounts and _overlap(f, clause) > 0)
                                    and (_overlap(f, clause) > 0 or a.dim != "[time]")
                                    and not guessed, arbitrable=guessed != "review",
                                    basis="amount" if id(a) in own else
                                    "entry_amount" if id(a) in claim.entry_amounts else "chunk_amount"))
    for f in forms:
        band = f.quantity
        if band is None or windows.count_window(f):
            continue
        durational = gap_band(f)  # else a gap only hints at the rule: never sure
        for gap, business, s, e, firm in _derived_gaps(f, claim):
            spoken = any(_topic(f) & _naming_keys(c) for c in claim.clauses) or firm and band.period and recurrence.logged(
                claim.text, s, e, recurrence.register_days(set(f.action) - GENERIC - LIGHT_VERBS,
                                                           (set(f.subject) | set(f.object)) - GENERIC,
                                                           claim.chunk_texts))  # "They were changed on ..."
            # "Licensed removal began on 9 March": a firm lead speaks of the rule through the later event it names
            spoken = spoken or firm and band.reference_side == "before" and _stem_hits(
                set(band.reference) - GENERIC, _clause_at(claim.clauses, s).keys) >= 2
            if not spoken and not _distinctive(f, forms):
                continue  # the claim's own words, not facts borrowed from a chunk, must speak of the rule
            if not _same_scale(gap, band):
                continue
            a = measure.Amount(gap, gap, "[time]", "eq", False, s, e, claim.text[s:e], business)
            bad = _outside(a, band)
            if bad and _gap_to_reference(f, claim, s, e):
                continue  # "arrived on 8 November and was cremated four days later": a stretch up to the reference
            if bad and not band.reference and place_unnamed(f.text, band.text, claim.text):
                continue  # "logged in on 30 January ... collected on 14 April": not the stay in the rule's place
            if bad:  # sure only when the ends are firm and the claim speaks of the rule
                # a gap to a chunk event, from a date in a clause that speaks of another event ("jumped
                # her rig on 21 November" for "parachutes must be repacked every 180 days"), is no reading
                own = _overlap(f, _clause_at(claim.clauses, s)) > 0
                rival = _rival_reading(f, forms, a, [c for c in claim.clauses if c.start < e and c.end > s])
                if rival == "drop":
                    continue  # a gap between the rival rule's events, which it keeps
                # a holiday the claim or its chunks name is no working day, and the calendar does not know it
                holiday = business and band.high is not None and \
                    gap / 86400.0 - _holidays((claim.text, *claim.chunk_texts)) <= band.high / 86400.0
                out.append(_finding(f, claim, s, e, "numeric_bound",
                                    f"the time between the events the claim dates is outside {f.text!r}",
                                    sure=spoken and firm and durational and not holiday and not rival,
                                    arbitrable=firm or own,
                                    basis="gap"))
    # a constraint keeps one finding: a sure one (a gap between dates the claim gives) before a guessed amount
    first = {}
    for n, x in enumerate(out):
        first.setdefault(x.constraint, n)
    return sorted(out, key=lambda x: (first[x.constraint], not (x.sure and x.basis == "gap")))


# a holiday by name, or a day the place says it was shut ("Shop closed Good Fri 18/04 - Easter Mon 21/04"): each
# may be no working day, which a calendar that knows only weekends cannot tell
_HOLIDAY_RE = re.compile(r"\b(?:holidays?|closure days?|good fri(?:day)?|easter mon(?:day)?|boxing day|christmas day|"
                         r"new year'?s day|thanksgiving|(?:shop|office|store|clinic|site|we were|was|were) closed)\b", re.I)
_NO_HOLIDAY_RE = re.compile(r"\b(?:no|not|never|without)\b(?:\W+\w+){0,3}\W*$", re.I)


def _holidays(texts: Sequence[str]) -> int:
    """How many holidays the texts name that could fall in a count of business days ("after the New Year's Day
    holiday"); "no closures or holidays observed" names none."""
    return sum(1 for t in texts for m in _HOLIDAY_RE.finditer(t) if not _NO_HOLIDAY_RE.search(t[max(0, m.start() - 40) : m.start()]))
_NUMBER_RE = re.compile(r"\d|\b(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
                        r"twenty|thirty|forty|fifty|sixty|hundred|half|quarter|dozen|several|few)\b", re.I)
_PER_PERIOD_RE = re.compile(r"\b(?:each|every|per|a)\s+(?:calendar\s+|working\s+|single\s+)?"
                            r"(?:day|week|fortnight|month|quarter|year|shift|season|term)\b", re.I)


def gap_band(form: Form) -> bool:
    """Does the rule bound a length of time that a gap between two times can measure? Not when its "amount"
    is a word saying when ("parked overnight only at ..."), an exact lead to another event whose direction the
    rule leaves unsaid ("closes 30 minutes before departure"), or a total of an activity over a period ("at least 2 hours of training each
    calendar month": one session's length says nothing of the month's total)."""
    band = form.quantity
    if band is None or not band.text:
        return True
    at = form.text.find(band.text)
    if at < 0:
        return True
    if not _NUMBER_RE.search(band.text):
        return False
    if band.reference and band.low is not None and band.low == band.high and not re.search(r"\b(?:exactly|precisely)\b", form.text, re.I):
        return False  # "check-in closes 30 minutes before departure" leaves the direction unsaid: 35 keeps it
    rest = form.text[at + len(band.text) :]
    return not (re.match(r"\s+of\s+\w", rest) and _PER_PERIOD_RE.search(rest))


def _same_scale(gap: float, band: Band) -> bool:
    """Is a derived gap of the band's scale? Hours between two clock times say nothing of a bound in
    days ("advertised at least 7 days before" vs "ran from 22:00 to 05:00"), and whole days between two
    dates nothing of a bound in hours ("worked at most 2 hours a day" vs "back on 9 March")."""
    bound = band.high if band.high is not None else band.low
    if bound is None or bound <= 0:
        return True
    day = 86400.0
    whole_days = gap >= day and abs(gap / day - round(gap / day)) < 1e-9
    if whole_days and bound < day:
        return False
    return not (gap < day and bound > day)


def _distinctive(form: Form, forms: Sequence[Form]) -> bool:
    """Is this the only constraint measuring its dimension (same period meaning)? Then an amount of that
    dimension needs no shared word to be about it."""
    q = form.quantity
    assert q is not None
    same = sum(1 for g in forms if g.quantity and g.quantity.dimension == q.dimension
               and g.quantity.period == q.period)
    triggers = sum(1 for g in forms if g.trigger and g.trigger.dimension == q.dimension)
    return same == 1 and not triggers and not q.dimension.startswith("count:")


def _counted_noun(doc: Any, t: Any) -> Any:
    """What a number counts: the noun its phrase ends on ("8 CPU cores", "10 times"), else the noun
    before "of" ("a crew of five"), else its grammatical head."""
    j = t.i + 1
    last = None
    while j < len(doc) and doc[j].pos_ in ("NOUN", "PROPN", "ADJ") and j - t.i <= 4:
        if doc[j].pos_ in ("NOUN", "PROPN"):
            last = doc[j]
        j += 1
    if last is not None:
        return last
    if t.i >= 2 and doc[t.i - 1].lower_ == "of" and doc[t.i - 2].pos_ in ("NOUN", "PROPN"):
        return doc[t.i - 2]
    # "heat 1,256", "job 8803": a number after its noun names the thing, it does not count it
    return t.head if t.dep_ == "nummod" and t.head.i > t.i else None


@lru_cache(maxsize=1024)
def _is_unit(noun: str) -> bool:
    """Is a counted noun a unit of measure ("hours")? Then any span of time matches it by its unit alone."""
    return any(not a.dim.startswith("count:") for a in measure.find_amounts(f"2 {noun}s"))


def check_counts(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """Counted things ("a crew of five", "a single judge", "half a dozen people", "four individual events")."""
    out = []
    doc = parse(claim.text)
    for f in forms:
        band = f.quantity
        if band is None or not band.dimension.startswith("count:"):
            continue
        noun = band.dimension[6:]
        for t in doc:
            n = None
            if t.lower_ in ("single", "sole", "lone") and key(t.head) == noun:
                n = 1.0
            elif (t.like_num or t.lower_ in measure.NUMBER_WORDS) and t.lower_ not in ("a", "an"):
                if measure._TOTAL_RE.search(claim.text[max(0, t.idx - 20) : t.idx]):
                    continue  # "5 of the 10 days": the whole, not the part claimed
                target = _counted_noun(doc, t)
                if target is None or (key(target) != noun and not (
                        noun in MEMBER_NOUNS and key(target) in set(f.subject))):
                    continue  # "a crew of five" counts the crew's members
                if measure.within_dates(claim.dates, t) or count_scope.names_whole_set(claim.text, t, target, f):
                    continue  # "the 28 May tour", "all 14 buses were checked": not the rule's count
                n = measure._number(t.text)
                n = _phrase_number(claim.text, t, n)
            if n is None:
                continue
            clause = _clause_at(claim.clauses, t.idx)
            if clause.negated:
                continue
            d = measure._direction(claim.text, t.idx, t.idx + len(t.text))
            a = measure.Amount(n, n, band.dimension, d, False, t.idx, t.idx + len(t.text), t.text)
            if _outside(a, band):
                # sure only when the claim's clause speaks of the rule by more than the counted noun
                # ("6 hours at the wheel" is not "10 hours off duty")
                spoken = bool((_topic(f) - {noun}) & (clause.keys | clause.facts)) or not _is_unit(noun)
                out.append(_finding(f, claim, t.idx, t.idx + len(t.text), "numeric_bound",
                                    f"{t.text!r} {noun} is outside what {f.text!r} allows",
                                    sure=spoken and not band_guessed(f, band),
                                    arbitrable=spoken and band_guessed(f, band) != "review", basis="count"))
        m = re.search(r"\bhalf a dozen\b", claim.text, re.I)
        if m and band.low is not None and 6 < band.low:
            out.append(_finding(f, claim, m.start(), m.end(), "numeric_bound", "half a dozen is too few",
                                basis="count"))
    return out


_PHRASES = sorted((w for w in measure.NUMBER_WORDS if " " in w), key=len, reverse=True)


def _phrase_number(text: str, t: Any, n: float | None) -> float | None:
    """The value of the number phrase a number word ends ("half a dozen" is 6, "a couple of" 2), else ``n``."""
    before = text[max(0, t.idx - 24) : t.idx + len(t.text)].lower()
    before = re.sub(r"\bhalf-dozen$", "half a dozen", before)  # "a half-dozen-coach rake": six
    for phrase in _PHRASES:
        if re.search(rf"(?<![\w]){re.escape(phrase)}$", before):
            return float(measure.NUMBER_WORDS[phrase])
    return n


def check_unbounded(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """A limit ("at most 3 retries", "kept at most 30 days") answered with "unlimited" or "indefinitely"."""
    out = []
    for f in forms:
        q = f.quantity
        if q is None or q.high is None or q.low is not None:
            continue
        for m in UNBOUNDED_RE.finditer(claim.text):
            sent = next((c for c in claim.clauses if c.start <= m.start() < c.end), None)
            words = set().union(*(c.keys for c in claim.clauses))
            if sent is not None and (_topic(f) & words) and not re.search(
                    r"\b(?:not|never)\b[^.]{0,20}$", claim.text[max(0, m.start() - 24) : m.start()]):
                out.append(_finding(f, claim, m.start(), m.end(), "numeric_bound",
                                    f"the claim removes the limit of {f.text!r}"))
                break
    return out


def check_triggers(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """Conditional rules: a claim amount inside the trigger band, and the rule it triggers broken."""
    out = []
    own = {id(a) for a, _ in claim.amounts}
    for a, own_clause in claim.amounts + claim.chunk_amounts:
        for f in forms:
            band = f.trigger
            if band is None or a.dim != band.dimension or a.direction != "eq" or f.quantity is not None:
                continue  # a bound under a condition is checked with the bounds
            if f.exclusion:
                continue  # "Under-8s and adults must never share a bed": two groups kept apart, read as such
            if not _in_band(a.lo, a.hi, band):
                continue
            if id(a) in own and reading_unnamed(f.text, claim.text):
                continue  # "Kingfisher, 21.9 m overall" is no reading of "the river gauge" a rule's condition reads
            # "The shipment worth 4,000 dollars left without a declaration": the amount and the broken
            # consequence sit in different clauses of one sentence
            consequence = set(f.object) | set(f.action)
            clause = _sentence_of(claim, own_clause, consequence)
            joined = not consequence & {key(t) for t in parse(claim.text) if clause.start <= t.idx < clause.end}
            if joined:
                # "the site logged 38 °F at 07:00; we shipped the mix anyway": a semicolon joins the condition
                # met and the duty's fate in one sentence
                clause = _sentence_of(claim, own_clause, consequence, ".!?")
            topic = _overlap(f, clause)
            if topic == 0 and consequence & clause.denied:
                # "The 1.5 m trench was left unshored" for "Excavations deeper than 1.2 m must be shored": the
                # consequence denied by its prefix, said of a kind of the rule's subject
                topic = len(set(f.subject) & categories.kind_keys(f.text, parse(claim.text), clause.start, clause.end,
                                                                  clause.keys | clause.facts))
            if topic == 0 and a.dim not in ("age",) and not claim.chunk_amounts:
                continue
            if topic == 0 and f.modality == "must_not" and id(a) in own and re.match(r"\s*no\b", f.text, re.I):
                # "No volunteer under 18 may form part of a launch crew" against "Sixteen-year-old cadet Ellis
                # stayed ashore": a ban of its whole subject is broken by the act, and the claim says none of it
                continue
            said = consequence & (clause.keys | clause.facts)
            denied = bool(consequence & clause.denied) or (clause.negated and bool(said))
            if f.modality == "must_not":
                # "the 34 kg crate was kept off the belt": the forbidden event undone where the claim names it;
                # "No child under six flew": the rule's subject denied where the claim speaks of its event
                undone = clause.negverb and bool(said) and not (consequence & NEGATING)
                subject = set(f.subject) - GENERIC
                subject_denied = bool(subject) and any(
                    subject & c.denied and consequence & (c.keys | c.facts) for c in claim.clauses)
                broken = not clause.negated and not PROHIBITIVE_RE.search(clause.text) and not undone and \
                    not subject_denied and not _thing_held_back(subject, consequence, claim, clause)
            else:
                carried_on = bool(consequence & STOP_CONSEQUENCE) and bool(re.search(
                    r"\b(?:kept|keeps|keep|continued|continues|carried on|went ahead|goes ahead|stayed open|"
                    r"remained open|stays open|did not stop|didn't stop|never stopped)\b", clause.text, re.I))
                carried_on = carried_on or _stopped_event_done(f, claim, clause) or _kept_as_was(f, claim, clause)
                undone = carried_on or bool(consequence & NEGATING_CONSEQUENCE) and bool(re.search(
                    r"\b(?:stands?|counts?|valid|accepted|holds?|ratified|approved|kept|keep|recogni[sz]ed)\b",
                    clause.text, re.I))
                alone = bool(re.search(r"\b(?:second|two|another|additional|both|dual)\b", f.text, re.I)) and bool(re.search(
                    r"\b(?:a single|one|alone|on (?:his|her|their|its) own|sole|only one)\b", clause.text, re.I))
                # a duty of company ("must be accompanied by an adult") denied by being alone ("came in on her
                # own", "played unsupervised")
                alone = alone or bool(consequence & COMPANY_VERBS) and bool(ALONE_RE.search(clause.text))
                other = _other_kind(f, clause)  # "business class" where the rule triggers "economy class"
                # "must be called off" done as "was called off": the undoing word is the consequence itself
                undoing = clause.negverb and not (consequence & NEGATING)
                broken = denied or undone or alone or other or (undoing and bool(said)) or (
                    clause.permissive and not said) or bool(re.search(r"\bdespite\b", clause.text, re.I))
                # "the outdoor pools were cleared, while the indoor pool stayed open": what carried on is of
                # another kind of the rule's thing, beside the duty done on its own
                beside = (carried_on or other) and not denied and any(
                    _other_kind(f, c) for c in claim.clauses if clause.start <= c.start < clause.end)
                if (joined or beside) and _duty_done(consequence, claim, clause, f):
                    broken = False  # "...; the archive store was evacuated and the front office stayed open"
            if broken:
                out.append(_finding(f, claim, clause.start, clause.end, "conditional",
                                    f"{a.text!r} triggers {f.text!r}, and the claim breaks it",
                                    basis="trigger" if id(a) in own else
                                    "trigger_entry" if id(a) in claim.entry_amounts and _overlap(f, clause) and
                                    not re.search(r"\b(?:before|until|after|unless|without|except)\b", f.text, re.I)
                                    else "trigger_chunk"))
    return out


def _duty_done(consequence: set[str], claim: Claim, sentence: Clause, form: Form | None = None) -> bool:
    """Does a clause of the sentence say the duty done, in its own words, not denied, undone or merely allowed
    (and, given the rule, not of another kind of its thing)? Then what else the sentence says ("the front office
    stayed open", "the indoor pool stayed open" beside "the outdoor pools were cleared") is of other things."""
    # "the outdoor stages were closed": a duty to close is done by the closing word itself
    return any(consequence & (c.keys | c.facts) and not (c.negated or c.permissive or c.optional)
               and not (c.negverb and not consequence & NEGATING)
               and not consequence & c.denied and (form is None or not _other_kind(form, c))
               for c in claim.clauses if sentence.start <= c.start < sentence.end)


def _thing_held_back(subject: set[str], consequence: set[str], claim: Claim, sentence: Clause) -> bool:
    """Does the sentence name the forbidden thing most fully in a clause that puts it off or denies it, while the
    forbidden act is said of something named less fully ("only BC-20 base course was shipped; the surface course
    was put off" for "no surface-course mix may be shipped")? The act was done to another thing."""
    same = [c for c in claim.clauses if sentence.start <= c.start < sentence.end]
    if len(subject) < 2 or not same:
        return False
    def cover(c: Clause) -> int:
        return len(subject & (c.keys | c.facts))
    held = max(same, key=cover)
    acts = [c for c in same if consequence & (c.keys | c.facts | c.verbs)]
    return (held.negated or held.negverb) and cover(held) >= 2 and bool(acts) and \
        all(cover(c) < cover(held) for c in acts)


def _kept_as_was(form: Form, claim: Claim, clause: Clause) -> bool:
    """A duty that changes its thing's state broken by the sentence telling the thing stayed as it was ("the
    riverside pitches stayed occupied" for "... the riverside pitches must be evacuated")."""
    consequence = set(form.object) | set(form.action)
    thing = (set(form.subject) | set(form.object)) - GENERIC
    if stayed.duty_kind(consequence) is None or not thing:
        return False
    tokens = [t for t in parse(claim.text) if clause.start <= t.idx < clause.end]
    return any(stayed.breaks(consequence, state) and stayed.holder_keys(verb, head) & thing
               and not any(c.dep_ == "neg" for w in (verb, head) for c in w.children)
               for verb, head, state in stayed.kept_states(tokens))


# an event told as having run its course: "the display was completed", "the tour went on", "the match took place"
_RAN_ITS_COURSE = frozenset(word_key(w) for w in "complete proceed finish run operate continue".split())
_RAN_ITS_COURSE_RE = re.compile(r"\b(?:took place|went on|ran to (?:the end|completion|time|schedule)|"
                                r"as (?:planned|scheduled|normal|usual))\b", re.I)


def _stopped_event_done(form: Form, claim: Claim, clause: Clause) -> bool:
    """A rule that stops, cancels or suspends its subject ("Free-flight displays must be cancelled when ...")
    broken by a clause of the same sentence that names that subject and says it ran its course ("the display
    was completed"), with no word of stopping, undoing or denial in the sentence."""
    consequence = set(form.object) | set(form.action)
    subject = set(form.subject) - GENERIC
    if not (consequence & STOP_CONSEQUENCE) or not subject:
        return False
    if consequence & (clause.keys | clause.facts | clause.verbs) or clause.negated or clause.negverb:
        return False
    if PROHIBITIVE_RE.search(clause.text) or re.search(r"\b(?:not|no|never|n't|without)\b", clause.text, re.I):
        return False
    for c in claim.clauses:
        if not (clause.start <= c.start < clause.end) or c.negated or c.negverb or c.permissive or c.optional:
            continue
        if c.verbs & (STOP_CONSEQUENCE | NEGATING) or not (subject & c.keys):
            continue
        if c.verbs & _RAN_ITS_COURSE or _RAN_ITS_COURSE_RE.search(c.text):
            return True
    return False


def _sentence_of(claim: Claim, clause: Clause, consequence: set[str], stops: str = ".!?;") -> Clause:
    """The clauses of the sentence holding ``clause``, merged: words, denials, modifiers; negation and
    permission from the clauses that speak of the consequence (or from ``clause`` itself)."""
    start, end = sentence_span(claim.text, clause.start, clause.end, stops)
    same = [c for c in claim.clauses if start <= c.start < end] or [clause]
    speaking = [c for c in same if consequence & (c.keys | c.facts | c.denied)] or [clause]
    merged = Clause(start=start, end=end, text=claim.text[start:end], keys=set().union(*(c.keys for c in same)),
                    verbs=set().union(*(c.verbs for c in same)), negated=any(c.negated for c in speaking),
                    permissive=any(c.permissive for c in speaking), optional=any(c.optional for c in speaking),
                    denied=set().union(*(c.denied for c in same)), agents=[g for c in same for g in c.agents],
                    head_i=clause.head_i, order_pos=clause.order_pos,
                    negverb=any(c.negverb for c in speaking), facts=set().union(*(c.facts for c in same)))
    for c in same:
        for k, v in c.mods.items():
            merged.mods.setdefault(k, set()).update(v)
    return merged


@lru_cache(maxsize=4096)
def _form_mods(text: str) -> dict[str, frozenset[str]]:
    return {k: frozenset(v) for k, v in _noun_mods(parse(text)).items() if v}


def _other_kind(form: Form, clause: Clause) -> bool:
    """Does the clause name the constraint's thing with another modifier ("CPU instances" for "GPU
    instances"), or with its modifier denied ("non-root")?"""
    for head, mods in _form_mods(form.text).items():
        theirs = clause.mods.get(head)
        if theirs is None:
            continue
        if theirs and not (theirs & mods) and not (mods & clause.keys):
            return True
        if mods & clause.denied:
            return True
    return False


@lru_cache(maxsize=4096)
def _adjective_mods(text: str) -> dict[str, frozenset[str]]:
    """Each noun of a rule with the adjectives that say which kind of it the rule binds ("synthetic hair")."""
    out: dict[str, frozenset[str]] = {}
    for t in parse(text):
        mods = frozenset(key(c) for c in t.children if _kind_adjective(c))
        if t.pos_ in ("NOUN", "PROPN") and mods:
            out[key(t)] = out.get(key(t), frozenset()) | mods
    return out


def _kind_adjective(c: Any) -> bool:
    """Is a noun's modifier an adjective that picks a kind ("synthetic", "indoor"), not an order or amount word
    ("last", "several") nor a participle telling a state ("measured", "finished")?"""
    return c.dep_ == "amod" and c.pos_ == "ADJ" and not c.is_stop and not _generic_word(c) and \
        not c.lower_.endswith("ed")


def _other_adjective_kind(form: Form, claim: Claim, clause: Clause, a: measure.Amount) -> bool:
    """Does the clause name the rule's noun with another adjective than the rule's, outside the amount ("the
    human-hair unit" for "tools on synthetic hair", "the indoor pool" for "outdoor pools")? An adjective picks a
    kind the rule's bound does not cover; a noun modifier alone ("the server room" of "guest rooms") does not."""
    rule = _adjective_mods(form.text)
    if not rule:
        return False
    for t in parse(claim.text):
        if not (clause.start <= t.idx < clause.end) or a.start <= t.idx < a.end or key(t) not in rule:
            continue
        theirs = {key(c) for c in t.children if _kind_adjective(c)}
        if theirs and not (theirs & (rule[key(t)] | _content_keys(form.text))) and not (rule[key(t)] & clause.keys):
            return True
    return False


def _flipped(form: Form, clause: Clause) -> bool:
    """The clause says the opposite state of the constraint's word ("closed" for "open", "inside" for
    "outside") without the word itself."""
    words = set(form.object) | set(form.action) | set(form.subject)
    present = clause.keys | clause.verbs
    return any((ANTONYMS.get(w, set()) & present) and w not in present for w in words)


def _matches(form: Form, clause: Clause, kinds: set[str] | frozenset[str] = frozenset()) -> bool:
    """Does the clause speak of the constraint's event (its action or thing, and enough of its words)?
    ``kinds``: the rule's nouns the clause names by a kind of them ("a drake" for "ducks", ``categories``)."""
    words = clause.keys | clause.facts | kinds
    subj = set(form.subject) - GENERIC
    obj = set(form.object) - GENERIC - subj  # what distinguishes the object from the subject
    act = set(form.action)
    hit_obj = obj & words
    hit_subj = subj & words
    hit_act = act & (clause.verbs | words)
    if _other_kind(form, clause):
        return False
    if hit_act:
        return bool(hit_obj) or (not obj and bool(hit_subj))
    if len(obj) >= 2 and hit_obj == obj and hit_subj and not (clause.verbs & (obj | subj)):
        return True  # every word of its object and its subject: the same event told with another verb
    if act and clause.verbs - LIGHT_VERBS:  # the clause does something else with the same things
        return False
    if act:  # a light verb ("go", "put"), or none: the things must be named in full
        if not clause.verbs and clause.permissive and len(hit_obj) >= 2:
            return True  # "Flash is fine in the east gallery": the forbidden thing declared allowed
        return (bool(obj) and hit_obj == obj) or (len(hit_obj) >= 2 and bool(hit_subj))
    if clause.verbs - LIGHT_VERBS - PERMISSIVE:  # a rule without its own verb: the clause must not be
        return (bool(obj) and hit_obj == obj) and bool(hit_subj)  # about another action of the things
    if subj and not hit_subj:  # "Somersaults are forbidden on the main court": the place alone is not the act
        return False
    return len(hit_obj) >= 2 or (bool(hit_obj) and bool(hit_subj)) or (not obj and len(hit_subj) >= 2)


def _by_kind(form: Form, clause: Clause, claim: Claim) -> bool:
    """Does the clause speak of a plain rule's event once the rule's things named by a kind of them count
    ("the drakes" for "ducks")? A kind is weaker evidence than the rule's own word, so the rest must be whole:
    no condition, exception or time in the rule, and every word of its subject and object named (the doer
    too: "the keeper fed the goats" is not "Visitors must not feed the animals")."""
    if _RULE_SCOPE_RE.search(form.text):
        return False
    doc = parse(claim.text)
    kinds = categories.kind_keys(form.text, doc, clause.start, clause.end, clause.keys | clause.facts,
                                 clause.denied, frozenset(form.action))
    kinds |= categories.verb_kind_keys(form.text, tuple(form.action), doc, clause.start, clause.end)
    if not kinds:
        return False
    words = clause.keys | clause.facts | kinds
    unnamed: set[str] = set()  # the other members of a list of which the clause names one
    for group in (categories.coordinated_things(form.text), *categories.coordinated_places(form.text)):
        named = [m for m in group if _stem_hits(set(m), words) == len(m)]
        if named:  # "Food, drink and clinical specimens", "in the mounting room or the specimen store"
            unnamed |= set().union(*group) - set().union(*named)
    if unnamed:
        form = form.model_copy(update={"subject": [k for k in form.subject if k not in unnamed],
                                       "object": [k for k in form.object if k not in unnamed]})
    if not _matches(form, clause, kinds):
        return False
    need = (set(form.subject) | set(form.object)) - GENERIC
    return _stem_hits(need, words) == len(need)


def _names_duty(form: Form, clause: Clause) -> bool:
    """ "Chaps are optional for chainsaw operators": the subject of a duty and its object (or action)
    named in a clause that calls it optional."""
    words = clause.keys | clause.facts
    subj = set(form.subject) - GENERIC
    obj = set(form.object) - GENERIC - subj
    hit_subj = bool(subj & words)
    return hit_subj and (bool(obj & words) or bool(set(form.action) & (clause.verbs | words)) or not obj)


def _denies_required(form: Form, clause: Clause) -> bool:
    """ "Callers go out live without any delay": the required thing is denied where the subject or the
    action of the rule is named."""
    req = set(form.object) - GENERIC - set(form.subject) - trigger_keys(form.text)
    if not (req & clause.denied) or clause.negverb or clause.negated:
        return False
    if form.quantity is not None and form.quantity.dimension == "[time]" and not form.quantity.period and \
            not re.search(r"\b(?:without|no)\b", clause.text, re.I):
        return False  # "stay sealed for 48 hours": the state ends ("unsealed"); the time between decides
    words = clause.keys | clause.facts
    if _denied_of_other_noun(form.text, req & clause.denied, words):
        # "the unlocked feed store holds feed" for "Formalin must be stored only in the locked chemical shed": a
        # denied modifier of another noun speaks of the rule only where the clause names the rule's subject
        return bool(set(form.subject) & words)
    return bool((set(form.subject) & words) or (set(form.action) & (clause.verbs | words)))


def _denied_of_other_noun(rule: str, denied: set[str], words: set[str]) -> bool:
    """Is each word the clause denies a modifier of a noun of the rule that the clause does not name ("locked"
    of "the locked chemical shed", where the claim's "unlocked" is said of a feed store)? A denied modifier
    speaks of the rule's thing only where that thing is named with it."""
    doc = parse(rule)
    heads = [t.head for t in doc if key(t) in denied and t.dep_ == "amod" and t.head.pos_ == "NOUN"]
    return bool(heads) and len(heads) == len(denied) and all(key(h) not in words for h in heads)


# a rule whose duty holds only in some cases: its scope is not read whole by a form without a trigger
_RULE_SCOPE_RE = re.compile(r"\b(?:when|whenever|if|once|while|unless|except|where|provided|as long as|in case|"
                            r"than|above|below|over|under|exceeding|during|before|after|until)\b|\d", re.I)
_OPTIONAL_WORD_RE = re.compile(r"^(?:optional|recommended|voluntary|advisory|discretionary)$", re.I)


@lru_cache(maxsize=4096)
def _subject_scope(text: str) -> frozenset[str]:
    """The words that narrow a rule's subject ("Chainsaw operators", "Everyone in the apiary", "A sail
    intended for class racing"): the subject's modifiers, phrases and clauses, without generic words."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    out: set[str] = set()
    for s in (t for t in doc if t.dep_ in ("nsubj", "nsubjpass") and root is not None and t.head.i == root.i):
        for c in s.children:
            if c.dep_ in ("amod", "compound", "nmod", "acl", "relcl", "prep", "npadvmod"):
                out |= set(keys(c.subtree))
    return frozenset(out - GENERIC)


def _scope_untold(form: Form, claim: Claim, c: Clause) -> bool:
    """Does the duty hold only "while V-ing" and the claim's clause not tell that activity ("Neither Ann nor Bo
    was wearing goggles in the canteen" for "Goggles must be worn at all times while welding")? Then the
    dropped duty may not have applied: a guess."""
    return bare_while(form.text) is not None and not scope_told(form.text, parse(claim.text), c.start, c.end)


def _drops_in_scope(form: Form, claim: Claim, c: Clause) -> bool:
    """Does the clause drop a plain duty whose bare "while V-ing" scope the claim's sentence tells ("Neither of
    them was wearing a helmet when they rode" for "Helmets must be worn at all times while riding")? The duty
    is then read without its scope, which the claim has met."""
    doc = parse(claim.text)
    if not scope_told(form.text, doc, c.start, c.end):
        return False
    scope = bare_while(form.text)
    assert scope is not None
    return events.drops_required(form.model_copy(update={"text": form.text.replace(scope[0], "")}), doc,
                                 c.start, c.end)


def _firm_duty_drop(form: Form, claim: Claim, c: Clause) -> bool:
    """Is a dropped duty ("A visitor walked through the apiary without a veil", "Chaps are optional for
    chainsaw operators") read firmly? The rule is a plain duty (no amount, condition, exception or time:
    nothing narrows when it holds beyond its subject), the claim names the subject with every word that
    narrows it ("a sail intended for class racing" is not any sail), and an "optional" is said of the duty,
    not of another thing ("the optional photo sheet")."""
    q = form.quantity
    scope_text = form.text
    if q is not None:
        # "must run on a delay of at least 7 seconds": a minimum of the required thing itself is broken by
        # the thing's absence ("went out live with no delay at all"); a maximum is kept by it
        if not minimum_absent(form, parse(claim.text), c.start, c.end):
            return False
        scope_text = re.sub(rf"\b(?:at least|no less than|not less than|a minimum of)?\s*{re.escape(q.text)}", " ",
                            form.text)
    if scope_told(form.text, parse(claim.text), c.start, c.end):
        scope_text = scope_text.replace(bare_while(form.text)[0], " ")  # type: ignore[index]
    if form.trigger or form.window or form.order or _RULE_SCOPE_RE.search(scope_text):
        return False
    words = set().union(*(x.keys | x.facts for x in claim.clauses))
    if _stem_hits(set(_subject_scope(form.text)), words) < len(_subject_scope(form.text)):
        return False
    req = set(form.object) | set(form.action)
    for t in parse(claim.text):
        if c.start <= t.idx < c.end and _OPTIONAL_WORD_RE.match(t.text) and t.dep_ == "amod" and \
                key(t.head) not in req:
            return False
    return True


def _names_subject(form: Form, claim: Claim) -> bool:
    """Does the claim name every word of the rule's subject and at least one of its object?"""
    words = set().union(*(x.keys | x.facts for x in claim.clauses)) if claim.clauses else set()
    subj = set(form.subject) - GENERIC
    obj = set(form.object) - GENERIC - subj
    return bool(subj) and _stem_hits(subj, words) == len(subj) and (not obj or _stem_hits(obj, words) >= 1)


def _scope_named(form: Form, claim: Claim, but: frozenset[str] = frozenset()) -> bool:
    """Does the claim name every word that narrows the rule's subject ("leaving the workshop") and every word of
    its when/if condition ("when spraying solvent lacquer"), none of them denied (``but`` those words)? A duty's
    thing said missing in a claim that does not is as likely outside the rule's scope as a break of it."""
    scope = set(withheld.scope_keys(form.text)) - but
    words = set().union(*(x.keys | x.facts for x in claim.clauses)) if claim.clauses else set()
    denied = set().union(*(x.denied for x in claim.clauses)) if claim.clauses else set()
    return _stem_hits(scope, words) == len(scope) and not (scope & denied)


def _permits_forbidden(form: Form, c: Clause, claim_doc: Any) -> bool:
    """Does the clause grant, as a permission, the very thing a plain prohibition forbids ("Lithium batteries
    can go by air if ..." for "must never be shipped by air", "Poll workers may wear campaign hats inside")?
    A permission needs no verb of the rule's: it names the forbidden thing itself, in full, for the rule's
    subject; a rule with an amount, a condition or a time is not plain."""
    if not c.permissive or c.negated or form.quantity or form.trigger or form.window or form.order or \
            _RULE_SCOPE_RE.search(form.text):
        return False
    words = c.keys | c.facts
    subj = set(form.subject) - GENERIC
    obj = set(form.object) - GENERIC - subj
    named = (bool(obj) and _stem_hits(obj, words) == len(obj)) or (not obj and _stem_hits(subj, words) == len(subj))
    return named and bool(subj) and _stem_hits(subj, words) >= 1 and _grants(c, claim_doc)


_GRANT_WORDS = frozenset({"fine", "ok", "okay", "acceptable", "welcome", "allowed", "permitted", "free"})


def _grants(c: Clause, doc: Any) -> bool:
    """Is the clause's permission grammatical: a modal of permission on its verb ("can go", "may wear"), a
    verb of permission, or a predicate of permission ("is fine")? Not a word that only looks like one ("the
    open evening"). ``doc`` is the claim's parse (the clause's own tokens are read, no new parse)."""
    span = [t for t in doc if c.start <= t.idx < c.end]
    return any((t.dep_ == "aux" and t.lower_ in ("may", "can", "could", "might")) or
               (t.pos_ == "VERB" and t.lemma_ in ("allow", "permit")) or
               (t.lower_ in _GRANT_WORDS and t.dep_ in ("acomp", "ROOT", "attr", "conj", "oprd")) for t in span)


def _optional_elsewhere(form: Form, c: Clause, doc: Any) -> bool:
    """Is the clause's "optional" only a word describing another thing than the rule's ("the optional photo
    sheet", "optional reed touch-ups" for "Reed pipes must be cleaned")? A thing that is optional says
    nothing of the duty; the clause then makes nothing optional."""
    own = set(form.object) | set(form.action) | set(form.subject)
    words = [t for t in doc if c.start <= t.idx < c.end and _OPTIONAL_WORD_RE.match(t.text)]
    if not words or any(t.dep_ != "amod" or key(t.head) in own for t in words):
        return False
    ids = {t.i for t in words}
    rest = " ".join(t.text for t in doc if c.start <= t.idx < c.end and t.i not in ids)
    return not OPTIONAL_RE.search(rest)


# a word of duty: a rule with one requires its thing; "may ... only with" only bounds what may be used
_DUTY_RE = re.compile(r"\b(?:must|shall|required?|needs?|has to|have to|is to|are to)\b", re.I)


def only_allows(form: Form) -> bool:
    """Is the rule a list of allowed means and nothing else ("Anchors may be built only with ice screws or
    V-threads")? It bounds what the doing may be done with; it requires no member, so a member said optional,
    left out or not used ("the backup screw was optional") drops nothing it requires."""
    return form.modality == "must" and bool(form.use_members) and not _DUTY_RE.search(form.text)


# a comparative against a bound: denied in the claim, it says the bound was not passed
_COMPARATIVE_RE = re.compile(r"\b(?:\w+er|more|less|fewer)\s+than\b", re.I)


def check_modal(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """Prohibitions affirmed or permitted; obligations negated, skipped ("without") or made optional."""
    out = []
    for f in forms:
        if f.trigger or f.window or f.exclusion or f.agents or (f.order and f.modality != "must") or \
                only_allows(f):
            continue
        for c in claim.clauses:
            if scoped.act_elsewhere(f.text, claim.text, c.start, c.end):
                continue  # "took their helmets off back at the car park" for "Every client on the ice must ..."
            # a rule of order keeps this reading: it stands before the order check's own reading of the events
            optional = c.optional and (f.order is not None or not _optional_elsewhere(f, c, parse(claim.text)))
            if f.modality == "must" and not (set(f.action) & NEGATING) and (
                    _denies_required(f, c) or (optional and not c.negated and _names_duty(f, c))):
                firm = _firm_duty_drop(f, claim, c) or (
                    optional and waived.declares_optional(f, parse(claim.text), c.start, c.end))
                if firm or f.action != [HAVE] or _scope_named(f, claim):  # a duty to hold: as ``withheld`` below
                    out.append(_finding(f, claim, c.start, c.end, "require",
                                        f"the claim drops what {f.text!r} requires", firm=firm))
                    break
            by_kind = False  # the rule's thing named only by a kind of it: never a guess both readings share
            if not _matches(f, c):
                if not _by_kind(f, c, claim):
                    continue
                by_kind = True
            if f.quantity is not None:  # a bound: only "optional" or "does not require" speak to it here
                requires = bool(re.search(r"\b(?:require[sd]?|needs?)\b", f.text, re.I))
                if (f.modality in ("must", "must_not") and optional and not c.negated) or (
                        requires and c.negated and REQUIRE_VERBS & (c.verbs | c.keys)):
                    out.append(_finding(f, claim, c.start, c.end, "require",
                                        f"the claim makes {f.text!r} optional",
                                        firm=optional and waived.declares_optional(f, parse(claim.text), c.start,
                                                                                   c.end)))
                continue
            if f.modality == "must_not":
                if c.negated or c.optional or PROHIBITIVE_RE.search(c.text) or c.negverb or _flipped(f, c) \
                        or ((set(f.object) | set(f.subject)) & c.denied):
                    continue
                doc = parse(claim.text)
                if not by_kind and (events.does_to_other_thing(f, doc, c.start, c.end)
                                    or events.done_to_other_owner(f, doc, c.start, c.end)
                                    or events.done_on_other_target(f, doc, c.start, c.end)):
                    continue  # the rule's verb and place done to another thing: another event
                out.append(_finding(f, claim, c.start, c.end, "forbid", f"the claim does what {f.text!r} forbids",
                                    firm=_permits_forbidden(f, c, doc) or events.does_forbidden(f, doc, c.start,
                                                                                                 c.end),
                                    basis="kind" if by_kind else ""))
            elif f.modality == "must":
                if set(f.action) & NEGATING:
                    continue  # "X rejects null keys": a denial stated as a duty; the lexicon reads it
                req = set(f.object) or set(f.action)
                skipped = bool(req & c.denied) and not c.negverb  # "without TLS ... are rejected" complies
                if c.negated and _COMPARATIVE_RE.search(f.text) and _COMPARATIVE_RE.search(c.text):
                    continue  # "Nothing left later than 04:15" for "must leave no later than 04:15": a bound kept
                if optional or skipped or (c.negated and not c.denied) or (c.negverb and not c.denied):
                    out.append(_finding(f, claim, c.start, c.end, "require",
                                        f"the claim drops what {f.text!r} requires",
                                        sure=not _scope_untold(f, claim, c),
                                        firm=events.drops_required(f, parse(claim.text), c.start, c.end) or
                                        _drops_in_scope(f, claim, c) or (
                                            optional and waived.declares_optional(f, parse(claim.text), c.start,
                                                                                  c.end))))
        if f.modality == "must" and not any(o.constraint == f.text for o in out):
            doc = parse(claim.text)  # "Seed trays go out unlabelled": the participle is a clause of its own
            for s in doc.sents:
                if events.leaves_undone(f, doc, s.start_char, s.end_char):
                    out.append(_finding(f, claim, s.start_char, s.end_char, "require",
                                        f"the claim leaves undone what {f.text!r} requires", firm=True))
                    break
        if f.modality == "must" and not any(o.constraint == f.text and o.firm for o in out):
            doc = parse(claim.text)  # "three of them untagged" for "Every animal ... must carry an ear tag"
            w = unprefixed.denies_required(f, doc, 0, len(claim.text))
            if w is not None:
                out.append(_finding(f, claim, w.sent.start_char, w.sent.end_char, "require",
                                    f"the claim says {w.text!r} of what {f.text!r} requires", firm=True))
        if f.modality == "must" and not (set(f.action) & NEGATING) and not any(o.constraint == f.text for o in out) \
                and _scope_named(f, claim, but=withheld.holder_words(f.text)):
            # "worked the mixer without a hairnet", "without disinfecting it": the duty's thing or act said to be
            # missing, in a claim that names what narrows the rule's subject and its condition; whether the
            # claim's doer, place and time are the rule's is not read, so it is a suspicion
            doc = parse(claim.text)
            t = withheld.thing_withheld(f, doc, 0, len(claim.text)) or withheld.act_withheld(f, doc, 0, len(claim.text))
            if t is not None and not _scope_named(f, claim):
                t = None  # the doer's own words ("a second") count as scope for a thing said missing
            h = withheld.holder_absent(f, doc, 0, len(claim.text)) if t is None else None
            if t is not None:
                out.append(_finding(f, claim, t.sent.start_char, t.sent.end_char, "require",
                                    f"the claim says what {f.text!r} requires was missing", sure=False))
            elif h is not None:
                # "Transfer 12 went ahead with no second embryologist present": the doer the duty needs, absent
                # where the duty's thing was done; sure for a plain duty, whose scope is then all named
                plain = not _RULE_SCOPE_RE.search(f.text)
                out.append(_finding(f, claim, h.sent.start_char, h.sent.end_char, "require",
                                    f"the claim says the doer {f.text!r} requires was not there",
                                    sure=plain, firm=plain))
            elif withheld.thing_waived(f, doc, 0, len(claim.text)):
                out.append(_finding(f, claim, 0, len(claim.text), "require",
                                    f"the claim makes what {f.text!r} requires optional", sure=False))
            elif (waived.act_waived(f, doc, 0, len(claim.text)) or waived.act_skipped(f, doc, 0, len(claim.text))) \
                    and _names_subject(f, claim):
                # "attendance is treated as voluntary for tenants" for "Every tenant must attend ...": the act
                # itself waived, for the rule's own doer, of the rule's own thing
                out.append(_finding(f, claim, 0, len(claim.text), "require",
                                    f"the claim makes what {f.text!r} requires optional", firm=True))
    return out


# a duty that holds only under a condition ("If a stretcher is carried on steep ground, ...")
_CONDITIONAL_RE = re.compile(r"\b(?:if|when|whenever|once|unless|in case|provided)\b", re.I)


def check_omitted(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """A required step said not done ("moved on without taking the door photo", "given unwitnessed", "the loan
    form was skipped", ``omitted``). Sure where the missing word is the rule's own or its WordNet derivation, the
    claim names whom the rule binds and every word narrowing its scope, the rule grants no exception and sets no
    deadline the step may still meet, and nothing in the claim tells the step done after all; otherwise a
    suspicion. A claim naming the exception the rule grants keeps the rule."""
    out = []
    doc = parse(claim.text)
    found = omitted.gaps(doc)
    for f in forms if found else ():
        if f.modality == "must_not" or f.quantity or f.trigger or f.window or _CONDITIONAL_RE.search(f.text):
            continue  # a duty under a condition or with an amount: whether it held is the other readings' question
        step = omitted.required_step(f.text)
        if step is None:
            continue
        for g in found:
            if not omitted.how_matched(step, g) or omitted.done_elsewhere(step, g, doc):
                continue
            if g.waived and (only_allows(f) or omitted.one_of_several(f.text, g)):
                continue  # "the backup screw was optional": a rule of allowed means requires no one of them
            went = omitted.went_on(g) if g.put_off else "with"
            if not went:
                continue  # a step still to come while nothing went on: nothing is broken yet
            if key(withheld.clause_verb(g.at)) in NEGATING and key(g.at) not in NEGATING:
                continue  # "requests without TLS are rejected": what lacks the step is turned away, as the rule wants
            exception = omitted.excepted(step, doc)
            if exception:
                break  # "except in an emergency" and the claim tells of the emergency
            # the doer a passive duty names ("accompanied by a member of staff") is what the step needs, not
            # a word narrowing whom the rule binds: a claim need not name it to be within the rule
            doer = frozenset(word_key(w) for w in step.doer_words)
            subject, scope = omitted.names_subject(step, doc), _scope_named(f, claim, but=doer)
            subject = subject or (g.waived and omitted.occasion_named(step, g, doc))
            if not (subject or (scope and withheld.scope_keys(f.text) - doer)):
                break  # neither whom the rule binds nor where or when it holds: the claim may be outside it
            sure = exception is None and not step.deadline and subject and scope and omitted.tied(step, g) and \
                omitted.narrowed_named(step, doc) and omitted.placed(step, g) and \
                not omitted.held_elsewhere(step, g, doc) and went == "with"
            if not sure and f.action == [HAVE]:
                break  # a duty to hold a thing: the word-level reading keeps its own say, which a guess would hide
            out.append(_finding(f, claim, g.token.sent.start_char, g.token.sent.end_char, "require",
                                f"the claim says a step {f.text!r} requires was not done", sure=sure, firm=sure,
                                basis="step"))
            break
    return out


def _reserved_agent(form: Form, words: set[str], text: str, mods: dict[str, set[str]] | None = None) -> bool:
    """Is this doer the one the rule reserves the action for, with its qualifiers ("Priya, a licensed
    operator"), and not "any operator, licensed or not", "an unlicensed operator" or "the assistant
    brewer" for "the head brewer"? A doer named by the bare head noun is taken as the reserved one."""
    same = bool(set(form.agents) & words)
    own = set().union(*((mods or {}).get(a, set()) for a in form.agents)) if form.agents else set()
    qualified = all(q in words for q in form.agent_qualifiers) or not own
    if not same and roles.group_for_group(form, words):
        # "our licensed bar team" for "the licensed bar staff": one body of people, every qualifier named
        same, qualified = True, all(q in words for q in form.agent_qualifiers)
    unqualified = bool(re.search(r"\bor not\b|\bany\b|\bwithout\b", text)) or any(
        re.search(rf"\b(?:non\s*-?\s*|un){re.escape(w[:5])}", text) for w in
        list(form.agent_qualifiers) + list(form.agents))
    return same and qualified and not unqualified


def valueless(forms: Sequence[Form], claim: Claim) -> set[str]:
    """Measured constraints (a unit-bearing quantity) of whose dimension the claim and its cited chunks
    hold no value at all: a number the word-level reading took for one ("barn 4" for a temperature)
    is then doubtful."""
    dims = {a.dim for a, _ in claim.amounts + claim.chunk_amounts}
    out = set()
    for f in forms:
        q = f.quantity
        if q is None or q.dimension.startswith("count:") or q.dimension in dims or q.dimension == "[time]":
            continue
        if UNBOUNDED_RE.search(claim.text):
            continue
        out.add(f.text)
    return out


_ROLE_NOUN_RE = (r"\s+(?:(?:is|was)\s+(?:a|an|the|our|one of the|their|its)|(?:works|worked|serves|served|is employed)"
                 r"\s+as(?:\s+(?:a|an|the))?)\s+(?P<role>[\w\s-]{1,50}?)(?=[.,;:()]|\s+(?:who|and|since|on|at|in|for|"
                 r"with|from|until)\b|$)")
_ROLE_ADJ_RE = r"\s+(?:is|was|has been)\s+(?P<neg>not\s+)?(?P<adj>[a-z-]+)\b"


def chunk_role(name: str, claim: Claim) -> set[str] | None:
    """The keys of the role a cited chunk gives a named person: a role noun ("Staff list: Rosa is the
    grower", "Tia Wong works as a groom"), or a state that is the rule's qualifier ("Jo is trained",
    "Omar is not certified": the key, with "not" when denied). None when no chunk says who they are."""
    name = _name_in(name, claim.text, claim.chunk_texts) or name
    noun = re.compile(re.escape(name) + _ROLE_NOUN_RE, re.I)
    adj = re.compile(re.escape(name) + _ROLE_ADJ_RE, re.I)
    for text in claim.chunk_texts:
        for sent in split_sentences(text):
            m = noun.search(sent)
            if m:
                return set(light_keys(m.group("role")))
            m = adj.search(sent)
            if m and m.group("adj").lower() not in ("a", "an", "the", "on", "in", "at", "off", "out", "away"):
                return {word_key(m.group("adj"))} | ({"not", "adjective"} if m.group("neg") else {"adjective"})
    return None


# nouns for a body of people a rule qualifies with a credential ("staff trained in medicines", "crew holding ...")
_CREW_NOUNS = frozenset(word_key(w) for w in "employee crew team personnel".split())


def _role_is_reserved(form: Form, role: set[str]) -> bool | None:
    """Does a chunk-given role hold the rule's reserved agent with its qualifiers? None when the chunk
    gives a state that is not one of the rule's qualifiers (it says nothing of the role)."""
    denied = "not" in role or any(k.startswith(("un", "non", "trainee", "apprentic", "assist")) for k in role)
    quals = set(form.agent_qualifiers)
    if "adjective" in role:
        if not quals or not (role & quals or any(k.startswith(("un", "non")) and k[2:] in quals for k in role)):
            return None
        return not denied and quals <= role
    if set(form.agents) <= MEMBER_NOUNS | _CREW_NOUNS and not set(form.agents) & role:
        return None  # "staff trained in medicines": a job title ("a kennel assistant") says nothing of it
    return bool(set(form.agents) & role) and quals <= role and not denied


# ---- a roster in a cited chunk: who a named doer is -------------------------------------------------

# words of a rule's agent phrase that hold no credential ("staff holding a valid ... card")
# a description that denies what it names ("holds no PA6", "not a registered courier", "has not been
# trained", "her card was revoked and she has none now")
_DENY_DESC_RE = re.compile(r"\b(?:not|no|none|never|without|revoked|expired|lapsed|suspended|withdrawn|lacks?|"
                           r"\w+n't)\b", re.I)
_BARE_ELLIPSIS_RE = re.compile(r"^\s*(?:does|do|did|is|was|has|have|had)\s*(?:not|n't)\s*(?:\(|[.,;]|$)", re.I)
_ONLY_RE = re.compile(r"\bonly\b", re.I)
_ROSTER_SEP_RE = re.compile(r"^\s*(?:[-\u2013\u2014:,(]\s*)")
_LIST_NAME_RE = re.compile(r"^\s*(?:,|and|&)\s+(?:[A-Z][\w.'-]*\s*)+")


def _proper_in(name: str, claim_text: str) -> bool:
    """Does the claim write these words as a proper name, each capitalised ("Sam Okoro", "J. Lee"), not as a
    role ("the first officer D. Price", "trainee operator Kim Sato": "first officer" is no name)?"""
    words = [re.escape(w) for w in name.split()]
    pat = re.compile(r"(?<![\w-])" + r"\s+".join(words) + r"(?![\w-])", re.I)
    return any(all(w[:1].isupper() for w in m.group(0).split()) for m in pat.finditer(claim_text))


def _name_in(text: str, claim_text: str, chunks: Sequence[str]) -> str | None:
    """The proper name at the start of a doer's phrase that a cited chunk also names ("dana reyes before
    the half" -> "dana reyes"): the longest leading run of its words found in a chunk."""
    words = text.split()
    fuller = given_names.full_name(text, claim_text, chunks)  # "Ellie" beside the roster's "Ellie Barnes"
    if fuller is not None:
        return fuller
    for n in range(min(len(words), 4), 0, -1):
        name = " ".join(words[:n])
        if len(name) < 3:
            continue
        pat = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.I)
        if any(pat.search(t) for t in chunks) and _proper_in(name, claim_text):
            return name
    # "Dr Ruiz" for "Dr Ana Ruiz", "Pete" for "Pete Lunn": one capitalised word of the name, when every
    # mention in the chunks belongs to one and the same full name
    for w in words[-1:] + words[:1]:
        if len(w) < 3 or not re.search(rf"\b{re.escape(w.capitalize())}\b", claim_text):
            continue
        full = {m.group(0) for t in chunks for m in re.finditer(
            rf"(?:\b[A-Z][\w.'-]*\s+){{0,2}}\b{re.escape(w.capitalize())}\b(?:\s+[A-Z][a-z'-]+)?", t)}
        if len(full) == 1 and len(next(iter(full)).split()) >= 2 and roles.same_given_name(
                claim_text, words, w, next(iter(full))):
            return next(iter(full)).lower()
    return None


def _roster_parts(name: str, chunks: Sequence[str]) -> Iterator[tuple[str, list[str], str]]:
    """(what a chunk says right after the name, the parts before it in the chunk, the roster's heading):
    "Staff: Rachel Dunn is the yard manager; Tia Wong is a groom", "Pete Lunn - SFX assistant, Class B
    card", "Jo Kemp (perfusionist)", "Apex Removals holds an asbestos licence; Brightline Builders does
    not", "Chemical-handling certificates. Priya Nair - current, valid to 30 Jun 2027"."""
    pat = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.I)
    for text in chunks:
        before: list[str] = []
        heading = ""
        for n, sent in enumerate(split_sentences(text)):
            if n == 0 and len(sent.split()) <= 5 and not re.search(r"\s[-\u2013\u2014]\s|[(:]|\b(?:is|are|was|were)\b",
                                                                  sent):
                heading = sent  # "Staff and roles." over a list of names
            for part in filter(str.strip, re.split(r"(?<=;)", sent)):
                m = pat.search(part)
                head = part.split(":", 1)[0] if ":" in part[: m.start() if m else len(part)] else ""
                if m is None:
                    before.append(part)
                    continue
                desc = _LIST_NAME_RE.sub("", part[m.end():], count=1)
                paren = desc.lstrip().startswith("(")
                desc = _ROSTER_SEP_RE.sub("", desc, count=1)
                if paren:
                    desc = desc.split(")", 1)[0]
                yield desc, list(before), head or heading
                before.append(part)


# a word that makes a description a person's role ("a furnace hand", "Seed technician", "a deckhand")
_ROLE_HEAD_RE = re.compile(r"^(?:the |a |an |our |one of the )?(?:[\w-]+ ){0,3}?(?:\w+(?:er|or|ist|ian|ant|man|"
                           r"hand|nurse|clerk|porter|usher|driver|apprentice|trainee|intern|student|volunteer|"
                           r"member|groom|chef|cook|guard|steward|agent|head|lead|aide|crew))\b(?=\s*(?:[,;.(]|$))",
                           re.I)
# words that say the holder does not (yet) have what they name
_PENDING_RE = re.compile(r"\b(?:candidate|applicant|pending|awaiting|in training|trainee|aspiring|provisional)\b",
                         re.I)


# a roster entry that opens with a learner's title ("apprentice", "trainee technician", "student nurse"): the
# person is still learning the craft, so holds no reserved post or credential of it (unless the rule names learners)
_LEARNER_RE = re.compile(r"^\s*(?:an? |the |one of the )?(?:[a-z-]+\s){0,2}?(?:apprentice|trainee|intern|student)s?\b",
                         re.I)
_LEARNER_KEYS = ("apprentic", "traine", "intern", "student")


# a course or an assessment still ahead ("CWI assessment booked for January"), unless the entry also says the
# credential is held and only its renewal is ahead ("CWI, current; refresher booked for May")
_BOOKED_RE = re.compile(r"\b(?:booked|scheduled|in progress)\b", re.I)
RENEWAL_RE = re.compile(r"\b(?:current|valid|holds?|held|passed|issued|awarded|renewal|refresher|revalidation|"
                        r"re-?certification|re-?assessment)\b", re.I)


def _holds(form: Form, desc: str, heading: str = "") -> bool | None:
    """Does a description give the rule's reserved doer (True), deny it (False) or say nothing of it?
    The roster's heading ("Chemical-handling certificates.") says what each entry is about."""
    agents = set(form.agents)
    alts = alternatives(form)
    every = set().union(*alts) | agents if alts else agents
    desc = denials.without_numero(desc)  # "certificate no. CT-2219" names a serial, not a denial
    dk = desc_keys(desc)
    hk = dk | desc_keys(heading)
    shared = {k for k in every if has_key(hk, k)}
    if _DENY_DESC_RE.search(desc) or _PENDING_RE.search(desc):
        return False if shared else None
    if _LEARNER_RE.match(desc) and not any(k.startswith(_LEARNER_KEYS) for k in every):
        return False  # "O. Pryce - apprentice", "apprentice groomer, year 1": still learning the reserved craft
    if _BOOKED_RE.search(desc) and not RENEWAL_RE.search(desc) and any(has_key(dk, k) for k in every):
        return False  # the entry's own words name what is booked ("CWI assessment booked for January")
    if any(all(has_key(hk, k) for k in need) for need in alts):
        return True
    if _ONLY_RE.search(desc) and shared:
        return False  # "holds only an A1/A3 certificate" for one holding an A2 certificate
    if len(alts) <= 1 and not any(has_key(dk, k) for k in every) and _ROLE_HEAD_RE.match(desc.strip()):
        return False  # another role outright: "Dale Frost - furnace hand" for "the melt supervisor"
    return None


def roster_role(form: Form, text: str, claim: Claim) -> bool | None:
    """Is the named doer of a claim the one a rule reserves the action for, by what a cited chunk's roster
    says of that name: True (the chunk gives the reserved role or credential), False (it denies it: "holds
    no spraying certificate", "not a registered courier", "X holds a licence; Y does not", "holds only an
    A1/A3 certificate"), None (it says nothing of it)."""
    if not claim.chunk_texts or not form.agents:
        return None
    name = _name_in(text, claim.text, claim.chunk_texts)
    if name is None:
        return None
    for desc, before, heading in _roster_parts(name, claim.chunk_texts):
        if _BARE_ELLIPSIS_RE.match(desc):
            if before and _holds(form, before[-1].split(":")[-1], heading):
                return False  # "Apex holds an asbestos licence; Brightline does not"
            continue
        said = _holds(form, desc, heading)
        if said is not None:
            return said
    return None


def cleared(forms: Sequence[Form], claim: Claim) -> set[str]:
    """Constraints the claim positively keeps: a reserved action done by exactly the reserved doer (named
    with the role, or named by a name a cited chunk gives that role); two things kept apart each put in a
    place of its own."""
    out = set()
    for f in forms:
        if len(f.exclusion) == 2 and (pair := apart.rule_pair(f.text)) is not None and _kept_apart(pair, claim):
            out.add(f.text)
        if f.modality == "must" and _dropped_only_elsewhere(f, claim):
            out.add(f.text)
        if not f.agents:
            continue
        doers = [(w, t, c) for c in claim.clauses if not c.negated and set(f.action) & (c.verbs | c.keys)
                 for w, t in c.agents if w]

        if doers and all(_doer_reserved(f, w, t, c, claim) for w, t, c in doers):
            out.add(f.text)
    return out


def _dropped_only_elsewhere(form: Form, claim: Claim) -> bool:
    """Does the claim drop a duty's thing only at a place other than the one the rule binds in ("took their
    helmets off back at the car park; out on the ice everyone kept them on")? Every clause that names the
    rule's thing or act and denies, undoes or waives it is told elsewhere (``scoped``)."""
    req = (set(form.object) | set(form.action)) - GENERIC
    drops = [c for c in claim.clauses if (c.negated or c.negverb or c.optional or c.denied) and
             _stem_hits(req, c.keys | c.verbs)]
    return bool(drops) and all(scoped.act_elsewhere(form.text, claim.text, c.start, c.end) for c in drops)


def _doer_reserved(form: Form, words: set[str], text: str, clause: Clause, claim: Claim) -> bool:
    """Is this doer the reserved one: by a chunk-given role for a name, else by the words the claim uses?"""
    holds = _named_holds(form, text, claim)[0] if text in clause.named else None
    if holds is None:
        holds = roles.named_role(form, claim.text, text, claim.chunk_texts)[0]
    if holds is None and roles.states_credential(form, text):
        return True  # "Ewan, who holds a current ADR card": the claim says the doer holds what the rule asks
    if holds is not None or text in clause.named:
        return bool(holds)
    return _reserved_agent(form, words, text, clause.mods)


def _named_holds(form: Form, text: str, claim: Claim) -> tuple[bool | None, set[str] | None]:
    """(does a named doer hold the reserved role, the role a cited chunk gives): by a role noun or state
    ("Rosa is the grower"), else by the chunk's roster ("Tom Hale holds no spraying certificate")."""
    role = chunk_role(text, claim)
    holds = _role_is_reserved(form, role) if role is not None else None
    if holds is None:
        holds = roster_role(form, text, claim)
        if holds is False:
            role = {"without what the rule names"}
    return holds, role


def check_agents(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """Only S may V O: someone else doing (or allowed to do) it contradicts."""
    out = []
    for f in forms:
        if not f.agents:
            continue
        for c in claim.clauses:
            act = set(f.action) & (c.verbs | c.keys)
            obj = _reserved_thing(f) & (c.keys | c.facts)
            if _reserved_thing(f) & c.denied and not obj:
                continue  # "ran only the non-metals batch" for "... may run metals samples": not the rule's thing
            if obj and c.permissive and not c.negated and re.search(
                    r"\b(?:any|all|every|everyone|anyone|anybody)\b", c.text, re.I) and (
                    set(f.agents) & c.keys or re.search(r"\b(?:everyone|anyone|anybody)\b", c.text, re.I)):
                # firm where the clause itself says the rule's credential does not matter ("licensed or not")
                either = denials.names_credential(denials.either_keys(c.text),
                                                  set(f.agent_qualifiers).union(*alternatives(f)))
                out.append(_finding(f, claim, c.start, c.end, "only_agent",
                                    f"the claim opens to anyone what {f.text!r} reserves", firm=either))
                break  # "the zone is open to any vessel, licensed or not"
            if not (act or obj) or c.negated:
                continue
            if act and not obj and _another_rules_thing(f, forms, parse(claim.text), c):
                continue  # "the release change was signed off by ..." for "the rental agreement must be signed by"
            if act and not obj and _made_thing_other(f, parse(claim.text), c):
                continue  # "signed the takings sheet" for "the marquee must be signed off by ...": another thing
            thing = _rule_thing(f.text, tuple(f.action))
            if not act and thing and not _stem_hits({thing}, obj) and not any(
                    _stem_hits(set(m), obj) == len(m) for m in categories.coordinated_things(f.text)):
                continue  # neither the rule's verb nor its thing ("went on the dive" for "a checklist must be
                # signed by the pilot before each dive": the shared word only times the rule's event)
            for words, text in c.agents:
                own = roles.doer_keys(claim.text, text)
                own = words if own is None else own
                if not words or own & (set(f.object) | set(f.action)) and not own & set(f.agents):
                    continue  # the rule's own thing or patient ("the lane closure ran", "the client signed")
                if roles.is_patient(claim.text, text):
                    continue  # "The M2 eight was coxed by ...": the doer is the "by" agent
                holds, role = _named_holds(f, text, claim) if text in c.named else (None, None)
                if holds is None:  # a title, an apposition, a roster entry under the person's initials
                    holds, role = roles.named_role(f, claim.text, text, claim.chunk_texts)
                if holds is None and text not in c.named:  # "Mira Sollen, whose permit ...": the roster by name
                    holds, role = _named_holds(f, text, claim)
                if holds is False and _linked_other_thing(f, c, text, obj, claim):
                    holds, role = None, None  # known only by a given name, doing the verb to a thing unsure
                if holds or _said_to_be(f, text) or (holds is None and roles.states_credential(f, text)):
                    continue  # a cited chunk says the named doer holds the reserved role, or the claim does
                role = role if holds is not None else None  # a state the rule does not name: unknown
                if role is not None and _doer_thing_other(f, c, text, claim):
                    continue  # "ran the bouldering taster sessions" for "run top-rope induction sessions"
                if role is None:  # "a trainee miner"; "the guest presenter" while "the duty technician was on break"
                    role = (None if text in c.named else credential.lacks(f, claim.text, text)) or \
                        credential.stand_in(f, claim.text, text)
                if role is not None and not act:  # a doer ruled out, doing the rule's act in other words
                    act = _kindred_act(f, c, text, claim)
                if not (act or len(obj) >= 2) and (role is None or not _firm_doing(f, c, act)):
                    continue  # one shared word ties the clause to the rule only for a doer a chunk rules out
                if role is None and _reserved_agent(f, words, text, c.mods):
                    continue
                if words <= {"who", "that", "which", "it", "they", "he", "she", "we"}:
                    continue
                detail = (f"the claim or a cited chunk says {text!r} is {' '.join(sorted(role))}, not who {f.text!r} reserves "
                          "the action for") if role is not None else (
                    f"{text!r} is not who {f.text!r} reserves the action for")
                # the clause's doer does the reserved action when that action is the clause's verb or the
                # verb acts on the rule's thing; an action named only as a noun, with none of the rule's
                # things ("stays off until the utility inspection"), ties the doer to nothing
                sure = bool(act) and not words & (set(f.object) | set(f.action))
                firm = role is None and sure and _other_role_does(f, c, words, text, claim)
                if role is not None:  # a doer a cited chunk says is not the reserved one
                    sure = _firm_doing(f, c, act) and not own & (set(f.object) | set(f.action))
                out.append(_finding(f, claim, c.start, c.end, "only_agent", detail, sure=sure,
                                    by_name=text in c.named and role is None, firm=role is not None or firm,
                                    arbitrable=bool(set(f.action) & c.verbs or obj) or role is not None))
                break
    return out


def _linked_other_thing(form: Form, c: Clause, text: str, obj: set[str], claim: Claim) -> bool:
    """Is a doer the claim calls by a given name alone (found in the records as "C. Reid") said to act on a thing
    that is neither the rule's own nor, by WordNet, a kind of it ("set the moissanite" for "may set diamonds")?
    The link by a given name is a reading of its own; the act must then be the rule's beyond doubt."""
    if obj or given_names.full_name(text, claim.text, claim.chunk_texts) is None:
        return False
    thing = _rule_thing(form.text, tuple(form.action))
    return not thing or thing not in categories.kind_keys(form.text, parse(claim.text), c.start, c.end,
                                                          c.keys | c.facts, verbs=set(form.action))


# verbs too empty to tell an act by themselves ("run" and "take" are not: "ran the scribe" operates it)
_EMPTY_VERBS = LIGHT_VERBS - {word_key("run"), word_key("take")}


def _doer_thing_other(form: Form, c: Clause, text: str, claim: Claim) -> bool:
    """Is what the doer's own verb is done to another kind of the rule's thing: the rule's head noun with common-noun
    modifiers of its own (lower case words, not a code or a name: "the HV breaker", "Mr Ng's 12 May prescription"
    stay the rule's) and none of the rule's ("ran the bouldering taster sessions" for "run top-rope induction
    sessions")?"""
    info = c.doers.get(text)
    head = _rule_thing(form.text, tuple(form.action))
    if info is None or not head:
        return False
    mods = _reserved_thing(form) - {head}
    if not mods:
        return False
    rule_mods = [t.lemma_.lower() for t in parse(form.text) if key(t) in mods]
    for v in parse(claim.text):
        if not (c.start <= v.idx < c.end and v.pos_ in ("VERB", "AUX") and key(v) == info[0]):
            continue
        for o in v.children:
            if o.dep_ not in ("dobj", "nsubjpass") or key(o) != head:
                continue
            own = [m for m in o.children if m.dep_ in ("amod", "compound") and m.text.isalpha() and m.text.islower()]
            if own and not _stem_hits(mods, {key(m) for m in o.subtree}) and not any(
                    wordnet.is_a(m.lemma_.lower(), r) for m in own for r in rule_mods):
                return True  # a kind of the rule's modifier is the rule's ("the kidney box" for "an organ box")
    return False


def _kindred_act(form: Form, c: Clause, text: str, claim: Claim) -> set[str]:
    """The rule's action keys where the doer's own verb does the rule's act in other words, by WordNet: a word of
    the rule verb's most common sense ("ran the air scribe" for "operate": operate, run) or a manner of one of its
    first senses ("flew" for "pilot"), done to the rule's own thing (its object or passive subject shares a word
    of the rule's thing). Empty otherwise. Read only for a doer a record or the claim rules out."""
    info = c.doers.get(text)
    if info is None or not wordnet.available():
        return set()
    verb, things, _, _ = info
    if verb in _EMPTY_VERBS or not things & _reserved_thing(form):
        return set()
    lemmas = {t.lemma_.lower() for t in parse(claim.text) if c.start <= t.idx < c.end and t.pos_ == "VERB"
              and key(t) == verb}
    out = set()
    for k, rule_lemma in categories.rule_verbs(form.text, tuple(form.action)):
        if any(lm in wordnet.first_verb_sense(rule_lemma) or wordnet.verb_sense_is_a(lm, rule_lemma)
               for lm in lemmas):
            out.add(k)
    return out


def _made_thing_other(form: Form, doc: Any, c: Clause) -> bool:
    """Does the clause do the rule's verb to another thing than the rule's, where the rule's thing is a made
    object ("the marquee", "the gas valve") and the clause's is surely no kind of it and no person ("Priya signed
    the takings sheet" for "The marquee must be signed off by the site safety officer")? A made object is told by
    its own name, so another thing is another event. A rule's thing that is no made object ("pyrotechnic
    effects", "a competitor") may be told by a word WordNet does not put under it ("flash pots", "the swimmer")."""
    thing = _rule_thing(form.text, tuple(form.action))
    lemmas = [t.lemma_.lower() for t in parse(form.text) if thing and t.pos_ == "NOUN" and key(t) == thing]
    if not lemmas or wordnet.under(lemmas[0], frozenset(wordnet.noun_senses("artifact", 1)), 1) != (True,):
        return False
    others = events.other_things(form, doc, c.start, c.end)
    return bool(others) and all(wordnet.names_person(t.lemma_.lower()) is False for t in others)


def _another_rules_thing(form: Form, forms: Sequence[Form], doc: Any, c: Clause) -> bool:
    """Does the clause do the rule's verb to a thing WordNet says is surely none of the rule's, and that another
    locked rule names ("The release change was signed off by T. Weber" against "the rental agreement must be
    signed by a parent" and "Only technicians ... may adjust binding release settings")? The clause then tells
    that other rule's event. WordNet alone is no proof here ("the swimmer" is no kind of "competitor"), so the
    other rule must claim the thing, and the thing must name no person: a person is many kinds at once (a
    swimmer who races is a competitor), which WordNet's one line of kinds does not hold."""
    things = events.other_things(form, doc, c.start, c.end)
    if not things or any(wordnet.names_person(t.lemma_.lower()) is not False for t in things):
        return False
    words = {key(w) for t in things for w in (t, *t.children) if w.pos_ in ("NOUN", "PROPN", "ADJ")} - GENERIC
    return any(words & (set(o.object) | set(o.subject)) for o in forms if o.text != form.text)


@lru_cache(maxsize=4096)
def _rule_thing(text: str, action: tuple[str, ...]) -> str:
    """The head noun of what a rule's action is done to ("Only the referee may disqualify a competitor" ->
    competitor; "Controlled drugs must be signed out by a vet" -> drug), "" when it has none."""
    for t in parse(text):
        if t.pos_ in ("VERB", "AUX") and key(t) in action:
            for c in t.children:
                if c.dep_ in ("dobj", "nsubjpass") and c.pos_ in ("NOUN", "PROPN"):
                    return key(c)
    return ""


_DOER_DENIAL_RE = re.compile(r"\b(?:non\s*-?\s*\w|un\w+(?:ed|ified)\b|without\b|trainee|apprentice|student|"
                             r"volunteer|unqualified|uncertified|unlicensed)", re.I)


def _other_role_does(form: Form, c: Clause, words: set[str], text: str, claim: Claim) -> bool:
    """Is the reserved action done, by grammar, by a doer the claim names by another role? The doer is the
    subject or the "by" agent of the rule's own verb (not a light verb: "cans went into the skip" names no
    doer), acting on the rule's own thing when the rule names one ("opened its control panel" is not "open a
    service door"), and described by a role (not a bare name or a pronoun) that holds none of the reserved
    descriptions ("a licensed electrical contractor" may well be the "licensed electrician"); where the rule
    reserves the action for a generic "staff"/"member" with a credential, the doer must lack it outright ("a
    non-trained seasonal worker"), and so must a doer named by the reserved noun with another modifier, unless the
    role reader (``roles.describes``) puts the doer under the reserved post ("the assistant brewer" for "the head
    brewer"). A thing WordNet calls a kind of the rule's thing is the rule's ("amoxicillin" for "antibiotics"), but
    then only a doer the role reader rules out is another role. A cited chunk that speaks of the doer's role and
    the reserved one together may say the doer holds it."""
    info = c.doers.get(text)
    if info is None:
        return False
    verb, things, role, head = info
    if not role or verb not in form.action or verb in LIGHT_VERBS:
        return False
    thing = _rule_thing(form.text, tuple(form.action))
    by_kind = bool(thing) and not _stem_hits({thing}, things | c.keys | c.facts)
    if by_kind and thing not in categories.kind_keys(form.text, parse(claim.text), c.start, c.end,
                                                     c.keys | c.facts, verbs=set(form.action)):
        return False  # neither the rule's thing nor, by WordNet, a kind of it ("amoxicillin" for "antibiotics")
    alts = alternatives(form)
    # the doer's own phrase denies the rule's credential ("a stagehand without a rigging licence")
    lacks = denials.names_credential(denials.lacked_keys(text), set(form.agent_qualifiers).union(*alts))
    if not lacks and any(need and all(has_key(words, k) for k in need) for need in alts):
        return False
    reserved = set(form.agents) | set(form.agent_qualifiers) | set().union(*alts) if alts else set(form.agents)
    for chunk in claim.chunk_texts:
        for sent in split_sentences(chunk):
            present = set(light_keys(sent))
            if _stem_hits({head}, present) and any(has_key(present, k) for k in reserved):
                return False  # a cited chunk speaks of this doer and the reserved role: it may say they hold it
    if lacks:
        return True
    if by_kind:  # the thing told by a kind of the rule's: the doer's role must rule them out ("a state
        return roles.describes(form, text) is False  # trooper" may well be the "police officer")
    if set(form.agents) & (MEMBER_NOUNS | words):  # "staff", or the same noun with another modifier
        # ("a senior operator" may be the "licensed operator"; "the assistant brewer" is not "the head brewer")
        return bool(_DOER_DENIAL_RE.search(text)) or roles.describes(form, text) is False
    return True


def _reserved_thing(form: Form) -> set[str]:
    """Keys of what a reserved action is done to, less the later event of the rule's order when the action
    comes first ("signed by the pilot before each dive": a clause of the dive names no signing)."""
    thing = set(form.object) - GENERIC
    if form.order is not None and set(form.action) & set(form.order.first):
        thing -= set(form.order.then)
    return thing


def _firm_doing(form: Form, c: Clause, act: set[str]) -> bool:
    """Does the clause do the reserved action itself: the rule's verb, or the rule's thing named in full
    ("gave Dana a keratin chemical straightening" for "perform chemical straightening"), with every label
    of the thing ("a chamber rated NC2": the claim's or its chunk's chamber must be NC2), and no amount
    that scopes the rule ("approve a loan above $1,000": which loans is not read here)?"""
    if form.quantity is not None or form.window is not None:
        return False
    present = c.keys | c.facts
    thing = _reserved_thing(form)
    if any(any(ch.isdigit() for ch in k) and k not in present for k in thing):
        return False
    # one of the rule's coordinated things named in full is the rule's thing ("gel extensions" for "acrylic or
    # gel extensions")
    members = [m - GENERIC for m in categories.coordinated_things(form.text) if m <= thing] or [thing]
    return bool(act) or any(m and m <= present for m in members)


def _stem_hits(words: set[str], present: set[str]) -> int:
    """Shared words, a word also meeting its derivation ("served"/"service", "vaccinated"/"vaccination")."""
    return sum(1 for w in words if w in present or any(len(w) >= 4 and len(p) >= 4 and w[:4] == p[:4]
                                                       for p in present))


@lru_cache(maxsize=4096)
def _rule_doers(text: str) -> frozenset[str]:
    """Keys of the active subjects of a rule's verbs: the doers of its events ("bus" in "before a bus leaves")."""
    return frozenset(key(t) for t in parse(text) if t.dep_ == "nsubj" and t.pos_ in ("NOUN", "PROPN"))


def _only_by_doer(claim: Claim, c: Clause, own: set[str], rule: str) -> bool:
    """Is the clause tied to the event only by the event's doer, named in another role ("He walked round bus
    330" is not "a bus leaves")? A doer names its event only as a subject."""
    doers = _rule_doers(rule) & own
    present = c.keys | c.verbs
    if not doers or _stem_hits(own - doers, present):
        return False
    doc = parse(claim.text)
    toks = [t for t in doc if c.start <= t.idx < c.end and key(t) in doers]
    return bool(toks) and not any(t.dep_ in ("nsubj", "nsubjpass") for t in toks)


def _only_as_modifier(claim: Claim, c: Clause, own: set[str], rule: str = "") -> bool:
    """Is the clause tied to the event only by words that describe another thing ("the safety manager" is no
    safety briefing, "the calibration technician" no calibration run, "on race eve" no setting of "race
    clocks")? Each of its words of the event modifies a noun that is not one of the event's, and that noun
    names a person (a post, not a doing), or a time where the rule's own word is but the label of another of
    its nouns."""
    toks = [t for t in parse(claim.text) if c.start <= t.idx < c.end and _stem_hits(own, {key(t)})]
    labels = _rule_labels(rule) if rule else frozenset()
    return bool(toks) and all(t.dep_ in ("compound", "amod", "nmod") and t.head.pos_ == "NOUN" and
                              not _stem_hits(own, {key(t.head)}) and
                              (key(t) in labels and apart.is_time(t.head) or wordnet.names_person(t.head.lemma_.lower()))
                              for t in toks)


@lru_cache(maxsize=4096)
def _rule_labels(text: str) -> frozenset[str]:
    """Keys of the rule's words that only label another of its nouns ("race" of "Race clocks"), never a noun or
    verb of their own."""
    doc = parse(text)
    mods = {key(t) for t in doc if t.dep_ in ("compound", "amod", "nmod") and t.head.pos_ in ("NOUN", "PROPN")}
    heads = {key(t) for t in doc if t.dep_ not in ("compound", "amod", "nmod") and t.pos_ in ("NOUN", "PROPN", "VERB")}
    return frozenset(mods - heads)


def _event_pos(claim: Claim, words: set[str], other: set[str], rule: str = "") -> Clause | None:
    """The clause that tells an event best (most of its own words); with ``rule``, not one that shares only
    the event's doer in another role, nor one whose words of the event only describe another thing."""
    own = words - other
    best = None
    for c in claim.clauses:
        hit = _stem_hits(own, c.keys | c.verbs)
        if hit and rule and (_only_by_doer(claim, c, own, rule) or _only_as_modifier(claim, c, own, rule)):
            continue
        if hit and (best is None or hit > best[0]):
            best = (hit, c)
    return best[1] if best else None


_WITHOUT_RE = re.compile(r"\bwithout\b", re.I)


def _stretch_bound(form: Form) -> bool:
    """Is the rule a bound on a stretch between repeated steps ("must not work for more than 40 minutes without
    a rest break")? The step comes before and after each stretch, so which came first says nothing sure."""
    return form.quantity is not None and bool(_WITHOUT_RE.search(form.text))


def _names_event(claim: Claim, clause: Clause, own: set[str], other: set[str]) -> bool:
    """Does a clause name an event, not only a noun in a phrase of the other event's verb? "was started again
    for the yaw sweep" tells why the fan started, not that the test section was swept."""
    if _stem_hits(own, clause.verbs) > 0 or _stem_hits(own, clause.keys) >= 2:
        return True
    hits = [t for t in parse(claim.text) if clause.start <= t.idx < clause.end and _stem_hits(own, {key(t)})]
    return not hits or not all(t.pos_ == "NOUN" and _governing_verb_hits(t, other) for t in hits)


def _governing_verb_hits(t: Any, words: set[str]) -> bool:
    """Is the nearest verb above a noun one of ``words``?"""
    for a in t.ancestors:
        if a.pos_ in ("VERB", "AUX"):
            return bool(_stem_hits(words, {key(a)}))
    return False


def check_order(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """A before B: the claim puts B first (explicit before/after/first/afterwards, or by its dates)."""
    out = []
    for f in forms:
        if f.order is None:
            continue
        first_w, then_w = set(f.order.first), set(f.order.then)
        a = _event_pos(claim, first_w, then_w, f.text)
        b = _event_pos(claim, then_w, first_w, f.text)
        if (a is None) != (b is None):  # one event not found by its words: by kinds of them ("massage", "treatment")
            if a is None:
                first_w |= event_kinds.kind_keys(f.text, first_w - then_w, claim.text)
                a = _event_pos(claim, first_w, then_w, f.text)
            else:
                then_w |= event_kinds.kind_keys(f.text, then_w - first_w, claim.text)
                b = _event_pos(claim, then_w, first_w, f.text)
        if not (f.quantity or f.trigger or f.window) and waived.waives(first_w - then_w - GENERIC, set(),
                                                                       parse(claim.text), 0, len(claim.text),
                                                                       step=True):
            # "the buddy check became optional": the step the rule puts first is waived outright
            out.append(_finding(f, claim, 0, len(claim.text), "order",
                                f"the claim makes the step {f.text!r} puts first optional", firm=True))
            continue
        if b is None:
            continue
        if a is None or a is b:
            if a is not None and not b.negated and _timed_order(claim, then_w - first_w, first_w - then_w):
                # one clause to the parser, but two stretches each with its own time ("the first run left at
                # 08:05, and the grip test was completed at 08:30")
                out.append(_finding(f, claim, b.start, b.end, "order",
                                    f"the claim's times put the events of {f.text!r} in the wrong order", firm=True))
            elif a is b and a is not None and not b.negated and (first_w - then_w) & b.denied and \
                    not _found_absent(claim, b):
                out.append(_finding(f, claim, b.start, b.end, "order", f"the claim skips the step {f.text!r} puts first"))
            elif a is b and a is not None and not b.negated and (MARKERS.search(b.text) or _sequenced(
                    b.text, then_w - first_w, first_w - then_w)) and \
                    _precedes(claim, b, a, then_w - first_w, first_w - then_w):
                out.append(_finding(f, claim, b.start, b.end, "order",
                                    f"the claim puts the events of {f.text!r} in the wrong order"))
            continue
        if a.negated or b.negated:
            continue
        if _skipped(claim, first_w - then_w):
            out.append(_finding(f, claim, a.start, a.end, "order", f"the claim skips the step {f.text!r} puts first"))
            continue
        # two events in two clauses, neither denied, the second put first by a marker, a later-marker or
        # their dates: firm (since round 9, once "the first take", "the following morning", a doer both
        # events share and a "before" phrase inside one event's clause were read right, every such finding
        # on the development sets was right)
        if _precedes(claim, b, a, then_w - first_w, first_w - then_w):
            named = _names_event(claim, a, first_w - then_w, then_w - first_w) and \
                _names_event(claim, b, then_w - first_w, first_w - then_w)
            out.append(_finding(f, claim, min(a.start, b.start), max(a.end, b.end), "order",
                                f"the claim puts the events of {f.text!r} in the wrong order",
                                firm=named and not _stretch_bound(f)))
    return out


# verbs that establish a fact: "confirmed that the patient had no allergies" reports what a check found
ASCERTAIN_VERBS = frozenset(word_key(w) for w in "confirm verify check establish ascertain determine find ensure".split())


def _sequenced(text: str, xw: set[str], yw: set[str]) -> bool:
    """Does one clause tell both events, each at its own words, with a word of sequence ("Garments are accepted
    first and tickets written up at closing", "loaded, then inspected")?"""
    if not (ORDER_LATER.search(text) or re.search(r"\bfirst\b", text, re.I)):
        return False
    px, py = _first_pos(text, xw), _first_pos(text, yw)
    return px is not None and py is not None and px != py


def _found_absent(claim: Claim, c: Clause) -> bool:
    """Is the clause a content clause ("that ...", "whether ...") told by a verb of establishing just before
    it ("Having confirmed at 09:10 that the patient had no known allergies")? Its denial is what the check
    found, not a step left out. Read from the words' order, since the parser may hang the clauses either way."""
    doc = parse(claim.text)
    head = doc[c.head_i]
    mark = next((t for t in head.children if t.dep_ == "mark" and t.lower_ in ("that", "whether")), None)
    if mark is None:
        return False
    verbs = [t for t in doc[: mark.i] if t.pos_ in ("VERB", "AUX") and t.dep_ not in ("aux", "auxpass")]
    if not verbs:
        return False
    last = verbs[-1]
    return key(last) in ASCERTAIN_VERBS and not any(ch.dep_ == "neg" for ch in last.children)


SKIP_VERBS = frozenset(word_key(w) for w in "skip bypass waive forgo omit miss ignore neglect".split())


def _skipped(claim: Claim, step: set[str]) -> bool:
    """Is the step a rule puts first the object of a verb of skipping ("skipped the safety briefing and went
    straight out")? Grammar ties the step to the skip, so the step is not done."""
    for t in parse(claim.text):
        if t.pos_ == "VERB" and key(t) in SKIP_VERBS and not any(c.dep_ == "neg" for c in t.children):
            objs = [w for c in t.children if c.dep_ in ("dobj", "nsubjpass") for w in c.subtree]
            if _stem_hits(step - GENERIC, set(keys(objs))) >= min(2, len(step - GENERIC)):
                return True
    return False


MARKERS = re.compile(r"\b(?P<m>before|after|prior to|follows?|followed|following(?!\s+(?:day|morning|afternoon|"
                     r"evening|night|week|weekend|month|year|shift)\b)|precedes?|preceded|"
                     r"until|once)\b", re.I)


def _first_pos(text: str, words: set[str], start: int = 0) -> int | None:
    """Where an event is told: its verb when the text uses one of the event's words as a verb ("The visitor
    disinfected his boots and then entered barn 2": entering is told at "entered", not at "visitor", a
    doer both events share), else the first of its words."""
    hits = [t for t in parse(text) if t.idx >= start and _stem_hits({key(t)}, words)]
    verbs = [t for t in hits if t.pos_ == "VERB"]
    return (verbs or hits)[0].idx if hits else None

def _points_back(claim: Claim, at: int) -> bool:
    """Is the marker at ``at`` ("after", "before") said of a bare pronoun ("only after that did we leave",
    "before which the door was shut"), so that its object is the event told before it, not after it?"""
    doc = parse(claim.text)
    tok = next((t for t in doc if t.idx == at), None)
    return tok is not None and any(
        c.dep_ == "pobj" and c.lower_ in ("that", "this", "which", "it", "then") and not list(c.children)
        for c in tok.children)


def _precedes(claim: Claim, x: Clause, y: Clause, xw: set[str], yw: set[str]) -> bool:
    """Does the claim say x happens before y (events named by the words xw and yw)? Marker words first
    ("B before A", "A follows B", "B first ... A afterwards"), then the dates or times each is given."""
    if re.search(r"\b(?:while|as|when)\b", claim.text, re.I):  # "the lifts opened while control was still going on"
        for unfinished, answer in ((y, True), (x, False)):
            if re.search(r"\b(?:still|under ?way|in progress|ongoing|not yet (?:finished|complete|done|over))\b",
                         unfinished.text, re.I):
                return answer
    m = MARKERS.search(claim.text)
    lead = re.match(r"\s*(?P<m>before|after|once|until)\b(?P<sub>[^,;]+),", claim.text, re.I)
    if lead:  # "Once the deck was clear, batten 14 was flown in": the event after the marker is the subordinate one
        in_x = _first_pos(lead.group("sub"), xw) is not None
        in_y = _first_pos(lead.group("sub"), yw) is not None
        if in_x != in_y:
            first_is_sub = lead.group("m").lower() in ("after", "once")
            main = y if in_x else x
            if lead.group("m").lower() == "until" and main.negverb:
                first_is_sub = True  # "Until tuning ended, the doors stayed shut": they opened after it
            return in_x == first_is_sub
    if m and m.group("m").lower().startswith("follow") and not any(
            c.start <= m.start() < c.end for c in (x, y)) and any(c.start <= m.start() < c.end for c in claim.clauses):
        m = None  # "A at 09:30 and a test ride followed; B at 10:15": the third event follows, A and B are not ordered by it
    if m:
        px, py = _first_pos(claim.text, xw), _first_pos(claim.text, yw)
        if px is not None and py is not None and min(px, py) < m.start() < max(px, py):
            left_is_x = px < py
            word = m.group("m").lower()
            # "scrubbed until water sheeted off it, and only then was the ground rolled on": a later-marker after
            # "until" puts the right event after the point "until" names, in either reading of the left one
            later_right = word == "until" and bool(ORDER_LATER.search(claim.text, m.end(), max(px, py)))
            if word == "until" and (x if left_is_x else y).negverb and not later_right:
                # "kept the doors shut until 19:07, two minutes after tuning finished": a state held off until a
                # point is the event done at that point, after what "until" names
                return not left_is_x
            # "A, and only after that B": the marker's object points back to the left event, which the
            # marker then orders against the right one (after that: the left first; before that: the right)
            back = word in ("before", "after") and _points_back(claim, m.start())
            if word in ("before", "prior to", "precede", "precedes", "preceded", "until"):
                return left_is_x != back
            return (not left_is_x) != back
    doc = parse(claim.text)
    hx, hy = doc[x.head_i], doc[y.head_i]
    for h, other, mine in ((hy, hx, "y"), (hx, hy, "x")):
        if h.dep_ == "advcl" and h.head.i == other.i:
            mark = next((c.lower_ for c in h.children if c.dep_ in ("mark", "prep")), "")
            # h heads the subordinate clause: "other before h" puts the other first, "other once h" puts h first
            if mark in ("before", "until"):
                return mine == "y"
            if mark in ("after", "once", "since"):
                return mine == "x"
    for tok in doc:
        if tok.lower_ in ("before", "after") and tok.dep_ == "prep":
            host = x if x.start <= tok.idx < x.end else y if y.start <= tok.idx < y.end else None
            if host is None:
                continue
            inside = {k for k in keys(tok.subtree)}
            target = y if host is x else x
            # in one clause, the "before/after" phrase must name the other event ("fired at 21:55, five
            # minutes before the cut-off" says nothing of the rehearsal)
            if inside & (target.keys | target.verbs) and (host is not target or _stem_hits(yw, inside)):
                return (tok.lower_ == "before") == (host is x)
    text = _LATER_TIME_RE.sub(lambda mm: " " * len(mm.group(0)), claim.text)  # "the following morning"
    later = [mm.start() for mm in ORDER_LATER.finditer(claim.text)]
    firsts = [t.idx for t in doc if t.lower_ == "first" and t.dep_ != "amod" and t.head.pos_ != "NOUN"]
    px, py = _first_pos(claim.text, xw), _first_pos(claim.text, yw)
    if px is not None and py is not None and px != py and not _FOLLOW_RE.search(text):
        # "A and then B", "B first; A afterwards", "A ... B the following morning": a later-marker after the
        # first-mentioned event makes the other one later; "first" after an event's mention puts it first
        if any(mk > min(px, py) for mk in later):
            return px < py
        for f in firsts:
            before = [p for p in (px, py) if p < f]
            if before:
                return max(before) == px
    if re.search(r"\bfollow", y.text, re.I) and (y.keys & x.keys):
        return False
    if _FOLLOW_RE.search(x.text) and _FOLLOW_RE.search(text):
        return False
    if _FOLLOW_RE.search(x.text) or _FOLLOW_RE.search(y.text):
        # "A followed" in a third clause ("a staff-only test ride followed") orders neither event
        fol = x if _FOLLOW_RE.search(x.text) else y
        return fol is y
    timed = _timed_order(claim, xw, yw)
    if timed is not None:
        return timed
    return _earlier(_when(claim, x), _when(claim, y)) is True


def _segments(doc: Any) -> list[tuple[int, int]]:
    """Character spans of the claim's stretches between punctuation and the "and"/"then" that join two verbs:
    each tells one event with its own time ("the first run left at 08:05, and the grip test was completed at
    08:30"), whatever the parser made of the clauses."""
    cuts = [0]
    for t in doc:
        # the verb joined next: a participle the parser took for an adjective ("was rounded and backed on 8 April
        # and sewn the following day") joins verbs all the same; two verbs side by side share what follows
        # ("hardened and tempered on Tuesday")
        nxt = next((c for c in t.head.children if c.dep_ == "conj" and c.i > t.i), None) if t.dep_ == "cc" else None
        joins_verbs = t.dep_ == "cc" and nxt is not None and nxt.pos_ in ("VERB", "AUX") and (
            t.head.pos_ in ("VERB", "AUX") or t.head.tag_ == "VBN" or (
                t.head.pos_ == "ADJ" and t.head.lower_.endswith(("ed", "en")))) and t.i - 1 != t.head.i
        if t.text in (",", ";", ".", ":") or joins_verbs or (t.lower_ == "then" and t.dep_ == "advmod"):
            cuts.append(t.idx)
    cuts.append(len(doc.text))
    return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def _anchor(doc: Any, words: set[str]) -> Any | None:
    """The token that tells an event: a verb among its words, else its first word."""
    hits = [t for t in doc if _stem_hits({key(t)}, words) and not t.is_stop]
    verbs = [t for t in hits if t.pos_ == "VERB"]
    return (verbs or hits or [None])[0]


def _segment_anchor(doc: Any, spans: list[tuple[int, int]], words: set[str],
                    avoid: tuple[int, int] | None = None) -> Any | None:
    """The token that tells an event, in the stretch that names most of its words ("the first two survey lines
    were run, and then the patch test": the test is told in the second stretch, not at the verb "run" the
    rule gives it, which tells the lines); on a tie, the first stretch with a verb of the event, then one
    other than ``avoid`` (where the other event is told: "the parcel was shipped at 10:00 and had its first
    weigh-in at 10:40" names the parcel both events share in the first), else the first one."""
    best: tuple[tuple[int, int, int], Any] | None = None
    for a, b in spans:
        toks = [t for t in doc if a <= t.idx < b]
        n = _stem_hits(words, {key(t) for t in toks if not t.is_stop})
        anchor = _anchor(doc[toks[0].i : toks[-1].i + 1], words) if n and toks else None
        score = (n, int(anchor is not None and anchor.pos_ == "VERB"), int((a, b) != avoid))
        if anchor is not None and (best is None or score > best[0]):
            best = (score, anchor)
    return best[1] if best else None


def _segment_time(claim: Claim, start: int, end: int) -> dict[str, int]:
    """What a stretch says of its event's time: a date ("date"), a clock time ("clock"), and whether it says
    it came later ("later": "five minutes later", "the following day", "afterwards")."""
    out: dict[str, int] = {}
    for d in claim.dates:
        if start <= d.start < end and d.first == d.last:
            out.setdefault("date", d.first)
    for t in claim.clocks:
        if start <= t.start < end and t.role == "at":
            out.setdefault("clock", t.minutes)
    for w, nxt, s, _ in claim.weekdays:
        if start <= s < end and not nxt:
            out.setdefault("weekday", w)
    part = _DAY_PART_RE.search(claim.text[start:end])
    if part:
        out["part"] = list(_DAY_PARTS).index(part.group("p").lower())
    if ORDER_LATER.search(claim.text[start:end]) or _PERIOD_END_RE.search(claim.text[start:end]):
        out["later"] = 1
    return out


# the end of a period, told of the second of two events ("screwed back on straight away and washed at the end
# of the month", "accepted first and written up at closing"): later than the first
_PERIOD_END_RE = re.compile(r"\b(?:at|towards?|near)\s+(?:the\s+)?(?:end\s+of\s+the\s+(?:day|shift|week|month|"
                            r"session|year)|close\s+of\s+(?:business|play|day)|closing(?:\s+time)?)\b", re.I)


# parts of a day as spans of minutes, read only where they place an event ("on Monday morning", "that
# afternoon", "at lunchtime"); "the morning checks" names a check, and "before noon" is a bound, not a time
_DAY_PARTS = {"morning": (0, 719), "lunchtime": (690, 840), "lunch": (690, 840), "midday": (720, 720),
              "noon": (720, 720), "afternoon": (720, 1079), "evening": (1080, 1439)}
_DAY_PART_RE = re.compile(r"\b(?:in the|this|that|the same|(?:mon|tues|wednes|thurs|fri|satur|sun)day|at|by|around|"
                          r"during)\s+(?P<p>morning|afternoon|evening|lunchtime|lunch|midday|noon)\b", re.I)


def _span(t: dict[str, int]) -> tuple[int, int] | None:
    """The minutes of the day a stretch's event falls in: its clock time, else its part of the day."""
    if "clock" in t:
        return t["clock"], t["clock"]
    return list(_DAY_PARTS.values())[t["part"]] if "part" in t else None


def _timed_order(claim: Claim, xw: set[str], yw: set[str]) -> bool | None:
    """Does event x come before event y by the times the claim gives each in its own stretch (two dates, or
    two clock times on one day, or "later" on the second one told)? None when the claim does not say."""
    doc = parse(claim.text)
    spans = _segments(doc)
    ax, ay = _anchor(doc, xw), _anchor(doc, yw)
    if ax is None or ay is None:
        return None
    sx = next((s for s in spans if s[0] <= ax.idx < s[1]), None)
    sy = next((s for s in spans if s[0] <= ay.idx < s[1]), None)
    if sx == sy:  # both told at one stretch by their first words: each in the stretch naming most of its words
        ax = _segment_anchor(doc, spans, xw)
        sx = next((s for s in spans if ax is not None and s[0] <= ax.idx < s[1]), None)
        ay = _segment_anchor(doc, spans, yw, sx)
        if ax is None or ay is None:
            return None
        sy = next((s for s in spans if s[0] <= ay.idx < s[1]), None)
    if sx is None or sy is None or sx == sy:
        return None
    for a in (ax, ay):
        c = _owner(claim, a)
        if c is not None and c.negated:
            return None
    tx, ty = _segment_time(claim, *sx), _segment_time(claim, *sy)
    if "date" in tx and "date" in ty and tx["date"] != ty["date"]:
        return tx["date"] < ty["date"]
    if "date" not in tx and "date" not in ty and tx.get("weekday", -1) >= 0 and ty.get("weekday", -1) >= 0 and \
            tx["weekday"] != ty["weekday"]:
        # two weekdays of one account: read as one week only when the telling runs with the calendar ("hardened
        # on Tuesday, normalized on Wednesday"); "serviced on Friday, checked on Monday" may cross a weekend
        told_x_first = sx[0] < sy[0]
        return (tx["weekday"] < ty["weekday"]) if told_x_first == (tx["weekday"] < ty["weekday"]) else None
    same_day = not ("date" in tx and "date" in ty) or tx["date"] == ty["date"]
    if same_day and "clock" in tx and "clock" in ty and tx["clock"] != ty["clock"]:
        return tx["clock"] < ty["clock"]
    first, second = (tx, ty) if sx[0] < sy[0] else (ty, tx)
    zf, zs = _span(first), _span(second)
    names_other_day = any(k in second and k not in first for k in ("date", "weekday")) or (
        first.get("weekday", -1) != second.get("weekday", -1) and "weekday" in first and "weekday" in second)
    if same_day and not names_other_day and zf and zs and ("part" in tx or "part" in ty) and zf[1] < zs[0]:
        # "removal started on Monday morning; the smoke test was done that afternoon", "started at 09:00 ...
        # done at lunchtime": parts of one day told in their order, the later stretch naming no other day
        # ("at 18:00 ..., then in the morning" may be the next morning: not read)
        return sx[0] < sy[0]
    if "later" in ty and "later" not in tx and sx[0] < sy[0]:
        return True  # "x at 14:31, and y five minutes later"
    if "later" in tx and "later" not in ty and sy[0] < sx[0]:
        return False
    return None


def _when(claim: Claim, c: Clause) -> tuple[tuple[str, int] | None, int | None]:
    """When a clause's event happens: its day (a date, else a weekday, with the scale it is told on) and its time
    of day, each None where the clause gives none."""
    day: tuple[str, int] | None = None
    for d in claim.dates:
        if c.start <= d.start < c.end:
            day = ("date", d.first)
            break
    if day is None:
        day = next((("weekday", w) for w, _, s, _ in claim.weekdays if c.start <= s < c.end), None)
    clock = next((t.minutes for t in claim.clocks if c.start <= t.start < c.end), None)
    return day, clock


def _earlier(x: tuple[tuple[str, int] | None, int | None], y: tuple[tuple[str, int] | None, int | None]) -> bool | None:
    """Does ``x`` come before ``y`` (two ``_when`` answers)? Two days of one scale that differ decide; else two
    times of day, the days being the same or one of them untold ("08:35 on Saturday ... back by 09:55"). A day
    and a time of day alone say nothing ("on Thursday ... by 15:30")."""
    (dx, cx), (dy, cy) = x, y
    if dx is not None and dy is not None and dx[0] == dy[0] and dx[1] != dy[1]:
        return dx[1] < dy[1]
    if cx is not None and cy is not None and (dx is None or dy is None or dx == dy):
        return cx < cy
    return None


@lru_cache(maxsize=4096)
def _rule_patients(text: str, action: tuple[str, ...]) -> frozenset[str]:
    """Keys of what the rule's own verb is done to ("passenger" in "Public passengers may be carried ...")."""
    return frozenset(key(t) for t in parse(text) if t.dep_ in ("nsubjpass", "dobj") and key(t.head) in action
                     and t.pos_ in ("NOUN", "PROPN"))


def _other_patient(form: Form, claim: Claim, c: Clause) -> bool:
    """Does the clause do the rule's verb to another thing ("carried only two lineworkers" against "Public
    passengers may be carried only between 08:00 and 18:00")? Then its time says nothing of the rule's event."""
    rule_things = _rule_patients(form.text, tuple(form.action))
    if not rule_things:
        return False
    doc = parse(claim.text)
    things = [ch for t in doc if c.start <= t.idx < c.end and t.pos_ == "VERB" and key(t) in form.action
              for ch in t.children if ch.dep_ in ("dobj", "nsubjpass") and ch.pos_ == "NOUN"
              and ch.lower_ not in measure.UNIT_WORDS]  # "left the depot ten minutes before": no thing
    mine = set(form.subject) | set(form.object)
    return bool(things) and not any(key(x) in mine for x in things)


_WHO_IS_RE = re.compile(r"\b(?:who|that)\s+(?:is|was|are|were|acts\s+as|acted\s+as|serves\s+as)\b(?P<what>.*)", re.I)


def _said_to_be(form: Form, doer: str) -> bool:
    """Does the doer's own phrase say it is one of the rule's reserved doers ("his uncle Paul, who is his legal
    guardian" for "a parent or guardian")?"""
    m = _WHO_IS_RE.search(doer)
    what = re.split(r"\b(?:while|whilst|since|because|when|until)\b", m.group("what"), maxsplit=1)[0] if m else ""
    if m is None or re.search(r"\b(?:not|no|never|yet|un[a-z]+ed|non-?[a-z]+|former|ex-?[a-z]+|trainee|acting|"
                              r"assistant|deputy)\b", what, re.I):
        return False  # "who is an as-yet-unregistered pharmacist", "who is not his guardian"
    return bool(set(light_keys(what)) & set(form.agents).union(*alternatives(form)))


def _clock_verb(claim: Claim, t: Any) -> Any | None:
    """The verb a clock time of the claim is said of: the parse climbs from the time to the first verb."""
    tok = verb_at_or_above(_token_at(parse(claim.text), t.start))
    return tok if tok.pos_ in ("VERB", "AUX") else None


def _timed_other_verb(form: Form, claim: Claim, t: Any) -> bool:
    """Is the time said of a telling ("was reported to the health department at 09:15", "emailed at 07:45") where
    the rule's act is no telling ("Oysters are shucked only between 11:30 and 22:00")? WordNet puts the verb under
    "communicate": the time dates the message, not the act the message is about."""
    if not form.action:
        return False
    verb = _clock_verb(claim, t)
    if verb is None or verb.pos_ != "VERB" or wordnet.verb_is_a(verb.lemma_.lower(), "communicate") is not True:
        return False
    return not any(wordnet.verb_is_a(lemma, "communicate") is True
                   for _, lemma in categories.rule_verbs(form.text, tuple(form.action)))


def _clocks_of_verb(form: Form, claim: Claim, clocks: list[Any]) -> list[Any]:
    """Where the claim gives the rule's own verb a time ("started at 17:25 and finished at 17:55" for "No game
    may start after 17:30"), only the times of that verb speak of the rule; otherwise all of them."""
    if not form.action or len(clocks) < 2:
        return clocks

    def verb_of(t: Any) -> str:
        tok = _clock_verb(claim, t)
        return key(tok) if tok is not None else ""

    own = [t for t in clocks if verb_of(t) in form.action]
    return own or clocks


def check_windows(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """Times of day or calendar days the constraint forbids, claimed for its event."""
    out = []
    for f in forms:
        w = f.window
        if w is None:
            continue
        for c in claim.clauses:
            if _overlap(f, c) == 0 or c.negated or c.negverb or _other_patient(f, claim, c):
                continue
            if w.kind == "clock":
                day = _window_day(f, claim, c)
                if day is False:
                    continue  # "on 31 December after 20:00": a time on another day is no time of the window
                points, replaced = _clock_points(f, claim, c)
                hit = next(((s, e, firm) for m, s, e, firm, end_point in points
                            if _in_clock(w.start, w.end, m, end_point=end_point)), None)
                if hit is not None and not PROHIBITIVE_RE.search(c.text):
                    out.append(_finding(f, claim, hit[0], hit[1], "temporal", "the time the claim's arithmetic "
                                        f"gives falls in the window {f.text!r} forbids", firm=hit[2],
                                        sure=day is True))
                    continue
                clocks = [t for t in claim.clocks if c.start <= t.start < c.end and t.start not in replaced] or (
                    [t for t in _chunk_clocks(claim, c)])
                clocks = _clocks_of_verb(f, claim, clocks)
                for t in clocks:
                    m = t.minutes % (24 * 60) if t.minutes != 24 * 60 else 24 * 60
                    if t.role == "until":
                        bad = _in_clock(w.start, w.end, m, end_point=True)
                    elif t.role == "before":  # "before 9:00": some time before it, back to midnight
                        bad = any(_in_clock(w.start, w.end, x, end_point=False) for x in range(0, m))
                    else:
                        bad = _in_clock(w.start, w.end, m, end_point=False)
                    if bad and not PROHIBITIVE_RE.search(c.text):
                        sure = day is True and not _place_unnamed(f, claim) and not _timed_other_verb(f, claim, t)
                        out.append(_finding(f, claim, c.start, c.end, "temporal",
                                            f"the claim's time falls in the window {f.text!r} forbids", sure=sure,
                                            firm=sure and t in claim.clocks and _timed_event(f, claim, t,
                                                                                            claim.clocks)))
                        break
            else:
                for d in claim.dates:
                    if not (c.start <= d.start < c.end) and len(claim.clauses) > 1:
                        continue
                    if _INCHOATIVE & set(f.action) and _SPAN_END_RE.search(claim.text[: d.start]):
                        continue  # "may only start between ...": "runs to 12 April" dates the end, not the start
                    a, b = dt.date.fromordinal(d.first), dt.date.fromordinal(d.last)
                    md_a, md_b = a.month * 100 + a.day, b.month * 100 + b.day
                    inside = _in_days(w.start, w.end, md_a) and _in_days(w.start, w.end, md_b)
                    if inside and not PROHIBITIVE_RE.search(c.text):
                        out.append(_finding(f, claim, d.start, d.end, "temporal",
                                            f"the date falls in the period {f.text!r} forbids",
                                            firm=_dated_event(f, claim, d)))
                        break
    return out


def _dated_event(form: Form, claim: Claim, d: measure.DateMention) -> bool:
    """Is the date said of the rule's own event: the parse climbs from the date to a verb of the rule's action
    ("the course ran over the Easter weekend" for "courses may only run ..."), the sentence names the rule's
    thing, and the date is the only one that verb is told with? A date on a noun ("the Christmas Eve request")
    or on another verb ("pushed back from 26 June") dates something else."""
    if form.modality != "must_not" and not allowed_period(form):
        return False  # a duty of a state over a period ("must be kept short from 1 April") forbids no days
    return _said_of_event(form, claim, d, claim.dates)


def _timed_event(form: Form, claim: Claim, t: measure.Clock, clocks: Sequence[measure.Clock]) -> bool:
    """Is the time of day said of the rule's own event, as a date is (``_said_of_event``)? Only for a rule that
    forbids its event in the window, or allows it only outside ("may only", "is allowed only", "must start
    between"); a state held over the hours ("must be kept locked between") forbids no event. A time told with
    another time on one verb is a range of that event ("ran from 06:00 to 09:30"), kept as one telling."""
    low = form.text.lower()
    if not (form.modality == "must_not" or re.search(r"\bonly\b", low) or event_due(form, low)):
        return False
    return _said_of_event(form, claim, t, clocks, ranged=True)


def _said_of_event(form: Form, claim: Claim, d: Any, told: Sequence[Any], ranged: bool = False) -> bool:
    """Is the date or time ``d`` said of the rule's own event (see ``_dated_event``); ``told`` are the claim's
    dates or times of the same sort, none other of which may be told on the same verb (with ``ranged``, the
    other end of a range may: "from 06:00 to 09:30"). The rule's event is its
    action, or, where its verb only permits or places it ("Plant production is permitted only ..."), the verb
    its noun of a doing is formed from (``event_words``)."""
    named = event_words.event_keys(form.text)
    action = (set(form.action) - GENERIC) if not named else set(named)
    things = (set(form.subject) | set(form.object)) - GENERIC - action - event_words.event_nouns(form.text)
    if not action or not things or form.quantity is not None or form.trigger is not None:
        return False  # a season a repeated duty is counted in ("every 7 days during the season") is no window
    doc = parse(claim.text)
    spans = _date_spans(claim, told)
    anchor, listed = _date_anchor(doc, d, spans)
    if anchor is None or listed is not None or anchor.pos_ not in ("VERB", "AUX") or \
            not _stem_hits(action, {key(anchor)}):
        return False
    same = [x for x in told if x is not d and not (ranged and x.role in ("from", "until"))
            and _date_anchor(doc, x, spans)[0] is anchor]
    return not same and _stem_hits(things, {key(t) for t in anchor.sent})


# a rule whose event is the beginning of something is dated by the start, never by the end of the span it opens
_INCHOATIVE = frozenset(word_key(w) for w in ("start", "begin", "commence"))
_SPAN_END_RE = re.compile(r"\b(?:to|until|till|through|thru)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?$",
                          re.I)


def _window_day(form: Form, claim: Claim, c: Clause) -> bool | None:
    """Whether the claim's time is on the day a clock window is bound to ("No checks on 31 December after
    20:00"): True when the rule names no day or the clause's date is one it names, False on another date, None
    when the claim gives no date for it (then the time alone cannot break the rule)."""
    days = {_month_day(d.first) for d in rule_dates(form.text) if d.first == d.last}
    if not days:
        return True
    mine = [d for d in claim.dates if c.start <= d.start < c.end or len(claim.clauses) == 1]
    named = {calendar_days.fixed_day(m.group(0)) for m in calendar_days.FIXED_DAY_RE.finditer(claim.text)}
    if not mine and not named:
        return None
    return bool(named & days) or any(_month_day(o) in days for d in mine for o in range(d.first, d.last + 1))


def _month_day(ordinal: int) -> int:
    d = dt.date.fromordinal(ordinal)
    return d.month * 100 + d.day


def _in_days(start: int, end: int, md: int) -> bool:
    """Is the day (month*100+day) in the calendar window, both ends inclusive; a window may wrap the year end
    (16 December to 14 October)."""
    return start <= md <= end if start <= end else md >= start or md <= end


def _clock_points(form: Form, claim: Claim, c: Clause) -> tuple[list[tuple[int, int, int, bool, bool]], set[int]]:
    """Times of day the claim states by arithmetic on a clock time of clause ``c``: (minute, start, end,
    firm, is an end point), and the starts of the clock times they replace. A start and a duration of the
    same event ("started at 18:20 and ran for fifty minutes": it ran until 19:10, an end point), a time
    placed by a duration ("ten minutes before half past four" is 04:20). Firm when a verb of the event is
    the rule's own action and the clause names the rule's thing."""
    clocks = [t for t in claim.clocks if c.start <= t.start < c.end]
    spans = [a for a, _ in claim.amounts if a.dim == "[time]" and a.direction == "eq" and not a.period
             and 0 < a.lo < 86400 and a.lo == a.hi]
    if not clocks or not spans:
        return [], set()
    doc = parse(claim.text)
    action = set(form.action) - GENERIC
    things = (set(form.subject) | set(form.object)) - GENERIC
    out: list[tuple[int, int, int, bool, bool]] = []
    replaced: set[int] = set()
    for t in clocks:
        tok = _token_at(doc, t.start)
        verb = tok
        while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
            verb = verb.head
        event = {verb.i} | {v.i for v in verb.conjuncts if v.pos_ in ("VERB", "AUX")}
        for a in spans:
            unit = _token_at(doc, a.end - 1)
            mod = unit.head if unit.dep_ == "npadvmod" else (  # "left the depot ten minutes before ..."
                doc[unit.i + 1] if unit.i + 1 < len(doc) and doc[unit.i + 1].dep_ == "prep" else None)
            if mod is not None and mod.lower_ in ("before", "after", "past") and tok.i in {x.i for x in mod.subtree}:
                sign = -1 if mod.lower_ == "before" else 1  # "ten minutes before half past four"
                firm = bool(action & {key(verb)}) and _overlap(form, c) > len(action & c.keys)
                out.append(((t.minutes + sign * round(a.lo / 60)) % 1440, a.start, t.end, firm, False))
                replaced.add(t.start)
            elif t.role in ("at", "from") and unit.dep_ == "pobj" and unit.head.lower_ == "for" \
                    and unit.head.head.i in event and (unit.head.head.i == verb.i or key(unit.head.head) in action):
                run = unit.head.head  # "started at 18:20 and ran for fifty minutes": the run ends at 19:10
                firm = bool(action & {key(run), key(verb)}) and bool(things & c.keys)
                out.append(((t.minutes + round(a.lo / 60)) % 1440, t.start, a.end, firm, True))
    return out, replaced


def _chunk_clocks(claim: Claim, c: Clause) -> list[measure.Clock]:
    if not c.facts:
        return []
    out = []
    for _, sent in chunk_facts(claim.text, claim.chunk_texts):
        for t in measure.find_clock_times(sent):
            out.append(measure.Clock(t.minutes, "at", c.start, c.end))
    return out


def _in_clock(start: int, end: int, m: int, end_point: bool) -> bool:
    """Is minute m inside [start, end) (wrapping); for an end point ("until m"), inside (start, end]."""
    day = 24 * 60
    if end_point:
        m = (m - 1) % day
    m %= day
    if start <= end:
        return start <= m < end
    return m >= start or m < end


_LABEL_RE = re.compile(r"(?<![\w-])(?P<label>[A-Z][a-z]+ (?:[A-Z]|\d+)|[a-z]+ (?:[A-Z]|\d+)|[a-z]{2}-[a-z]+-\d)(?![\w-])")
_PLACE_CUE = re.compile(r"(?:\b(?:in|into|to|at|inside|on)\s+(?:the\s+)?|^\s*(?:the\s+)?)$", re.I)


def _labels(text: str) -> list[tuple[str, int]]:
    """Labelled places ("Room 2", "Magazine B", "ward C", "eu-west-1") with their positions; when
    several, those a place word introduces ("in Room 2") or that open the sentence."""
    found = [(m.group("label").lower(), m.start("label")) for m in _LABEL_RE.finditer(text)]
    if len(found) > 1:
        cued = [(lab, pos) for lab, pos in found if _PLACE_CUE.search(text[:pos])]
        return cued
    return found


def _place_of(member: set[str], text: str) -> str | None:
    """The labelled place a sentence puts a member in (the label in the same sentence as its words)."""
    for sent in (p for s in split_sentences(text) for p in re.split(r",\s+(?:and|while|since|but|because)\s+", s)):
        if member & light_keys(sent):
            labels = _labels(sent)
            if len(labels) == 1:
                return labels[0][0]
    return None


def _contained(claim: Claim, c: Clause, a_own: set[str], b_own: set[str]) -> bool:
    """One member put in, into or with the other ("contaminated gloves go into the general waste bin")."""
    doc = parse(claim.text)
    for t in doc:
        if t.lower_ in ("in", "into", "inside", "with", "alongside") and c.start <= t.idx < c.end:
            inner = set(keys(t.subtree))
            outer = c.keys - inner
            if (b_own & inner and a_own & outer) or (a_own & inner and b_own & outer):
                return True
    return False


_PLACE_PREPS = frozenset({"in", "into", "inside", "onto", "on", "to", "at", "through", "within"})
_ARGUMENT_DEPS = frozenset({"nsubj", "nsubjpass", "dobj"})
_PHRASE_DEPS = frozenset({"compound", "amod", "nmod", "conj", "appos", "poss", "nummod"})


def _verb_of(t: Any, place: bool) -> Any | None:
    """The verb a noun phrase is an argument of: its subject or object, or, for a place, the object of a
    preposition of place ("kept in Room 2", "moved onto shelf A"; not "out of", "from")."""
    while t.dep_ in _PHRASE_DEPS and t.head.i != t.i:
        t = t.head
    if t.dep_ in _ARGUMENT_DEPS and t.head.pos_ in ("VERB", "AUX"):
        return t.head
    if place and t.dep_ == "pobj" and t.head.lower_ in _PLACE_PREPS and t.head.dep_ == "prep" and \
            t.head.head.pos_ in ("VERB", "AUX") and not any(s.lower_ in ("out", "away", "off") and s.dep_ in (
                "prep", "prt", "advmod") for s in t.head.head.children):
        return t.head.head
    return None


def _claim_places(claim: Claim, member: set[str], place: str) -> bool:
    """Does the claim, by its grammar, put this member in the labelled place: the member and the label are
    arguments of one verb ("The ammonia drums are now kept in Room 2", "Magazine B now also stores the
    explosives"), in a clause that is not negated, undone or optional?"""
    doc = parse(claim.text)
    low = claim.text.lower()
    at = low.find(place)
    while at >= 0:
        span = [t for t in doc if at <= t.idx < at + len(place)]
        head = next((t for t in span if not (at <= t.head.idx < at + len(place)) or t.head.i == t.i), None)
        verb = _verb_of(head, True) if head is not None else None
        if verb is not None:
            c = _clause_at(claim.clauses, verb.idx)
            # a verb that undoes is the member's own word ("manure removal": "manure is removed through gate 1")
            undone = c.negverb and key(verb) not in member
            if not (c.negated or undone or c.optional or c.permissive):
                for t in doc:
                    if t.pos_ in ("NOUN", "PROPN", "ADJ") and key(t) in member and t not in span and (
                            (v := _verb_of(t, False)) is not None and (v.i == verb.i or verb.i in {x.i for x in v.conjuncts})):
                        return True
        at = low.find(place, at + 1)
    return False


def _placed_beside(claim: Claim, a_own: set[str], b_own: set[str], place: str) -> bool:
    """Is "both in one labelled place" read firmly? The claim names one member only and puts it there by its
    grammar; a cited chunk sentence names the other member (not the claim's) with that label and no other,
    not negated ("Room 2 holds the chlorine cylinders" + "the ammonia drums are now kept in Room 2"). A label
    that is a date or a weekday ("Friday 13") is no place."""
    if measure.find_dates(place) or measure.find_weekdays(place):
        return False
    claim_words = light_keys(claim.text)
    for mine, other in ((a_own, b_own), (b_own, a_own)):
        if not (mine & claim_words) or other & claim_words or not _claim_places(claim, mine, place):
            continue
        for chunk in claim.chunk_texts:
            for sent in split_sentences(chunk):
                words = light_keys(sent)
                labels = _labels(sent)
                if other & words and not (mine & words) and len(labels) == 1 and labels[0][0] == place and \
                        not any(t.dep_ == "neg" or t.lower_ in ("never", "no", "formerly", "until") for t in parse(sent)):
                    return True
    return False


def check_exclusion(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """A and B kept apart: the claim puts them together ("together", "the same", "share"), or in one
    labelled place, by its own words or with what a cited chunk says is there."""
    out = []
    for f in forms:
        if len(f.exclusion) < 2:
            continue
        a_w, b_w = set(f.exclusion[0]), set(f.exclusion[1])
        # members narrowed by an amount or a time ("a paramedic in their first 3 months after qualifying") are
        # not read whole by their keys: a finding on them is a guess
        whole = f.trigger is None and f.quantity is None
        pair = apart.rule_pair(f.text) if whole else None
        if pair is not None and pair.scope == "person":  # one person in both roles, read by ``two_roles`` alone
            if hit := two_roles.both_roles(pair, parse(claim.text), 0, len(claim.text)):
                out.append(_finding(f, claim, hit[1], hit[2], "exclusion", f"one person holds both roles {f.text!r}"
                                    " keeps apart", sure=hit[0] == "firm", firm=hit[0] == "firm"))
            continue
        tie = together_.tied(pair, parse(claim.text), 0, len(claim.text)) if pair is not None else None
        if tie is not None and tie[0] == "firm":  # both members tied to one holder or time by the grammar
            out.append(_finding(f, claim, tie[1], tie[2], "exclusion",
                                f"the claim puts together what {f.text!r} keeps apart", firm=True))
            continue
        before = len(out)
        a_own, b_own = a_w - b_w or a_w, b_w - a_w or b_w
        for c in claim.clauses:
            words = c.keys | c.facts
            has_a = bool(a_own & words) and not (a_own & c.denied)
            has_b = bool(b_own & words) and not (b_own & c.denied)
            if c.negated or _flipped(f, c):
                continue
            together = re.search(r"\b(?:together|same|share[sd]?|sharing|alongside|also)\b", c.text, re.I)
            kept_apart = re.search(r"\b(?:away from|apart|separate\w*|isolat\w*|different|another)\b", c.text, re.I)
            if has_a and has_b and not kept_apart and (together or _contained(claim, c, a_own, b_own)):
                beside = whole and (any(_placed_beside(claim, a_own, b_own, lab) for lab, _ in _labels(claim.text))
                                    or together_.shared_by_both(parse(claim.text), c.start, c.end, a_own, b_own))
                out.append(_finding(f, claim, c.start, c.end, "exclusion",
                                    f"the claim puts together what {f.text!r} keeps apart", sure=whole, firm=beside))
                break
        else:
            texts = [claim.text] + list(claim.chunk_texts)
            place_a = next((p for t in texts if (p := _place_of(a_own, t))), None)
            place_b = next((p for t in texts if (p := _place_of(b_own, t))), None)
            in_claim = _place_of(a_own, claim.text) or _place_of(b_own, claim.text)
            # a duty to keep things in separate places is read by the claim's own togetherness only: where each
            # member is, by a label found near its words, is too loose a reading for it
            if f.modality == "must_not" and place_a and place_a == place_b and in_claim and not re.search(
                    r"\b(?:not|never|no longer|away from|separate\w*|different|another|other)\b", claim.text, re.I):
                out.append(_finding(f, claim, 0, len(claim.text), "exclusion",
                                    f"the claim puts both of {f.text!r} in {place_a}", sure=whole,
                                    firm=whole and _placed_beside(claim, a_own, b_own, place_a)))
        if pair is not None and (pair_by_grammar(f.text) or _kept_apart(pair, claim)):
            # a rule whose pair only its grammar gives is read by the claim's grammar, and so is a claim whose
            # grammar keeps the two apart: the looser readings above stand only where they are firm (a labelled
            # place a cited record fills with the other member)
            out[before:] = [x for x in out[before:] if x.firm]
        if tie is not None and len(out) == before:  # tied by a verb, with a member or the holder guessed
            out.append(_finding(f, claim, tie[1], tie[2], "exclusion",
                                f"the claim may put together what {f.text!r} keeps apart", sure=False))
    return out


def check_one_doer(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """A rule keeping two acts from one doer ("The same engineer may not both carry out a task and sign it off"):
    the claim says, by its own words, that one person did both ("... and signed off the task himself")."""
    out = []
    for f in forms:
        span = two_roles.one_doer_both(f.text, claim.text)
        if span is not None:
            out.append(_finding(f, claim, span[0], span[1], "exclusion",
                                f"one person does both acts {f.text!r} keeps apart", firm=True))
    return out


def _kept_apart(pair: apart.Pair, claim: Claim) -> bool:
    """Does the claim's grammar keep the two apart: each member put in a place of its own ("the ewes were in pen
    3, the rams in pen 5"), or one after the other ("once the mares had gone out, the stallion came in"), with
    no verb tying them?"""
    if pair.scope == "person":
        return False
    doc = parse(claim.text)
    return (together_.placed_apart(pair, doc) or together_.sequenced(pair, doc)) and \
        together_.tied(pair, doc, 0, len(claim.text)) is None


def check_members(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """Allow-lists of currencies: another currency used for the same thing."""
    out = []
    for f in forms:
        if not f.allowed_members:
            continue
        for c in claim.clauses:
            if _overlap(f, c) == 0 or c.negated:
                continue
            probe = " ".join(f"1 {w}" for w in re.findall(r"[\w$€£]+", c.text))
            used = {a.dim for a in measure.find_amounts(probe) if a.dim.startswith("money:")}
            if used - set(f.allowed_members):
                out.append(_finding(f, claim, c.start, c.end, "allow_list",
                                    f"a currency outside {f.allowed_members} is used"))
    return out


def check_allow_list(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """An allow-list of one kind of thing ("may go only to the Leeds, Cambridge or Newcastle units"): the claim
    does the rule's event with a thing of that very kind named otherwise ("placed with the Birmingham unit",
    "requested mutual aid from Westmoor ambulance service"). The kind's noun is the evidence that the thing
    fills the rule's slot; a claim that names any member, or a thing of the kind without a name of its own
    ("the unit"), says nothing against the list."""
    out: list[Finding] = []
    members = [f for f in forms if f.members and f.member_kind]
    if not members:
        return out
    doc = parse(claim.text)
    every = set().union(*(c.keys | c.facts for c in claim.clauses))
    for f in members:
        if any(set(m) <= every for m in f.members):
            continue  # a member is named: the others in the claim may sit inside it ("a cabinet in room 2")
        rule_words = set(light_keys(f.text)) | set(keys(parse(f.text)))
        subj = set(f.subject) - GENERIC - {f.member_kind}
        for t in doc:
            if key(t) != f.member_kind or t.pos_ not in ("NOUN", "PROPN") or t.dep_ == "compound":
                continue
            own = {k for w in t.lefts if w.dep_ in ("compound", "amod", "nmod", "poss") for k in keys(w.subtree)}
            own |= {w.lower_ for w in t.lefts if w.like_num}
            name = own - rule_words - GENERIC
            if not name or any(len(n) >= 3 and len(r) >= 3 and (r.startswith(n) or n.startswith(r))
                               or len(r) >= 4 and n.endswith(r) for n in name for m in f.members for r in m):
                continue  # "the unit": no name of its own; "the vet's" may be the "veterinarian's"; "padlocked"
                # says "locked" of it
            if _member_by_kind(f, t):
                continue  # "a Pyrex bottle" for "glass bottles": its word names a kind of a member
            c = _clause_at(claim.clauses, t.idx)
            if c.negated or c.negverb or _said_of_other(t, subj):
                continue
            sent = _sentence_of(claim, c, set())  # "reduced to chart datum using the Mallaig tide gauge"
            words = sent.keys | sent.facts
            if _stem_hits(subj, words) >= min(2, len(subj)) or (set(f.action) & sent.verbs and _stem_hits(subj, words)):
                phrase = claim.text[min(w.idx for w in t.subtree): t.idx + len(t.text)]
                out.append(_finding(f, claim, c.start, c.end, "allow_list",
                                    f"{phrase!r} is outside the list of {f.text!r}"))
                break
    return out


# relative pronouns that stand for the noun their clause hangs on ("the bowser that moved")
_RELATIVE = frozenset({"that", "which", "who", "whom"})


def _said_of_other(t: Any, subj: set[str]) -> bool:
    """Is the claim's place of the list's kind said of another thing than the rule's: the verb it hangs on
    has only nouns for its subject and object, none of them (nor anything else in the verb's own clause) the
    rule's thing ("it's the diesel bowser that moved to the south gate" for a rule on propane cylinders)? A
    pronoun may stand for the rule's thing and decides nothing."""
    v, path = t, t
    while v.pos_ in ("NOUN", "PROPN", "ADP", "ADV", "ADJ"):  # "to the south gate", "next to the gate"
        if v.head.i == v.i:
            return False
        path, v = v, v.head
    if v.pos_ not in ("VERB", "AUX") or not subj:
        return False
    args = []
    for c in v.children:
        if c.dep_ not in ("nsubj", "nsubjpass", "dobj") or c.i == path.i:
            continue  # the place itself ("using the Mallaig tide gauge") is no other thing
        if c.lower_ in _RELATIVE and v.dep_ == "relcl":
            c = v.head  # "the bowser that moved": the bowser moved
        if c.pos_ not in ("NOUN", "PROPN"):
            return False
        args.append(c)
    if not args:
        return False
    skip = {w.i for c in v.children if c.dep_ in ("conj", "cc", "parataxis", "ccomp") for w in c.subtree}
    own = {key(w) for w in v.subtree if w.i not in skip} | {key(w) for a in args for w in a.subtree}
    return _stem_hits(subj, own) == 0


def _member_by_kind(form: Form, t: Any) -> bool:
    """Does a word before the claim's noun of the list's kind name a kind of one of the members by WordNet
    ("a Pyrex bottle" for "only in glass bottles": Pyrex is a glass)? Then the thing may be a member; the
    list says nothing against it. A member word WordNet does not know, or a rarer sense, decides nothing."""
    words = [w for w in t.lefts if w.dep_ in ("compound", "amod", "nmod") and w.pos_ in ("NOUN", "PROPN", "ADJ")]
    members = [" ".join(m) for m in form.members if len(m) == 1]
    phrases = {k: p for k, p in categories.rule_nouns(form.text)}
    return any(categories.is_kind(w, phrases.get(m, m)) or wordnet.is_a(w.lower_, phrases.get(m, m))
               for w in words for m in members)


def _owner(claim: Claim, t: Any) -> Clause | None:
    """The clause a token belongs to: the clause whose head it hangs from."""
    heads = {c.head_i: c for c in claim.clauses}
    a = t
    while a.i not in heads and a.head.i != a.i:
        a = a.head
    return heads.get(a.i)


def _label_codes(doc: Any, kind: str) -> Iterator[tuple[list[Any], names.Member]]:
    """Codes the claim gives with the list's label ("routes 4 and 12", "route 21", "Room 3"): one per code."""
    for t in doc:
        if key(t) != kind:
            continue
        first = [c for c in t.children if c.dep_ in ("nummod", "appos", "compound", "npadvmod")
                 and names._is_code(c.text) and c.i > t.i]
        if not first and t.i + 1 < len(doc) and names._is_code(doc[t.i + 1].text):
            first = [doc[t.i + 1]]
        codes = first + [c for f in first for c in f.conjuncts if names._is_code(c.text)]
        for c in codes:
            yield [t, c], names.Member(frozenset({names._norm(t.text)}), frozenset({c.text.lower()}))


def _slot_prep(run: list[Any]) -> str:
    """The preposition a name run is the object of ("went to Orlen Couriers" -> "to"), or ""."""
    head = max(run, key=lambda t: sum(1 for x in run if x.head.i == t.i))
    for t in [head] + [x for x in run if x.dep_ in ("pobj", "conj", "appos")]:
        a = t
        while a.dep_ in ("conj", "appos", "compound", "nmod") and a.head.i != a.i:
            a = a.head
        if a.dep_ == "pobj" and a.head.pos_ == "ADP":
            return a.head.lower_
    first = run[0]
    i = first.i - 1
    while i >= 0 and first.doc[i].pos_ in ("DET", "ADJ", "NUM") and first.doc[i].lower_ not in ("and", "or"):
        i -= 1
    return first.doc[i].lower_ if i >= 0 and first.doc[i].pos_ == "ADP" else ""


def _clause_words(claim: Claim, doc: Any, c: Clause) -> tuple[set[str], set[str]]:
    """The words and verbs of a clause, with those of the clause it is joined to when it has no subject of
    its own ("The artics went on routes 4 and 12, and [went on] route 21")."""
    words, verbs = set(c.keys), set(c.verbs)  # not what a chunk says of a name in it: that may be another thing
    h = doc[c.head_i]
    if h.dep_ == "conj" and not any(x.dep_ in ("nsubj", "nsubjpass") for x in h.children):
        parent = _owner(claim, h.head)
        if parent is not None and parent is not c:
            words, verbs = words | parent.keys, verbs | parent.verbs
    return words, verbs


# words that open a phrase of cause ("because of the Vitrolife backorder", "due to", "owing to", "thanks to")
_CAUSES = frozenset({"because", "due", "owing", "thanks"})


def _joined_to_member(run: list[Any], members: Sequence[names.Member]) -> bool:
    """Is a name run joined by "and"/"or" to a name that is a member ("by Brennan and Hart")? Names joined so
    fill one slot, so the run is a thing of the list's kind."""
    ids = {r.i for r in run}
    for x in run:
        for other in x.conjuncts:
            if other.i in ids or other.pos_ != "PROPN":
                continue
            name = [w.text for w in other.lefts if w.dep_ == "compound"] + [other.text]
            if names.matches(names.member_of(" ".join(name)), members):
                return True
    return False


def _without_aside(doc: Any, c: Clause, tok: Any, members: Sequence[names.Member] = ()) -> str:
    """The clause's words without a "with" aside that does not hold ``tok`` ("with Okafor supervising", "With
    Duo Kestrel injured", "with Okafor on the surface") or a phrase of cause ("Because of the Vitrolife
    backorder"): a member named there is not the one in the list's slot, it says why; nor is a member joined to
    ``tok`` by "and"/"or" ("by Brennan and Hart"): it stands beside the name, it does not hold it."""
    aside: set[int] = {x.i for x in tok.conjuncts if x.pos_ == "PROPN"} if members else set()
    for t in doc:
        if c.start <= t.idx < c.end and t.lower_ in _CAUSES and t.dep_ in ("prep", "mark", "advmod", "amod"):
            sub = {x.i for x in (t.head.subtree if t.dep_ == "mark" else t.subtree)}
            if tok.i not in sub:
                aside |= sub
        if c.start <= t.idx < c.end and t.lower_ == "with" and t.dep_ in ("prep", "mark"):
            sub = {x.i for x in (t.head.subtree if t.dep_ == "mark" else t.subtree)}
            if tok.i not in sub and any(x.dep_ in ("nsubj", "pobj") and x.pos_ == "PROPN" for x in doc if x.i in sub) \
                    and any(x.pos_ == "VERB" or x.tag_ in ("VBG", "VBN") or x.dep_ == "prep" and x.head.dep_ == "pobj"
                            and x.head.head.i == t.i for x in doc if x.i in sub):
                aside |= sub
    return " ".join(t.text for t in doc if c.start <= t.idx < c.end and t.i not in aside)


def _kind_before(doc: Any, i: int, kind: str) -> bool:
    """Is the name at token ``i`` given right after the noun of its kind ("the guest act The Spinners",
    "contractor diver P. Hart")?"""
    j = i - 1
    while j >= 0 and (doc[j].pos_ == "DET" or doc[j].text.endswith(".") and doc[j].text[:1].isupper()):
        j -= 1  # an article, an initial ("P. Hart")
    return j >= 0 and key(doc[j]) == kind


def _other_subject_kind(tok: Any, subject: set[str], qualifier: set[str]) -> bool:
    """Is the name at ``tok`` said of a subject of the rule's kind but another sort: the clause's subject
    shares the rule subject's noun and lacks a word that qualifies it, naming another in its place ("the
    base course" for "Surface-course mixes")?"""
    verb = next((a for a in [tok, *tok.ancestors] if a.pos_ in ("VERB", "AUX")), None)
    subj = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None) if verb is not None else None
    if subj is None:
        return False
    words = {key(t) for t in subj.subtree if t.pos_ in ("NOUN", "PROPN", "ADJ")} - GENERIC
    # another modifier on a noun of the rule's subject ("base" on "course"), not another word for it ("double-deckers")
    other_mod = any(key(c) not in subject and key(c) not in GENERIC for n in subj.subtree if key(n) in subject
                    for c in n.children if c.dep_ in ("compound", "amod"))
    return other_mod and bool(qualifier - words)


def _maker_of_member(doc: Any, run: list[Any], members: list[names.Member], kind: str,
                     member_names: Sequence[str]) -> bool:
    """Is the name only the maker or owner of a member it stands before ("BASF's Lutan F", "BASF Lutan F",
    "Acme's Vesper Vision")? A possessor names whose the thing is, and a name that ends with a member's whole
    name is that member with its maker's name in front: the thing in the list's slot is the member. The member
    must be named whole ("Acme's Calder Springs" is no "Halden Springs")."""
    def member(toks: list[Any]) -> bool:  # every word and code of a member, not only one word in common
        text = " ".join(t.text for t in toks)
        cand = names.member_of(text)
        return _squashed(text) in written or any(m.words | m.codes <= cand.words | cand.codes for m in members)

    written = {_squashed(n) for n in member_names}
    last = run[-1]
    if last.dep_ == "poss" and last.head.i > last.i:
        owned = [t for t in last.head.subtree if t.i > last.i and t.dep_ != "case" and t.pos_ in ("PROPN", "NUM", "X",
                                                                                                     "NOUN")]
        if owned and member(owned):
            return True
    return any(run[k].pos_ == "PROPN" and member(run[k:]) for k in range(1, len(run)))


def _squashed(name: str) -> str:
    """A name without its spaces, hyphens and case ("Lutan F", "Lutan-F" and "lutan f" are one name)."""
    return re.sub(r"[\W_]+", "", name).lower()


def check_named_members(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """An allow-list of names ("only from Claridge Optics, Norland Lens or Vesper Vision", "only to routes 4,
    12 and 19"): the claim, speaking of the rule's thing in a clause that is not denied, puts a name or a code
    in the list's slot (the object of the same kind of preposition, or a code given with the list's label)
    that matches no member ("went to Orlen Couriers", "route 21"). A clause that names a member anywhere
    ("from Tom at Norland") says nothing against the list."""
    out: list[Finding] = []
    lists = [f for f in forms if f.member_names]
    if not lists:
        return out
    doc = parse(claim.text)
    for f in lists:
        members = [names.member_of(n) for n in f.member_names]
        own = {names._norm(w) for m in f.member_names for w in m.split()}
        topic = {k for k in set(f.subject) | set(f.object) | set(f.action)
                 if k not in GENERIC and k != f.member_kind and k not in own}
        coded = all(m.codes for m in members) and bool(f.member_kind)
        candidates: list[tuple[list[Any], names.Member]] = list(_label_codes(doc, f.member_kind)) if coded else []
        if not coded:
            for s in (sentence_span(claim.text, c.start, c.end) for c in claim.clauses):
                for run in names.name_spans(doc, s[0], s[1], f.member_kind):
                    prep = _slot_prep(run)
                    kinded = bool(f.member_kind) and (any(key(x) == f.member_kind or key(x.head) == f.member_kind
                                                          for x in run) or (
                        run[-1].i + 1 < len(doc) and key(doc[run[-1].i + 1]) == f.member_kind) or (
                        _kind_before(doc, run[0].i, f.member_kind))) or _joined_to_member(run, members)
                    if (f.member_prep and names.same_slot(f.member_prep, prep)) or (not f.member_prep and kinded):
                        candidates.append((run, names.member_of(" ".join(x.text for x in run))))
        seen: set[int] = set()
        for run, cand in candidates:
            if run[0].i in seen or names.matches(cand, members, [f.member_kind]) or \
                    _maker_of_member(doc, run, members, f.member_kind, f.member_names):
                continue
            seen.add(run[0].i)
            c = _owner(claim, run[0])
            if c is None or c.negated or c.negverb:
                continue
            clause_text = _without_aside(doc, c, run[0], members).lower()
            if not coded and any(m.words and all(w in clause_text for w in m.words) for m in members):
                continue  # a member is named in the same clause ("ordered from Tom at Norland Lens")
            if all(x.lower_ in f.text.lower() for x in run if not names._is_code(x.text)) and not coded and \
                    all(x.text.lower() in f.text.lower() for x in run):
                continue  # the rule's own words
            words, verbs = _clause_words(claim, doc, c)
            # the rule's doing told by a manner of its verb ("bought" for "purchased"), the very verb the name's
            # slot hangs from, is the rule's doing
            slot_verb = verb_at_or_above(run[0])
            kinds = categories.verb_kind_keys(f.text, tuple(f.action), doc, slot_verb.idx, slot_verb.idx + 1)
            words, verbs = words | kinds, verbs | kinds
            kind_named = not f.member_prep and bool(f.member_kind) and (any(
                key(x) == f.member_kind or key(x.head) == f.member_kind for x in run) or
                _kind_before(doc, run[0].i, f.member_kind))
            # a code given with the list's label ("route 21") is a thing of the list's kind: one word of the
            # rule's thing in its clause is enough; a name needs two, or the rule's verb and one
            # (and the words that qualify the rule's subject, when it has them: "Bus 256" is no articulated bus)
            qualifier = {k for k in f.subject[:-1] if k not in GENERIC and k not in own}
            need = 1 if coded else min(2, len(topic))
            if coded and qualifier and not _stem_hits(qualifier, words):
                continue
            if qualifier and _other_subject_kind(run[0], set(f.subject) - own, qualifier):
                continue  # "the base course used PG 58-28 and the surface course PG 70-28": the base course's binder
            if not kind_named and not (_stem_hits(topic, words) >= need or (set(f.action) & verbs and
                                                                          _stem_hits(topic, words))):
                continue  # the name's own clause speaks of something else ("empties unloaded into Warehouse 3")
            start, end = run[0].idx, run[-1].idx + len(run[-1].text)
            out.append(_finding(f, claim, c.start, c.end, "allow_list",
                                f"{claim.text[start:end]!r} is not on the list of {f.text!r}", basis="named"))
            break
    return out


# endings that make an adjective of a noun ("oily" rags are rags with oil, "wooden" crates are made of wood)
_ADJ_ENDINGS = ("y", "i", "en", "ic", "al", "ed", "ish")


def _kin_hits(words: set[str], present: set[str] | frozenset[str]) -> int:
    """Words met as written or as the noun an adjective is made from ("oily" and "linseed-oil")."""
    return sum(1 for w in words if w in present or any(
        len(p) >= 3 and w.startswith(p) and w[len(p):] in _ADJ_ENDINGS for p in present))


def _undone_but_by(doc: Any, c: Clause, prep: Any) -> bool:
    """Is the only word that reads a clause as undone the preposition "outside" the place check reads itself?"""
    if prep.lower_ not in places.OUTSIDE_PREPS or re.search(
            r"\b(?:stays?|remains?|kept|keeps?|is|are|was|were|turned|switched|left)\s+"
            r"(?:off|closed|shut|disabled|locked)\b", doc.text[c.start:c.end].lower()):
        return False
    return not any(key(t) in NEGATING for t in doc if c.start <= t.idx < c.end and t.i != prep.i and
                   t.pos_ in ("VERB", "ADJ", "ADV", "ADP") and t.dep_ not in ("amod", "compound"))


def _span_text(t: Any) -> str:
    """The words of a token's phrase."""
    words = list(t.subtree)
    return t.doc[words[0].i: words[-1].i + 1].text


def _other_place(objs: Sequence[Any], allowed: Sequence[places.Place]) -> tuple[Any | None, bool]:
    """The first place phrase that is none of the allowed places, and whether surely so: told apart by the
    text, or another site by its kind (sure); or a larger place that may hold an allowed one (unsure)."""
    for o in objs:
        p = places.place_of(o)
        if any(places.names_alias(p, a) for a in allowed):
            continue  # "Room 2.14" for "the pre-PCR laboratory, Room 2.14"
        levels = [True if places.surely_other(p, a) or places.other_site(p, a) else
                  False if places.maybe_holds(p, a) else None for a in allowed]
        if None not in levels:
            return o, all(levels)
    return None, False


def _stood_in(doc: Any, text: str, prep: Any, objs: Sequence[Any], allowed: Sequence[places.Place],
              found: tuple[Any | None, bool]) -> tuple[Any | None, bool]:
    """A place phrase the text cannot tell from the allowed places, made surely another by its sentence: every
    allowed place it does not tell apart is said out of use or set aside ("With the extraction booth down, the
    panels were cut on table 2"; ``stand_in``). A time ("on Tuesday") or a place whose phrase names an allowed
    one ("the cupboard inside the boathouse") is no such phrase."""
    start, end = sentence_span(text, prep.idx, prep.idx + len(prep.text))
    for o in objs:
        if places.names_time(o) or any(places.may_name(w, a) for w in o.subtree if w.pos_ in ("NOUN", "PROPN")
                                       for a in allowed):
            continue  # "on Sunday"; "the cupboard inside the boathouse" may still be in the allowed place
        p = places.place_of(o)
        if any(places.names_alias(p, a) for a in allowed):
            continue
        if all(places.surely_other(p, a) or places.other_site(p, a) or stand_in.set_aside(
                doc, start, end, lambda t, a=a: places.may_name(t, a)) for a in allowed):
            return o, True
    return found


def _allowed_aside(doc: Any, text: str, prep: Any, allowed: Sequence[places.Place]) -> bool:
    """Does the sentence of a place phrase tell an allowed place out of use or set aside ("because the charging
    cabinet was full, the battery was charged on the bench")? Then the claim itself takes its thing for one the
    rule sends there, though it names the thing without the rule's narrowing words (``stand_in``)."""
    start, end = sentence_span(text, prep.idx, prep.idx + len(prep.text))
    return any(stand_in.set_aside(doc, start, end, lambda t, a=a: places.may_name(t, a)) for a in allowed)


def check_places(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """A rule's thing put, in a clause that is not denied, in a place surely none of the rule's allowed places
    ("exported the audiograms to her own laptop" for "only on the clinic's secure records server"). Sure when
    the claim's thing carries the rule's words for it ("chemical drums") or the rule has none; a thing named
    only by the rule's noun, where the rule narrows it, is unsure (REVIEW); one the claim narrows otherwise
    ("the diesel buses" for "electric buses") is another thing."""
    out: list[Finding] = []
    lists = [f for f in forms if f.places and f.place_thing]
    if not lists:
        return out
    doc = parse(claim.text)
    for f in lists:
        allowed = places.allowed_places(f.places)
        if not allowed:
            continue
        things = places.rule_things(f.text, f.place_thing)
        doings = places.rule_doings(f.text)
        qualifiers = set(f.subject) - set(things) - GENERIC
        # a rule of a route or a source is broken by the same preposition ("run from the team leader's car")
        route = {f.place_prep} & places.ROUTE_PREPS
        for p in doc:
            if p.dep_ != "prep" or p.lower_ not in places.PLACE_PREPS | places.OUTSIDE_PREPS | route:
                continue
            thing = next((t for k in things if (t := places.thing_in(p, k, doing=k in doings)) is not None), None)
            by_kind = False
            if thing is None:  # a kind of the rule's thing ("pizza" for "food")
                thing = next((t for k in things if (t := places.thing_in(p, k, categories.phrase_of(f.text, k)))
                              is not None), None)
                # a noun or adjective before it may make it another thing ("a toy duck"), unless it is one of the
                # rule's own words for it ("furnace oil" for "fuel for the drying furnace"); a name does not
                by_kind = thing is not None
                if by_kind and any(w.dep_ in ("compound", "amod") and w.pos_ != "PROPN" and key(w) not in qualifiers
                                   for w in thing.lefts):
                    continue
            if thing is None:
                continue
            own_words = {key(w) for w in thing.lefts if w.dep_ in ("compound", "nmod") and w.pos_ == "NOUN"}
            if qualifiers and own_words and not _kin_hits(qualifiers, own_words):
                continue  # "the diesel buses" are not "electric buses" ("full drums" may still be "chemical drums")
            c = _owner(claim, p)
            if c is None or c.negated or (c.negverb and not _undone_but_by(doc, c, p)):
                continue
            objs = [o for o in p.children if o.dep_ == "pobj" and o.pos_ in ("NOUN", "PROPN")]
            objs += [x for o in objs for x in o.conjuncts]
            if p.lower_ in places.OUTSIDE_PREPS:  # "outside the locked gown room": every allowed place named
                named = all(any(places.names_allowed(o, a) for o in objs) for a in allowed)
                other, level = (objs[0], True) if named and objs else (None, False)
                if other is None:
                    continue
            elif f.member_names and any(ch.isdigit() for ph in f.places for ch in ph):
                other, level = None, False  # numbered places ("only in Bay 2 or Bay 6"): the list of names reads them
            else:
                other, level = _other_place(objs, allowed)
                if not level:
                    other, level = _stood_in(doc, claim.text, p, objs, allowed, (other, level))
            if not level:  # a code or name a cited legend describes ("Room B14" and "B14 = Andrology lab")
                listed = next((o for o in objs if places.other_by_legend(_span_text(o), allowed, claim.chunk_texts)),
                              None)
                other, level = (listed, True) if listed is not None else (other, False)
            if other is None:
                continue
            # the thing is the rule's: it carries the rule's narrowing words, or the sentence tells an allowed place
            # out of use, so the claim itself sends the thing there
            sure = level and (not qualifiers or bool(_stem_hits(qualifiers, c.keys) or _kin_hits(qualifiers, c.keys))
                              or _allowed_aside(doc, claim.text, p, allowed))
            phrase = doc[min(w.i for w in other.subtree): max(w.i for w in other.subtree) + 1].text
            where = f"outside {phrase!r}" if p.lower_ in places.OUTSIDE_PREPS else repr(phrase)
            out.append(_finding(f, claim, c.start, c.end, "allow_list",
                                f"{where} is not where {f.text!r} allows", sure=sure,
                                basis="place_kind" if by_kind else "place"))
            break
    return out
