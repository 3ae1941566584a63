"""One person in both of two roles a rule keeps apart ("The same person must never act as both draw operator and
adjudicator", "The rescue-boat driver must not also be instructing a group").

Why its own module: such a rule is broken by one subject doing both, and a claim tells a role by what its holder
does more often than by the role's noun: "Tom ran the draw machine and adjudicated as well". A role noun's verbs
come from WordNet's derivational links ("adjudicator" -> adjudicate, "driver" -> drive); a verb that is only a
synonym of that verb ("ran" for "operate") names the role firmly only with the role's own narrowing word in what
it is done to ("ran the draw machine" for "draw operator"). Two acts of one subject tie the person to both roles
when told as facts and not said of different occasions ("operated the machine for the Wednesday draw and
adjudicated the Saturday one"); an additive word ("as well", "too", "also") or a shared object ties them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from abilities.scu_guard import apart, wordnet
from abilities.scu_guard.nlp import key, parse
from abilities.scu_guard.together import fact

_LINKS = frozenset({"conj", "advcl", "parataxis", "xcomp"})
_ADDITIVE = frozenset({"also", "too", "both"})
# what says which occasion an act is on: its object, its time, the thing it is "for" or "on"
_OCCASION_DEPS = frozenset({"dobj", "npadvmod", "tmod"})
_OCCASION_PREPS = frozenset({"for", "on", "at", "during", "in"})


def _stem_shared(a: str, b: str) -> bool:
    """Do a role noun and a verb share their stem ("adjudicat-" of adjudicator and adjudicate)?"""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n >= 4 and n >= min(len(a), len(b)) - 3


@lru_cache(maxsize=1024)
def role_verbs(noun: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the verbs that name a role noun's act by its own stem, the synonyms of their first sense): "operator" ->
    ({operate}, {operate, run})."""
    own = frozenset(v for v in wordnet.verbs_of(noun) if _stem_shared(noun, v))
    near = frozenset(lem for v in own for lem in wordnet.first_verb_sense(v))
    return own, near


def _role_of(v: Any, role: apart.Member) -> str | None:
    """Does the verb do the role: "firm", "guess" or None."""
    lemma = v.lemma_.lower()
    done_to = {key(w) for w in v.subtree if w.i != v.i}
    if role.verb:
        if lemma != role.lemma:  # another verb done to the role's own thing ("ran the improvers group") may be it
            return "guess" if role.mods and role.mods <= done_to else None
        return "firm" if role.mods <= done_to else "guess"
    own, near = role_verbs(role.lemma)
    if lemma in own:
        return "firm" if role.mods <= done_to else "guess"
    if lemma in near:
        return "firm" if role.mods and role.mods <= done_to else "guess"
    return None


def _occasion(v: Any) -> frozenset[str]:
    """The names, numbers and describing words that say which occasion an act is on ("for the Wednesday draw",
    "the Saturday one", "in the afternoon session", "on 3 May"): two acts whose occasions share none were done
    on different ones."""
    out: set[str] = set()
    for c in v.children:
        if c.dep_ in _OCCASION_DEPS or (c.dep_ == "prep" and c.lower_ in _OCCASION_PREPS):
            out |= {w.lower_ for w in c.subtree if w.pos_ in ("PROPN", "NUM")
                    or (w.dep_ in ("amod", "compound") and w.pos_ in ("NOUN", "ADJ"))}
    return frozenset(out)


def _named_roles(v: Any, subj: Any) -> list[tuple[Any, apart.Member]]:
    """Role nouns said of the subject: its apposition ("Tom, the draw operator, ...") and what it is or acts as
    ("was both operator and adjudicator", "acted as notary and witness")."""
    nouns = [c for c in subj.children if c.dep_ == "appos"]
    nouns += [c for c in v.children if c.dep_ in ("attr", "oprd")] if v.lemma_.lower() == "be" else []
    nouns += [o for p in v.children if p.dep_ == "prep" and p.lower_ == "as" for o in p.children if o.dep_ == "pobj"]
    listed = [w for n in nouns for w in [n, *n.conjuncts]]
    if any(w.pos_ == "PROPN" for w in listed):
        return []  # "Omar was the cashier and Lena the auditor": another person named beside the roles
    return [(w, v) for w in listed if w.pos_ == "NOUN"]


def _noun_role(t: Any, role: apart.Member) -> str | None:
    """Does a role noun said of the subject name the role ("firm", with the role's narrowing words)?"""
    if role.verb or key(t) != role.head:
        return None
    return "firm" if role.mods <= {key(w) for w in t.subtree} else "guess"


