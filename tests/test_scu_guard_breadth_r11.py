"""Round 11: "of any kind" only stresses the breadth of the noun before it; a thing "kept to" another place
is not in the place a rule forbids it in."""
from abilities.scu_guard.detect import cached_rule, find_contradictions

RULE = "Metal tools of any kind are forbidden in the clean room."


def test_subject_keeps_its_noun() -> None:
    r = cached_rule(RULE)
    assert not r.subject_universal
    assert r.subject_head == cached_rule("Metal tools are forbidden in the clean room.").subject_head


def test_unrelated_claim_is_not_flagged() -> None:
    assert find_contradictions("The wafer batch from lot 77 is stored on shelf 4.", [RULE]) == []


def test_rule_still_read() -> None:
    assert find_contradictions("A metal tool was kept in the clean room all week.", [RULE])


FLASH = "Open flames are forbidden in the barn."


def test_confined_to_another_place_is_not_the_forbidden_place() -> None:
    assert find_contradictions("Open flames were kept to the fire pit outside.", [FLASH]) == []


def test_confined_within_the_forbidden_place_is_still_read() -> None:
    assert find_contradictions("The open flames were kept to the east end of the barn.", [FLASH])
