"""The typed reading as a whole: every check of the claim against the typed forms, in one registry.

Why its own module: the checks live beside the readings they use (``judge`` for most, ``counts``,
``places`` and ``amounts`` for theirs, each importing ``judge``'s reading of a claim); only this driver
needs them all, so no reading module has to import another back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from abilities.scu_guard.amounts import check_count_additions
from abilities.scu_guard.carried_on import check_carried_on
from abilities.scu_guard.classes import check_classes, kept_classes
from abilities.scu_guard.counts import count_totals, per_unit_counts
from abilities.scu_guard.deadlines import check_deadlines
from abilities.scu_guard.detect import EVENT_RULES, Finding
from abilities.scu_guard.forms import Form
from abilities.scu_guard.judge import (
    Claim,
    _derived_gaps,
    _event_pos,
    check_agents,
    check_allow_list,
    check_bounds,
    check_counts,
    check_exclusion,
    check_members,
    check_modal,
    check_named_members,
    check_omitted,
    check_one_doer,
    check_order,
    check_places,
    check_triggers,
    check_unbounded,
    check_windows,
    cleared,
    read_claim,
    valueless,
)
from abilities.scu_guard.present import check_present
from abilities.scu_guard.ratios import check_ratios, kept_ratios
from abilities.scu_guard.use_checks import check_uses

Check = Callable[[Sequence[Form], Claim], list[Finding]]

# every check of the typed reading, in the order their findings are reported (the first per constraint counts)
CHECKS: tuple[Check, ...] = (
    check_deadlines, check_bounds, count_totals, check_ratios, check_counts, check_count_additions, check_unbounded, check_triggers, check_carried_on,
    check_one_doer,
    check_modal,
    check_agents, check_order, check_windows, check_exclusion, check_members, check_allow_list, check_named_members,
    check_places, check_uses, check_omitted, check_classes, check_present)


def evaluated(forms: Sequence[Form], claim: Claim) -> set[str]:
    """Constraints whose measured part met a value in the claim: an amount of its dimension, a time or
    date for its window, both of its events. A silence of the typed reading there is a judgement."""
    out = set()
    dims = {(a.dim, a.period) for a, _ in claim.amounts + claim.chunk_amounts}
    for f in forms:
        q, t, w, o = f.quantity, f.trigger, f.window, f.order
        if q is not None and ((q.dimension, q.period) in dims or _derived_gaps(f, claim)):
            out.add(f.text)
        elif q is not None and q.dimension.startswith("count:") and any(
                q.dimension[6:] in c.keys for c in claim.clauses):
            out.add(f.text)  # the counted thing is named and no count of it breaks the bound
        elif t is not None and any(d == t.dimension for d, _ in dims):
            out.add(f.text)
        elif w is not None and (claim.clocks if w.kind == "clock" else claim.dates):
            out.add(f.text)
        elif f.agents and any(c.agents and not c.negated and (set(f.action) & (c.verbs | c.keys))
                              for c in claim.clauses):
            out.add(f.text)  # the action is done and its doer named: the typed reading judged who
        elif o is not None:
            first_w, then_w = set(o.first), set(o.then)
            a = _event_pos(claim, first_w, then_w)
            b = _event_pos(claim, then_w, first_w)
            if a is not None and b is not None and a is not b:
                out.add(f.text)
    return out


def assess(claim: str, forms: Iterable[Form],
           chunk_texts: Sequence[str] = ()) -> tuple[list[Finding], set[str], set[str]]:
    """(contradictions, constraints the typed reading measured against this claim or found no value
    for, constraints the claim positively keeps)."""
    forms = list(forms)
    if not claim.strip() or not forms:
        return [], set(), set()
    if len(claim) <= LONG_CLAIM:
        read = read_claim(claim, chunk_texts)
        by_others = kept_classes(forms, read)  # a class's act done only by named doers outside the class
        return (_run_checks(forms, read, by_others), evaluated(forms, read) | valueless(forms, read),
                cleared(forms, read) | by_others)
    # a long claim is read in pieces of whole sentences, so the cost stays linear in its length
    found: list[Finding] = []
    measured: set[str] = set()
    kept: set[str] = set()
    seen: set[str] = set()
    for start, piece in pieces(claim):
        part, part_measured, part_kept = assess(piece, forms, chunk_texts)
        measured |= part_measured
        kept |= part_kept
        for f in part:
            if f.constraint not in seen:
                seen.add(f.constraint)
                found.append(replace(f, start=f.start + start, end=f.end + start))  # keeps how sure it is
    return found, measured, kept


LONG_CLAIM = 1500


def pieces(text: str) -> list[tuple[int, str]]:
    """Consecutive pieces of at most ``LONG_CLAIM`` characters, cut between sentences when possible."""
    out: list[tuple[int, str]] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + LONG_CLAIM)
        if end < len(text):
            cut = max(text.rfind(". ", start, end), text.rfind("; ", start, end), text.rfind("\n", start, end))
            end = cut + 1 if cut > start else end
        out.append((start, text[start:end]))
        start = end
    return out


def judge_claim(claim: str, forms: Iterable[Form], chunk_texts: Sequence[str] = ()) -> list[Finding]:
    """Every contradiction between the claim and the forms (one per constraint, first found)."""
    return assess(claim, forms, chunk_texts)[0]


def _run_checks(forms: list[Form], read: Claim, by_others: set[str]) -> list[Finding]:
    """One finding per constraint: the first check's, unless a later check reads the same rule firmly where the
    first only guessed (a doer wrongly taken for another, "staff" for "a member of staff", must not hide "the
    pre-issue inspection is treated as optional"); a required step firmly said not done also replaces an unfirm
    reading of an event ("went ahead unwitnessed" where the order of two steps was only guessed); a firm reading of
    another event does not, since an unfirm first reading may be hiding its misreading ("optional reed touch-ups"). A
    sure reading of a rule's allowed places replaces an unfirm event reading of the same rule: it reads the very
    place the rule names. ``by_others``: prohibitions on a class the claim keeps (``kept_classes``), left unread."""
    skip = kept_ratios(forms, read)  # a proportion both counts keep: no count alone breaks it
    # a bound per unit the claim's count per unit keeps ("two stacks of half a dozen each"): no total breaks it
    out, per_unit_kept = per_unit_counts(forms, read)
    skip = set(skip) | per_unit_kept | by_others
    kept: dict[str, int] = {f.constraint: i for i, f in enumerate(out)}
    for check in CHECKS:
        for finding in check(forms, read):
            if finding.constraint in skip:
                continue
            at = kept.get(finding.constraint)
            if at is None:
                kept[finding.constraint] = len(out)
                out.append(finding)
            elif finding.firm and not out[at].firm and (not (out[at].sure and out[at].arbitrable) or
                                                        (finding.basis in ("step", "class", "presence") and out[at].rule in EVENT_RULES)):
                out[at] = finding  # a required step firmly said not done supersedes an unfirm event reading
            elif finding.basis == "place" and finding.sure and out[at].rule in EVENT_RULES and not out[at].firm:
                out[at] = finding  # the rule's own place reading names where it was done: "run from her own car"
    return out