def _framed(x: Any, y: Any) -> bool:
    """Does an occasion open the sentence before both acts ("On the Harlow codicil, Alan notarized and
    witnessed ...")?"""
    first = min(x.i, y.i)
    return any(c.dep_ == "prep" and c.lower_ in _OCCASION_PREPS and c.i < first for a in (x, y) for c in a.children)


def _acts(v: Any) -> list[Any]:
    """The acts told of one subject: the verb and the verbs joined to it without a subject of their own."""
    out = [v]
    for c in v.children:
        if c.dep_ in _LINKS and c.pos_ == "VERB" and not any(s.dep_ in ("nsubj", "nsubjpass") for s in c.children):
            out += _acts(c)
    return out


def both_roles(pair: apart.Pair, doc: Any, start: int, end: int) -> tuple[str, int, int] | None:
    """One subject doing the acts of both roles, told as facts on one occasion: ("firm" | "guess", the sentence's
    span), else None."""
    found: tuple[str, int, int] | None = None
    for sent in doc.sents:
        if sent.end_char <= start or sent.start_char >= end:
            continue
        for v in sent:
            subj = next((c for c in v.children if c.dep_ == "nsubj"), None)
            if v.pos_ not in ("VERB", "AUX") or subj is None or list(subj.conjuncts) or v.dep_ in _LINKS - {"parataxis"}:
                continue
            # "notarized and, along with Joan, witnessed": the parser may hang the first act on the second
            acts = [a for a in _acts(v) if fact(a)]
            acts += [h for h in [v.head] if v.dep_ == "parataxis" and h.pos_ == "VERB" and fact(h)]
            hit = _two(pair, acts) or (_by_nouns(pair, v, subj) if fact(v) else None)
            if hit is None:
                continue
            if hit == "firm":
                return hit, sent.start_char, sent.end_char
            found = found or (hit, sent.start_char, sent.end_char)
    return found


def _two(pair: apart.Pair, acts: list[Any]) -> str | None:
    """Do two different acts of the list do one role each, on one occasion?"""
    best: str | None = None
    for x in acts:
        for y in acts:
            if x.i == y.i:
                continue
            ra = [r for m in pair.a if (r := _role_of(x, m))]
            rb = [r for m in pair.b if (r := _role_of(y, m))]
            if not ra or not rb:
                continue
            ox, oy = _occasion(x), _occasion(y)
            additive = any(w.lower_ in _ADDITIVE or w.lower_ == "well" for a in (x, y) for w in a.subtree
                           if w.head.i == a.i or w.head.head.i == a.i)
            if ox and oy and not ox & oy:
                if not additive:
                    continue  # "for the Wednesday draw ... the Saturday one": two occasions
                best = best or "guess"
                continue
            if "firm" in ra and "firm" in rb and (additive or ox & oy or _framed(x, y)):
                return "firm"
            best = "guess"
    return best


def _by_nouns(pair: apart.Pair, v: Any, subj: Any) -> str | None:
    """One role named as a noun of the subject ("Tom, the draw operator, ...", "was both operator and
    adjudicator") and the other named so too or done by the subject's verb."""
    named = _named_roles(v, subj)
    na = [r for t, _ in named for m in pair.a if (r := _noun_role(t, m))]
    nb = [r for t, _ in named for m in pair.b if (r := _noun_role(t, m))]
    if not na and not nb:
        return None
    acts = [a for a in _acts(v) if a.pos_ == "VERB" and fact(a)]
    ra = na or [r for a in acts for m in pair.a if (r := _role_of(a, m))]
    rb = nb or [r for a in acts for m in pair.b if (r := _role_of(a, m))]
    if not ra or not rb:
        return None
    return "firm" if "firm" in ra and "firm" in rb else "guess"


_REFLEXIVE = frozenset({"himself", "herself", "themselves", "themself", "myself", "ourselves", "yourself"})


@lru_cache(maxsize=1024)
def _kept_acts(rule: str) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """The two acts a rule keeps from one doer ("The same employee may not both approve a supplier invoice and
    release its payment"): ((verb lemma, key of its object), ...) for the verb "both" stands before and the verb
    joined to it, or None for a rule of another shape."""
    doc = parse(rule)
    if not any(t.lower_ == "same" for t in doc):
        return None
    both = next((t for t in doc if t.lower_ == "both" and t.head.pos_ == "VERB"), None)
    if both is None:
        return None
    a = both.head
    b = next((c for c in a.children if c.dep_ == "conj" and c.pos_ == "VERB"), None)
    if b is None:
        return None

    def act(v: Any) -> tuple[str, str]:
        obj = next((c for c in v.children if c.dep_ == "dobj"), None)
        return v.lemma_.lower(), key(obj) if obj is not None else ""

    return act(a), act(b)


