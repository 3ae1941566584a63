"""scu_guard: the reserved-doer reading ("Only a doctor or a registered nurse may ...") on OK claims it used to
reject, fixed in general. Real spaCy parses; sentences written for these tests, in domains of their own."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT, verdict

CONSENT = "If a patient is under 16, the consent form must be signed by a parent or legal guardian."
DISCHARGE = "Only a consultant or a registered midwife may discharge a newborn."
CUSTODY = "Only licensed custodians holding a key card may open the archive vault."
REMOVAL = "Clinical waste may only be removed by the licensed contractors Medisafe Ltd or CleanCare Services."
CRANE = "Only a certified crane operator may operate the tower crane."


def test_a_kind_of_the_reserved_noun_holds_it() -> None:
    """ "her mother Ines" is a parent by WordNet; "her aunt Ines" is no parent."""
    chunks = {"c1": "Clinic log: Lena Duarte, age 12, seen for a sprained wrist."}
    assert verdict([CONSENT], "Twelve-year-old Lena Duarte was treated after her mother Ines signed the consent "
                              "form.", chunks) == OK
    assert verdict([CONSENT], "Twelve-year-old Lena Duarte was treated after her aunt Ines signed the consent "
                              "form.", chunks) == REJECT


def test_another_rules_thing_signed_is_another_event() -> None:
    """Signing off a delivery another rule speaks of is not signing the consent form, whoever signs it; a porter
    signing the consent form itself still breaks the rule."""
    rules = [CONSENT, "Every splint delivery must be checked against the order sheet."]
    chunks = {"c1": "Stores note: splint delivery checked in and signed off by Tom Baker, porter. Clinic log: Lena "
                    "Duarte, age 12."}
    assert verdict(rules, "The splint delivery was checked in and signed off by Tom Baker.", chunks) == OK
    assert verdict(rules, "The consent form for twelve-year-old Lena Duarte was signed by Tom Baker, a porter.",
                   chunks) == REJECT


def test_a_denied_condition_is_no_break() -> None:
    """ "Neither patient was under 16": the rule's condition is denied, so a patient signing is no break."""
    chunks = {"c1": "Clinic log: Ana and Rui Costa, both adults, each signed their own consent form."}
    assert verdict([CONSENT], "Neither patient was under 16, so Ana and Rui Costa each signed their own consent "
                              "form.", chunks) == OK


def test_an_alternative_reserved_noun_with_its_qualifier() -> None:
    """The record gives "registered midwife" (one of the alternatives); the claim's "the midwife on duty" alone
    leaves "registered" open (at most REVIEW); "healthcare assistant" is another role."""
    roster = {"c1": "Ward roster: Kim Lowe - registered midwife, midwife on duty."}
    assert verdict([DISCHARGE], "Baby Rae was discharged at noon by Kim Lowe, the midwife on duty.", roster) == OK
    assert verdict([DISCHARGE], "Baby Rae was discharged at noon by Kim Lowe, the midwife on duty.") != REJECT
    other = {"c1": "Ward roster: Kim Lowe - healthcare assistant."}
    assert verdict([DISCHARGE], "Baby Rae was discharged at noon by Kim Lowe.", other) == REJECT


def test_a_serial_number_is_no_denial() -> None:
    """ "certificate no. CR-118" abbreviates "number"; "holds no certificate" denies it."""
    held = {"c1": "Site register: Ola Berg - certified crane operator (certificate no. CR-118)."}
    assert verdict([CRANE], "Ola Berg operated the tower crane all morning.", held) == OK
    lacking = {"c1": "Site register: Ola Berg - trainee operator, holds no certificate."}
    assert verdict([CRANE], "Ola Berg operated the tower crane all morning.", lacking) == REJECT


def test_the_credential_from_the_record_and_the_claim_together() -> None:
    """The log calls her a custodian, the claim gives the key card she holds: she holds the reserved role; a
    trainee custodian does not, whatever card she carries."""
    claim = "After the clerk logged the request, the vault was opened by Petra Ilves, key card 7."
    assert verdict([CUSTODY], claim, {"c1": "Vault log: vault opened 09:10 by custodian P. Ilves."}) == OK
    assert verdict([CUSTODY], claim, {"c1": "Vault log: vault opened 09:10 by trainee custodian P. Ilves."}) \
        == REJECT


def test_staff_of_a_named_firm() -> None:
    """A driver for a named contractor does it for that contractor; a bare job title leaves the firm open; a
    driver for another firm is not."""
    theirs = {"c1": "Waste log: 12 bins removed, driver J. Hale.",
              "c2": "Contractor register: J. Hale - driver for CleanCare Services, waste licence WL-881."}
    assert verdict([REMOVAL], "Driver J. Hale removed the 12 clinical waste bins on Monday.", theirs) == OK
    bare = {"c1": "Waste log: 12 bins removed, driver J. Hale."}
    assert verdict([REMOVAL], "Driver J. Hale removed the 12 clinical waste bins on Monday.", bare) != REJECT
