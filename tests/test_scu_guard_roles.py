"""Who a named doer is (``roles.py``): a title, an apposition or a cited roster settles a reserved action.

Each reading is tried on real parses, with the contradicting wording and a kept wording beside it.
"""

from __future__ import annotations

import pytest

from abilities.scu_guard import roles
from abilities.scu_guard.forms import understand
from tests.scu_guard_support import verdict

KILN = ["Only the kiln master may unseal the anagama kiln."]
BOILER = ["Only a Grade 3 certified welder may weld a pressure vessel seam."]
TASTING = ["Only crew holding a current allergen certificate may plate desserts."]


def test_title_before_the_name_names_another_role() -> None:
    assert verdict(KILN, "The anagama kiln was unsealed on Friday by glaze technician Ruth Almeida.")[0] == "REJECT"
    assert verdict(KILN, "The anagama kiln was unsealed on Friday by kiln master Ruth Almeida.")[0] == "OK"


def test_apposition_names_another_role_or_the_reserved_one() -> None:
    assert verdict(KILN, "Oskar Lind, a visiting sculptor, unsealed the anagama kiln at dawn.")[0] == "REJECT"
    assert verdict(KILN, "Oskar Lind, the kiln master, unsealed the anagama kiln at dawn.")[0] == "OK"


def test_apposition_with_a_trainee_is_another_role() -> None:
    claim = "The anagama kiln was unsealed by Oskar Lind, the trainee who had stacked it."
    assert verdict(KILN, claim)[0] == "REJECT"


def test_roster_under_initials_settles_a_bare_name() -> None:
    staff = "Studio staff: kiln master P. Okonjo; glaze technician R. Almeida."
    assert verdict(KILN, "Ruth Almeida unsealed the anagama kiln on Sunday.", {"c1": staff})[0] == "REJECT"
    assert verdict(KILN, "Precious Okonjo unsealed the anagama kiln on Sunday.", {"c1": staff})[0] == "OK"


def test_roster_dash_and_parenthesis() -> None:
    staff = "Workshop list. T. Varga (kiln master). H. Moss - studio assistant."
    assert verdict(KILN, "Hal Moss unsealed the anagama kiln.", {"c1": staff})[0] == "REJECT"
    assert verdict(KILN, "Tamas Varga unsealed the anagama kiln.", {"c1": staff})[0] == "OK"


def test_another_initial_is_another_person() -> None:
    staff = "Workshop list. T. Varga (kiln master). H. Moss - studio assistant."
    # "Ilona Moss" is not "H. Moss": the roster says nothing of her, the finding stays for review
    assert verdict(KILN, "Ilona Moss unsealed the anagama kiln.", {"c1": staff})[0] == "REVIEW"


def test_a_lower_level_of_the_rule_s_label() -> None:
    staff = "Fabrication shop: D. Kerr - Grade 1 welder. N. Patel - Grade 3 certified welder."
    assert verdict(BOILER, "Dev Kerr welded the pressure vessel seam.", {"c1": staff})[0] == "REJECT"
    assert verdict(BOILER, "Nia Patel welded the pressure vessel seam.", {"c1": staff})[0] == "OK"


def test_a_job_title_says_nothing_of_a_group_s_credential() -> None:
    # "crew holding a certificate": a porter may hold it, so the title alone settles nothing
    assert verdict(TASTING, "The desserts were plated by porter Lena Hoff.")[0] == "REVIEW"
    staff = "Crew list: L. Hoff - porter, no allergen certificate."
    assert verdict(TASTING, "The desserts were plated by Lena Hoff.", {"c1": staff})[0] == "REJECT"


def test_a_field_label_before_a_name_is_no_title() -> None:
    chunk = "Kiln log: signature R. Almeida."
    assert roles.chunk_descriptions(["Ruth", "Almeida"], [chunk]) == []


@pytest.mark.parametrize(("desc", "want"), [
    ("kiln master", True),
    ("the glaze technician", False),
    ("apprentice, not yet a kiln master", False),
    ("studio member since 2021", None),
])
def test_describes(desc: str, want: bool | None) -> None:
    form = understand(KILN[0])
    assert form is not None
    assert roles.describes(form, desc) is want
