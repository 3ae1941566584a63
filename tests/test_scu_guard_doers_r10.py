"""Round 10 readings of who did it: a permission reserved in the passive ("may be X-ed only by Y") and a job
title against a rule that reserves the action for a body of people holding a credential. Real parses."""

from __future__ import annotations

from abilities.scu_guard.combined import forms_for, readings, understood
from tests.scu_guard_support import OK, REJECT, verdict

KILN = "Glaze firings may be started only by the studio technician."
ROSTER = {"c1": "Studio rota, Friday: Nora Quist - studio technician; Felix Brandt - evening class tutor."}


def test_passive_only_by_reserves_the_action() -> None:
    form = understood(KILN)
    assert form is not None and form.modality == "only" and form.agents == ["technician"]
    assert verdict([KILN], "The glaze firing was started at 18:00 by Felix Brandt.", ROSTER) == REJECT
    assert verdict([KILN], "The glaze firing was started at 18:00 by Nora Quist.", ROSTER) == OK


def test_passive_only_by_a_means_is_no_doer() -> None:
    assert understood("Refund codes may be sent only by SMS.") is None
    assert understood("Parcels may be sent only by courier.") is None


def test_passive_only_by_with_a_scope_number_is_not_read() -> None:
    form = understood("Patients under 12 may be sedated only by a paediatric anaesthetist.")
    assert form is None or not form.agents


def test_job_title_says_nothing_of_a_crews_credential() -> None:
    rule = "Insulin may be given only by staff trained in diabetic care."
    chunks = {"c1": "Staff: Ada Moor is a care assistant trained in diabetic care; Ben Ruiz is a care "
                    "assistant, not trained in diabetic care."}
    assert verdict([rule], "Ada Moor gave Mr Holt his insulin at noon.", chunks) == OK
    assert verdict([rule], "Ben Ruiz gave Mr Holt his insulin at noon.", chunks) == REJECT


def test_a_deputy_is_not_the_chief() -> None:
    rule = "Only the chief referee may change the race order once it has been posted."
    claim = "The posted race order was changed at 10:40 by Lars Moen."
    assert verdict([rule], claim, {"c1": "Officials: chief referee I. Berg; deputy referee L. Moen."}) == REJECT
    assert verdict([rule], claim, {"c1": "Officials: chief referee L. Moen; deputy referee I. Berg."}) == OK


def test_what_a_doer_did_before_is_not_the_rules_thing() -> None:
    rule = "Only a licensed vet may sign a vaccination certificate."
    chunks = {"c1": "Clinic rota: P. Salo (veterinary nurse, not licensed to prescribe); vet on call R. Ince."}
    claim = ("Bruno's vaccination certificate was signed by Pia Salo, the nurse who had given him the "
             "vaccination that morning.")
    assert verdict([rule], claim, chunks) == REJECT
    kept = {"c1": "Clinic rota: P. Salo (licensed vet); nurse on call R. Ince."}
    assert verdict([rule], claim.replace("the nurse", "the vet"), kept) == OK


def test_the_subject_of_a_passive_with_by_is_not_the_doer() -> None:
    rule = "Only members who hold the club Helm Certificate may helm a keelboat."
    chunks = {"c1": "Helm register: Ina Voss - Helm Certificate holder; Kai Lund - in training, not certified."}
    assert verdict([rule], "The club keelboat was helmed by Kai Lund, who is still in training.", chunks) == REJECT
    # the boat is what was coxed ("four" parsed as the subject of "was"): no finding names it as the doer
    cox = "Only members who hold the club Cox Certificate may cox a four."
    r = readings("The B2 four was coxed by Ina Voss on Sunday.", [cox], forms_for([cox])[0],
                 ["Cox register: Ina Voss - Cox Certificate holder."])
    assert not any("four" in f.detail.split(" is ")[0] for f in r.found + r.suspected + [u for u, _ in r.unsure])
