"""Two things a rule keeps apart, read from the rule's grammar: which two, and apart in what.

Why its own module: an exclusion is told in many shapes ("A and B must never be stored in the same magazine",
"Acetone must never be stored in the same cabinet as oxidisers", "Rams must never be penned together with
ewes", "Nitrate film must be stored apart from all other collections", "Smoke-wire runs must never run at the
same time as PIV measurements", "The same person must never act as both draw operator and adjudicator", "The
rescue-boat driver must not also be instructing a group"). Each gives two members and a scope: a holder (the
cabinet, the pen, the bay; none for a bare "apart"), a time, or one person holding two roles. The claim side
(``together_by_grammar``, ``two_roles``) reads a claim against this pair.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from abilities.scu_guard import measure, wordnet
from abilities.scu_guard.nlp import key, parse

Scope = Literal["place", "time", "person"]

_NOUNS = frozenset({"NOUN", "PROPN"})
_MOD_DEPS = frozenset({"amod", "compound", "nmod"})
# words that put a holder in common ("the same cabinet") or apart ("separate lockers")
_SHARED_HOLDER = frozenset({"same", "one", "single", "separate"})
# a noun that names nobody in particular: "the same person" holds the two roles
_ANYONE = frozenset({"person", "individual", "someone", "one", "member", "employee", "worker"})
# prepositions that say where a member is, not which member it is ("mares in the main barn")
_WHERE = frozenset({"in", "on", "at", "inside", "into", "onto", "within"})
_ROLE_PAIR_RE = re.compile(r"\bas both (?:an? |the )?(?P<a>.+?) and (?:an? |the )?(?P<b>.+?)"
                           r"(?=\s+(?:for|on|in|at|during|of|within)\b|[.,;]|$)", re.I)


@dataclass(frozen=True)
class Member:
    """One of the two things (or roles) a rule keeps apart."""

    keys: frozenset[str]  # every word of its phrase
    head: str  # the key of its head word
    lemma: str  # the head's lemma, for WordNet
    mods: frozenset[str]  # the words that narrow it ("freshly cut" daffodils), "other" left out
    other: bool = False  # "other flowers": any of its kind that is not the first member
    verb: bool = False  # a role told by what its holder does ("must not also be instructing a group")


@dataclass(frozen=True)
class Pair:
    """The rule's two sides (each one member, or several told as a list: "solvents, paints or degreasers") and
    what they may not share: a holder noun (its key and lemma; empty for a bare "apart"), a time, or one
    person."""

    a: tuple[Member, ...]
    b: tuple[Member, ...]
    scope: Scope
    holder: str = ""
    holder_lemma: str = ""
    action: str = ""  # the key of the rule's own verb ("run" in "must never run at the same time as")


def _member(t: Any, *, verb: bool = False) -> Member:
    """A member from its head token: the words that narrow it are its modifiers before it and its phrases and
    clauses after it ("a patient with C. difficile infection"), not the other members listed with it."""
    skip = {w.i for c in t.children if c.dep_ in ("conj", "cc", "appos", "det", "nummod", "punct")
            or (c.dep_ == "prep" and c.lower_ in _WHERE) or _such_as(c) for w in c.subtree}
    inner = [w for c in t.children if c.dep_ == "dobj" for w in c.subtree] if verb else list(t.subtree)
    words = [w for w in inner if w.i != t.i and w.i not in skip
             and w.pos_ in ("NOUN", "PROPN", "ADJ", "VERB", "ADV") and w.lower_ not in ("other", "all", "such")]
    other = any(w.lower_ in ("other", "all") for w in t.children)
    mod_keys = frozenset(k for w in words if (k := key(w)).isalnum())
    return Member(keys=mod_keys | {key(t)}, head=key(t), lemma=t.lemma_.lower(), mods=mod_keys, other=other,
                  verb=verb)


def _such_as(p: Any) -> bool:
    """Is this the "such as" phrase that gives examples of a member ("items that can transfer dye, such as dark
    linings and coloured sashes")?"""
    return p.dep_ == "prep" and p.lower_ == "as" and any(c.lower_ == "such" for c in p.children)


def _examples(t: Any) -> tuple[Member, ...]:
    """The examples a member's "such as" gives, each a member of its side (found also under the member's
    relative clause, where the parser often hangs it)."""
    preps = [p for w in t.subtree if w.dep_ == "prep" for p in [w] if _such_as(p)]
    return tuple(m for p in preps for o in p.children if o.dep_ == "pobj" for m in _listed(o))


def _listed(t: Any) -> tuple[Member, ...]:
    """A member and those listed with it ("solvents, paints or degreasers")."""
    return tuple(_member(w) for w in [t, *t.conjuncts] if w.pos_ in _NOUNS)


def _phrase_member(text: str) -> Member | None:
    """A member named by a phrase of its own ("draw operator", "touring puppets"): the phrase's head noun (its
    syntactic root, else its last noun); words in brackets are left out ("panels (carbon or aramid)")."""
    doc = parse(re.sub(r"\([^)]*\)", " ", text).strip())
    nouns = [t for t in doc if t.pos_ in _NOUNS or t.tag_.startswith("NN")]
    if not nouns:
        return None
    head = next((t for t in nouns if t.dep_ == "ROOT"), nouns[-1])
    mods = frozenset(k for t in doc if t.i != head.i and t.pos_ in ("NOUN", "PROPN", "ADJ", "VERB")
                     and t.lower_ not in ("other", "all") and (k := key(t)).isalnum())
    other = any(t.lower_ in ("other", "all") for t in doc)
    return Member(keys=mods | {key(head)}, head=key(head), lemma=head.lemma_.lower(), mods=mods, other=other)


def _denied(root: Any) -> bool:
    return any(c.dep_ == "neg" or c.lower_ in ("never", "cannot") for c in root.children)


def _with_of(t: Any) -> Any | None:
    """The object of "with" / "from" hanging on a token ("share a bucket with other flowers", "apart from")."""
    for p in t.children:
        if p.dep_ == "prep" and p.lower_ in ("with", "from"):
            return next((o for o in p.children if o.dep_ == "pobj"), None)
    return None


_AS_SAME_RE = re.compile(r"\bthe same (?:\w+[ -]){0,2}?\w+ as (?:an? |the )?(?P<m>[^.;]+?)(?=\s+(?:during|for|on|in|at|when|while|"
                         r"unless|if)\b|[.;]|$)", re.I)


def _holder(doc: Any, root: Any, members: set[int]) -> tuple[Scope, Any | None]:
    """("time", None) for "at the same time"; ("time", noun) for "on the same day"; ("place", noun) for the
    holder the rule names, or no noun."""
    for t in doc:
        if t.pos_ == "NOUN" and t.i not in members and any(c.dep_ == "amod" and c.lower_ in _SHARED_HOLDER
                                                           for c in t.children):
            if t.lemma_.lower() in _ANYONE:
                continue
            return _scope_of(t), None if t.lemma_.lower() == "time" else t
    return _held_in(root)


def _held_in(root: Any) -> tuple[Scope, Any | None]:
    """The holder of a rule with no "same" noun: the thing shared, or the place of a prohibition."""
    if root.lemma_.lower() == "share":
        obj = next((c for c in root.children if c.dep_ == "dobj"), None)
        if obj is not None:
            return "place", obj
    # "kept apart", "penned together with ewes in the shed's holding pens": apart in any holder (the place a
    # prohibition names says where it holds, not what the two may not share)
    return "place", None


def is_time(t: Any) -> bool:
    """Does a noun name a time rather than a place ("on Monday", "on 3 May", "at 09:00", "in the morning")?"""
    text = " ".join(w.text for w in t.subtree)
    return _scope_of(t) == "time" or bool(measure.find_weekdays(text) or measure.find_dates(text)
                                          or measure.find_clock_times(text))


def _scope_of(t: Any) -> Scope:
    """A holder that is a stretch of time ("the same time", "the same day", "the same evening") or a place."""
    lemma = t.lemma_.lower()
    return "time" if lemma == "time" or wordnet.is_a(lemma, "time period") or wordnet.is_a(lemma, "time unit") \
        else "place"


# a rule of distance ("separated by at least one empty lane", "30 metres apart") is an amount, read elsewhere
_DISTANCE_RE = re.compile(r"\d|\bat (?:least|most)\b|\bno (?:more|less|fewer)\b", re.I)


@lru_cache(maxsize=4096)
def rule_pair(text: str) -> Pair | None:
    """The two members a rule keeps apart and their scope, or None when the rule is of no such shape."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or _DISTANCE_RE.search(text):
        return None
    low = text.lower()
    subj = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    deny = _denied(root)
    if subj is None:
        return None
    if deny and (also := _also_role(root, subj)) is not None:
        return also
    apart = bool(re.search(r"\b(?:apart|separate(?:ly|d)?)\b", low))
    same = bool(re.search(r"\b(?:same|share[sd]?|together|alongside)\b", low))
    if not ((deny and same) or (not deny and apart)):
        return None
    if any(c.lower_ == "same" for c in subj.children) and subj.lemma_.lower() in _ANYONE:
        m = _ROLE_PAIR_RE.search(text)
        ra, rb = (_phrase_member(m.group("a")), _phrase_member(m.group("b"))) if m else (None, None)
        return Pair((ra,), (rb,), "person") if ra and rb else None
    a, b = _sides(text, doc, root, subj)
    if not a or not b:
        return None
    taken = {w.i for w in subj.subtree} | {w.i for w in doc if any(key(w) in m.keys for m in b)}
    scope, holder = _holder(doc, root, taken)
    if holder is not None and holder.head.dep_ == "agent":
        return None  # "run by the same game master": one person, not one holder
    return Pair(a, b, scope, key(holder) if holder is not None else "",
                holder.lemma_.lower() if holder is not None else "", key(root))


def _sides(text: str, doc: Any, root: Any, subj: Any) -> tuple[tuple[Member, ...], tuple[Member, ...]]:
    """The rule's two sides: coordinated subjects ("A and B must never ..."), or the subject and the thing after
    "with", "apart from", "the same N as"; by the words around "and" where the parser missed the coordination."""
    conj = [c for c in subj.conjuncts if c.pos_ in _NOUNS]
    if conj and subj.pos_ in _NOUNS:
        return (_member(subj),), (_member(conj[0]),)
    head_text = re.split(r"\b(?:must|may|shall|should|can|cannot|are|is)\b", text, maxsplit=1)[0]
    parts = [p for p in re.split(r"\s+and\s+", head_text) if p.strip()]
    if len(parts) == 2 and "," not in head_text:
        ma, mb = _phrase_member(parts[0]), _phrase_member(parts[1])
        if ma is not None and mb is not None and len(parts[0].split()) == 1 and mb.mods:
            # "Fire and water stunts", "Hazardous and household waste": the first word shares the second's noun
            ma = Member(keys=frozenset({ma.head, mb.head}), head=mb.head, lemma=mb.lemma, mods=frozenset({ma.head}))
        if ma is not None and mb is not None and (ma.head != mb.head or ma.mods != mb.mods):
            return (ma,), (mb,)
    if subj.pos_ not in _NOUNS:
        return (), ()
    other = _with_of(root) or next((w for c in root.children if c.dep_ in ("dobj", "advmod")
                                    for w in [_with_of(c)] if w is not None), None)
    if other is not None and other.pos_ in _NOUNS:
        return (_member(subj), *_examples(subj)), _listed(other)
    m = _AS_SAME_RE.search(text)
    if m is None:
        return (), ()
    told = m.group("m")
    # "solvents, paints or degreasers" is a list; "finished, packed goods" one thing with two describing words
    listed = [p for p in re.split(r",\s*|\s+or\s+|\s+and\s+" if re.search(r"\b(?:or|and)\b", told) else r"$^",
                                  told) if p.strip()]
    members = tuple(x for p in listed if (x := _phrase_member(p)) is not None)
    return (_member(subj), *_examples(subj)), members


def _also_role(root: Any, subj: Any) -> Pair | None:
    """ "The rescue-boat driver must not also be instructing a group": a role noun as subject, and what its
    holder must not also do."""
    if root.pos_ != "VERB" or not any(c.lower_ == "also" for c in root.children) or subj.pos_ != "NOUN" \
            or wordnet.names_person(subj.lemma_.lower()) is False:
        return None
    return Pair((_member(subj),), (_member(root, verb=True),), "person")


def member_keys(pair: Pair) -> list[list[str]]:
    """The members as the typed form keeps them (the keys of each phrase)."""
    return [sorted(set().union(*(m.keys for m in pair.a))), sorted(set().union(*(m.keys for m in pair.b)))]


# a member named only to be left out ("no rams", "without the ewes", "except the tulips")
_LEFT_OUT = frozenset({"without", "except", "excluding", "minus"})
# a noun's own phrases that name another thing beside it, or where it is (not what it is)
_BESIDE_DEPS = frozenset({"conj", "cc", "appos", "punct", "det", "nummod"})
_BESIDE_PREPS = frozenset({"with", "alongside", "beside", "besides", "next", "among", "amongst", "to", "in", "into",
                           "on", "onto", "at", "inside", "near", "by", "from", "for", "until", "after", "before",
                           "during"})


def phrase_keys(t: Any) -> frozenset[str]:
    """The keys of a noun's own phrase: its modifiers, what it is "of", its relative clause ("Rex, who is
    unneutered"); not the things listed or set beside it, nor its place."""
    out = {key(t)}
    stack: list[Any] = [c for c in t.children if c.dep_ not in _BESIDE_DEPS and c.dep_ != "poss"
                        and not (c.dep_ == "prep" and c.lower_ in _BESIDE_PREPS)]
    while stack:
        w = stack.pop()
        out.add(key(w))
        stack.extend(c for c in w.children if c.dep_ not in ("conj", "cc"))
    return frozenset(out)


def described(t: Any) -> frozenset[str]:
    """What a name is said to be or have: its describing words, its apposition, a relative clause of being or
    having ("Rex, who is unneutered", "Mr Kay, who has norovirus")."""
    parts = [c for c in t.children if c.dep_ in ("amod", "compound", "appos")]
    parts += [c for c in t.children if c.dep_ == "relcl" and c.lemma_.lower() in ("be", "have")]
    return frozenset(key(w) for c in parts for w in c.subtree)


def left_out(t: Any) -> bool:
    """Is the noun named only to be denied or left out ("no rams", "neither ewe", "without the ewes")?"""
    if any(c.dep_ in ("det", "neg", "preconj") and c.lower_ in ("no", "neither", "not", "never") for c in t.children):
        return True
    if t.dep_ == "conj" and (any(c.lower_ == "nor" for c in t.head.children) or left_out(t.head)):
        return True  # "neither the bottles nor the acetone"
    if t.dep_ == "pobj" and any(c.dep_ == "neg" for c in t.head.children):
        return True  # "with the bleach, not with the acetone"
    return t.dep_ == "pobj" and t.head.lower_ in _LEFT_OUT


_MEMBER_MEMO: dict[tuple[str, int, tuple[Member, ...], str], str | None] = {}


def names_member(t: Any, sides: tuple[Member, ...], rule_text: str = "") -> str | None:
    """``_names_member`` of a token, remembered by its text and place: each pair's members are asked of every
    noun of a claim by several readings. The memo is emptied when it grows past 65,536 answers."""
    if t.pos_ not in _NOUNS:
        return None
    k = (t.doc.text, t.i, sides, rule_text)
    if k not in _MEMBER_MEMO:
        if len(_MEMBER_MEMO) >= 65536:
            _MEMBER_MEMO.clear()
        _MEMBER_MEMO[k] = _names_member(t, sides, rule_text)
    return _MEMBER_MEMO[k]


def _names_member(t: Any, sides: tuple[Member, ...], rule_text: str = "") -> str | None:
    """Does the claim's noun name a member of one side: "firm" when its head is the member's (or a kind of it by
    WordNet) and it carries every word that narrows the member, or it holds all the member's words ("spare
    lithium-ion battery modules" for "lithium-ion battery spares"); "guess" when the head is the member's but
    a narrowing word is not said; None otherwise."""
    from abilities.scu_guard import categories  # noqa: PLC0415 - WordNet kinds load only when a pair is read

    if t.pos_ not in _NOUNS or t.dep_ in ("compound", "poss") or left_out(t):
        return None
    mine = phrase_keys(t)
    best: str | None = None
    for m in sides:
        if m.verb:
            continue
        if t.pos_ == "PROPN" and m.mods and m.mods <= described(t):
            return "firm"  # "Mr Kay, who has norovirus" for "patients with norovirus"
        if t.pos_ == "PROPN" and m.other and wordnet.names_person(m.lemma) is not False \
                and not any(c.dep_ == "nummod" or c.like_num for c in t.children):
            best = "guess"  # "with Mrs Dunn" for "other patients": someone else, maybe one of them
        if m.keys <= mine and len(m.keys) > 1 or (len(m.mods) > 1 and m.mods <= mine and key(t) in m.mods):
            return "firm"  # every word of it; or its narrowing words as a name ("the smoke wire", "the PIV laser")
        content = categories.holds_content(t) if t.pos_ == "NOUN" else None
        head = key(t) == m.head or (content is not None and key(content) == m.head) or (
            t.pos_ == "NOUN" and categories.is_kind(t, m.lemma))
        if head and (m.mods <= mine or m.other):
            return "firm"
        if head:
            best = "guess"
    return best
