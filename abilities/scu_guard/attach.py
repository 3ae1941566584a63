"""Which noun a state word belongs to, by the parse ("an unsigned delivery note" is the note's).

A word that states the opposite of what a rule requires ("unsigned", "unencrypted") speaks of the rule's
thing only when it modifies that thing, or no noun at all; said of another noun in the same clause it is
that noun's state, and the rule's thing may be in order ("an unsigned delivery note, but a signed
certificate").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from abilities.scu_guard.lexicon import norm_stem, stem
from abilities.scu_guard.nlp import parse

_NOUNS = {"NOUN", "PROPN"}


def _owner(token: Any) -> Any | None:
    """The noun a modifier or predicate adjective is said of, or None."""
    head = token.head
    dep = token.dep_
    if dep in ("amod", "compound") and head.pos_ in _NOUNS:
        # only before its noun: after it ("passed to the driver unsigned") it is said of the clause's subject
        return head if token.i < head.i else None
    if dep in ("acomp", "oprd") or (dep == "ROOT" and token.pos_ == "ADJ"):
        subjects = [c for c in head.children if c.dep_ in ("nsubj", "nsubjpass") and c.pos_ in _NOUNS]
        return subjects[0] if subjects else None
    return None


def said_of_other_nouns(text: str, words: Iterable[str], rule_words: Iterable[str]) -> bool:
    """True when every token of ``text`` whose stem is in ``words`` belongs, by the parse, to a noun that is
    not one of ``rule_words`` (and at least one such token exists)."""
    wanted, own = set(words), set(rule_words)
    seen = False
    for tok in parse(text):
        if stem(tok.text) not in wanted:
            continue
        seen = True
        owner = _owner(tok)
        if owner is None or norm_stem(owner.text) in own or norm_stem(owner.lemma_) in own:
            return False
    return seen
