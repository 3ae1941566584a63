"""scu_guard round 17: a required thing declared not needed or waived. A claim that says the very thing a plain
duty requires "wasn't needed", "was not necessary", "was unnecessary", "was waived", was "dispensed with", or was
"made optional" tells in its own words that it was not done, whoever decided it ("Kai decided goggles weren't
needed"). It is read as a required step left out: the waived phrase's head is the rule's own thing (or a WordNet
derivation of its act), the claim names whom the rule binds or the occasion the duty is bound to ("for every
grinding job"), and nothing in the claim tells the thing used after all. Real spaCy parses; sentences written for
these tests, none is in the labelled sets. Near misses that must stay OK: another thing said not needed, the
waiver denied ("goggles were not optional"), a question or a modal, a waiver of a means the rule only allows, a
duty under a condition, and the thing worn anyway."""

from __future__ import annotations

from abilities.scu_guard.nlp import parse
from abilities.scu_guard.omitted import gaps
from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

GOGGLES = "Machinists must wear safety goggles for every grinding job."
APRON = "Glaze mixers must wear a rubber apron for every batch."
SCREEN = "Every donor must be screened before the donation begins."
ANCHOR = "Fence posts may be set only with concrete or compacted gravel."
CHAPS = "If a chainsaw is used, the operator must wear chaps."


def _waived(claim: str) -> list[set[str]]:
    return [set(g.heads) | set(g.antecedents) for g in gaps(parse(claim)) if g.waived]


def test_the_waiver_shapes_name_the_thing_waived() -> None:
    assert _waived("Kai decided goggles weren't needed for such a quick job.") == [{"goggle"}]
    assert _waived("The supervisor said an escort was unnecessary for the short visit.") == [{"escort"}]
    assert _waived("The client waived the deposit receipt, so none was printed.") in ([{"receipt"}], [])
    assert _waived("Mira dispensed with the checklist on the second run.") == [{"checklist"}]
    assert _waived("The optional cover sheet was left blank.") == []  # a word describing a thing waives nothing


def test_a_required_thing_declared_not_needed_breaks_the_duty() -> None:
    assert _v(GOGGLES, "Kai decided goggles weren't needed for such a quick grinding job, and the burr came off "
                       "cleanly.") == REJECT
    assert _v(APRON, "Tess said an apron was not necessary for so small a glaze batch, and mixed it in her jeans.") \
        == REJECT


def test_a_waiver_of_another_thing_or_a_denied_waiver_keeps_the_duty() -> None:
    assert _v(GOGGLES, "Kai decided ear plugs weren't needed for such a quick grinding job.") == OK
    assert _v(GOGGLES, "Kai wore his goggles for the grinding job; a face shield wasn't needed.") == OK
    assert _v(APRON, "Tess asked whether an apron was needed for so small a batch, and wore one anyway.") == OK
    assert _v(APRON, "Gloves were not necessary for the batch, so Tess mixed it in her rubber apron.") == OK


def test_a_waived_means_of_an_allow_list_or_a_duty_under_a_condition_keeps_it() -> None:
    assert _v(ANCHOR, "The gravel was optional in that clay, so post 4 was set in concrete alone.") == OK
    assert _v(CHAPS, "No chainsaw was used on the hedge, so chaps were not needed.") == OK
    assert _v(SCREEN, "The screening form was reprinted; nobody said screening was unnecessary.") == OK
