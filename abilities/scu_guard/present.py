"""A thing or a doing a rule bans from a place, told as there by the claim's own grammar.

Why: many prohibitions have no verb of their own: they ban a thing or an activity from a place ("Glass
containers are forbidden on the production floor", "Food and drink are not permitted in the mounting room",
"Smoking is prohibited in the stables"); others forbid a doing that takes no thing ("Visitors must not climb
into the skips"), or putting a thing somewhere ("Mobile phones must never be taken into the exam hall"). The plain
event reading (``events``) needs the rule's verb done to the rule's thing, so such a rule was matched by shared
words only, a guess left for review, while a claim tells the breach with a verb of its own ("a cafetière of
coffee was left on bench 3 in the mounting room", "a visitor clambered down into the cardboard skip"). What the
rule forbids is read here from its grammar: the thing (the subject of "is forbidden / prohibited / banned / not
permitted / never allowed", or of a denied verb of putting or keeping), or the doing (the verb a gerund subject
names, "smoking" -> smoke, or a denied intransitive verb with its doer); the place, its phrase of "in / on /
inside / at / within / into". A claim breaks it outright where a verb told as a fact (no modal, no negation, no
condition, no question; or "was seen doing") or granted as a permission ("may keep") has the rule's thing (its
word with the rule's modifiers, or a kind of it by WordNet, ``events``) as its subject or object, or is the
rule's doing's verb or a manner of it by WordNet ("puff" for "smoke", "clamber" for "climb") done by the rule's
doer, and a phrase of that verb (or of its thing), or one nested in it with "in / on", names the rule's place: its
head noun (or a kind of it) with every word that narrows it. A thing denied ("no food"), a sentence that removes
or keeps it away, a place only near ("next to", "outside") or a part of it ("the door of") tell no presence; a
rule with a condition, an exception, a time, an allowed alternative or two things kept apart is not plain, and is
left to the other readings. A ban stated by "no" and its things alone ("No food or drink on the bandstand", "No
smoking anywhere on the mill floor") is read the same way; places joined by "and" are each the ban's place; a
thing beside, under or by another that a phrase puts in the place is there too ("under her chair on the
platform"); and a thing named by a brand is of the ban's kind when the claim's use of it says so (``use_kinds``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from abilities.scu_guard import categories, events, use_kinds, wordnet
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.forms import GENERIC, Form
from abilities.scu_guard.judge import Claim, _finding
from abilities.scu_guard.nlp import key, parse

# words of a ban with no verb of its own: "is forbidden", "are prohibited", "is banned"; and of a permission
# that the rule denies: "are not permitted", "is never allowed"
_BANNED = frozenset({"forbidden", "prohibited", "banned"})
_ALLOWED = frozenset({"permitted", "allowed"})
# a rule that holds only in some cases, or names an alternative or an exception: not plain
_SCOPED_RE = re.compile(r"\b(?:when|whenever|if|once|while|unless|except|where|provided|as long as|in case|"
                        r"than|above|below|over|under|exceeding|during|before|after|until|only|without|"
                        r"including|such as|other than|instead|unaccompanied|unattended|unsupervised|alone)\b"
                        r"|\d|[:;(]", re.I)
# prepositions that put something inside or on a place (the rule's and the claim's)
_IN_PREPS = frozenset({"in", "on", "inside", "at", "within", "into", "onto", "aboard", "throughout"})
# verbs whose clause removes or keeps the thing away: no presence told
_AWAY_VERBS = frozenset({"remove", "confiscate", "ban", "forbid", "prohibit", "refuse", "bar", "exclude", "evict",
                         "clear", "discard", "dispose", "empty", "surrender", "deny", "stop", "prevent", "avoid"})
# verbs of seeing a doing: "was seen puffing on ...", "found him smoking in ...": the doing is told as a fact
_SEEN = frozenset({"see", "find", "spot", "catch", "notice", "observe", "witness", "film", "photograph", "hear"})
# a rule keeping two things apart ("in the same cage as"): read by the exclusion checks
_APART_RE = re.compile(r"\b(?:same|different|separate|other|together|apart|share|mixed?)\b", re.I)
# verbs of putting, bringing or keeping a thing somewhere: a rule that forbids one of them in a place bans the thing
# from the place ("Glass items must never be brought into the packing hall")
_PLACING = frozenset({"bring", "take", "carry", "store", "keep", "leave", "place", "put", "hold", "stock", "use"})
# prepositions that put a thing by another, not away from it ("beside the enlarger in the darkroom")
_NEAR = frozenset({"beside", "by", "near", "alongside", "under", "underneath", "beneath", "behind", "against"})
# a word that makes the place the whole site ("everywhere", "anywhere"): it narrows nothing
_ANY_PLACE = frozenset({"everywhere", "anywhere", "all", "any", "every"})


@dataclass(frozen=True)
class Ban:
    """What a verbless ban forbids: its things (head key, modifiers), the verbs of its activities, and its places:
    for each place phrase, its alternatives (head key, modifier keys: "the mounting room or the specimen store")."""

    things: tuple[tuple[str, frozenset[str]], ...]
    activities: tuple[str, ...]  # the lemmas of the verbs gerund subjects name ("smoke"), or ()
    places: tuple[tuple[tuple[str, frozenset[str]], ...], ...]
    text: str
    doer: str | None = None  # the key of the doer a rule of a doing names ("Visitors must not climb into ...")


def _ban_word(root: Any) -> bool:
    """Is the rule's root a ban ("forbidden"), a permission it denies ("not permitted", "never allowed"), or a verb
    of putting or keeping a thing somewhere under a denied modal ("must never be taken into", "may not be kept
    in")? Putting a thing in a place, keeping it or using it there all have it there."""
    low = root.lower_
    denied = any(c.dep_ == "neg" or c.lower_ == "never" for c in root.children)
    if root.lemma_.lower() in _PLACING and root.pos_ == "VERB":
        modal = any(c.dep_ in ("aux", "auxpass") and c.lower_ in ("must", "may", "shall", "can") for c in root.children)
        return modal and denied and any(c.dep_ == "auxpass" for c in root.children)
    return (low in _BANNED and not denied) or (low in _ALLOWED and denied)


def _mods(t: Any) -> frozenset[str]:
    """The keys of the words that narrow a noun ("mounting", "specimen", "bonded")."""
    return frozenset(key(c) for c in t.children if c.dep_ in ("compound", "amod") and c.pos_ in (
        "NOUN", "PROPN", "ADJ", "VERB")) - GENERIC - _ANY_PLACE


def _when(t: Any) -> bool:
    """Is the noun a time rather than a place ("on Sundays", "on public holidays")?"""
    return t.pos_ == "PROPN" or wordnet.is_a(t.lemma_.lower(), "time period") is not False


@lru_cache(maxsize=4096)
def read_ban(text: str) -> Ban | None:
    """The ban a rule states without a verb of its own ("Glass containers are forbidden on the production floor"),
    or None for any other rule, or one narrowed by a condition, an exception or an alternative."""
    if _SCOPED_RE.search(text) or _APART_RE.search(text) or not wordnet.available():
        return None
    doc = parse(text)
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) != 1 or len(list(doc.sents)) != 1:
        return None
    root = roots[0]
    subj = next((c for c in root.children if c.dep_ in ("nsubjpass", "nsubj")), None)
    if root.pos_ == "NOUN" and any(c.dep_ == "det" and c.lower_ == "no" for c in root.children):
        return _no_ban(root, text)
    if root.lower_ not in _BANNED | _ALLOWED and root.lemma_.lower() not in _PLACING:
        return _doing_ban(root, subj, text)
    if not _ban_word(root):
        return None
    if subj is None or subj.pos_ != "NOUN" or any(c.dep_ in ("prep", "acl", "relcl", "appos") for c in subj.children):
        return None
    members = [subj, *subj.conjuncts]
    if any(m.pos_ != "NOUN" or any(c.dep_ in ("prep", "acl", "relcl", "appos") for c in m.children)
           for m in members):
        return None
    places = _places([root] + [a for a in root.children if a.dep_ == "advmod" and a.lower_ in _ANY_PLACE])
    if places is None:
        return None  # a ban with no place: where the claim's thing was is no question here
    return _ban_of(members, places, text)


