"""What a doing may be done with: a rule's list of allowed means, and the means a claim names for that doing.

"Payment may only be taken by card, bank transfer or the shop's own gift voucher", "Tram windscreens may be
cleaned only with Vitra-Clean, WS-40 screen wash or plain water", "Flavourings in the Heritage range are
limited to vanilla, sea salt, orange oil and cinnamon". Such a rule names a doing (its verb, or the verb its
subject noun is made from: "payment" is paying, "flavourings" flavouring) and the things it may be done with.
A claim breaks it when it does that doing with something else of the list's kind ("settled the order with
cash", "flavoured with cinnamon along with ground cardamom").

The list's kind, by WordNet: the rule's own noun for the doing or the means ("payment", "flavouring"), the
nouns WordNet derives from the doing's verb ("pay" -> payment, "clean" -> cleaner), and the most specific kind
all the members share. A thing that falls under it by one of its first senses is of the kind: the slot of the
rule's verb selects the sense ("cash" is money first and a payment second). A thing WordNet does not know (a
brand, "Windex") may be of the kind or not: that is a guess, left for review. A thing named with a word of a
member ("a Visa debit card" for "card", "tap water" for "plain water"), under a member's initials or by a
kind of a member is taken for that member.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from abilities.scu_guard import categories, measure, names, places, wordnet
from abilities.scu_guard.nlp import key, parse

# prepositions that name what a doing is done with ("cleaned with", "paid by card", "paid in cash", "run on
# nitrogen", "sent via", "using"); "to"/"from" open a destination or a source, read by the lists of names
SLOT_PREPS = frozenset({"with", "by", "in", "using", "via", "through", "on"})
# verbs that bound a list rather than name a doing ("are limited to", "restricted to", "confined to")
_LIMITING = frozenset({"limit", "restrict", "confine"})
_CONDITIONS = frozenset({"if", "when", "whenever", "unless", "except", "while", "during", "until"})
# words before a member that tell whose it is or point to it, not what it is ("the shop's own gift voucher")
_DETERMINERS = frozenset({"a", "an", "the", "any", "its", "their", "our", "own", "only", "approved"})
_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
_LIST_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM", "X", "DET", "PART"})


@dataclass(frozen=True)
class UseList:
    """A rule's doing and its allowed means: the verbs of the doing (lemmas), the rule's own preposition before
    the list ("" for "limited to"), the members as written, the WordNet synsets of the list's kind, the key of
    the thing the doing is done to ("windscreen"; "" where the subject is the doing itself) and the keys of the
    words that narrow the doing ("Heritage", "range" of "Flavourings in the Heritage range")."""

    verbs: tuple[str, ...]
    nominal: tuple[str, ...]  # the verbs of the doing read from the subject's noun ("payment" -> pay)
    prep: str
    members: tuple[str, ...]
    kinds: frozenset[int]
    thing: str
    scope: tuple[str, ...]
    any_doing: bool = False  # "Only X or Y may be used on the lens": whatever is done to the thing with a means


def _list_tokens(doc: Any, start: int) -> list[Any]:
    """The tokens of a list that opens at ``start`` and runs to the end of its noun phrases (the parser may hang
    a member's last word elsewhere: "or the shop's own gift voucher")."""
    out = []
    for t in doc[start:]:
        if t.is_punct and t.text not in (",", "-", "'", "&"):
            break
        if t.pos_ not in _LIST_POS and t.lower_ not in ("and", "or", ",", "-", "&", "'s", "only"):
            break
        out.append(t)
    return out


def _members(tokens: list[Any]) -> tuple[str, ...]:
    """The list's members as written, without the words that point to them ("the shop's own gift voucher" ->
    "gift voucher")."""
    text = "".join(t.text_with_ws for t in tokens).strip()
    out = []
    for part in _SPLIT.split(text):
        words = [w for w in part.split() if w.lower() not in _DETERMINERS and not w.endswith(("'s", "s'"))]
        if words:
            out.append(" ".join(words))
    return tuple(out)


def _when_or_how_much(member: str) -> bool:
    """Is a member a time or an amount ("Tuesdays", "2025.5 MHz"), read by the window and bound readings?"""
    words = member.lower().split()
    # a member that opens with a number is an amount or a time ("2025.5 MHz", "10:00"); a code opens with its
    # label ("Celadon 12", "Bay 2")
    return bool(measure.find_amounts(member)) or any(w.rstrip("s") in measure.WEEKDAYS for w in words) or \
        member[:1].isdigit()


def _scope(subj: Any) -> tuple[str, ...]:
    """Keys of the words that narrow a doing named by a noun ("PIV flow seeding", "Flavourings in the Heritage
    range"): its compounds and the nouns of its phrases."""
    # a word for the doer ("Customer payments") narrows who pays, which the claim tells by name
    return tuple(dict.fromkeys(key(w) for w in subj.subtree if w.i != subj.i and (
        w.pos_ in ("NOUN", "PROPN") or w.dep_ == "compound") and not wordnet.names_person(w.lemma_.lower())))  # "Coating repairs": the tagger may call it a verb


@lru_cache(maxsize=1024)
def read_uses(text: str) -> UseList | None:
    """The doing and allowed means of a rule, or None: "S may [only] be V-ed [only] P m1, m2 or m3" (P a
    preposition of means), "S may use only m1, m2 ...", "S are limited to m1, m2 ..." with S a noun made from a
    verb. A rule under a condition, a list of places (``places``) and a rule with no doing are not read here."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "AUX") or any(t.lower_ in _CONDITIONS for t in doc):
        return None
    if places.read_places(text) is not None:
        return None
    subj = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass") and c.pos_ in ("NOUN", "PROPN")), None)
    if subj is None or any(c.dep_ == "neg" for c in root.children):
        return None
    if root.lemma_ in _USING and subj.dep_ == "nsubjpass" and doc[subj.left_edge.i].lower_ == "only":
        return _only_used(doc, root, subj)
    limiting = root.lemma_ in _LIMITING and any(c.dep_ == "prep" and c.lower_ == "to" for c in root.children)
    if not limiting and not any(t.lower_ == "only" for t in doc):
        return None
    # a subject made from a verb names the doing ("Payment may only be taken by ...": paying), also where the
    # rule's own verb is light ("take", "use") or bounds a list ("limited to")
    nominal = wordnet.verbs_of_noun(subj.lemma_.lower())
    prep = ""
    if limiting:
        opener = next(c for c in root.children if c.dep_ == "prep" and c.lower_ == "to")
        start = opener.i + 1
    elif root.lemma_ == "use" and (obj := next((c for c in root.children if c.dep_ == "dobj"), None)) is not None:
        start = obj.left_edge.i  # "PIV flow seeding may use only DEHS droplets, ..."
    else:
        # the list's preposition hangs from the verb, or from its object or another preposition ("settle
        # purchases only by ...", "be paid for only by ...")
        hangs = [root, *(c for c in root.children if c.dep_ == "dobj" or c.dep_ == "prep" and c.lower_ not in
                         SLOT_PREPS and not any(g.dep_ == "pobj" for g in c.children))]
        opener = next((c for h in hangs for c in h.children if c.dep_ in ("prep", "agent") and c.lower_ in SLOT_PREPS),
                      None)
        if opener is None:
            return None
        start, prep = opener.i + 1, opener.lower_
    members = _members(_list_tokens(doc, start))
    if len(members) < 2 and not limiting or any(_when_or_how_much(m) for m in members):
        return None
    heads = [m.split()[-1].lower() for m in members]
    if any(wordnet.names_person(h) for h in heads) or prep == "by" and not all(wordnet.senses(h) for h in heads):
        return None  # "only by a doctor or a nurse", "by Greenway Recycling or TyreCycle Ltd": doers, not means
    verbs = list(nominal) if nominal else []
    if not limiting and root.lemma_ not in wordnet.TOO_GENERAL_VERBS and root.lemma_ not in verbs:
        verbs.insert(0, root.lemma_)
    if not verbs:
        return None
    kinds: set[int] = set(wordnet.noun_senses(subj.lemma_.lower())) if nominal else set()
    for v in verbs:
        kinds |= wordnet.nouns_of_verb(v)
    known = [m for m in members if wordnet.senses(m) or wordnet.senses(m.split()[-1])]
    if len(known) >= max(2, len(members) - 1):
        kinds |= wordnet.common_kinds(tuple(m if wordnet.senses(m) else m.split()[-1] for m in known))
    # a doer ("Customers may pay only by ...") is no thing the doing is done to
    thing = "" if nominal or wordnet.names_person(subj.lemma_.lower()) else key(subj)
    return UseList(tuple(verbs), tuple(nominal), prep, members, frozenset(kinds), thing, _scope(subj) if nominal else ())


# verbs that put means to a thing without naming the doing ("may be used on", "may be applied to")
_USING = frozenset({"use", "apply"})


def _only_used(doc: Any, root: Any, subj: Any) -> UseList | None:
    """"Only m1, m2 or m3 may be used on T" / "applied to T" / "used to V T": the means are the subject's list
    (or the list after a colon, for "Only these lubricants may be applied to the sheaves: ..."), the thing is
    T; the doing is V, else whatever the claim does to T with a means."""
    colon = next((t for t in doc if t.text == ":" and t.i > root.i), None)
    kinds: set[int] = set()
    if colon is not None and any(c.dep_ == "det" and c.lower_ in ("these", "the", "following") for c in subj.children):
        members = _members(_list_tokens(doc, colon.i + 1))
        kinds |= set(wordnet.noun_senses(subj.lemma_.lower()))  # "these lubricants"
    else:
        members = _members([t for t in doc[subj.left_edge.i + 1: root.i] if t.dep_ not in ("aux", "auxpass", "neg")])
    if len(members) < 2 or any(_when_or_how_much(m) for m in members):
        return None
    if any(wordnet.names_person(m.split()[-1].lower()) for m in members):
        return None  # "Only a nurse or a doctor may be ...": doers
    xcomp = next((c for c in root.children if c.dep_ == "xcomp" and c.pos_ == "VERB"), None)
    if xcomp is not None and xcomp.lemma_ not in wordnet.TOO_GENERAL_VERBS:
        obj = next((c for c in xcomp.children if c.dep_ == "dobj"), None)
        verbs: tuple[str, ...] = (xcomp.lemma_,)
    else:
        target = next((c for c in root.children if c.dep_ == "prep" and c.lower_ in ("on", "to")), None)
        obj = next((c for c in target.children if c.dep_ == "pobj"), None) if target is not None else None
        verbs = ()
    if obj is None or obj.pos_ not in ("NOUN", "PROPN"):
        return None
    known = [m if wordnet.senses(m) else m.split()[-1] for m in members
             if wordnet.senses(m) or wordnet.senses(m.split()[-1])]
    kinds |= wordnet.common_kinds(tuple(known))
    return UseList(verbs, (), "with", members, frozenset(kinds), key(obj), (), any_doing=not verbs)


def does(verb: str, u: UseList) -> bool:
    """Does a claim verb (a lemma) do the rule's doing: the same verb, a manner of it by its most common sense
    ("scrub" for "clean"), or, for a doing the rule names by a noun ("Payment"), a verb one of the doing's
    senses is a manner of ("settle" a bill: to pay is to settle)? The thing in its slot, of the list's kind,
    then selects the sense."""
    if verb in wordnet.TOO_GENERAL_VERBS:
        return False
    if u.any_doing:
        return True
    return verb in u.verbs or any(wordnet.verb_is_a(verb, g) for g in u.verbs) or any(
        wordnet.verb_sense_is_a(g, verb, None) for g in u.nominal or u.verbs[:1])


_DENYING = frozenset({"not", "never", "no", "nor"})


def _denied(noun: Any) -> bool:
    """Is the thing named only to be denied or set aside ("by card, not cash", "card rather than cash", "no
    cash")?"""
    doc = noun.doc
    before = [doc[i].lower_ for i in range(max(0, noun.left_edge.i - 2), noun.left_edge.i)]
    return any(c.dep_ == "neg" or c.lower_ in _DENYING for c in noun.children) or bool(before) and (
        before[-1] in _DENYING or before[-2:] in (["rather", "than"], ["instead", "of"]))


def _slot_heads(verb: Any) -> list[Any]:
    """The words a phrase of means may hang from: the verb, and its object or the object of its preposition
    ("paid for the room in cash": the parser may hang "in cash" on the room)."""
    objs = [c for c in verb.children if c.dep_ == "dobj"]
    objs += [g for c in verb.children if c.dep_ == "prep" and c.lower_ not in SLOT_PREPS
             for g in c.children if g.dep_ == "pobj"]
    return [verb, *objs]


def slot_things(verb: Any) -> list[tuple[Any, str]]:
    """The nouns that say what the verb's doing was done with, each with its preposition: the objects of its
    prepositions of means ("with cash", "by card", "in cash", "along with ground cardamom"), of a "using" that
    hangs from it, and the nouns joined to them; a denied one left out, and a name after the "by" of a passive
    (the doer: "paid by Hollin & Co")."""
    out: list[tuple[Any, str]] = []
    for p in (c for h in _slot_heads(verb) for c in h.children):
        low = p.lower_
        if p.dep_ == "agent" and any(c.pos_ == "PROPN" for c in p.children):
            continue
        if p.dep_ in ("prep", "agent") and low in SLOT_PREPS:
            heads = [c for c in p.children if c.dep_ == "pobj"]
        elif p.dep_ == "prep":  # "along with", "together with"
            inner = [c for c in p.children if c.dep_ == "prep" and c.lower_ == "with"]
            heads = [c for q in inner for c in q.children if c.dep_ == "pobj"]
            low = "with" if heads else low
        elif p.dep_ in ("advcl", "xcomp") and p.lemma_ == "use" and p.tag_ == "VBG":
            heads, low = [c for c in p.children if c.dep_ == "dobj"], "using"
        else:
            continue
        for h in heads:
            if wordnet.is_adverb(f"{p.text} {h.text}"):
                continue  # "paid in advance", "in full", "by hand": a way of doing it
            for n in [h, *h.conjuncts]:
                n = categories.measured(n) or n  # "a pinch of nutmeg": the nutmeg
                if n.pos_ in ("NOUN", "PROPN") and not _denied(n):
                    out.append((n, low))
    return out


def phrase(noun: Any) -> str:
    """The noun with the words that compound it ("ground cardamom", "Stockholm tar")."""
    words = [w for w in noun.lefts if w.dep_ in ("compound", "amod", "nmod") and w.i >= noun.left_edge.i]
    first = min([noun.i] + [w.left_edge.i for w in words])
    return noun.doc[first: noun.i + 1].text


# clauses hung on a noun that tell something else of it ("a personal cheque, which Rosa accepted after their
# card was declined"): their words do not name the thing
_CLAUSES = frozenset({"relcl", "acl", "advcl", "ccomp"})


def own_words(noun: Any) -> list[Any]:
    """The words of the noun's phrase, without the clauses hung on it."""
    out, stack = [], [noun]
    while stack:
        t = stack.pop()
        out.append(t)
        stack += [c for c in t.children if c.dep_ not in _CLAUSES]
    return out


def is_member(noun: Any, members: tuple[str, ...]) -> bool:
    """Is the claim's thing one of the members, or may it be: a word of a member in its phrase ("Visa debit
    card" for "card", "salt flakes" for "sea salt"), a member's initials, a kind of a member or a member of it
    by WordNet ("Ceylon cinnamon", "BACS")?"""
    text = phrase(noun)
    cand = names.member_of(text)
    listed = [names.member_of(m) for m in members]
    if names.matches(cand, listed) or any(key(w) in {key(x) for x in parse(m)} for m in members
                                          for w in own_words(noun) if w.pos_ in ("NOUN", "PROPN", "ADJ")):
        return True
    heads = [m.split()[-1] for m in members]
    return any(wordnet.related(text, m) or wordnet.related(noun.lemma_, h) for m, h in zip(members, heads, strict=True))


def of_kind(noun: Any, kinds: frozenset[int]) -> bool | None:
    """Is the claim's thing of the list's kind by one of its first senses (its compound first, if WordNet knows
    it, else its head)? None when WordNet knows neither: a name or a brand."""
    text = phrase(noun)
    for p in (text, noun.lemma_.lower()):
        found = wordnet.under_any(p, kinds)
        if found is not None:
            return found
    return None
