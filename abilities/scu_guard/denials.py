"""What a doer's own phrase says it lacks: "a stagehand without a rigging licence", "a non-certified fitter",
"an unlicensed driver", "any operator, licensed or not".

Why its own module: a rule that reserves an action for a credential ("Only licensed riggers may climb the
truss") is broken, by grammar alone, by a doer whose own noun phrase denies that credential; the phrase needs
no roster or chunk to settle who the person is. A credential carried away from the person ("without his
licence on him") is not denied: a possessive before the noun says the person has one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from abilities.scu_guard.nlp import light_keys
from abilities.scu_guard.reserved import has_key

_POSSESSIVE = r"(?:his|her|their|its|my|our|your|the)\b"
# "without (a|any) X", "lacking X", "with no X", "holding no X": the credential X is denied
_LACKING_RE = re.compile(rf"\b(?:without|lacking|with\s+no|holding\s+no|having\s+no)\s+(?!{_POSSESSIVE})"
                         r"(?:(?:a|an|any|valid|current)\s+)*([a-z][a-z\s-]*)", re.I)
_PHRASE_END_RE = re.compile(r"\b(?:who|which|that|and|or|but|from|for|of|in|on|at|to|with|while|because)\b", re.I)
_NON_RE = re.compile(r"\bnon\s*-\s*([a-z]{4,})", re.I)
_UN_RE = re.compile(r"\bun([a-z]{4,}(?:ed|fied))\b", re.I)
# "licensed or not", "with or without a licence", "certified or uncertified": the credential made no matter
_EITHER_RE = re.compile(r"\b([a-z]{4,})\s+or\s+(?:not|un\1)\b|\bwith\s+or\s+without\s+(?:a|an|any)?\s*([a-z]+)",
                        re.I)


# "no." before a number or at a cut after a document's noun ("warrant no. 118", "certificate no."), "No 12": the
# abbreviation of "number", which names a credential's serial rather than denying it
_NUMERO_RE = re.compile(r"\bno\.(?=\s*(?:[A-Z]*\d|$))|\bNo\s*(?=\d)|\bnos?\.\s*(?=[A-Z]{0,4}-?\d)")


def without_numero(text: str) -> str:
    """The text with "no." as the abbreviation of "number" blanked out, so it is not read as a denial."""
    return _NUMERO_RE.sub("#", text)


def lacked_keys(phrase: str) -> frozenset[str]:
    """Keys of the credentials a noun phrase denies its head ("a trainee without avalanche certification" ->
    avalanche, certification)."""
    out: set[str] = set()
    for m in _LACKING_RE.finditer(phrase):
        # the credential is the head of the denied noun phrase ("without a rigging licence"), not a word that only
        # describes another noun ("with no licence problems") nor one in a clause hanging from it
        words = _PHRASE_END_RE.split(m.group(1), maxsplit=1)[0].split()
        if words:
            out |= light_keys(words[-1])
    for m in _NON_RE.finditer(phrase):
        out |= light_keys(m.group(1))
    for m in _UN_RE.finditer(phrase):
        out |= light_keys(m.group(1))
    return frozenset(out)


def either_keys(text: str) -> frozenset[str]:
    """Keys of a credential the text says does not matter ("any vessel, licensed or not")."""
    out: set[str] = set()
    for m in _EITHER_RE.finditer(text):
        out |= light_keys(m.group(1) or m.group(2) or "")
    return frozenset(out)


def names_credential(found: Iterable[str], credentials: Iterable[str]) -> bool:
    """Does one of the found keys name one of the rule's credentials ("licence" for "licensed")?"""
    got = set(found)
    return any(has_key(got, k) for k in credentials)