def _no_ban(root: Any, text: str) -> Ban | None:
    """A ban stated by "no" and its things alone ("No food or drink on the platform", "No eating or drinking in
    the lab"): the things are the root noun and those joined to it, the places the phrases they hold."""
    members = [root, *root.conjuncts]
    anywhere = [a for m in members for a in m.children if a.dep_ == "advmod" and a.lower_ in _ANY_PLACE]
    if any(m.pos_ not in ("NOUN", "VERB") or any(c.dep_ not in ("det", "cc", "conj", "prep", "punct", "compound",
                                                               "amod") and c not in anywhere for c in m.children)
           for m in members):
        return None  # "No food or open drinks": a word the parser hung where it narrows no thing it names
    places = _places(members + anywhere)
    return None if places is None else _ban_of(members, places, text)


def _ban_of(members: list[Any], places: tuple[tuple[tuple[str, frozenset[str]], ...], ...], text: str) -> Ban | None:
    """The ban of the things or the doings the rule names (gerunds name doings), in its places."""
    acts = tuple(v[0] for m in members if m.lower_.endswith("ing") and (v := wordnet.verbs_of_noun(m.lower_)))
    gerunds = [m for m in members if m.lower_.endswith("ing")]
    if gerunds and len(gerunds) != len(members):
        return None  # an activity beside a thing: which is which is not read here
    things = tuple((key(m), events._noun_mods(m)) for m in members) if not gerunds else ()
    if gerunds and not acts:
        return None
    return Ban(things, acts, places, text)


