"""Round 10 readings of who did it: a permission reserved in the passive ("may be X-ed only by Y") and a job
title against a rule that reserves the action for a body of people holding a credential. Real parses."""

from __future__ import annotations

from abilities.scu_guard.combined import understood
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
