"""A doer the claim calls by a given name alone, found in the cited records under a fuller name.

Why its own module: claims speak of colleagues as "Owen", "Isobel" or "Ellie", while a log or a staff list
writes "O. Pryce", "I. Marr" or "Ellie Barnes". Who the person is (an apprentice, the head milliner) is in
the record, under the fuller name; without the link the doer is known only by name and the claim waits for
review. The link is made only when the records leave one candidate: one full name that starts with the given
name, or, when the records never write the given name itself, one "initial. Surname" with its initial.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# a given name as the claim writes it: one capitalised word
_GIVEN_RE = re.compile(r"[A-Z][a-z'-]{2,}")
# "O. Pryce", "I. Marr", "J. O'Neill": an initial and a surname
_INITIAL_NAME = r"(?<![\w.]){i}\.\s?(?P<sur>[A-Z][a-z'-]+)(?![\w-])"


def _written(word: str, text: str) -> bool:
    """Is the word written in the text as a capitalised word of its own?"""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def full_name(doer: str, claim_text: str, chunks: Sequence[str]) -> str | None:
    """The records' fuller name for a doer told by one given name ("owen" -> "o. pryce", "ellie" -> "ellie
    barnes"), lower-cased; None when the doer is more than one word, is not written as a name in the claim, or
    the records leave no single candidate. A lone mention of the given name in a record ("Feet: Ellie") is the
    same person, not a rival one."""
    words = doer.split()
    if len(words) != 1 or not chunks:
        return None
    given = words[0].capitalize()
    if not _GIVEN_RE.fullmatch(given) or not _written(given, claim_text):
        return None
    fuller = {m.group(0) for t in chunks for m in re.finditer(
        rf"(?<![\w-]){re.escape(given)}\s+[A-Z][a-z'-]+(?![\w-])", t)}
    if fuller:
        return next(iter(fuller)).lower() if len(fuller) == 1 else None
    if any(_written(given, t) for t in chunks):
        return None  # the records write the given name alone: no fuller name to find
    pat = re.compile(_INITIAL_NAME.format(i=re.escape(given[0])))
    surnames = {m.group("sur") for t in chunks for m in pat.finditer(t)}
    if len(surnames) != 1:
        return None
    surname = next(iter(surnames))
    if _written(surname, claim_text):
        return None  # the claim names that person otherwise: another person is meant
    return f"{given[0]}. {surname}".lower()