def _places(holders: list[Any]) -> tuple[tuple[tuple[str, frozenset[str]], ...], ...] | None:
    """The rule's place phrases (their alternatives), or None when a phrase is no place of "in / on / at"."""
    places = []
    for p in (c for h in holders for c in h.children if c.dep_ == "prep"):
        if p.lower_ not in _IN_PREPS:
            return None  # "from the dye house", "near the pool", "for a patient": another relation
        nouns = [n for q in (p, *(c for c in p.children if c.dep_ == "conj" and c.pos_ == "ADP"))
                 for o in q.children if o.dep_ == "pobj" for n in (o, *o.conjuncts) if n.pos_ == "NOUN"]
        if not nouns or any(_when(n) for n in nouns):
            return None  # a time, or a place named only by a name: not read here
        places.append(tuple((key(n), _mods(n)) for n in nouns))
    return tuple(places) or None


def _doing_ban(root: Any, subj: Any | None, text: str) -> Ban | None:
    """A doing with no thing of its own forbidden in a place ("Visitors must not climb into the skips", "No one may
    swim in the quarry"): a denied modal on a verb with no object, its doer a plain noun or anyone."""
    if root.pos_ != "VERB" or subj is None or subj.dep_ != "nsubj" or list(subj.conjuncts) or any(
            c.dep_ in ("dobj", "auxpass", "xcomp", "ccomp", "prt", "dative", "attr", "acomp") for c in root.children):
        return None
    modal = any(c.dep_ == "aux" and c.lower_ in ("must", "may", "shall", "can") for c in root.children)
    no_one = subj.lower_ in ("nobody", "none") or any(c.lower_ == "no" and c.dep_ == "det" for c in subj.children) or (
        subj.lower_ == "one" and any(c.lower_ == "no" for c in subj.children))
    denied = any(c.dep_ == "neg" or c.lower_ == "never" for c in root.children)
    if not modal or denied == no_one or subj.pos_ not in ("NOUN", "PRON") or any(
            c.dep_ in ("amod", "compound", "prep", "relcl", "acl", "appos") for c in subj.children):
        return None
    places = _places([root])
    if places is None:
        return None
    doer = None if no_one or subj.pos_ == "PRON" or key(subj) in events._UNIVERSAL else key(subj)
    return Ban((), (root.lemma_.lower(),), places, text, doer)


def _doer_fits(ban: Ban, w: Any) -> bool:
    """Does the claim's verb have the rule's doer (the same noun, with no word narrowing it), where it names one?"""
    if ban.doer is None:
        return True
    d = next((c for c in w.children if c.dep_ == "nsubj"), None)
    return d is not None and key(d) == ban.doer and not _denied(d) and not any(
        c.dep_ in ("amod", "compound") for c in d.children)


