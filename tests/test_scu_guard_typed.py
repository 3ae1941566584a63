"""scu_guard typed reading: constraints understood once (forms), claims read with the parser, units
through pint, dates, periods, business days, chunk facts, suspected contradictions. Sentences here
are written for these tests; none is in the labelled sets."""

from __future__ import annotations

import pytest

from abilities.lock import lock_constraints
from abilities.scu_guard.check import run_checks
from abilities.scu_guard.combined import detect, forms_for
from abilities.scu_guard.forms import Form, understand
from abilities.scu_guard.models import Inputs
from abilities.scu_guard.nlp import MODEL_PACKAGE

DAY = 86400.0


def verdict(constraints: list[str], claim: str, chunks: dict[str, str] | None = None) -> tuple[str, str]:
    """(verdict, reason) of the whole check pipeline for a claim citing every chunk given."""
    chunks = chunks or {"c1": "Context."}
    lock = lock_constraints(constraints)
    answer = {"claim": claim, "citations": list(chunks), "constraints_echo": constraints}
    r = run_checks(lock, list(chunks), answer, forms=forms_for(constraints)[0], chunk_texts=chunks)
    return r.verdict, r.reason


def test_the_model_package_is_the_pinned_one() -> None:
    """The re-uploaded weights report exactly the evaluation figures of the official en_core_web_sm
    3.8.0 release (its published meta): the same trained pipeline, not a retrained one."""
    import importlib.metadata as md
    import importlib.util
    import json
    from pathlib import Path

    assert md.version(MODEL_PACKAGE.replace("_", "-")) == "3.8.0"
    assert md.version("spacy").startswith("3.8.")
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    assert spec is not None and spec.origin is not None
    meta = json.loads((Path(spec.origin).parent / "meta.json").read_text())
    perf = meta["performance"]
    official = {"dep_uas": 0.9176955214, "dep_las": 0.8991533598, "tag_acc": 0.972937262,
                "token_acc": 0.9986194413, "sents_f": 0.9068156724, "ents_f": 0.8433119744}
    assert {k: perf[k] for k in official} == official
    assert (meta["version"], meta["license"], meta["author"]) == ("3.8.0", "MIT", "Explosion")


@pytest.mark.parametrize(
    ("constraint", "expect"),
    [
        ("Hives must be inspected at least every 10 days.",
         {"modality": "must", "quantity": {"dimension": "[time]", "high": 10 * DAY, "period": True}}),
        ("Forklifts must not exceed 8 mph in the warehouse.",
         {"modality": "must_not", "quantity": {"dimension": "[length] / [time]", "high": 8 * 0.44704}}),
        ("The reservoir must not drop below 12 feet.",  # a denied "below" is a minimum
         {"modality": "must_not", "quantity": {"dimension": "[length]", "low": 12 * 0.3048}}),
        ("Invoices must be paid within 5 business days of receipt.",
         {"quantity": {"business_days": True, "high": 5 * DAY, "reference": ["receipt"]}}),
        ("Parcels heavier than 20 kg require a second handler.",
         {"trigger": {"dimension": "[mass]", "low": 20.0}, "quantity": None}),
        ("Visitors under 16 may not enter the workshop.", {"trigger": {"dimension": "age", "high": 16.0}}),
        ("Ballast tanks must be flushed before the ship leaves port.",
         {"order": {"first": ["ballast", "tank", "flush"]}}),
        ("Acids and alkalis must never be stored on the same shelf.", {"exclusion": [["acid"], ["alkali"]]}),
        ("Only certified welders may repair the boiler.",
         {"modality": "only", "agents": ["welder"], "agent_qualifiers": ["certify"]}),
        ("Deliveries must not arrive before 06:30.", {"window": {"kind": "clock", "start": 0, "end": 390}}),
        ("Hunting is prohibited from March through July.",
         {"window": {"kind": "calendar", "start": 301, "end": 731}}),
        ("Quotes must be issued in GBP.", {"allowed_members": ["money:GBP"]}),
    ],
)
def test_constraints_are_understood_into_typed_forms(constraint: str, expect: dict) -> None:
    form = understand(constraint)
    assert form is not None, constraint
    got = form.model_dump()
    for field, want in expect.items():
        if isinstance(want, dict):
            assert got[field] is not None, (field, got)
            for k, v in want.items():
                value = got[field][k]
                assert value == pytest.approx(v) if isinstance(v, float) else value == v, (field, k, got[field])
        elif isinstance(want, list) and want and isinstance(want[0], list):
            assert [sorted(m) for m in got[field]] == [sorted(m) for m in want], got[field]
        else:
            assert got[field] == want, (field, got[field])


