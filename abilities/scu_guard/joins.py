"""What a cited record lists under a code the claim names: "B3 raw Italian sausage", "L2: stern gas locker (2 x 13
kg propane bottles)", "Tank 3 — PG 76-22", "K2 — tea bags, coffee, sugar".

Why: a claim often names a place or a stock item only by its code ("put in bin B3", "binder drawn from tank 3"),
and only a record it cites (a bin map, a layout, a stock list, an inventory) says what that code holds or is. A
rule speaks of the things ("never in the same bin as cheese", "only PG 64-22 or PG 70-28 binder"), so the claim is
read with the record's entry joined to its code: once with the entry as an apposition of the code ("tank 3, PG
76-22,"), so the allow-list, place and forbid readings see it, and once for a rule that keeps two things apart in
one holder: the claim puts one member in the coded holder by its grammar, and the record lists the other member
there.

A record counts as a list only when it gives two entries or more whose codes have one shape ("B1", "B2", "B3";
"Tank 1", "Tank 2"); an entry is the code, an optional sign ("=", ":", a dash) and the words up to the next entry
or the end of its part. An entry that says its place is empty, cleared or no longer used, a code a cited text or
the claim says was emptied or cleared, and a code the records describe two ways, are left out: the record then
does not say what is there now.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from functools import lru_cache
from typing import Any

from abilities.scu_guard import apart, measure, wordnet
from abilities.scu_guard import together as together_
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.forms import Form
from abilities.scu_guard.nlp import key, parse

# a code: letters with digits ("B3", "L2", "LK-31", "CAB-1") or a capitalised noun with a number ("Tank 3")
_KEY = r"(?:[A-Z]{1,4}-?\d{1,4}[A-Za-z]?(?:-\d{1,3})?|[A-Z][a-z]{2,} \d{1,3})"
# where an entry may open: the start of the text or of a part (after a sign, a separator or a list comma)
_OPEN = r"(?:^|(?<=[;\n])|(?<=[.:;,—–=-]\s)|(?<=\s-\s))"
_ENTRY_RE = re.compile(rf"{_OPEN}(?P<key>{_KEY})(?![\w-])\s*(?P<sign>=|:|—|–|-(?=\s))?\s*")
# the end of an entry's part
_PART_END_RE = re.compile(r";|\n|\.\s|\.$|\s-\s|\s[—–]\s")
# words by which an entry or a text says a place holds nothing now
_EMPTIED = r"(?:empty|emptied|cleared|vacant|unused|out of use|decommissioned|formerly|previously|until|no longer|" \
    r"removed|not in use|cleaned out)"
_EMPTIED_RE = re.compile(rf"\b{_EMPTIED}\b", re.I)


def _shape(key: str) -> str:
    """A code's shape: its letters, with the digits made one sign ("B3" and "B12" -> "B#", "Tank 3" -> "tank #")."""
    return re.sub(r"\d+", "#", key.lower())


@lru_cache(maxsize=1024)
def entries(text: str) -> tuple[tuple[str, str], ...]:
    """(code, what it lists) of a record that reads as a list of codes of one shape (two entries or more)."""
    found = [m for m in _ENTRY_RE.finditer(text)]
    out: list[tuple[str, str]] = []
    for i, m in enumerate(found):
        stop = found[i + 1].start() if i + 1 < len(found) else len(text)
        rest = text[m.end():stop]
        end = _PART_END_RE.search(rest)
        desc = (rest[:end.start()] if end else rest).strip().rstrip(",;.").strip()
        if not m.group("sign") and " " in m.group("key"):
            continue  # "Tank 3 was cleaned": a noun with a number opens an entry only with a sign
        if desc and not re.match(r"[\d(]|(?:is|was|were|are|has|had|to|and|or)\b", desc):
            out.append((m.group("key"), desc))
    shapes: dict[str, int] = {}
    for k, _ in out:
        shapes[_shape(k)] = shapes.get(_shape(k), 0) + 1
    return tuple((k, d) for k, d in out if shapes[_shape(k)] >= 2)


def _mentions(text: str, code: str) -> list[re.Match[str]]:
    return list(re.finditer(rf"(?<![\w-]){re.escape(code)}(?![\w-])", text, re.I))


