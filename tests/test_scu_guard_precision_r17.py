"""Round 17 precision: readings of order, presence and required places narrowed to what the rule says.

A rule of order may end by restating its order ("..., never after", "never the other way round"): that tail
denies the reverse order, it is no ban of the rule's act and no second order. "Nothing is accepted after that
day" bounds a time, it orders no two events. A claim's word that in the rule only labels another noun ("stage"
of "stage lights") does not tell the rule's event when it labels a time ("on stage night"), and a
kind of the event's doer ("terriers" for "every dog") tells no event that has an act of its own ("wear a
muzzle"). A place the claim denies ("not in the barn") holds nothing there; and "nothing was welded outside the
bay" says the welding was done in the bay only. The breaks beside each near miss stay REJECTed.
"""

from __future__ import annotations

import pytest

from tests.scu_guard_support import OK, REJECT, verdict_beside

HINGES = "Hinges are oiled before the door is hung, never the other way round."
SAMPLES = "Samples are labelled at the bench before they are frozen, never after."
BALLOTS = ("Ballots close on Friday 7 March 2025 (nothing is counted after that day), and no voter casts more than "
           "one ballot.")
STAGE = "Stage lights are focused against the lighting plot before the doors open."
MUZZLE = "Every dog has to wear a muzzle before it enters the ring."
HANGAR = "Every aircraft has to show a valid airworthiness certificate before it enters the hangar."
VEHICLE = "Every vehicle has to show a valid parking permit before it enters the depot."
BARN = "Smoking isn't allowed inside the barn or the garage."
GREENHOUSE = "Smoking is not allowed inside the greenhouse or the shed."
QUARRY = "Swimming isn't allowed in the quarry or the reservoir."
WELDING = "Welding is done only in the screened bay at the north end."


@pytest.mark.parametrize("rule, claim", [
    (HINGES, "The door was hung at 10:00 and the hinges were oiled at 11:30."),
    (STAGE, "The doors opened at 19:00, and the stage lights were focused at 19:30."),
    (MUZZLE, "The terrier entered the ring at 10:05 and was muzzled at 10:20."),
    (VEHICLE, "The van entered the depot at 8:10 and showed its parking permit at 8:40."),
    (BARN, "Joe smoked a cigar in the barn."),
    (GREENHOUSE, "Ravi smoked his pipe in the greenhouse."),
    (QUARRY, "The boys swam in the quarry."),
    (WELDING, "Nothing was welded in the screened bay; the bracket was welded outside in the yard."),
])
def test_breaks_stay_rejected(rule: str, claim: str) -> None:
    assert verdict_beside(rule, claim) == REJECT


@pytest.mark.parametrize("rule, claim", [
    # a tail restating the order is no ban of the rule's act, nor the reverse order
    (HINGES, "The hinges were oiled at 9:00, and the door was hung at 10:00."),
    (HINGES, "Once the hinges had been oiled at 9:00, the door was hung at 10:00."),
    (SAMPLES, "The samples were labelled at the bench before they were frozen."),
    # "after that day" bounds a time: no order of two events
    (BALLOTS, "Her ballot, posted on Monday 3 March, reached the office two business days later."),
    # the rule's label on a time
    (STAGE, "The doors opened at 19:00, and the cast party began at 23:00 on stage night."),
    # a kind of the doer, without the doer's act
    (MUZZLE, "The two terriers ran on their own once the poodle had left the ring."),
    (HANGAR, "The two gliders were towed out on their own once the jet had cleared the hangar."),
    # a place the claim denies
    (BARN, "Joe smoked a cigar out in the yard, not in the barn."),
    (GREENHOUSE, "Ravi smoked his pipe out by the gate, not in the greenhouse."),
    (QUARRY, "The boys swam in the river, not in the quarry."),
    # nothing done outside the required place
    (WELDING, "Nothing was welded outside the screened bay; the bolts were tightened at the benches."),
])
def test_near_misses_stay_ok(rule: str, claim: str) -> None:
    assert verdict_beside(rule, claim) == OK
