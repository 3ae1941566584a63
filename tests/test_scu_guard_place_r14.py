"""scu_guard round 14: rules that list the allowed places or means, broken by a claim that tells an allowed one out
of use and the thing done elsewhere or with something else ("With the boathouse locked, the kayaks were stored in
the cupboard by the slipway"), and places after "from", "through" and a trailing "X or Y only". Real WordNet 3.0
data and real spaCy parses; sentences written for these tests, none is in the labelled sets. Each break has near
misses that must stay OK: the allowed place still used, the thing in a place inside it, a time instead of a place,
a member used, a state denied, no place said out of use."""

from __future__ import annotations

import pytest

from abilities.scu_guard.places import read_places
from abilities.scu_guard.use_lists import read_uses
from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

KAYAKS = "Kayaks may be stored only in the boathouse."
ROBES = "Choir robes may be hung only in the vestry or the music room."
SURGERY = "Surgery must be coordinated from the ward office or the duty room only."
PARCELS = "Parcels may be brought in only through the service gate."
MURALS = "Murals may be cleaned only with Restoro, Fabrix foam or distilled water."
HIVES = "Hives may be treated only with oxalic acid or Apiguard."



def test_places_after_from_through_and_a_trailing_only() -> None:
    """ "from the ward office or the duty room only": both places, the "only" at the end of the list; "from" and
    "through" open a place only when their object is a building, a structure or a vehicle."""
    rule = read_places(SURGERY)
    assert rule is not None and rule.places == ("the ward office", "the duty room") and rule.prep == "from"
    gate = read_places(PARCELS)
    assert gate is not None and gate.places == ("the service gate",) and gate.prep == "through"
    assert read_places("Spices may be bought only from the approved wholesalers.") is None
    assert read_places("Tips may be sent only through the website or the hotline.") is None
    assert read_uses("Tips may be sent only through the website or the hotline.") is not None


@pytest.mark.parametrize("rule, claim", [
    (KAYAKS, "With the boathouse locked for the regatta, the kayaks were stored in the cupboard by the slipway."),
    (KAYAKS, "While the boathouse is reroofed, the kayaks are kept in the annex."),
    (ROBES, "With the vestry locked and the music room booked, the choir robes were hung in the annex."),
    (SURGERY, "With the ward office flooded and the duty room closed, surgery was coordinated from the registrar's "
              "own flat."),
    (PARCELS, "Because the service gate was blocked, the parcels were brought in through the side door."),
    (MURALS, "With the Restoro out of stock, the east mural was cleaned with Glanzo on Friday."),
    (HIVES, "Since the shop had run out of Apiguard, hive 4 was treated with Zorvex in August."),
])
def test_an_allowed_one_out_of_use_and_another_used(rule: str, claim: str) -> None:
    """The allowed place (or every allowed place) said locked, being worked on, flooded, closed, blocked, out of
    stock or run out of, and the rule's thing done in another place or with a name of its own: rejected."""
    assert _v(rule, claim) == REJECT


@pytest.mark.parametrize("rule, claim", [
    (KAYAKS, "With the boathouse locked for the regatta, the kayaks stayed in the boathouse until Monday."),
    (KAYAKS, "With the boathouse locked, the kayaks were stored in the cupboard inside the boathouse."),
    (KAYAKS, "After the boathouse was reroofed, the kayaks were kept in it again."),
    (KAYAKS, "With the boathouse locked for the regatta, the kayaks were checked on Sunday."),
    (KAYAKS, "Although the boathouse was not locked, the kayaks were stored in the cupboard by the slipway."),
    (KAYAKS, "The kayaks were stored in the cupboard by the slipway."),
    (SURGERY, "With the ward office flooded, surgery was coordinated from the duty room."),
    (SURGERY, "Surgery was coordinated from the ward office on Tuesday."),
    (PARCELS, "The parcels were brought in through the service gate at noon."),
    (MURALS, "With the Restoro out of stock, the east mural was cleaned with distilled water on Friday."),
    (MURALS, "The east mural was cleaned with Restoro on Friday."),
    (HIVES, "Since the shop had run out of Apiguard, hive 4 was treated with oxalic acid in August."),
    (HIVES, "Since the shop had run out of Apiguard, hive 4 was treated with ApiGuard Plus in August."),
])
def test_near_misses_stay_ok(rule: str, claim: str) -> None:
    """The allowed place still used or holding the claim's place, a time where a place would be, a state denied,
    another allowed place or a member used, or nothing said out of use where the place may be the allowed one."""
    assert _v(rule, claim) == OK
