"""scu_guard: allow-lists of names given in brackets after the noun of their kind, names given after that noun
in the claim, and a member named only in a "with" aside. Real spaCy parses; sentences written for these tests."""

from __future__ import annotations

from abilities.scu_guard.names import read_named_list
from tests.scu_guard_support import OK, REJECT, verdict

PILOTS = "Only pilots on the approved pilot roster (Marlowe, Iqbal, Fenwick) may fly the tethered balloon."
BANDS = "Only bands on the house list (The Larkspurs, Otter Radio, Minor Keys) may play the Sunday session."


def test_a_list_in_brackets_names_its_kind_before_it() -> None:
    got = read_named_list(PILOTS)
    assert got is not None and got.names == ("marlowe", "iqbal", "fenwick") and got.kind == "pilot"
    bands = read_named_list(BANDS)
    assert bands is not None and bands.names == ("larkspurs", "otter radio", "minor keys")


def test_a_name_after_the_noun_of_its_kind() -> None:
    """ "relief pilot D. Quayle" is a pilot by name, not on the roster, even with a member in an aside."""
    assert verdict([PILOTS], "The tethered balloon was flown on Saturday by relief pilot D. Quayle, with "
                             "Marlowe watching from the ground.") == REJECT
    assert verdict([PILOTS], "The tethered balloon was flown on Saturday by pilot D. Iqbal, with a trainee "
                             "watching from the basket.") == OK


def test_a_member_out_of_action_in_an_aside() -> None:
    assert verdict([BANDS], "With Otter Radio snowed in, the Sunday session was played by the guest band "
                            "The Weatherboards.") == REJECT
    assert verdict([BANDS], "The Sunday session was played by Otter Radio, with their new drummer.") == OK