def _told_as_fact(w: Any) -> bool:
    """Is the verb told as a plain fact, not one of removal or keeping away? A doing seen ("was seen puffing on
    ...") is told as a fact when the seeing is."""
    if events.reported(w) or any(x.lemma_.lower() in _AWAY_VERBS for x in w.sent if x.pos_ == "VERB"):
        return False  # "was found on the deck and removed": the sentence ends on the thing taken away
    if w.dep_ in ("xcomp", "ccomp", "oprd") and w.head.lemma_.lower() in _SEEN:
        return events._plain_fact(w.head) and not any(c.dep_ in ("neg", "aux") for c in w.children)
    return events._plain_fact(w) or _granted(w)


def _granted(w: Any) -> bool:
    """Is the verb granted as a permission ("Staff may keep coffee in the reading room", "guests can bring their
    dogs into the bar"): "may" or "can" on a main verb in its base form, not denied, not a question, not a
    supposition ("may have left": what may have happened is no permission)?"""
    if w.dep_ != "ROOT" or w.tag_ != "VB" or w.sent.text.rstrip().endswith("?"):
        return False
    auxes = [c for c in w.children if c.dep_ in ("aux", "auxpass")]
    return any(c.lower_ in ("may", "can") for c in auxes) and not any(
        c.lower_ in ("have", "be") or c.lower_ not in ("may", "can") for c in auxes) and not any(
        c.dep_ in ("neg", "mark") or c.lower_ in ("never", "no", "nobody", "nothing") for c in w.children)


def _place_phrases(w: Any, t: Any | None) -> list[Any]:
    """The phrases that may place what the verb does: its own ("sat in the fridge"), its thing's ("biscuits on the
    bench"), and those of a participle on its thing ("a yoghurt pot ... stored in the fridge"); not a phrase the
    claim denies ("smoked out in the car park, not in the loft")."""
    heads = [w] + ([t] if t is not None else [])
    if t is not None:
        heads += [c for c in t.children if c.dep_ == "acl" and c.tag_ == "VBN"]
    own = [p for h in heads for p in h.children if p.dep_ == "prep" and p.lower_ in _IN_PREPS]
    near = [q for h in heads for o in _beside(h) for q in o.children if q.dep_ == "prep" and q.lower_ in _IN_PREPS]
    return [p for p in own + near if not _denied_prep(p)]


def _denied_prep(p: Any) -> bool:
    """A place phrase the claim denies ("out in the car park, not in the loft") puts nothing there."""
    return any(c.dep_ == "neg" for c in p.children) or (p.i > 0 and p.doc[p.i - 1].lower_ in ("not", "never"))


def _beside(h: Any) -> list[Any]:
    """The nouns the word is said to be beside, under or by ("beside the enlarger", "next to the hopper", "under
    her chair"): what stands in a place ("the enlarger in the darkroom") has what is beside it there too."""
    preps = [p for p in h.children if p.dep_ == "prep" and p.lower_ in _NEAR]
    preps += [p for a in h.children if a.dep_ == "advmod" and a.lower_ == "next" for p in a.children
              if p.dep_ == "prep" and p.lower_ == "to"]
    return [o for p in preps for o in p.children if o.dep_ == "pobj" and o.pos_ in ("NOUN", "PROPN")]


def _phrase_nouns(p: Any) -> list[Any]:
    """The nouns a place phrase puts the thing in, with those of the phrases nested in it that also place ("on
    bench 3 in the mounting room"), not those that only point near or to a part ("next to the cycle lane", "outside
    the hall", "at the door of the hall")."""
    out: list[Any] = []
    stack = [p]
    while stack:
        x = stack.pop()
        for c in x.children:
            if c.dep_ == "prep" and c.lower_ not in _IN_PREPS:
                continue  # "the door of the hall", "next to the hall": by it, not in it
            if c.dep_ in ("advmod", "relcl", "acl", "advcl", "poss"):
                continue  # "the hall's porch": the porch is no part of the hall here
            if c.pos_ in ("NOUN", "PROPN"):
                out.append(c)
            stack.append(c)
    return out


