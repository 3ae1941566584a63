"""Two things a rule keeps apart, put together by the grammar of one verb of sharing: "St Mary's school group and
the Khan family's birthday party shared the 13:00 slot", "The nitrate reels shared a shelf with the acetate film".

Why its own module: an exclusion found by both members' words and a word of togetherness somewhere in a clause
is a guess ("the same day", "also" may be said of something else), so it waits in REVIEW. Where the verb
"share" itself has one member as its subject and the other as a coordinated subject or its "with" phrase, told
as a fact (not denied, no modal, not asked), the claim says outright that the two were together.
"""

from __future__ import annotations

from typing import Any

from abilities.scu_guard.nlp import key

_MODALS = frozenset({"may", "might", "can", "could", "would", "should", "must", "shall", "will"})


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
        if any(c.dep_ == "neg" or c.lower_ in ("never", "no") or (c.dep_ == "aux" and c.lower_ in _MODALS)
               for c in v.children) or v.sent.text.rstrip().endswith("?"):
            continue
        subj = next((c for c in v.children if c.dep_ == "nsubj"), None)
        if subj is None or any(c.lower_ in ("no", "neither") for c in subj.children):
            continue
        parts = [_phrase_keys(s) for s in [subj, *subj.conjuncts]]
        parts += [_phrase_keys(p) for w in v.children if w.dep_ == "prep" and w.lower_ == "with"
                  for p in w.children if p.dep_ == "pobj"]
        has_a = [bool(a_own & p) and not b_own & p for p in parts]
        has_b = [bool(b_own & p) and not a_own & p for p in parts]
        if any(has_a) and any(has_b):
            return True
    return False
