"""How large a place is, and what it is made of, from WordNet: may one place stand inside another?

A thing kept "in the cupboard" may still be in the allowed strongroom: a container or a piece of furniture
stands inside a room. But a room is not inside another room, nor a building inside another building: two
places of the same scale with head nouns that name different things (no sense of one lies at or below a
sense of the other) are two places ("the kitchen", "the tack room"; "the barn", "the paint shed"). Tracts of
land nest ("a meadow within the reserve"), so two of them with different heads are only a maybe. A place larger than the allowed one ("the warehouse" for "the
cage") may hold it, so that difference is never sure.

The scale of a head noun is read from its first place sense among its first three senses (the object of a
preposition of place names a place, so a sense that is no place, "a magazine" to read, is passed over):
a container, a piece of furniture or a device (small) < a room < a building or a facility < a tract of land or
a geographic area. A place of business or a workplace ("office", "lab", "shop") may be a room or a whole
building: it is of one scale only with another such place; against a room or a building it may hold or be
held, so that difference is unsure. Parts of a building ("floor", "aisle",
"loft") and other structures have no scale here: they may be anywhere. Nouns too general to name one place
("area", "site", "place") have no scale.

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
# the scales, each by the WordNet senses (lemma, sense number) that open it; a place of business or a workplace
# ("office", "lab", "shop") may be a room or a whole building, so it is a scale of its own
_SCALES: tuple[tuple[str, int, str], ...] = (
    ("container", 0, "small"), ("furniture", 0, "small"), ("device", 0, "small"), ("room", 0, "room"),
    ("place_of_business", 0, "work"), ("workplace", 0, "work"), ("building", 0, "building"),
    ("facility", 0, "building"), ("tract", 0, "land"), ("geographic_area", 0, "land"))
# the first scale a sense reaches in this order wins (a kitchen is a room before it is a workplace)
_ORDER = ("small", "room", "work", "building", "land")
# which scales are one scale: neither stands inside the other
_ONE_SCALE = {("room", "room"), ("work", "work"), ("building", "building")}
# which scales are larger than which: the larger may hold the smaller
_LARGER = {("building", "room"), ("building", "work"), ("land", "room"), ("land", "work"), ("land", "building")}
_MATERIALS = (("matter", 2), ("building_material", 0))


@lru_cache(maxsize=1)
def _targets() -> tuple[tuple[int, str], ...]:
    return tuple((off, name) for lemma, n, name in _SCALES if (off := wordnet.sense_of(lemma, n)) is not None)


@lru_cache(maxsize=4096)
def scale(head: str) -> str | None:
    """The scale of a place named by this head noun ("small", "room", "work", "building", "land"), or None
    (unknown to WordNet, no place, or too general)."""
    if not head or head in _GENERAL or not wordnet.available():
        return None
    for i in range(3):
        hits = {name for off, name in _targets() if (u := wordnet.under(head, frozenset([off]))) and len(u) > i and u[i]}
        if hits:
            return next(name for name in _ORDER if name in hits)
    return None


def other_site(a: str, b: str) -> bool:
    """Are two head nouns two places of one scale, room or larger, that name different things?"""
    return (scale(a), scale(b)) in _ONE_SCALE and a != b and not wordnet.related(a, b) \
        and not (a.endswith(b) or b.endswith(a))


def larger(claim_head: str, allowed_head: str) -> bool:
    """Is the claim's place of a larger scale than the allowed one (which it may hold)?"""
    return (scale(claim_head), scale(allowed_head)) in _LARGER and not wordnet.related(claim_head, allowed_head)


def room_in_building(claim_head: str, allowed_head: str) -> bool:
    """Is the claim's place a room or a workplace and the allowed one a building or a workplace of the other
    sort (one of its rooms, or not), or are both tracts of land (a meadow may lie within a reserve)?"""
    pair = (scale(claim_head), scale(allowed_head))
    return pair in {("room", "building"), ("work", "building"), ("room", "work"), ("work", "room"),
                    ("land", "land")} and claim_head != allowed_head and \
        not wordnet.related(claim_head, allowed_head)


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