def test_what_cannot_be_checked_is_listed_not_checked_weakly() -> None:
    forms, unparsed = forms_for(["Be polite to suppliers.", "Staff may wear jeans on Fridays.",
                                 "Cranes must not lift more than 5 tonnes."])
    assert unparsed == ["Be polite to suppliers.", "Staff may wear jeans on Fridays."]
    assert [f.text for f in forms] == ["Cranes must not lift more than 5 tonnes."]


@pytest.mark.parametrize(
    ("constraints", "claim", "chunks", "contradicts"),
    [
        # periodic rules: a frequency is an interval, not a count
        (["Hives must be inspected at least every 10 days."], "We check the hives twice a month.", None, True),
        (["Hives must be inspected at least every 10 days."], "Hives get a look every week.", None, False),
        (["Smoke alarms must be tested at least once a month."], "Alarms are tested quarterly.", None, True),
        # units: imperial, nautical, Fahrenheit, quantity words
        (["Forklifts must not exceed 8 mph in the warehouse."], "Forklifts run at 15 km/h in the warehouse.", None,
         True),
        (["Forklifts must not exceed 8 mph in the warehouse."], "Forklifts keep to 10 km/h in the warehouse.", None,
         False),
        (["Tenders must keep below 12 knots in the harbour."], "The tender crossed the harbour at 30 km/h.", None,
         True),
        (["Wine must be cellared between 10 °C and 15 °C."], "The cellar sits at 55 °F.", None, False),
        (["Wine must be cellared between 10 °C and 15 °C."], "The cellar warmed to 68 °F in August.", None, True),
        (["Breaks must last at least 20 minutes."], "Breaks last a quarter of an hour.", None, True),
        # business vs calendar days, dates and date arithmetic against a chunk-dated event
        (["Invoices must be paid within 5 business days of receipt."], "Invoice 7 was paid on Monday 9 March.",
         {"k1": "Invoice 7: receipt on Friday 27 February 2026."}, True),
        (["Invoices must be paid within 5 business days of receipt."], "Invoice 7 was paid on Thursday 5 March.",
         {"k1": "Invoice 7: receipt on Friday 27 February 2026."}, False),
        (["Refunds must be issued within 10 calendar days of the return."], "Refunds go out within 10 business days.",
         None, True),
        # conditions: the trigger read from the subject, a fact from the cited chunk
        (["Parcels heavier than 20 kg require a second handler."], "The 26 kg parcel was moved by one handler.",
         None, True),
        (["Parcels heavier than 20 kg require a second handler."], "The 12 kg parcel was moved by one handler.",
         None, False),
        (["Orders above 1,000 EUR require a manager's approval."], "Order Q-17 shipped without any approval.",
         {"k1": "Order Q-17 is worth 1,400 EUR."}, True),
        # passive agents and only-agent rules
        (["Only certified welders may repair the boiler."], "The boiler was repaired by an apprentice.", None, True),
        (["Only certified welders may repair the boiler."], "The boiler was repaired by Ana, a certified welder.",
         None, False),
        (["Only certified welders may repair the boiler."], "Uncertified welders can repair the boiler at night.",
         None, True),
        # obligation read as permission, prefixes, negation scope
        (["Guides must carry a first-aid kit."], "A first-aid kit is optional for guides on short walks.", None,
         True),
        (["Guides must carry a first-aid kit."], "Guides never set out without a first-aid kit.", None, False),
        (["Servers must never run as root."], "The batch server runs as a non-root user.", None, False),
        (["Cranes must not lift more than 5 tonnes."], "The crane never lifts more than 4 tonnes.", None, False),
        (["Cranes must not lift more than 5 tonnes."], "The crane never lifts less than 6 tonnes.", None, True),
        # order of events
        (["Ballast tanks must be flushed before the ship leaves port."],
         "The ship left port and the ballast tanks were flushed the next day.", None, True),
        (["Ballast tanks must be flushed before the ship leaves port."],
         "The ballast tanks were flushed on 3 May and the ship left port on 4 May.", None, False),
        # exclusion: together in words, or in one labelled place with what a chunk says is there
        (["Acids and alkalis must never be stored on the same shelf."], "Shelf 4 now also holds the acids.",
         {"k1": "Shelf 4 holds the alkalis."}, True),
        (["Acids and alkalis must never be stored on the same shelf."], "The acids moved to Shelf 2.",
         {"k1": "Shelf 4 holds the alkalis."}, False),
        # a shared word does not drag in the wrong constraint
        (["Deliveries must not arrive before 06:30.", "Drivers must rest at least 45 minutes."],
         "Drivers rested 50 minutes and the first delivery arrived at 07:15.", None, False),
        (["Deliveries must not arrive before 06:30."], "The first delivery arrived at 5 am.", None, True),
        # calendar windows
        (["Hunting is prohibited from March through July."], "Hunting is fine in mid-April.", None, True),
        (["Hunting is prohibited from March through July."], "Hunting is allowed on 2 October.", None, False),
        # a bare year, a decade, "while ... still", a chunk's time of day, a bound under a condition
        (["Boilers must be inspected at least every 2 years."], "Boiler 3 gets its next inspection in 2029.",
         {"k1": "Boiler 3 was inspected in March 2026."}, True),
        (["Hoses must be replaced at least every 5 years."], "Hoses are replaced once a decade.", None, True),
        (["Blasting must be finished before the quarry road reopens."],
         "The quarry road reopened while blasting was still under way.", None, True),
        (["Staff must not enter a fumigated room for 24 hours after fumigation."],
         "Staff entered room 5 at 10:00 on Saturday.", {"k1": "The corridor was painted at 09:00 on Friday."},
         False),
        (["Riders under 14 may not ride faster than 15 km/h."], "The adult team rode at 30 km/h.", None, False),
        (["Riders under 14 may not ride faster than 15 km/h."], "A 12-year-old rode at 25 km/h.", None, True),
        # unbounded answers to a limit, counts by noun phrase
        (["Teams may have at most 5 players."], "Each team fields 7 players.", None, True),
        (["Teams may have at most 5 players."], "Teams can have as many players as they want.", None, True),
    ],
)
def test_typed_reading_on_fresh_sentences(constraints: list[str], claim: str, chunks: dict | None,
                                          contradicts: bool) -> None:
    """A contradiction is found: rejected when the reading is sure, in REVIEW when it rests on a guess
    (``GUESSED``); a claim that keeps the rule is never rejected."""
    got = verdict(constraints, claim, chunks)
    if not contradicts:
        assert got[0] != "REJECT", (claim, got)
    elif claim in GUESSED:
        assert got == ("REVIEW", "suspected_contradiction"), (claim, got)
    else:
        assert got == ("REJECT", "constraint_contradiction"), (claim, got)


