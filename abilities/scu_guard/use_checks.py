"""A claim that does a rule's doing with something the rule's list of means does not allow (``use_lists``).

Why its own module: the reading of the rule and of the claim's slot lives in ``use_lists`` (which ``forms``
imports to know such a rule); this check needs ``judge``'s reading of the claim (its clauses and their
polarity), which imports ``forms``.

Sure (REJECT) only where the grammar ties the thing to the doing (the object of a preposition of means of the
doing's own verb, or of a verb it is a manner of), the thing falls under the list's kind by WordNet and is
none of the members, the claim names the rule's thing or the words that narrow its doing, and a rule with an
amount in its subject ("Prizes over £2,000") is met by the claim's own amount; a thing the claim points to ("the
refund", "her voucher") may be one named before, so it is only suspected. A thing WordNet does not know
(a brand, "Windex"), in the rule's own slot, is a guess: REVIEW. A thing WordNet knows under another kind ("a
cloth", "the counter") says nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from abilities.scu_guard import measure, slot_sorts, stand_in, wordnet
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.forms import Form
from abilities.scu_guard.judge import Claim, _finding, _in_band, _owner, sentence_span
from abilities.scu_guard.nlp import key, light_keys, parse
from abilities.scu_guard.use_lists import (
    SLOT_PREPS,
    UseList,
    does,
    is_member,
    of_kind,
    phrase,
    read_uses,
    slot_things,
)


def _bounded(form: Form, sentence: str) -> bool | None:
    """Does the claim's sentence meet the amount that scopes the rule ("Prizes over £2,000")? True: an amount of
    its dimension inside the band; False: only amounts outside it; None: the rule has no such amount (True
    then) or the sentence states none (unsure)."""
    band = form.trigger or form.quantity
    if band is None:
        return True
    mine = [a for a in measure.find_amounts(sentence) if a.dim == band.dimension]
    if not mine:
        return None
    return any(_in_band(a.lo, a.hi, band) for a in mine)


def _brand_member(u: UseList) -> bool:
    """Does the list name a member WordNet does not know (a brand, "Vitra-Clean")? A thing named only by its kind
    ("detergent") may then be that member."""
    return any(not wordnet.senses(m) and not wordnet.senses(m.split()[-1]) for m in u.members)


def _other_party(u: UseList, v: Any) -> bool:
    """For a doing the rule names by a noun ("Payment may only be taken by ..."), does the claim's verb name who
    receives it or what is handed over as a thing of the list's kind itself ("paid its suppliers in cash", "wages
    were paid in cash")? The rule's side of the doing (taking a payment, not making one) is then unsaid."""
    if u.thing or not u.nominal:
        return False
    args = [c for c in v.children if c.dep_ in ("dobj", "dative", "nsubjpass")]
    return any(wordnet.names_person(a.lemma_.lower()) is not False and a.pos_ in ("NOUN", "PROPN", "PRON") and
               a.dep_ != "nsubjpass" or wordnet.under_any(a.lemma_.lower(), u.kinds) for a in args)


def _scoped(u: UseList, v: Any, words: frozenset[str]) -> bool:
    """Is the claim's doing done to the rule's thing (an argument of its verb: "3002's windscreen was cleaned"),
    and does its sentence name a word that narrows the doing ("the Heritage Spiced bar" for "Flavourings in the
    Heritage range")?"""
    if u.thing:
        args = [c for c in v.children if c.dep_ in ("nsubj", "nsubjpass", "dobj")]
        args += [x for a in args for x in a.conjuncts] + ([v.head] if v.dep_ == "acl" else [])
        # for a list of whatever may be used on a thing, the thing itself, not a thing near it ("the brass frame
        # around the lens" is no lens)
        words = ([w for a in args for w in (a, *a.lefts)] if u.any_doing else [w for a in args for w in a.subtree])
        if not any(key(w) == u.thing for w in words):
            return False  # "... and then cleaned the cab floor with bleach": another thing
    return not u.scope or bool(set(u.scope) & words)