def _doer(v: Any) -> Any | None:
    """Who does a verb: its subject, the "by" agent of a passive, the subject a verb joined without one shares,
    or a name the parser hung on the object before it ("counted the cash and Priya Kaur, the manager, signed")."""
    if any(c.dep_ in ("nsubjpass", "auxpass") for c in v.children):
        return next((o for p in v.children if p.dep_ == "agent" for o in p.children if o.dep_ == "pobj"), None)
    subj = next((c for c in v.children if c.dep_ == "nsubj"), None)
    if subj is not None or v.dep_ != "conj":
        return subj
    doc, j = v.doc, v.i - 1
    if j >= 0 and doc[j].text == ",":  # an apposition between the name and its verb
        j = next((k for k in range(j - 1, v.head.i, -1) if doc[k].text == ","), v.head.i) - 1
    p = doc[j] if j > v.head.i else None
    if p is not None and p.pos_ == "PROPN" and p.dep_ == "conj" and any(
            w.lower_ == "and" for w in doc[p.left_edge.i - 1 : p.left_edge.i]):
        return p
    return _doer(v.head) if v.head.pos_ == "VERB" else None


def two_named_doers(rule: str, claim: str) -> bool:
    """Does the claim give each of the two acts a rule keeps from one doer its own doer, each named, the names
    sharing no word ("E. Sund approved invoice 5530 and S. Holm released the bank transfer")? An act is the rule's
    verb or a verb done to the rule's object ("did the treatment" for "perform a treatment"). A doer told by a
    pronoun or a role noun may be the other one; a reflexive ("he had done it himself") ties them: not read.
    Why: such a rule's finding rests on its verbs alone; two people named for its two acts are what it asks for."""
    acts = _kept_acts(rule)
    if acts is None:
        return False
    doc = parse(claim)
    if any(t.lower_ in _REFLEXIVE for t in doc):
        return False
    names: list[set[tuple[str, ...]]] = [set(), set()]
    for v in doc:
        if v.pos_ != "VERB":
            continue
        things = {key(c) for c in v.children if c.dep_ in ("dobj", "nsubjpass")}
        for n, (lemma, obj) in enumerate(acts):
            if v.lemma_.lower() != lemma and not (obj and obj in things):
                continue
            d = _doer(v)
            if d is None or d.pos_ != "PROPN":
                return False
            names[n].add(tuple(w.lower_ for w in [*d.lefts, d] if w.pos_ == "PROPN"))
    if not names[0] or not names[1]:
        return False
    return not any(_may_be_one(x, y) for x in names[0] for y in names[1])


def _may_be_one(x: tuple[str, ...], y: tuple[str, ...]) -> bool:
    """May two names be one person: the same last word ("Dr Mensah", "Mensah"), or one a single word of the
    other ("Tom", "Tom Marsh")? A shared title alone ("Nurse Okoye", "Nurse Varga") is no one person."""
    return x[-1] == y[-1] or len(x) == 1 and x[0] in y or len(y) == 1 and y[0] in x


# verbs that do whatever their object names ("did her treatment", "carried out the task", "performed the check")
_DOING_VERBS = frozenset({"do", "perform", "carry", "undertake", "conduct", "complete"})
# words of a verb that say its doer did this as well as something else ("held it too", "adjudicated as well")
_ALSO_WORDS = frozenset({"too", "also"})
_PRONOUNS = frozenset({"he", "she"})
_MODALS = frozenset({"may", "might", "can", "could", "will", "would", "shall", "should", "must"})
_ANAPHORS = frozenset({"it", "them", "this", "that"})


def _act_verbs(rule: str) -> list[tuple[frozenset[str], str]]:
    """Each act a rule keeps from one doer, as (verb lemmas that tell it, key of its object): "act as the permit
    holder" is told by the verb WordNet derives from the role ("held it"); an object that is a pronoun ("sign it
    off") is the first act's object."""
    acts = _kept_acts(rule)
    if acts is None:
        return []
    doc = parse(rule)
    out: list[tuple[frozenset[str], str]] = []
    for lemma, obj in acts:
        lemmas = {lemma}
        if lemma in ("act", "serve"):
            role = next((p for t in doc if t.lemma_.lower() == lemma for c in t.children
                         if c.dep_ == "prep" and c.lower_ == "as" for p in c.children if p.dep_ == "pobj"), None)
            if role is None:
                return []
            lemmas = set(wordnet.verbs_of(role.lemma_.lower(), 1)) if wordnet.available() else set()
        if obj in _ANAPHORS and out:
            obj = out[0][1]
        out.append((frozenset(lemmas), obj))
    return out


