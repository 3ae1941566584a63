"""Two things a rule keeps apart, put together (or kept apart) by the grammar of a claim.

Why its own module: an exclusion found by both members' words and a word of togetherness somewhere in a clause
is a guess ("the same day", "also" may be said of something else), so it waits in REVIEW. A claim says outright
that the two were together when one verb, told as a fact (not denied, no modal, not asked, not planned), takes
one member of each side in one slot ("Pen 3 held forty ewes and the two rams", "..., and the two rams too", "the
smoke wire was running, as was the PIV laser") or sets one beside the other ("stored alongside", "together
with", "next to", "shared a shelf with"), and names the holder the rule speaks of: the verb's place or its
subject that holds them ("Cabinet 4 held ..."), of the rule's holder noun or a kind of it; a larger place ("the
prep room" for "the same cabinet") may hold two cabinets and ties nothing. For a rule of one time, the verb
is the rule's own and the time is one ("was running, as was"; a clock span). It says they were apart when each
is put in a place of its own ("the ewes were in pen 3, the rams in pen 5") or one is told after the other
("once the mares had gone out, the stallion came in"). ``shared_by_both`` is the round 10 reading of "share".
"""

from __future__ import annotations

import re
from typing import Any

from abilities.scu_guard import apart, place_scale, wordnet
from abilities.scu_guard.nlp import MODALS, key, word_key


def _phrase_keys(t: Any) -> set[str]:
    """Keys of a conjunct's own phrase (its modifiers, without the other conjuncts hanging from it)."""
    skip = {c.i for c in t.children if c.dep_ in ("conj", "cc")}
    out: set[str] = set()
    stack = [t]
    while stack:
        w = stack.pop()
        out.add(key(w))
        stack.extend(c for c in w.children if c.i not in skip and c.dep_ not in ("conj", "cc"))
    return out


def shared_by_both(doc: Any, start: int, end: int, a_own: set[str], b_own: set[str]) -> bool:
    """Does a verb "share" between ``start`` and ``end`` take one member as its subject and the other as a
    coordinated subject or in its "with" phrase?"""
    for v in doc:
        if not (start <= v.idx < end) or v.lemma_.lower() != "share" or v.pos_ != "VERB":
            continue
        if any(c.dep_ == "neg" or c.lower_ in ("never", "no") or (c.dep_ == "aux" and c.lower_ in MODALS)
               for c in v.children) or v.sent.text.rstrip().endswith("?"):
            continue
        subj = next((c for c in v.children if c.dep_ == "nsubj"), None)
        if subj is None or any(c.lower_ in ("no", "neither") for c in subj.children):
            continue
        parts = [_phrase_keys(s) for s in [subj, *subj.conjuncts]]
        parts += [_phrase_keys(p) for w in v.children if w.dep_ == "prep" and w.lower_ == "with"
                  and not any(c.dep_ == "neg" for c in w.children) for p in w.children if p.dep_ == "pobj"]
        has_a = [bool(a_own & p) and not b_own & p for p in parts]
        has_b = [bool(b_own & p) and not a_own & p for p in parts]
        if any(has_a) and any(has_b):
            return True
    return False


# prepositions that set a second thing beside the first ("with", "alongside", "next to", "together with")
_COMPANIONS = frozenset({"with", "alongside", "beside", "besides", "among", "amongst"})
_PLACE_PREPS = frozenset({"in", "into", "on", "onto", "at", "inside", "within", "aboard"})
# words that keep the two apart or one after the other within one sentence
_APART_RE = re.compile(r"\b(?:apart|separate\w*|different|another|away from|each in (?:its|their) own|in turn|"
                       r"one after (?:the )?other|respectively|alternat\w+|instead|rather than|then|once|after|"
                       r"before|until|no longer)\b", re.I)
# places that may hold several containers or pieces of furniture ("the prep room" for "the same cupboard")
_HOLDS_SMALL = frozenset({"room", "work", "building", "land"})
_SAME_TIME_RE = re.compile(r"\b(?:together|simultaneously|at once|at the same time|alongside|while|as)\b", re.I)


