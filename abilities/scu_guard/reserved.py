"""Who a rule reserves an action for, as keys: the reserved noun's alternatives ("a registered organ courier
or a member of the retrieval team") and the keys a description of a person must hold to be one of them.

Why its own module: the typed reading (``judge``) and the reading of a named doer's role (``roles``) both
weigh descriptions against the same alternatives; neither depends on the other for it.
"""

from __future__ import annotations

import re

from abilities.scu_guard.form_types import Form
from abilities.scu_guard.forms import GENERIC
from abilities.scu_guard.nlp import light_keys, word_key

MEMBER_NOUNS = frozenset(word_key(w) for w in "member person people staff worker individual".split())

CRED_LIGHT = frozenset(word_key(w) for w in "hold holding with valid current have having who that a an the of any "
                        "all only may must".split())
CODE_RE = re.compile(r"\b[A-Za-z]*\d[\w/]*\b")


def desc_keys(desc: str) -> set[str]:
    """Keys of a description, with its codes ("A2", "NC1", "PA6") that word keys leave out."""
    return set(light_keys(desc)) | {m.group(0).lower() for m in CODE_RE.finditer(desc)}


def has_key(keys: set[str], k: str) -> bool:
    """Does a set of keys hold ``k``, a long key also by its first five letters ("licence"/"licensed")?"""
    return k in keys or (len(k) >= 5 and any(len(x) >= 5 and x[:5] == k[:5] for x in keys))


def alternatives(form: Form) -> list[set[str]]:
    """The keys each alternative description of the reserved doer needs besides its head noun: "Only a
    registered organ courier or a member of the retrieval team" has two, "a Registered Piano Technician
    (RPT)" has the long one and its abbreviation."""
    m = re.search(r"\b(?:may|can|must|shall|are allowed|is allowed|are permitted|is permitted)\b", form.text)
    phrase = form.text[: m.start()] if m else form.text
    if re.search(r"\bby\b", phrase):
        phrase = phrase.split(" by ", 1)[1]
    elif m and not set(form.agents) & desc_keys(phrase) and " by " in form.text[m.end():]:
        phrase = form.text[m.end():].split(" by ", 1)[1]  # "may be handled only by staff with a licence"
    agents = set(form.agents)
    groups = [g for g in re.split(r"\bor\b|\(|\)", phrase) if g.strip()]
    out = []
    for g in groups:
        keys_ = desc_keys(g) - CRED_LIGHT - MEMBER_NOUNS - GENERIC - {"only", "onli"}
        need = {k for k in keys_ if not has_key(agents, k)}
        out.append(need if need else keys_)
    return [n for n in out if n]
