"""scu_guard: readings that must stay within the scope of the rule's own thing and events (a state word or an
amount said of another noun, the rule's thing named only under a denial, a forbidden use on another target, an
order rule with one event named only by another thing of its name). Real spaCy parses; sentences written for
these tests, in domains of their own."""

from __future__ import annotations

from tests.scu_guard_support import REJECT, verdict

SIGNED = "Every incoming pallet of resin must have a signed quality release on file."
KILN = "Kiln shelves must never be heated above 900 °C."
SHAMPOO = "Human shampoos and any product containing tea-tree oil must never be used on horses."
ORDER = "The deck must be swept for loose objects before the winch is started."


def test_a_state_word_of_another_noun_is_not_the_rules() -> None:
    """ "an unsigned packing slip" is the slip's state; "an unsigned quality release" still breaks the rule."""
    assert verdict([SIGNED], "Pallet R-4 came with an unsigned packing slip, but its quality release, signed by "
                             "the plant chemist, is on file.", {}) != REJECT
    assert verdict([SIGNED], "Pallet R-4 came with an unsigned quality release.", {}) == REJECT


def test_an_amount_beside_a_denied_thing_is_not_the_rules() -> None:
    """The rule's thing named only under a denial: the amount belongs to something else."""
    assert verdict([KILN], "The glaze was dried with a heat gun on its 1000 °C setting; no kiln shelf was heated.",
                   {}) != REJECT
    assert verdict([KILN], "The kiln shelves were heated to 1000 °C overnight.", {}) == REJECT


def test_a_forbidden_use_on_another_target_is_another_event() -> None:
    """Used on the groom's own hands, not on horses: no break; used on the horses still breaks it."""
    assert verdict([SHAMPOO], "The only human product involved was the hand soap Lea used on her own hands between "
                              "horses; Duke himself was washed with equine shampoo.", {}) != REJECT
    assert verdict([SHAMPOO], "The only human product involved was the human shampoo Lea used on the horses; Duke "
                              "was washed with it.", {}) == REJECT


def test_an_order_rule_needs_its_first_event_named() -> None:
    """ "for the yaw sweep" names another sweep, not the deck's: never a firm wrong order; the deck swept after
    the winch started still breaks it."""
    assert verdict([ORDER], "The winch stopped at 10:40 and was started again at 11:00 for the yaw sweep.",
                   {}) != REJECT
    assert verdict([ORDER], "The winch was started at 11:00 and the deck was swept for loose objects at 11:20.",
                   {}) == REJECT