def _slot(t: Any) -> tuple[Any, str] | None:
    """The verb a noun phrase is tied to and how: ("subj" / "obj" / "with"). A noun listed with another
    ("ewes and rams") or set beside it ("the ewes with the rams", "together with twenty tulips") takes that
    noun's slot; "..., and the two rams too" is another thing the verb takes; "as was the PIV laser" another
    subject of the verb before it."""
    x = t
    while True:
        if x.dep_ == "conj" and x.head.pos_ in ("NOUN", "PROPN"):
            x = x.head
            continue
        if x.dep_ == "pobj" and (x.head.lower_ in _COMPANIONS or (x.head.lower_ == "to" and x.head.head.lower_ == "next")):
            prep = x.head.head if x.head.lower_ == "to" else x.head
            if prep.head.pos_ in ("NOUN", "PROPN"):
                x = prep.head
                continue
            return (prep.head, "with") if prep.head.pos_ in ("VERB", "AUX") else None
        break
    if x.dep_ in ("nsubj", "nsubjpass"):
        v = x.head
        if v.pos_ == "AUX" and v.dep_ == "advcl" and any(c.lower_ in ("as", "so") for c in v.children):
            return v.head, "subj"  # "the smoke wire was running, as was the PIV laser"
        return (v, "subj") if v.pos_ in ("VERB", "AUX") else None
    if x.dep_ in ("dobj", "attr") and x.head.pos_ in ("VERB", "AUX"):
        return x.head, "obj"
    if x.dep_ == "conj" and x.head.pos_ == "VERB" and any(c.lower_ in ("too", "also") or c.lower_ == "well"
                                                          for c in x.subtree):
        v = x.head  # "Pen 3 held forty ewes overnight, and the two rams too"
        return v, "obj" if any(c.dep_ == "dobj" for c in v.children) else "subj"
    return None


def fact(v: Any) -> bool:
    """Is the verb told as a fact: not denied, with no modal, not asked, not a condition or a plan?"""
    if any(c.dep_ == "neg" or c.lower_ in ("never", "no") or (c.dep_ == "aux" and c.lower_ in MODALS)
           or (c.dep_ == "mark" and c.lower_ in ("if", "unless", "whether")) for c in v.children):
        return False
    if v.sent.text.rstrip().endswith("?"):
        return False
    return not (v.dep_ in ("xcomp", "ccomp") and v.head.lemma_.lower() in ("plan", "intend", "want", "hope", "try"))


def _own_places(t: Any) -> list[Any]:
    """The places a noun phrase carries itself ("the tanker in lane 4")."""
    return [o for p in t.children if p.dep_ == "prep" and p.lower_ in _PLACE_PREPS for o in p.children
            if o.dep_ == "pobj"]


def _said(places: list[Any]) -> list[str]:
    return [" ".join(w.lower_ for w in o.subtree) for o in places]


def _verb_places(v: Any, members: set[int]) -> list[Any]:
    """The place nouns a verb puts its things in ("kept in cabinet C", "on shelf 2 of Fridge A": shelf, Fridge)."""
    out: list[Any] = []
    for p in v.children:
        if p.dep_ == "prep" and p.lower_ in _PLACE_PREPS:
            for o in p.children:
                if o.dep_ == "pobj" and o.i not in members and not apart.is_time(o):
                    out.append(o)
                    out += [w for q in o.children if q.dep_ == "prep" and q.lower_ == "of"
                            for w in q.children if w.dep_ == "pobj"]
    return out


def _place_fits(place: Any, pair: apart.Pair) -> str | None:
    """Does a claim's place stand for the rule's holder: "firm" when it is the holder by its noun (or a kind of
    it, or one WordNet relates), or any place of a room's size or smaller for a rule with no holder; None when
    it is larger than the holder ("the store room" for "the same cabinet": the two may sit in two cabinets);
    "guess" otherwise."""
    head = place.lemma_.lower()
    labelled = [c for c in place.children if c.dep_ in ("compound", "nummod", "appos")]
    code = any(ch.isdigit() for ch in place.text) or (place.text.isupper() and len(place.text) <= 3)
    noun = next((c for c in labelled if c.dep_ == "compound" and c.pos_ in ("NOUN", "PROPN")), None)
    if code and noun is not None:
        head = noun.lemma_.lower()  # "cabinet C", "Store S3": the noun before the label
    if not pair.holder:
        return "firm" if place_scale.scale(head) in ("small", "room") or labelled else "guess"
    if word_key(head) == pair.holder or head == pair.holder_lemma or wordnet.is_a(head, pair.holder_lemma):
        return "firm"
    if place_scale.larger(head, pair.holder_lemma) or place_scale.room_in_building(pair.holder_lemma, head) or (
            place_scale.scale(pair.holder_lemma) == "small" and place_scale.scale(head) in _HOLDS_SMALL):
        return None
    return "guess"