# contradictions whose reading rests on a guess, so REVIEW and not REJECT: a trigger amount only a chunk
# gives, a window the typed reading alone makes (event readings need both readings); an order whose two
# events are told in two clauses ("the ship left port and the ballast tanks were flushed the next day",
# "the quarry road reopened while blasting was still under way") is no guess and is rejected, nor is a doer of another role tied by grammar to the reserved verb and its
# thing ("The boiler was repaired by an apprentice")
GUESSED = frozenset({
    # (round 9, amounts: "Order Q-17 shipped without any approval." left this set: the chunk states the amount of
    # the very order the claim names and the claim denies the consequence outright, so it is a REJECT)
    "Hunting is fine in mid-April.",
    "Boiler 3 gets its next inspection in 2029.",
    # round 9 decision policy (combined.py): a count matched by its noun was wrong too often on unseen sets to
    # reject on (an exclusion through a place the claim's own grammar gives, "Shelf 4 now also holds the
    # acids" with a chunk's "Shelf 4 holds the alkalis", is read firmly since round 10)
    "Each team fields 7 players.",
})


def test_a_gap_to_a_chunk_time_is_a_guess_the_pair_model_decides() -> None:
    """The claim's time against a time a cited chunk gives: the reading ties the two events together by
    their words only, so it rests on a guess: suspected without an arbiter, a contradiction when the
    arbiter agrees, and never a contradiction when the gap keeps the rule. (A code both name, "room 5",
    ties them by name: that firm reading is tested in ``test_scu_guard_chunk_r11.py``.)"""
    constraints = ["Staff must not enter a fumigated room for 24 hours after fumigation."]
    forms = forms_for(constraints)[0]
    chunks = ("The store room was fumigated at 09:00 on Friday.",)
    claim = "Staff entered the store room at 18:00 on Friday."
    found, suspected = detect(claim, constraints, forms, chunks, None)
    assert found == [] and [f.sure for f in suspected] == [False]
    found, suspected = detect(claim, constraints, forms, chunks, lambda *_: True)
    assert [f.constraint for f in found] == constraints and suspected == []
    assert verdict(constraints, "Staff entered the store room at 10:00 on Saturday.", {"k1": chunks[0]})[0] != "REJECT"


