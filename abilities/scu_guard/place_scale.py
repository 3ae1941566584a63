"""How large a place is, and what it is made of, from WordNet: may one place stand inside another?

A thing kept "in the cupboard" may still be in the allowed strongroom: a container or a piece of furniture
stands inside a room. But a room is not inside another room, nor a building inside another building, nor a
field inside another field: two places of the same scale with head nouns that name different things (no
sense of one lies at or below a sense of the other) are two places ("the withering loft", "the fuel shed";
"the Woodland field", "the Castle field"). A place larger than the allowed one ("the warehouse" for "the
cage") may hold it, so that difference is never sure.

The scale of a head noun is read from its first place sense among its first three senses (the object of a
preposition of place names a place, so a sense that is no place, "a magazine" to read, is passed over):
a container, a piece of furniture or a device (0) < a room (1) < a building or another structure (2) < a
tract of land or a geographic area (3). Nouns too general to name one place ("area", "site", "place") have
no scale.

What a place is made of ("the plastic bin", "the metal bin") tells two places of one kind apart: a word
before the head whose first sense is a material or a substance; two such words, neither a kind of the other,
exclude each other.
"""

from __future__ import annotations

from functools import lru_cache

from abilities.scu_guard import wordnet

# a place word that names no one place ("the area by the door", "on site")
_GENERAL = frozenset({"area", "place", "site", "spot", "location", "space", "point", "side", "part", "end",
                      "way", "zone", "section", "position", "premises", "ground", "grounds", "facility", "unit"})
# the scales, smallest first, each by the WordNet senses that open it
_SCALES: tuple[tuple[str, int], ...] = (("container", 0), ("furniture", 0), ("device", 0), ("room", 0),
                                        ("building", 0), ("structure", 0), ("tract", 0), ("geographic_area", 0))
_RANK = {"container": 0, "furniture": 0, "device": 0, "room": 1, "building": 2, "structure": 2, "tract": 3,
         "geographic_area": 3}
_MATERIALS = (("matter", 2), ("building_material", 0))


@lru_cache(maxsize=1)
def _targets() -> dict[str, int]:
    return {lemma: off for lemma, n in _SCALES if (off := wordnet.sense_of(lemma, n)) is not None}


@lru_cache(maxsize=4096)
def scale(head: str) -> int | None:
    """The scale of a place named by this head noun (0 container .. 3 tract), or None (unknown, too general)."""
    if not head or head in _GENERAL or not wordnet.available():
        return None
    targets = _targets()
    for i in range(3):
        hits = [_RANK[lemma] for lemma, off in targets.items()
                if (u := wordnet.under(head, frozenset([off]))) and len(u) > i and u[i]]
        if hits:
            return min(hits)
    return None


def other_site(a: str, b: str) -> bool:
    """Are two head nouns two places of one scale, room or larger, that name different things?"""
    sa, sb = scale(a), scale(b)
    return sa is not None and sa == sb and sa >= 1 and a != b and not wordnet.related(a, b) \
        and not (a.endswith(b) or b.endswith(a))


def larger(claim_head: str, allowed_head: str) -> bool:
    """Is the claim's place of a larger scale (room or more) than the allowed one (which it may hold)?"""
    sa, sb = scale(claim_head), scale(allowed_head)
    return sa is not None and sb is not None and sa > sb >= 1 and not wordnet.related(claim_head, allowed_head)


@lru_cache(maxsize=1)
def _material_targets() -> frozenset[int]:
    return frozenset(off for lemma, n in _MATERIALS if (off := wordnet.sense_of(lemma, n)) is not None)


@lru_cache(maxsize=4096)
def is_material(word: str) -> bool:
    """Does the word's first sense name a material or a substance ("plastic", "steel", "glass")?"""
    if not wordnet.available() or not wordnet.ordered(word):
        return False
    u = wordnet.under(word, _material_targets(), 1)
    return bool(u) and u[0]


def other_materials(a: frozenset[str], b: frozenset[str]) -> bool:
    """Do two places' material words exclude each other (each side has one, none shared or a kind of another)?"""
    return bool(a and b) and not (a & b) and not any(
        wordnet.related(x, y) for x in a for y in b)