def _holder_subject(v: Any, members: set[int], pair: apart.Pair) -> str | None:
    """A verb whose subject holds its objects ("Pen 3 held ...", "Store S3 holds ...", "Bay 4 took ..."): how
    well that subject stands for the rule's holder."""
    subj = next((c for c in v.children if c.dep_ == "nsubj" and c.i not in members), None)
    if subj is None or wordnet.names_person(subj.lemma_.lower()) is not False and subj.pos_ == "NOUN":
        return None
    if subj.pos_ == "PROPN" and not any(c.dep_ in ("compound", "nummod") for c in subj.children) \
            and not any(ch.isdigit() for ch in subj.text):
        return None  # a bare name holds nothing: "Priya took the ewes and the rams"
    return _place_fits(subj, pair)


def tied(pair: apart.Pair, doc: Any, start: int, end: int) -> tuple[str, int, int] | None:
    """Does a sentence between ``start`` and ``end`` tie one member of each side to one holder (or one time) by
    its grammar: both arguments of one verb told as a fact, in one slot or one set beside the other, with the
    holder named (the verb's place, or the holder as the verb's subject) or the same time told? ("firm" or
    "guess", and the sentence's span), else None."""
    span = [t for t in doc if start <= t.idx < end]
    side_a = [(t, s) for t in span if (s := apart.names_member(t, pair.a))]
    side_b = [(t, s) for t in span if (s := apart.names_member(t, pair.b))]
    found: tuple[str, int, int] | None = None
    if pair.scope == "place" and (into := _into_others_store(pair, side_a, side_b)) is not None:
        return into
    for ta, sa in side_a:
        for tb, sb in side_b:
            how = _tie(pair, ta, tb) if ta.i != tb.i else None
            if how is None:
                continue
            sent = ta.sent
            strength = "firm" if how == "firm" and sa == sb == "firm" else "guess"
            if strength == "firm":
                return strength, sent.start_char, sent.end_char
            found = found or (strength, sent.start_char, sent.end_char)
    return found


def _into_others_store(pair: apart.Pair, side_a: list[tuple[Any, str]],
                       side_b: list[tuple[Any, str]]) -> tuple[str, int, int] | None:
    """One member put, as a fact, in a holder named after the other ("the acid drums were stacked in the
    hypochlorite store"): a store, a bin or a room called by what it holds holds it ("firm" when the member is
    named firmly and the holder is of a room's size or smaller, or is the rule's holder)."""
    for mine, other in ((side_a, pair.b), (side_b, pair.a)):
        for t, strength in mine:
            slot = _slot(t)
            if slot is None or slot[1] == "with" or not fact(slot[0]):
                continue
            for place in _verb_places(slot[0], {w.i for w in t.subtree}):
                named = {key(c) for c in place.children if c.dep_ in ("compound", "amod", "nmod")}
                if not any(m.head in named or (m.keys <= named and len(m.keys) > 1) for m in other):
                    continue
                if _place_fits(place, pair) == "firm" or place_scale.scale(place.lemma_.lower()) in (
                        "small", "room", "work"):
                    if _APART_RE.search(t.sent.text.split(" until ")[0]):
                        continue
                    return "firm" if strength == "firm" else "guess", t.sent.start_char, t.sent.end_char
    return None


