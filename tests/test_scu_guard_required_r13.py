"""Round 13: a required step said not done. A duty ("must be photographed", "must have a signed checklist", "must
wear face shields") is broken by a claim that tells the step as missing in other words: "without taking a photo",
"unwitnessed", "was skipped", "left blank", "none were worn". The missing word meets the rule's own word or its
WordNet derivation; the claim must name whom the rule binds. Near misses stay OK: the step done by someone else
or later within the rule's own deadline, a thing the rule does not require, an exception the rule grants,
"without incident" / "without delay" / "without any problems"."""
from abilities.scu_guard import omitted, wordnet
from abilities.scu_guard.nlp import parse
from tests.scu_guard_support import logged_verdict

PHOTO = "Every parcel must be photographed on the customer's doorstep before the courier drives away."
WITNESS = "Every vaccine disposal must be witnessed by a second pharmacist."
CHECKLIST = "Every hire bike must have a signed safety checklist before it leaves the shop."
WASH = "Carrots must be washed before they are bagged, except those sold as field stock."
INSPECT = "Every forklift must be inspected before each shift."
SHIELDS = "Welders must wear face shields."
LOGGED = "Every incident must be logged by the end of the shift."



def test_derivations_join_a_noun_and_its_verb() -> None:
    assert "photograph" in wordnet.derivations("photo")
    assert "signature" in wordnet.derivations("sign")
    assert "attend" in wordnet.derivations("attendant")
    assert wordnet.verb_lemmas("unwitnessed"[2:]) == ("witness",)


def test_the_step_a_rule_requires() -> None:
    step = omitted.required_step(CHECKLIST)
    assert step is not None and "checklist" in step.things and "sign" in step.acts and step.subject == {"bike"}
    assert omitted.required_step(LOGGED).deadline  # type: ignore[union-attr]
    assert omitted.required_step("Dogs must not be walked on the beach.") is None


def test_the_shapes_of_a_missing_step() -> None:
    for claim in ("The courier drove away without taking a photo.", "The disposal went ahead unwitnessed.",
                  "The inspection was skipped.", "The bike left with its checklist left blank.",
                  "Shields were handed out, but none were worn."):
        assert omitted.gaps(parse(claim)), claim
    for claim in ("Nobody left without a photo.", "Nothing was inspected later than noon.", "Did the courier leave without a photo?",
                  "She said the inspection might be skipped."):
        assert not omitted.gaps(parse(claim)), claim


def test_missing_steps_are_rejected() -> None:
    assert logged_verdict(PHOTO, "The courier left the parcel on the doorstep and drove away without taking a photo "
                           "of the parcel.") == "REJECT"
    assert logged_verdict(WITNESS, "The vaccine disposal on Monday went ahead unwitnessed because the second "
                             "pharmacist was off sick.") == "REJECT"
    assert logged_verdict(INSPECT, "The forklift inspection was skipped on Tuesday because the shift started "
                             "early.") == "REJECT"
    assert logged_verdict(SHIELDS, "Face shields were handed out to the welders, but none were worn during the "
                             "repair.") == "REJECT"


def test_a_plan_to_do_it_later_does_not_excuse_it() -> None:
    assert logged_verdict(CHECKLIST, "The hire bike left the shop at 9:00 without a signed safety checklist; Jo "
                               "planned to sign one later.") == "REJECT"


def test_near_misses_stay_ok() -> None:
    # "without incident", "without delay", "without any problems": nothing the rule requires is missing
    assert logged_verdict(PHOTO, "The parcel was photographed on the doorstep and the courier drove away without "
                           "incident.") == "OK"
    assert logged_verdict(PHOTO, "The courier photographed the parcel on the doorstep and drove away without "
                           "delay.") == "OK"
    assert logged_verdict(WITNESS, "The vaccine disposal went ahead without any problems.") == "OK"
    # what lacks the step is turned away, as the rule wants
    assert logged_verdict(PHOTO, "Parcels without a photo are rejected by the depot.") == "OK"
    # done by someone else
    assert logged_verdict(PHOTO, "The courier drove away without taking a photo, but his mate photographed the parcel "
                           "on the doorstep before the van left.") == "OK"
    # a thing the rule does not require
    assert logged_verdict(SHIELDS, "The welders wore face shields but worked without ear plugs.") == "OK"
    # the exception the rule grants
    assert logged_verdict(WASH, "The carrots sold as field stock were bagged unwashed.") == "OK"
    # done late, but before the deadline the rule sets
    assert logged_verdict(LOGGED, "The incident went unlogged for an hour, and it was logged before the end of the "
                            "shift.") == "OK"


def test_unsure_scope_is_only_suspected() -> None:
    # whom the rule binds is not named: the wash may be of other produce; at most a suspicion
    assert logged_verdict(WASH, "The potatoes were bagged unwashed because the hose had burst.") in ("OK", "REVIEW")
    # a deadline the claim does not reach: a suspicion, not a contradiction
    assert logged_verdict(LOGGED, "The incident was left unlogged because the printer jammed.") == "REVIEW"


def test_who_went_without_it_must_be_the_rules_subject() -> None:
    # another thing went without the step: at most a suspicion
    rule = "Carrots must be washed before they are bagged."
    assert logged_verdict(rule, "The carrots were bagged unwashed because the hose had burst.") == "REJECT"
    assert logged_verdict(rule, "The carrots were bagged; the crates went back to the farm unwashed.") != "REJECT"
    # the thing worn by the rule's subject, missing for someone else
    assert logged_verdict(SHIELDS, "The welders wore face shields; the apprentice swept the floor without one.") != "REJECT"


def test_words_narrowing_the_subject_must_be_named() -> None:
    rule = "Every laden skip must be netted before it leaves the yard."
    assert logged_verdict(rule, "The laden skip left the yard unnetted because the nets were wet.") == "REJECT"
    assert logged_verdict(rule, "Skip 4 left the yard unnetted; it was empty and going back for repair.") != "REJECT"