@lru_cache(maxsize=1024)
def _contents(claim: str, chunk_texts: tuple[str, ...]) -> dict[str, str]:
    """Code (lowercase) -> what the cited records list under it, for the codes the claim names."""
    listed: dict[str, set[str]] = {}
    for text in chunk_texts:
        for k, d in entries(text):
            if _mentions(claim, k):
                listed.setdefault(k.lower(), set()).add(d)
    out: dict[str, str] = {}
    for code, descs in listed.items():
        if len(descs) != 1:
            continue  # two records, two contents: which holds now is not told
        desc = next(iter(descs))
        if _EMPTIED_RE.search(desc) or re.search(r"\b(?:no|none|nothing|not)\b", desc, re.I):
            continue
        emptied = False
        near = re.compile(rf"(?<![\w-]){re.escape(code)}(?![\w-])\W+(?:[\w-]+\W+){{0,3}}?{_EMPTIED}\b|"
                          rf"\b{_EMPTIED}\W+(?:[\w-]+\W+){{0,3}}?{re.escape(code)}(?![\w-])", re.I)
        for text in (claim, *chunk_texts):
            if near.search(text):
                emptied = True  # "B3 was emptied first", "cleared out K4": the listed contents are gone
        if not emptied and not _later_record(claim, chunk_texts, code):
            out[code] = desc
    return out


def _later_record(claim: str, chunk_texts: Sequence[str], code: str) -> bool:
    """Is every record listing the code dated after every date the claim gives (a list made later need not say
    what was there then)? Dates are compared by year only when both give one."""
    said = measure.find_dates(claim)
    if not said:
        return False
    for text in chunk_texts:
        if any(k.lower() == code for k, _ in entries(text)):
            dates = measure.find_dates(text)
            if not dates or not all(_after(r, c) for r in dates for c in said):
                return False
    return True


def _after(a: measure.DateMention, b: measure.DateMention) -> bool:
    """Is date ``a`` surely after date ``b``?"""
    da, db = date.fromordinal(a.first), date.fromordinal(b.last)
    if a.year_known and b.year_known:
        return da > db
    return (da.month, da.day) > (db.month, db.day)