def _tells(v: Any, act: tuple[frozenset[str], str]) -> bool:
    """Does a verb of the claim tell the act: its own verb, or a verb of doing done to the act's object?"""
    lemmas, obj = act
    things = {key(c) for c in v.children if c.dep_ in ("dobj", "nsubjpass")}
    return v.lemma_.lower() in lemmas or bool(obj) and obj in things and v.lemma_.lower() in _DOING_VERBS


def _marked(v: Any) -> bool:
    """Does the verb's own phrase say its doer did it as well ("himself", "too", "also", "as well")?"""
    for t in v.subtree:
        if t.i != v.i and t.dep_ in ("relcl", "advcl", "ccomp", "conj") and t.head.i == v.i:
            continue  # a clause of its own says nothing of this verb
        if t.lower_ in _REFLEXIVE or (t.lower_ in _ALSO_WORDS and t.head.i == v.i) or (
                t.lower_ == "well" and t.i > 0 and v.doc[t.i - 1].lower_ == "as" and t.head.i == v.i):
            return True
    return False


def _plain(v: Any) -> bool:
    """Is the verb told as a fact: not denied, not under a modal, not in a question or a condition?"""
    return not any(c.dep_ == "neg" or (c.dep_ == "aux" and c.lemma_.lower() in _MODALS) or
                   (c.dep_ == "mark" and c.lower_ in ("if", "unless", "whether")) for c in v.children)


def _one_person(d: Any | None) -> bool:
    """Is the doer one named person or a "he"/"she" (not "the engineers", not "Tom and Ana")?"""
    if d is None or any(c.dep_ == "conj" for c in d.children):
        return False
    return (d.pos_ == "PROPN" and d.tag_ == "NNP") or d.lower_ in _PRONOUNS


def one_doer_both(rule: str, claim: str) -> tuple[int, int] | None:
    """Where the claim says one person did both acts a rule keeps from one doer, and says so by its own words
    ("T. Nyberg approved the Kessler invoice ... and released the bank transfer himself", "Mark Ellis issued permit
    4471 ..., and held it too", "Dr Mensah signed the review off ...; he had done her treatment himself"): the span
    of the two verbs. Both acts are facts (no denial, modal or condition), told by one named person: one subject
    both verbs share, or a "he"/"she" after the name. A verb that shares its subject with the act done to the
    first act's object ("replaced the drive belt ... and signed off the task himself") tells the first act. The
    claim must mark the second doing ("himself", "too", "as well"): without it, two verbs of one subject may be
    told of two occasions of one duty. None otherwise."""
    acts = _act_verbs(rule)
    if len(acts) != 2 or not all(lemmas for lemmas, _ in acts):
        return None
    doc = parse(claim)
    if claim.rstrip().endswith("?"):
        return None
    verbs = [v for v in doc if v.pos_ == "VERB" and _plain(v)]
    for n in (0, 1):
        for v2 in (v for v in verbs if _tells(v, acts[1 - n]) and _marked(v)):
            d2 = _doer(v2)
            firsts = [v for v in verbs if v.i != v2.i and _tells(v, acts[n])]
            shared_obj = acts[1][1] and acts[1][1] == acts[0][1] and n == 0 and acts[1][1] in {
                key(c) for c in v2.children if c.dep_ == "dobj"}
            if not firsts and shared_obj and v2.dep_ == "conj" and v2.head.pos_ == "VERB" and _plain(v2.head) and \
                    any(c.dep_ == "dobj" for c in v2.head.children):
                firsts = [v2.head]  # "replaced the drive belt and signed off the task himself"
            for v1 in firsts:
                d1 = _doer(v1)
                if not (_one_person(d1) and _one_person(d2)):
                    continue
                name, pron = (d1, d2) if d2.lower_ in _PRONOUNS else (d2, d1)
                same = d1.i == d2.i or (pron.lower_ in _PRONOUNS and name.pos_ == "PROPN" and name.i < pron.i and
                                        not _other_doer_between(doc, name, pron))
                if same:
                    lo, hi = min(v1.i, v2.i), max(v1.i, v2.i)
                    return doc[lo].idx, doc[hi].idx + len(doc[hi].text)
    return None


def _other_doer_between(doc: Any, name: Any, pron: Any) -> bool:
    """Is another named doer told between a name and the "he"/"she" that may stand for it?"""
    return any(t.pos_ == "PROPN" and (t.dep_ in ("nsubj", "nsubjpass") or t.dep_ == "pobj" and t.head.lower_ == "by")
               and name.i < t.i < pron.i and t.lower_ != name.lower_ for t in doc)
