"""Numbers beside a rule's counted noun that do not count what the rule bounds.

Why its own reading: a claim names the things a count rule bounds for many other reasons. "All 14
in-service buses were checked", "all nine boats were rinsed", "each of Saturday's four tours": the number
there picks out a whole set, or the set a duty is shared over, and says what happened to each member; it
is no count of how many were in the rule's place or did the rule's doing at once. Only where the clause's
own verb is the rule's ("all 10 vacation days carry over" against "may carry over at most 5 vacation
days") is the set's size the rule's count. A number that is part of a date ("the 28 May tour") counts
nothing at all.
"""

from __future__ import annotations

import re
from typing import Any

from abilities.scu_guard.forms import Form
from abilities.scu_guard.nlp import governing_verb, key

# "all 14", "all of the nine", "each of Saturday's four", "every one of the six", "both"
_WHOLE_SET_RE = re.compile(
    r"\b(?:all|each|every one|any)(?: of)?(?: (?:the|these|those|its|their|his|her|our|\w+'s))?\s*$", re.I)


def _rule_verb(form: Form, verb: Any) -> bool:
    """Is the verb the rule's own doing (its lemma among the rule's action keys)?"""
    return verb is not None and key(verb) in set(form.action)


def names_whole_set(text: str, number: Any, noun: Any, form: Form) -> bool:
    """Does the number pick out a whole set ("all 14 buses", "each of the six rounds") in a clause whose verb
    is not the rule's? Then it says what befell each member, not how many the rule's event held."""
    if not _WHOLE_SET_RE.search(text[max(0, number.idx - 30) : number.idx]):
        return False
    return not _rule_verb(form, governing_verb(noun))