def with_contents(claim: str, chunk_texts: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """The claim with what a cited record lists under each code it names set beside the code as an apposition
    ("binder drawn from tank 3" -> "binder drawn from tank 3, PG 76-22,"), and the spans of the words set in; the
    claim unchanged when no record lists a code it names. An entry that states an amount ("chamber, depth 6.1 m")
    is not set in: its amount would be read as the claim's own."""
    known = _contents(claim, tuple(chunk_texts))
    edits: list[tuple[int, str]] = []
    for code, desc in known.items():
        if measure.find_amounts(desc):
            continue
        for m in _mentions(claim, code):
            after = claim[m.end():m.end() + 2]
            if after.startswith(("'", "’", "-")):
                continue
            edits.append((m.end(), f", {desc}" + ("" if after[:1] in (",", ".", ";", ")") or not after else ",")))
    out, spans = claim, []
    for at, words in sorted(set(edits), reverse=True):
        out = out[:at] + words + out[at:]
        spans = [(s + len(words), e + len(words)) for s, e in spans] + [(at, at + len(words))]
    return out, spans


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", text.lower()) if w not in ("the", "a", "an", "of")}


def names_allowed(form: Form, set_in: str) -> bool:
    """Do the words set in from a record name a member of the rule's own list (an allowed name, place or means,
    its words all there, the list's label aside: "PG 64-22" for "only PG 64-22 or PG 70-28 binder")? Then the
    record says the code is an allowed one, and a finding of the joined reading rests on a misread."""
    listed = set(form.member_names) | set(form.places) | set(form.use_members)
    said = _words(set_in)
    for member in listed:
        words = _words(member) - {form.member_kind or ""}
        core = {w for w in words if any(ch.isdigit() for ch in w)} or words
        if core and core <= said:
            return True
    return False


def exclusions(claim: str, forms: Sequence[Form], chunk_texts: Sequence[str]) -> list[Finding]:
    """Rules that keep two things out of one holder ("never in the same locker as the gas bottles"), broken by
    the claim and a cited record together: the claim puts one member, as a fact, in a holder it names by a code
    (the holder the rule speaks of, by its noun), and the record lists the other member under that code, and
    not the first."""
    known = _contents(claim, tuple(chunk_texts))
    if not known:
        return []
    out: list[Finding] = []
    doc = None
    for f in forms:
        if f.trigger is not None or f.quantity is not None or f.modality != "must_not" and len(f.exclusion) < 2:
            continue
        pair = _pair(f.text)
        if pair is None or pair.scope != "place" or not pair.holder:
            continue
        doc = doc if doc is not None else parse(claim)
        hit = _held_with(doc, pair, known)
        if hit is not None:
            start, end, code = hit
            out.append(Finding(f.text, start, end, claim[start:end], "exclusion",
                               f"a cited record lists under {code!r} what {f.text!r} keeps apart from the claim's "
                               "thing put there", True, False, True, True, ""))
    return out


def _held_with(doc: Any, pair: apart.Pair, known: dict[str, str]) -> tuple[int, int, str] | None:
    """(sentence start, end, code) where the claim puts a member of one side in a coded holder whose record lists
    a member of the other side (and none of the first), else None."""
    for mine, other in ((pair.a, pair.b), (pair.b, pair.a)):
        for t in doc:
            if not _names(t, mine):
                continue
            slot = together_._slot(t)
            if slot is None or not together_.fact(slot[0]) or together_._APART_RE.search(t.sent.text):
                continue
            inside = {w.i for w in t.subtree}
            for place in together_._verb_places(slot[0], inside) + together_._own_places(t):
                said = " ".join(w.text for w in place.subtree)
                code = next((c for c in known if re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", said, re.I)), None)
                if code is None or together_._place_fits(place, pair) != "firm":
                    continue
                listed = parse(known[code])
                theirs = [d for d in listed if _names(d, other)]
                ours = [d for d in listed if apart.names_member(d, mine)]
                if theirs and not ours:
                    return t.sent.start_char, t.sent.end_char, code
    return None


# a second part of a rule that keeps its subject out of another thing's holder ("..., and never in the same bin as
# cheese"): the holder and the other thing
_SAME_AS_RE = re.compile(r"\b(?:never|not)\b[^.;]*?\bin the same (?P<holder>[a-z-]+) as (?:the |any )?(?P<other>[^,.;]+)",
                         re.I)


@lru_cache(maxsize=1024)
def _pair(rule: str) -> apart.Pair | None:
    """The two things a rule keeps out of one holder: ``apart.rule_pair``, or, for a rule that says so in a later
    part of its sentence ("Raw meat must be stored only on the bottom shelf, and never in the same bin as
    cheese"), its subject (the words before its modal) and the thing after "in the same ... as"."""
    pair = apart.rule_pair(rule)
    if pair is not None:
        return pair
    m = _SAME_AS_RE.search(rule)
    subj = re.match(r"(?P<subj>.+?)\s+(?:must|may|shall|should|can|are|is)\b", rule)
    if m is None or subj is None or m.start() < subj.end():
        return None
    a, b = apart._phrase_member(subj.group("subj")), apart._phrase_member(m.group("other"))
    holder = parse(m.group("holder"))[0]
    if a is None or b is None:
        return None
    return apart.Pair((a,), (b,), "place", key(holder), holder.lemma_.lower())


def _names(t: Any, sides: tuple[apart.Member, ...]) -> bool:
    """Does the noun name a member of a side firmly (``apart.names_member``); or with its head noun misread by the
    tagger ("petrol can" read as a noun and a modal: the member's words said together); or with a narrowing word
    said by a kind of it ("propane bottles" are gas bottles, propane being a gas)?"""
    how = apart.names_member(t, sides)
    if how == "firm":
        return True
    nxt = t.doc[t.i + 1] if t.i + 1 < len(t.doc) else None
    for m in sides:
        if nxt is not None and nxt.lower_ == m.lemma and nxt.pos_ not in ("NOUN", "PROPN") and m.mods and \
                m.mods <= apart.phrase_keys(t):
            return True  # "The petrol can was stowed": "can" read as a modal
        if how == "guess" and m.mods:
            said = [c for c in t.subtree if c.i != t.i and c.pos_ in ("NOUN", "PROPN", "ADJ")]
            if all(any(key(c) == mod or wordnet.is_a(c.lemma_.lower(), mod) for c in said) for mod in m.mods):
                return True
    return False