def check_uses(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """The rule's doing done, in a clause that is not denied, with a thing of the list's kind that is none of
    its members ("settled the order with cash" for "Payment may only be taken by card, bank transfer or the
    shop's own gift voucher")."""
    out: list[Finding] = []
    lists = [(f, u) for f in forms if f.use_members and (u := read_uses(f.text)) is not None]
    if not lists:
        return out
    doc = parse(claim.text)
    for f, u in lists:
        for v in doc:
            if v.pos_ != "VERB" or not does(v.lemma_.lower(), u):
                continue
            c = _owner(claim, v)
            if c is None or c.negated or c.negverb:
                continue
            start, end = sentence_span(claim.text, v.idx, v.idx + len(v.text))
            sentence = claim.text[start:end]
            if not _scoped(u, v, light_keys(sentence)):
                continue
            finding = _outsider(f, u, claim, v, sentence, c.start, c.end)
            if finding is not None:
                out.append(finding)
                break
    return out


def _undated(things: list[tuple[Any, str]], claim: Claim) -> list[tuple[Any, str]]:
    """The slot's things without the months of dates ("paid on 16 May by bank transfer": May is no means), each
    month giving way to the means the parser hung from it ("on 16 May in cash": the cash)."""
    out: list[tuple[Any, str]] = []
    for noun, prep in things:
        if not measure.within_dates(claim.dates, noun):
            out.append((noun, prep))
            continue
        out += [(n, p.lower_) for p in noun.children if p.dep_ == "prep" and p.lower_ in SLOT_PREPS
                for n in p.children if n.dep_ == "pobj" and n.pos_ in ("NOUN", "PROPN")]
    return out


def _rule_verb(u: UseList, v: Any) -> str:
    """The rule's verb the claim's verb does: itself where the rule names it, else the rule's first verb."""
    low = v.lemma_.lower()
    return low if low in u.verbs else (u.verbs[0] if u.verbs else "")


def _outsider(f: Form, u: UseList, claim: Claim, v: Any, sentence: str, start: int,
              end: int) -> Finding | None:
    """The finding for the first thing in the verb's slot of means that is of the list's kind (sure) or unknown
    to WordNet in the rule's own slot (unsure), and none of the members."""
    for noun, prep in _undated(slot_things(v), claim):
        if is_member(noun, u.members) or wordnet.names_person(noun.lemma_.lower()):
            continue
        kind = of_kind(noun, u.kinds)
        if kind is False and slot_sorts.same_slot(u.prep, prep) and slot_sorts.rival(
                noun, phrase(noun), u.members, _rule_verb(u, v)):
            kind = True  # "paid by cheque" for "by card or bank transfer": a rival of the members' own sort
        if kind is False or (kind is None and (prep != (u.prep or "with") or u.any_doing)):
            continue  # a name in a list of whatever may be used on a thing: any doing, any name, no guess
        met = _bounded(f, sentence)
        if met is False:
            return None  # "The winner's £1,950 was paid in cash": the rule speaks of prizes over £2,000
        # a thing pointed to ("the refund", "her voucher") may be one the text named before, a member among them
        pointed = any(c.dep_ == "poss" or c.dep_ == "det" and c.lower_ in ("the", "this", "that", "these", "those")
                      for c in noun.children)
        # a name WordNet does not know, used in the stead of a member the sentence tells out of use ("with the
        # Vitra-Clean out of stock, ... cleaned with Windex"), is a thing of the list's kind and no member
        stead = kind is None and noun.pos_ == "PROPN" and stand_in.set_aside(
            v.doc, *sentence_span(claim.text, v.idx, v.idx + len(v.text)),
            lambda t: is_member(t, u.members))
        sure = (bool(kind) and not _brand_member(u) or stead) and met is True and not pointed and not _other_party(u, v)
        return _finding(f, claim, start, end, "allow_list",
                        f"{phrase(noun)!r} is not among the means {f.text!r} allows", sure=sure, basis="use")
    return None
