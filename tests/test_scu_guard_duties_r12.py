"""Round 12: duties said not done. A duty to hold a thing ("must have X", "requires X") is understood; a claim that
says the duty's thing or act was missing ("without X", "no X", "neither ... carried X", "without V-ing it",
"un-V-ed") is suspected where it names what narrows the rule, and never where it denies the missing thing again
("Nobody boarded without ...") or names another kind of the thing ("a paper mask" for "a respirator mask")."""
from abilities.scu_guard.forms import HAVE, understand
from abilities.scu_guard.withheld import act_withheld, thing_waived, thing_withheld
from tests.scu_guard_support import OK, REJECT, REVIEW, on_whole_claim, verdict

HELMET = "Riders must wear a helmet in the arena."
PERMIT = "Every hold entry requires a signed entry permit and a standby attendant stationed outside the hold."
SCOPED = "Every crate leaving the cold store must have a completed temperature log."
CLEANED = "Clippers and scissors must be disinfected between customers."


def test_a_duty_to_hold_is_understood() -> None:
    form = understand("Every outgoing consignment requires an export licence.")
    assert form is not None and form.action == [HAVE] and "licenc" in "".join(form.object)
    assert understand("Every crate must have a label.") is not None


def test_thing_said_missing() -> None:
    assert on_whole_claim(thing_withheld, HELMET, "A rider schooled a young horse without a helmet.")
    assert on_whole_claim(thing_withheld, HELMET, "The rider jumped the course with no helmet.")
    assert on_whole_claim(thing_withheld, SCOPED, "Neither crate had a temperature log when it left the cold store.")


def test_thing_denied_twice_or_another_kind_is_not_missing() -> None:
    assert not on_whole_claim(thing_withheld, HELMET, "Nobody rode in the arena without a helmet.")
    assert not on_whole_claim(thing_withheld, HELMET, "No rider was ever seen without a helmet.")
    assert not on_whole_claim(thing_withheld, HELMET, "Did anyone ride without a helmet?")
    assert not on_whole_claim(thing_withheld, "Welders must wear a respirator mask.",
                              "The welder worked without a paper mask.")


def test_act_said_undone() -> None:
    assert on_whole_claim(act_withheld, CLEANED, "Ana used the same clippers on four customers without disinfecting them.")
    assert not on_whole_claim(act_withheld, CLEANED, "Ana never used the clippers without disinfecting them.")


def test_thing_waived() -> None:
    rule = "Jockeys must wear a body protector on every ride."
    assert on_whole_claim(thing_waived, rule, "Body protectors were made optional for the charity race.")
    assert not on_whole_claim(thing_waived, rule, "Body protectors were never optional.")


def test_verdicts() -> None:
    # the thing plainly missing, the rule's subject not named: a suspicion; who the doer is is not read
    assert verdict([HELMET], "A groom schooled a young horse in the arena without a helmet.") == REVIEW
    # the rule's scope not named: the claim may be outside the rule
    assert verdict([SCOPED], "The crate had no temperature log.") == OK
    # a plain duty whose scope the claim names in full, denied for its own subject: a contradiction
    assert verdict([PERMIT], "Ravi made the hold entry without a signed permit or anyone standing by outside.") == REJECT
    # the missing thing denied again: the rule is kept
    assert verdict([HELMET], "Nobody rode in the arena without a helmet.") == OK


def test_the_act_itself_waived() -> None:
    rule = "Every member must attend at least three safety briefings each season."
    assert verdict([rule], "Attendance is treated as voluntary for members who joined in spring, so Ola went "
                           "to no safety briefings this season.") == REJECT
    # the act waived, but of another thing than the rule's
    assert verdict([rule], "Attendance at the open day is voluntary for members.") != REJECT


WITNESS = "A second pharmacist must check every controlled-drug dispensation."


def test_the_doer_a_duty_needs_absent() -> None:
    assert verdict([WITNESS], "The controlled-drug dispensation for bed 4 was done without a second "
                              "pharmacist.") == REJECT
    assert verdict([WITNESS], "Neither the locum nor the second pharmacist was present for the controlled-drug "
                              "dispensation.") == REJECT
    # the doer there, or absent from something else
    assert verdict([WITNESS], "A second pharmacist was present for every controlled-drug dispensation.") == OK
    assert verdict([WITNESS], "No second pharmacist was present at the staff meeting.") != REJECT


def test_no_thing_as_subject() -> None:
    rule = "A spotter must be assigned to every bench press."
    assert on_whole_claim(thing_withheld, rule, "No spotter was assigned to the bench press on Monday.")


def test_the_act_itself_skipped() -> None:
    rule = "Every crate of fruit must be weighed on arrival."
    assert verdict([rule], "The weighing on arrival was skipped for the crates of fruit that came in on Monday.") \
        == REJECT
    assert verdict([rule], "The weighing on arrival was not skipped for the crates of fruit.") != REJECT
    assert verdict([rule], "The weighing of the empty pallets was skipped for the crates of fruit.") != REJECT


def test_absent_from_another_event() -> None:
    rule = "A lifeguard must supervise every swimming lesson."
    assert verdict([rule], "No lifeguard was present at the staff meeting about the swimming lessons.") != REJECT
    assert verdict([rule], "The Tuesday swimming lesson went ahead without a lifeguard.") == REJECT
    assert verdict([rule], "Without a lifeguard, the Tuesday swimming lesson was postponed.") != REJECT
    assert verdict([rule], "The swimming lesson was cancelled because no lifeguard was present.") != REJECT