def test_a_doer_known_only_by_name_is_reviewed_whatever_the_model_says() -> None:
    constraints = ["Only the vault supervisor may open a sealed bag at the depot."]
    found, suspected = detect("The sealed bag was opened at the depot by Nadia Cole.", constraints,
                              forms_for(constraints)[0], (), lambda *_: True)
    assert found == [] and [f.by_name for f in suspected] == [True]
    # a doer named by the reserved noun with another modifier (a "night supervisor" may be the vault
    # supervisor): the typed reading alone makes it, so REVIEW unless an arbiter agrees
    found, suspected = detect("The sealed bag was opened at the depot by the night supervisor.", constraints,
                              forms_for(constraints)[0], (), lambda *_: True)
    assert [f.rule for f in found] == ["only_agent"] and suspected == []
    assert verdict(constraints, "The sealed bag was opened at the depot by the night supervisor.") == (
        "REVIEW", "suspected_contradiction")
    # a trainee, tied by grammar to the reserved verb and its thing, is another role outright
    assert verdict(constraints, "The sealed bag was opened at the depot by a trainee.") == (
        "REJECT", "constraint_contradiction")


def test_lexicon_alone_against_a_measured_form_is_cleared_not_rejected() -> None:
    """The typed reading measured the amount and found the rule kept: the word-level amount is refuted."""
    constraints = ["Boats must not sail within 2 nautical miles of the reef."]
    claim = "The boat sailed 4 nautical miles from the reef."
    found, suspected = detect(claim, constraints, forms_for(constraints)[0])
    assert found == [] and suspected == []
    assert verdict(constraints, claim) == ("OK", "ok")
    assert verdict(constraints, "The boat sailed 1 nautical mile from the reef.") == (
        "REJECT", "constraint_contradiction")


def test_a_client_typed_form_replaces_the_parsed_one() -> None:
    text = "Gate B stays shut at night."
    form = Form(text=text, modality="must_not", subject=["gate"], action=["open"],
                window={"kind": "clock", "start": 20 * 60, "end": 6 * 60})
    inputs = Inputs(constraints=[text], question="q", forms=[form])
    forms, unparsed = forms_for(inputs.constraints, inputs.forms)
    assert forms == [form] and unparsed == []
    lock = lock_constraints([text])
    answer = {"claim": "Gate B opens at 23:00 for the late delivery.", "citations": ["c"], "constraints_echo": [text]}
    r = run_checks(lock, ["c"], answer, forms=forms, chunk_texts={"c": "x"})
    # the client's window is checked: found by the typed reading alone (the word-level one does not read a
    # client's form), so it waits in REVIEW unless an arbiter agrees
    assert (r.verdict, r.reason, r.suspected[0].rule) == ("REVIEW", "suspected_contradiction", "temporal")
    r = run_checks(lock, ["c"], answer, forms=forms, chunk_texts={"c": "x"}, arbiter=lambda *_: True)
    assert (r.verdict, r.reason, r.contradictions[0].rule) == ("REJECT", "constraint_contradiction", "temporal")


def test_a_form_must_name_one_of_the_constraints() -> None:
    with pytest.raises(ValueError, match="forms"):
        Inputs(constraints=["A must not B."], question="q", forms=[{"text": "Something else.", "modality": "must"}])


def test_the_parser_loads_and_reads_with_no_network() -> None:
    """Nothing is fetched at run time: a fresh process without any network interface (a user
    namespace with its own empty network) loads the weights and reads a constraint."""
    import shutil
    import subprocess
    import sys

    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode != 0:
        pytest.skip("no network namespaces on this machine")
    code = ("from abilities.scu_guard.forms import understand; "
            "f = understand('Filters must be backwashed at least every 72 hours.'); "
            "print(f.quantity.high, f.quantity.period)")
    out = subprocess.run([unshare, "-rn", sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=str(__import__("pathlib").Path(__file__).resolve().parents[1]))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["259200.0", "True"]
