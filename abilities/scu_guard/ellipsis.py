"""Clauses a writer left short, rebuilt in full (gapping, VP ellipsis, "too" / "so did" / "as did").

Why: writers leave out the verb (and often the object) that the first clause of a sentence gives: "Loan
L-93 went to Kew, L-94 to Naturalis" (gapping), "Priya wore a respirator; Dev, at his desk, did not" (an
auxiliary stands for the first clause's verb phrase), "the junior squad had the 07:00 slot, and so did the
masters", "Kerr too". Every reading of the guard looks for a verb with its own arguments, so such a conjunct
said nothing to any of them. ``rebuilt`` writes each short conjunct out as the sentence the writer meant
("L-94 went to Naturalis.", "Dev did not wear a respirator.", "The junior squad and the masters had the
07:00 slot."); the guard reads them after the claim, which it keeps whole.

The pattern family is grammatical: a conjunct (after ";", a comma or "and"/"but") that opens with a noun
phrase and has no finite verb of its own, or whose only verb is an auxiliary ("did not", "did too", "so
did", "as did"); the verb comes from the nearest clause before it in the sentence with a finite verb and a
subject. "The former" / "the latter" stand for the first / second of the first clause's coordinated objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from abilities.scu_guard.measure import find_amounts
from abilities.scu_guard.nlp import parse

_FINITE = {"VBD", "VBZ", "VBP", "MD"}
_BREAKS = {";", ","}
_JOINERS = {"and", "but", "while", "whereas"}
_NP_POS = {"DET", "PROPN", "NOUN", "NUM", "ADJ", "X", "SYM"}
_NP_INNER = {"PART", "PUNCT"}  # "members'", "L-93"
_DO = {"do", "does", "did"}
_DENY = {"not", "n't", "never"}
_ADDITIVE = {"too", "also"}
_SOURCE_SUBJ = {"nsubj", "nsubjpass"}
_VERB_GROUP = {"aux", "auxpass", "neg"}
_NOT_MAIN = {"aux", "auxpass", "amod", "relcl", "acl", "advcl", "pcomp", "pobj", "csubj", "xcomp"}
_PLURAL = {"was": "were", "is": "are", "has": "have", "does": "do"}
_PERSONAL = {"their", "his", "her", "its", "our", "my", "your"}


@dataclass(frozen=True)
class _Source:
    """The clause whose verb a short conjunct borrows: its subject, verb group, and what follows the verb."""

    subject: str
    head: Any  # the subject's head noun
    verb_group: list[Any]  # auxiliaries, negation and the verb, in order
    verb: Any
    rest: list[Any]  # the tokens after the verb up to the end of the clause
    objects: list[list[Any]]  # the coordinated direct objects, each as its tokens


def _text(tokens: list[Any]) -> str:
    return "".join(t.text_with_ws for t in tokens).strip().rstrip(",;.").strip()


def _segments(sent: Any) -> list[list[Any]]:
    """The stretches of a sentence between ";", "," and a joining conjunction (the joiners left out). A
    stretch that opens with a noun coordinated with a noun of the stretch before it ("the dry feldspar and
    silica", "routes 4 and 12") continues that stretch: it is a list of things, not a new clause."""
    out: list[list[Any]] = [[]]
    for t in sent:
        if t.text in _BREAKS or (t.lower_ in _JOINERS and t.pos_ in ("CCONJ", "SCONJ")):
            if out[-1]:
                out.append([])
            continue
        if t.is_punct and t.i == sent.end - 1:
            continue
        out[-1].append(t)
    merged: list[list[Any]] = []
    for seg in (s for s in out if s):
        k = _continues(seg, merged)
        if k is not None:
            start, end = merged[k][0].i, seg[-1].i + 1
            merged[k:] = [[t for t in sent if start <= t.i < end]]
        else:
            merged.append(seg)
    return merged


def _continues(seg: list[Any], before: list[list[Any]]) -> int | None:
    """The index of the earlier stretch holding a noun the stretch's opening noun phrase is coordinated with
    ("the dry feldspar and silica", "on Friday 22 May, three weeks and a day before"), or None."""
    n = _np_end(seg)
    ids = {t.i for t in seg[:n]}
    heads = {r.head.i for r in seg[:n] if r.head.i not in ids and r.dep_ == "conj"
             and r.head.pos_ in ("NOUN", "PROPN", "NUM", "PRON")}
    k = next((k for k, prev in enumerate(before) if heads & {t.i for t in prev}), None)
    if k is not None and n < len(seg) and seg[n].pos_ in ("ADP", "PART") \
            and seg[n].lower_ in {t.lower_ for t in before[k]}:
        return None  # "..., and L-95 to the Field Museum" after "L-93 went to Kew": parallel, a new clause
    return k


def _source(seg: list[Any]) -> _Source | None:
    """The stretch read as a full clause: a finite verb with a subject before it in the same stretch."""
    ids = {t.i for t in seg}
    for v in seg:
        if v.pos_ not in ("VERB", "AUX") or v.dep_ in _NOT_MAIN:
            continue
        group = sorted([c for c in v.children if c.dep_ in _VERB_GROUP and c.i in ids] + [v], key=lambda t: t.i)
        if not any(t.tag_ in _FINITE for t in group):
            continue
        subj = [c for c in v.children if c.dep_ in _SOURCE_SUBJ and c.i in ids and c.i < v.i]
        if not subj:
            continue
        first = min(t.i for t in subj[0].subtree)
        sub = [t for t in seg if first <= t.i < group[0].i]
        rest = [t for t in seg if t.i > v.i and t not in group]
        objects = _objects(v, ids)
        return _Source(_text(sub), subj[0], group, v, rest, objects)
    return None


def _objects(v: Any, ids: set[int]) -> list[list[Any]]:
    """The verb's direct object and the nouns coordinated with it, each as its own phrase."""
    dobj = next((c for c in v.children if c.dep_ == "dobj" and c.i in ids), None)
    if dobj is None:
        return []
    heads = [dobj] + [c for c in dobj.conjuncts if c.i in ids]
    out = []
    for h in heads:
        cut = {u.i for c in h.children if c.dep_ in ("cc", "conj", "punct", "prep", "relcl", "acl")
               for u in c.subtree}
        keep = [t.i for t in h.subtree if t.i not in cut and t.i in ids]
        out.append([t for t in h.doc[min(keep): max(keep) + 1]])
    return out


def _np_end(seg: list[Any]) -> int:
    """How many tokens of a stretch make its opening noun phrase (0 if it opens with none)."""
    if not seg or seg[0].pos_ not in _NP_POS | {"PRON"}:
        return 0
    if seg[0].pos_ == "PRON" and seg[0].lower_ in _PERSONAL:
        return 0
    n = 0
    nouny = False
    for i, t in enumerate(seg):
        if t.pos_ in ("NOUN", "PROPN", "NUM", "X", "PRON") and t.tag_ != "PRP$":
            nouny = True
        elif t.lower_ == "of" and nouny and i + 1 < len(seg) and seg[i + 1].pos_ in _NP_POS:
            nouny = False  # "the captain's search of the overshoot area": the phrase goes on
        elif t.pos_ in ("DET", "ADJ", "SYM") or t.pos_ in _NP_INNER:
            if nouny and t.pos_ == "DET":
                break  # a second noun phrase begins ("Team Nova their own", "Tuesday's just one")
        else:
            break
        if t.pos_ == "PRON" and i > 0:
            break
        n = i + 1
    while n and seg[n - 1].pos_ in _NP_INNER and seg[n - 1].tag_ != "POS":
        n -= 1
    return n if nouny else 0


def _resolve(rest: list[Any], src: _Source) -> str:
    """The conjunct's remainder with "the former" / "the latter" read as the first clause's first / second
    object and "their own" given the object's head noun."""
    words = _text(rest)
    low = words.lower()
    for word, idx in (("the former", 0), ("the latter", 1)):
        if low.endswith(word) and len(src.objects) >= 2:
            return words[: len(words) - len(word)] + _text(src.objects[idx])
    return _stranded(words, rest, src)


def _only_one(np: str, rest: list[Any], src: _Source) -> str | None:
    """"Karl, who has a full beard, only the former" after "... wore hairnets and beard nets": of the two
    things, the one named was taken and the other was not."""
    low = _text(rest).lower()
    if len(src.objects) != 2 or low not in ("only the former", "only the latter"):
        return None
    kept, other = (0, 1) if low.endswith("former") else (1, 0)
    return (f"{np} {_finite(src.verb_group)} {_text(src.objects[kept])}.\n"
            f"{np} {_denied(src)} {_text(src.objects[other])}.")


def _stranded(words: str, rest: list[Any], src: _Source) -> str:
    """The remainder with a stranded "own" or preposition given the first clause's noun ("Team Nova their own
    headsets", "without a respirator")."""
    if rest and rest[-1].lower_ == "own" and src.objects:
        return f"{words} {_head(src.objects[0]).text}"
    if rest and rest[-1].lower_ in ("with", "without"):
        # "and Josh the whiting and kaolin without": the stranded preposition takes the first clause's object
        pobj = next((c for p in src.rest if p.lower_ in ("with", "without") for c in p.children
                     if c.dep_ == "pobj"), None)
        if pobj is not None:
            return f"{words} {_text(list(pobj.doc[pobj.left_edge.i: pobj.i + 1]))}"
    return words


def _head(phrase: list[Any]) -> Any:
    """The last noun of a phrase (its head)."""
    return max(phrase, key=lambda t: (t.pos_ in ("NOUN", "PROPN"), t.i))


def _one(phrase: str, noun: Any | None) -> str:
    """"the afternoon one", "those from rack B", "Kershaw's" with the noun they stand for ("the afternoon tour",
    "skis from rack B", "Kershaw's visits")."""
    if noun is None:
        return phrase
    words = phrase.split(" ")
    if len(words) > 2 and words[0].lower() in ("those", "that") and noun.pos_ == "NOUN":
        # "those from lanes 7-10" after "Shoes from lanes 1-6": the demonstrative stands for the noun
        words[0] = noun.text if words[0].lower() == "those" else noun.lemma_
    if words[-1].endswith(("'s", "s'")) and noun.pos_ == "NOUN" and len(words) <= 3:
        words.append(noun.text)  # "Kershaw's" after "Mensah's visits": the possessor's own visits
    for k, w in enumerate(words):
        if w.lower() in ("one", "ones") and "the" in (x.lower() for x in words[:k]):
            words[k] = noun.lemma_ if w.lower() == "one" else noun.text
    return " ".join(words)


def _finite(group: list[Any]) -> str:
    return " ".join(t.text for t in group)


def _both(src: _Source) -> str:
    """The first clause's verb group said of two doers at once ("both had", "were both patched"): "so did
    the masters", "as did the coach", "Kerr too" assert the same verb phrase of both."""
    group = [_PLURAL.get(t.lower_, t.text) for t in src.verb_group]
    if any(c.dep_ == "conj" for c in src.head.children) or src.head.tag_ in ("NNS", "NNPS"):
        return " ".join(group)  # the first clause names several doers already: "both" would miscount
    return " ".join(group[:1] + ["both"] + group[1:]) if len(group) > 1 else f"both {group[0]}"


def _denied(src: _Source) -> str:
    """The first clause's verb group, denied: "were not sanitised", "did not carry"."""
    group = [t for t in src.verb_group if t.lower_ not in _DENY]
    if len(group) > 1 or src.verb.lemma_ in ("be",) or src.verb.pos_ == "AUX":
        return " ".join([group[0].text, "not"] + [t.text for t in group[1:]])
    return f"{'does' if src.verb.tag_ == 'VBZ' else 'did'} not {src.verb.lemma_}"


def _gapped(seg: list[Any], src: _Source) -> str | None:
    """"L-94 to Naturalis" after "Loan L-93 went to Kew": a noun phrase and a remainder, no verb."""
    if any(t.tag_ in _FINITE for t in seg):
        return None
    if len(seg) > 1 and seg[-1].lower_ in _DENY and seg[0].pos_ in _NP_POS | {"PRON"} \
            and not any(t.pos_ in ("VERB", "AUX") for t in seg):
        # "those from lanes 7-10 not", "the afternoon one not": the first clause's verb phrase, denied
        return f"{_one(_text(seg[:-1]), src.head)} {_denied(src)} {_text(src.rest)}."
    n = _np_end(seg)
    if seg[0].lower_ in ("those", "that") and len(seg) > 2 and seg[1].pos_ == "ADP":
        n = 2 + _np_end(seg[2:])  # "those from rack B": the demonstrative and what tells it apart
    rest = seg[n:]
    if not n or not rest or rest[0].pos_ in ("VERB", "AUX", "CCONJ", "PUNCT") or rest[0].tag_ in ("VBN", "VBG"):
        return None
    if find_amounts(_text(seg[:n])):
        return None  # "three feet in from the boundary", "a day before the regatta": a measure, not a doer
    if not any(t.pos_ in ("ADP", "NUM", "NOUN", "PROPN", "ADJ") for t in rest):
        return None
    if all(t.lower_ in _ADDITIVE | {"as", "well", "either"} for t in rest):
        return None
    adjuncts = rest[0].pos_ == "ADP" and not any(t.dep_ in ("dobj", "appos") for t in rest)
    if src.objects and adjuncts:
        obj, lemmas = _head(src.objects[-1]), {t.lemma_ for t in seg[:n]}
        named = seg[n - 1].text[:1].isupper() and src.head.text[:1].isupper() and not obj.text[:1].isupper()
        if (src.head.lemma_ in lemmas or named) and obj.lemma_ not in lemmas:
            # "Mr Vance on Saturday" after "Ms Ito had the room on Friday": a new doer, the same object
            return (f"{_one(_text(seg[:n]), src.head)} {_finite(src.verb_group)} "
                    f"{_text(src.objects[-1])} {_text(rest)}.")
        # "Room 4 on Tuesday" after "The company had the Linden Room on Monday", "another at 15:00": the
        # phrase replaces the object
        return f"{src.subject} {_finite(src.verb_group)} {_text(seg[:n])} {_text(rest)}."
    only = _only_one(_text(seg[:n]), rest, src)
    if only:
        return only
    obj = _head(src.objects[-1]) if src.objects else None
    return f"{_one(_text(seg[:n]), src.head)} {_finite(src.verb_group)} {_one(_resolve(rest, src), obj)}."


def _denied_or_added(clause: list[Any], src: _Source) -> str | None:
    """"Dev Roy, at his desk in the room, did not" / "so did the masters" / "as did the coach" / "Kerr
    too": an auxiliary (or "too" alone) standing for the first clause's verb phrase."""
    words = [t for t in clause if not t.is_punct]
    if not words:
        return None
    low = [t.lower_ for t in words]
    rest = _text(src.rest)
    verb = src.verb
    if low[0] in ("so", "as") and len(low) > 2 and words[1].tag_ in _FINITE and words[1].lemma_ in ("do", "be", "have"):
        subj = _text(words[2:])
        return f"{src.subject} and {subj} {_both(src)} {rest}."
    aux = next((t for t in words if t.lower_ in _DO and t.tag_ in _FINITE), None)
    if aux is not None and not any(t.pos_ == "VERB" and t is not aux and t.tag_ not in ("VBN",) for t in words
                                   if t.i > aux.i):
        after = [t.lower_ for t in words if t.i > aux.i]
        subj = [t for t in aux.children if t.dep_ in _SOURCE_SUBJ]
        if not subj:
            return None
        name = _text([t for t in subj[0].subtree if t.dep_ not in ("punct", "prep", "relcl", "appos", "acl")
                      and not any(a.dep_ in ("prep", "relcl", "appos", "acl") for a in t.ancestors
                                  if a.i >= subj[0].i and a is not subj[0])])
        if after and after[0] in _DENY and all(w in _DENY | {"either"} for w in after):
            return f"{name} {aux.text} not {verb.lemma_} {rest}."
        if after and all(w in _ADDITIVE | {"as", "well"} for w in after):
            return f"{src.subject} and {name} {_both(src)} {rest}."
        return None
    return None


def _too(seg: list[Any], src: _Source) -> str | None:
    """"and Kerr too", "and the holotype too": a noun phrase joined to the first clause's subject, or to its
    object when the verb has one and the phrase names no person the way the subject does."""
    if not seg or seg[-1].lower_ not in _ADDITIVE | {"well"} or any(t.tag_ in _FINITE for t in seg):
        return None
    core = [t for t in seg if t.lower_ not in _ADDITIVE | {"as", "well"}]
    n = _np_end(core)
    if not n or n != len(core):
        return None
    np = _text(core)
    named = core[-1].text[:1].isupper() and src.head.text[:1].isupper()
    if src.objects and not (named and not _head(src.objects[-1]).text[:1].isupper()):
        # a name joined to a named subject ("Dale ..., and Kerr too") is a second doer; anything else a second
        # thing the verb takes ("the holotype too")
        obj = src.objects[-1]
        after = [t for t in src.rest if t.i > obj[-1].i]
        before = [t for t in src.rest if t.i < obj[0].i]
        mid = _text(before)
        return (f"{src.subject} {_finite(src.verb_group)} {mid + ' ' if mid else ''}"
                f"{_text(obj)} and {np} {_text(after)}.").replace("  ", " ")
    return f"{src.subject} and {np} {_both(src)} {_text(src.rest)}."


@lru_cache(maxsize=1024)
def rebuilt(claim: str) -> tuple[str, ...]:
    """The sentences a claim's short conjuncts stand for, written in full (none when it has no such
    conjunct). The claim itself is never changed: these are read after it."""
    out: list[str] = []
    for sent in parse(claim).sents:
        src: _Source | None = None
        held: list[Any] = []  # a bare noun phrase whose remainder follows an aside ("Karl, who has a beard, ...")
        aside = False
        for seg in _segments(sent):
            own = _source(seg)
            if own is not None:
                src, held = own, []
                continue
            if src is None:
                continue
            if held and _aside(seg):
                aside = True
                continue
            joined = held and aside and not _np_end(seg)
            made = (joined and _gapped(held + seg, src)) or _gapped(seg, src) or _too(seg, src) \
                or _denied_or_added(seg, src)
            held, aside = (seg if not made and _np_end(seg) == len(seg) else []), False
            if made:
                out.extend(m[0].upper() + m[1:] for m in made.split("\n"))
    return tuple(dict.fromkeys(out))


def _aside(seg: list[Any]) -> bool:
    """A relative clause or a place or time set off by commas ("who has a full beard", "at his desk")."""
    return seg[0].tag_ in ("WP", "WDT", "WRB") or (seg[0].pos_ == "ADP" and len(seg) > 1)


def with_rebuilt(claim: str) -> str:
    """The claim followed by the sentences its short conjuncts stand for (the claim unchanged when none)."""
    extra = rebuilt(claim)
    return claim if not extra else claim.rstrip() + " " + " ".join(extra)