def _tie(pair: apart.Pair, ta: Any, tb: Any) -> str | None:
    """How one verb ties two member mentions: "firm", "guess" or None."""
    ga, gb = _slot(ta), _slot(tb)
    if ga is None or gb is None or ga[0].i != gb[0].i:
        return None
    v = ga[0]
    if {ga[1], gb[1]} == {"subj", "obj"} or not fact(v) or _APART_RE.search(v.sent.text):
        return None
    pa, pb = _own_places(ta), _own_places(tb)
    members = {w.i for w in ta.subtree} | {w.i for w in tb.subtree}
    shared: list[Any] = []
    if pa or pb:
        if pa and pb:
            if _said(pa) != _said(pb):
                return None  # "the coach in lane 3, alongside the tanker in lane 4"
            shared = pa
        elif "with" in (ga[1], gb[1]):
            shared = pa or pb  # "stabled with the mares in row C": the parser hangs the verb's place on its noun
        else:
            return None  # one of two listed things placed on its own
    if pair.scope == "time":
        told = _SAME_TIME_RE.search(v.sent.text) or any(c.dep_ == "aux" and c.lemma_ == "be" for c in v.children) \
            and v.tag_ == "VBG" or pair.holder
        same_verb = word_key(v.lemma_) == pair.action or v.lemma_.lower() == "share"
        return "firm" if told and same_verb else "guess"
    if not pair.holder and word_key(v.lemma_) == pair.action:
        return "firm"  # the rule's own verb done to both at once ("the stallion was stabled with the mares")
    fits = [_place_fits(p, pair) for p in _verb_places(v, members) + shared]
    if ga[1] == gb[1] == "obj" or "with" in (ga[1], gb[1]):
        held = _holder_subject(v, members, pair)
        if held is not None:
            fits.append(held)
    if v.lemma_.lower() == "share":
        obj = next((c for c in v.children if c.dep_ == "dobj" and c.i not in members), None)
        fits += [_place_fits(obj, pair)] if obj is not None else []
    if "firm" in fits:
        return "firm"
    if "guess" in fits or re.search(r"\b(?:together|same|share[sd]?)\b", v.sent.text, re.I):
        return "guess"
    return None


def _where(t: Any) -> set[str]:
    """Where a member mention is put: its own place, else the places of the verb it is an argument of."""
    own = _said(_own_places(t))
    if own:
        return set(own)
    slot = _slot(t)
    if slot is None or not fact(slot[0]):
        return set()
    v = slot[0]
    shared = [c for c in v.children if c.dep_ in ("dobj", "npadvmod") and c.pos_ in ("NOUN", "PROPN")] \
        if v.lemma_.lower() == "share" else []
    return set(_said(_verb_places(v, {w.i for w in t.subtree}) + shared))


def _names_side(t: Any, mine: tuple[apart.Member, ...], other: tuple[apart.Member, ...]) -> bool:
    """Does a mention name one side: by its words, and not only by a word it shares with the other side that
    it names firmly?"""
    how = apart.names_member(t, mine)
    return bool(how) and not (how == "guess" and apart.names_member(t, other) == "firm")


def placed_apart(pair: apart.Pair, doc: Any) -> bool:
    """Does the claim put every mention of one side somewhere, and every mention of the other somewhere else
    ("the rams shared pen 4 with the wethers, and the ewes were in pen 3")? Then the claim keeps them apart. A
    mention that names one side firmly and the other only by a shared word ("the winged kelp" beside "sugar
    kelp") counts for the side it names firmly."""
    side_a = [t for t in doc if _names_side(t, pair.a, pair.b)]
    side_b = [t for t in doc if _names_side(t, pair.b, pair.a)]
    if not side_a or not side_b:
        return False
    wa = [_labelled(_where(t)) for t in side_a]
    wb = [_labelled(_where(t)) for t in side_b]
    return all(wa) and all(wb) and not set().union(*wa) & set().union(*wb)


def _labelled(places: set[str]) -> set[str]:
    """A place told with a label stands for its label ("t2 share with oarweed", a parse that hangs the verb on
    the place, is T2); one without stands for its words."""
    out: set[str] = set()
    for p in places:
        labels = {w for w in p.split() if any(ch.isdigit() for ch in w)}
        out |= labels or {p}
    return out


# a clause told before or after another one ("once the mares had gone out, the stallion came in")
_SEQUENCE = frozenset({"after", "once", "before", "until", "till", "since"})


def sequenced(pair: apart.Pair, doc: Any) -> bool:
    """Does the claim tell one member's clause as done before or after the other's, by a subordinating word
    ("After the ewes were moved out, the rams came in")? Then the two were not there at one time."""
    side_a = [t for t in doc if apart.names_member(t, pair.a)]
    side_b = [t for t in doc if apart.names_member(t, pair.b)]
    for ta in side_a:
        for tb in side_b:
            ga, gb = _slot(ta), _slot(tb)
            if ga is None or gb is None or ga[0].i == gb[0].i:
                continue
            for sub, main in ((ga[0], gb[0]), (gb[0], ga[0])):
                if sub.dep_ == "advcl" and sub.head.i == main.i and any(
                        c.dep_ == "mark" and c.lower_ in _SEQUENCE for c in sub.children):
                    return True
    return False