def _names_place(ban: Ban, phrases: list[Any]) -> bool:
    """Does each of the rule's place phrases have one of its alternatives named in one of the claim's phrases: its
    head noun (by its word, or a kind of it: "the fridge" for "a refrigerator") with every word that narrows it?"""
    nouns = [n for p in phrases for n in _phrase_nouns(p)]
    words = {key(x) for n in nouns for x in (n, *n.children)}
    for place in ban.places:
        if not any(mods <= words and any(key(n) == head or _kind(ban, head, n) for n in nouns)
                   for head, mods in place):
            return False
    return True


def _kind(ban: Ban, head: str, n: Any) -> bool:
    """Is the claim's noun a kind of the rule's place noun by WordNet ("shed" for "building")?"""
    phrase = categories.phrase_of(ban.text, head)
    return phrase is not None and categories.is_kind(n, phrase)


def _denied(t: Any) -> bool:
    """Is the noun, or the first of the nouns it is coordinated with, denied ("No food or drink was found")?"""
    first = t.head if t.dep_ == "conj" else t
    return t.lower_ in ("none", "nothing") or any(
        c.dep_ in ("det", "neg", "preconj") and c.lower_ in ("no", "neither", "not") for x in (t, first)
        for c in x.children)


def _thing_here(ban: Ban, t: Any) -> bool:
    """Is the claim's noun the rule's thing, by its word and modifiers or by a kind of it (``events``)?"""
    if _denied(t):
        return False
    for head, mods in ban.things:
        ev = events.RuleEvent("", head, mods, False, None, (), ban.text)
        if events._named_as_rule(ev, t):
            return True
        phrase = None if mods else categories.phrase_of(ban.text, head)
        if phrase is not None and use_kinds.used_as(t, phrase):
            return True  # "sipped from a can of Red Bull" for "drink": the kind told by its use
    return False


def _things_of(w: Any) -> list[Any]:
    """The verb's subject and object, and what it is done to through "on / from" ("puffing on a Juul")."""
    out = [c for c in w.children if c.dep_ in ("nsubj", "nsubjpass", "dobj")]
    return out + [o for p in w.children if p.dep_ == "prep" and p.lower_ in ("on", "from") for o in p.children
                  if o.dep_ == "pobj" and use_kinds.named_thing(o) is not None]


def present_at(form: Form, doc: Any, start: int, end: int) -> Any | None:
    """The claim's verb (between ``start`` and ``end`` of the claim ``doc``) that puts, as a fact, the thing a
    ban forbids in the ban's place, or does its activity there; None when there is none."""
    if form.modality != "must_not" or form.quantity or form.trigger or form.window or form.order or form.agents:
        return None
    ban = read_ban(form.text)
    if ban is None:
        return None
    for w in doc:
        if not (start <= w.idx < end) or w.pos_ not in ("VERB", "AUX") or not _told_as_fact(w):
            continue
        if ban.activities:
            lemmas = {w.lemma_.lower(), *wordnet.verb_lemmas(w.lower_)}  # "swam": the parser's lemma may miss it
            obj = next((c for c in w.children if c.dep_ == "dobj"), None)  # "sipped his tea in the lab"
            if any(a in lemmas or categories.does_kind_of(w, a) for a in ban.activities) and _doer_fits(ban, w) \
                    and _names_place(ban, _place_phrases(w, obj)):
                return w
            for t in (c for c in w.children if c.dep_ in ("dobj", "nsubj", "nsubjpass")):
                if any(use_kinds.done_by_use(t, a) for a in ban.activities) and not _denied(t) and \
                        _doer_fits(ban, w) and _names_place(ban, _place_phrases(w, t)):
                    return w  # "had a lit Marlboro inside the loft": the doing told by its thing
            continue
        for t in _things_of(w):
            if any(_thing_here(ban, x) for x in (t, *t.conjuncts)) and _names_place(ban, _place_phrases(w, t)):
                return w
    return None


def check_present(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """A ban of a thing or a doing from a place, broken by a clause that has it there as a fact (firm)."""
    out = []
    doc = None
    for f in forms:
        if read_ban(f.text) is None or f.modality != "must_not":
            continue
        doc = doc if doc is not None else parse(claim.text)
        w = present_at(f, doc, 0, len(claim.text))
        if w is not None:
            out.append(_finding(f, claim, w.sent.start_char, w.sent.end_char, "forbid",
                                f"the claim has in the place what {f.text!r} bans from it", firm=True,
                                basis="presence"))
    return out
