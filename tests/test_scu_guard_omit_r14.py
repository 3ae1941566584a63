"""Round 14: a required step said not done, read for whom and where the rule binds. A passive duty that names who
must do the step ("must be accompanied by a member of staff", "witnessed by a second cashier") binds the one it is
done to, not that doer: a claim need not name the doer to be within the rule. Where the rule binds its subject by a
place ("A trainee diver in the quarry lake", "Every cash count in the back office"), the clause that tells the step
missing must name that place; named only in another clause ("while the volunteers set up the lathe in the
workshop") it is said of something else, and the claim waits for review instead of being rejected."""
from abilities.scu_guard import omitted
from abilities.scu_guard.nlp import parse
from tests.scu_guard_support import logged_verdict

DIVER = "A trainee diver in the quarry lake must be accompanied by a member of staff at all times."
COUNT = "Every cash count in the back office must be witnessed by a second cashier."
SAMPLE = "Every blood sample in the clinic must be labelled by the phlebotomist who took it."
CHILD = "A visiting child in the workshop must be watched by an adult volunteer at all times."
WEIGH = "Every weigh-in at the boxing gym must be checked by a licensed official."


def test_the_doer_and_the_place_of_a_passive_duty() -> None:
    step = omitted.required_step(DIVER)
    assert step is not None and step.subject == {"diver"}
    assert {"member", "staff"} <= step.doer_words and step.place == {"quarry", "lake"}
    count = omitted.required_step(COUNT)
    assert count is not None and "cashier" in count.doer_words and count.place == {"office"}


def test_the_place_is_named_in_the_clause_that_tells_the_step_missing() -> None:
    step = omitted.required_step(CHILD)
    assert step is not None
    here = omitted.gaps(parse("A visiting child was left unwatched in the workshop while the volunteers set up."))
    there = omitted.gaps(parse("A visiting child sat unwatched in the cafe while the volunteers set up the lathe in "
                               "the workshop."))
    assert here and omitted.placed(step, here[0])
    assert there and not omitted.placed(step, there[0])


def test_a_step_missing_where_the_rule_binds_is_rejected() -> None:
    assert logged_verdict(DIVER, "During the open day, the trainee diver was left unaccompanied in the quarry lake "
                                 "for ten minutes while Rhys fetched a tank.") == "REJECT"
    assert logged_verdict(COUNT, "The Friday cash count in the back office went ahead unwitnessed because Mo was on "
                                 "his break.") == "REJECT"
    assert logged_verdict(SAMPLE, "Two blood samples in the clinic were left unlabelled on the tray on "
                                  "Monday.") == "REJECT"
    assert logged_verdict(CHILD, "On Saturday a visiting child was left unwatched in the workshop while the "
                                 "volunteers set up the lathe.") == "REJECT"
    assert logged_verdict(WEIGH, "The Thursday weigh-in at the boxing gym went ahead without being checked, as the "
                                 "official was stuck in traffic.") == "REJECT"


def test_a_step_missing_elsewhere_or_unplaced_is_not_rejected() -> None:
    assert logged_verdict(DIVER, "The trainee diver waited unaccompanied in the car park while Rhys fetched a "
                                 "tank.") != "REJECT"
    assert logged_verdict(COUNT, "The Friday cash count went ahead unwitnessed because Mo was on his break.") \
        != "REJECT"
    assert logged_verdict(COUNT, "The stock count in the back office went ahead unwitnessed because Mo was on his "
                                 "break.") != "REJECT"
    assert logged_verdict(SAMPLE, "Two blood samples were left unlabelled on the tray on Monday.") != "REJECT"
    assert logged_verdict(CHILD, "On Saturday a visiting child sat unwatched in the cafe while the volunteers set "
                                 "up the lathe in the workshop.") != "REJECT"
    assert logged_verdict(WEIGH, "The Thursday weigh-in at the town hall went ahead without being checked, as the "
                                 "official was stuck in traffic.") != "REJECT"


def test_the_step_done_keeps_the_rule() -> None:
    assert logged_verdict(DIVER, "The trainee diver stayed in the quarry lake with Rhys beside him the whole "
                                 "time.") == "OK"
    assert logged_verdict(COUNT, "The Friday cash count in the back office was witnessed by Mo, the second "
                                 "cashier.") == "OK"
    assert logged_verdict(DIVER, "Rhys left the trainee diver's logbook unsigned after the quarry lake "
                                 "session.") == "OK"
