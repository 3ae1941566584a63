"""A thing of the same sort as a list's means, named in the very slot the rule fills with them.

Why its own module: the list's kind (``use_lists``) is the most specific kind WordNet gives the members or the
doing's own noun, and it often misses a rival plain to any reader: a cheque is no "payment" in WordNet, nor
Stockholm tar an "iodine spray", so "paid by cheque" against "paid only by card or bank transfer" and "treated
with Stockholm tar" against "treated only with iodine spray or aerosol dressing" were read as nothing. What
ties them is their sort: WordNet files every noun sense under one broad sort (possession, substance, food,
animal, plant), and a thing of the sort of a member, or of the noun the doing's verb makes ("pay" -> payment,
a possession), used with the rule's own preposition on the rule's own doing, is a rival means.

Only sorts whose nouns stand for what a doing is done with, paid in or fed on count here: a tool, a person, a
time or a place in the same slot ("with a cloth", "by the owner", "by Friday") is of another sort. A word too
general to rival a member ("money", "water", "a chemical": near the top of WordNet's hierarchy) and a word whose
senses WordNet does not order are no rivals either.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from abilities.scu_guard import wordnet

# WordNet's noun sorts (lexicographer files) whose nouns name what a doing is done with or paid in: 05 animal,
# 13 food, 20 plant, 21 possession, 27 substance; tools (06 artifact) are left out, as a tool in the slot of
# a substance is how the substance was put on ("wiped with a cloth")
SUBSTANCE = 27
MEANS_SORTS = frozenset({5, 13, 20, 21, SUBSTANCE})
# how far below the top of the hierarchy a rival's first sense must lie: "money" (6), "water" (5) and
# "chemical" (5) are too general to rule a member out; "cash" (7), "cheque" (9), "tar" (10) are not
RIVAL_DEPTH = 7


# prepositions that open one slot of means: "paid by card", "paid with a cheque", "paid in cash", "using"
MEANS_PREPS = frozenset({"by", "with", "in", "using"})


def same_slot(rule_prep: str, claim_prep: str) -> bool:
    """Does the claim's preposition open the slot the rule fills with its list ("" for "use only", "limited
    to": the "with" of the doing)?"""
    rule_prep = rule_prep or "with"
    return rule_prep == claim_prep or rule_prep in MEANS_PREPS and claim_prep in MEANS_PREPS


def _known(members: tuple[str, ...]) -> tuple[str, ...]:
    """The members as WordNet knows them: whole, else by their head ("iodine spray" -> spray)."""
    out = []
    for m in members:
        p = next((p for p in (m, m.split()[-1]) if wordnet.senses(p)), None)
        if p is not None:
            out.append(p)
    return tuple(out)


@lru_cache(maxsize=1024)
def list_sorts(members: tuple[str, ...], verb: str) -> frozenset[int]:
    """The means sorts of a list: those of its members' first senses and of the nouns WordNet makes from the
    rule's own verb ("payment" for "pay")."""
    out: set[int] = set()
    for p in _known(members):
        out.update(wordnet.noun_lexfiles(p))
    if verb:
        out.update(wordnet.offset_lexfile(o) for o in wordnet.nouns_of_verb(verb))
    return frozenset(out & MEANS_SORTS)


def rival(noun: Any, text: str, members: tuple[str, ...], verb: str) -> bool:
    """Is the claim's thing (its phrase, else its head) of one of the list's means sorts by its first sense,
    that sense known to be its most common one and specific enough to rival a member? A substance must also
    share a kind with a member below the most general ones: methylated spirit and isopropyl alcohol are both
    alcohols, but a chamois leather is only a material like distilled water (how it was wiped, not with what)."""
    sorts = list_sorts(members, verb)
    for p in (text, noun.lemma_.lower()):
        if not wordnet.senses(p):
            continue
        sort = wordnet.noun_lexfiles(p)[0]
        if sort not in sorts or not wordnet.ordered(p):
            return False
        deep = wordnet.offset_depth(wordnet.senses(p)[0]) >= RIVAL_DEPTH
        if sort != SUBSTANCE:
            return deep
        # a substance that shares a kind with a member below the most general ones is specific enough itself
        # ("acetone" and "isopropyl alcohol" are organic compounds)
        return any(wordnet.common_kinds((p, m)) for m in _known(members))
    return False
