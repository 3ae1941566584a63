"""A duty's "while V-ing" scope met by the claim's own telling of that activity.

"Helmets must be worn at all times while riding" holds only while riding; a claim that says, as a fact, that
the riding happened ("... was not wearing a helmet when they rode the canal route") meets the scope in the same
sentence that drops the duty. Only a bare gerund ("while riding") is read: "while handling raw meat" narrows the
activity by its object, which the claim would also have to name.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from abilities.scu_guard.nlp import key, parse

_MODALS = frozenset({"may", "might", "must", "should", "would", "could", "can", "will", "shall"})


@lru_cache(maxsize=4096)
def bare_while(rule: str) -> tuple[str, str] | None:
    """(the "while V-ing" words as told, the key of V) of a rule with one bare "while" gerund, else None."""
    found = []
    for t in parse(rule):
        if t.tag_ == "VBG" and t.dep_ == "advcl" and [c.lower_ for c in t.children] == ["while"]:
            mark = next(iter(t.children))
            found.append((rule[mark.idx : t.idx + len(t.text)], key(t)))
    return found[0] if len(found) == 1 else None


# words that put the activity before or after the claim's event, not alongside it ("took it off after riding",
# "stopped riding and ...")
_NOT_ALONGSIDE = frozenset({"before", "after", "until", "till", "once", "since"})
_ENDING_VERBS = frozenset({"stop", "finish", "quit", "end", "cease", "start", "begin", "plan", "intend", "want"})


def _told_alongside(w: Any) -> bool:
    """Is the verb told as a fact alongside the claim's event: not denied, with no modal, not put before or
    after it, not the object of a verb that ends, starts or plans it?"""
    if any(c.dep_ == "neg" or c.lower_ in _MODALS or c.lower_ in _NOT_ALONGSIDE for c in w.children):
        return False
    return not (w.dep_ in ("xcomp", "ccomp", "dobj", "pcomp") and w.head.lemma_ in _ENDING_VERBS)


def scope_told(rule: str, doc: Any, start: int, end: int) -> bool:
    """Does the sentence holding ``start``..``end`` of the claim tell the rule's bare "while" activity as a
    fact (its verb, every time it is named; not in a question)?"""
    scope = bare_while(rule)
    if scope is None:
        return False
    sent = next((t.sent for t in doc if start <= t.idx < end), None)
    if sent is None or sent.text.rstrip().endswith("?"):
        return False
    verbs = [w for w in sent if w.pos_ == "VERB" and key(w) == scope[1]]
    return bool(verbs) and all(_told_alongside(w) for w in verbs)
