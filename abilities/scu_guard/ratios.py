"""Counts bounded in proportion to other things: "At least one lifeguard must be on poolside for every 25
bathers", "Open-forge classes may have at most 4 students per instructor".

Why its own reading: such a rule is kept or broken by two counts together, neither alone. A claim that
gives both ("With a hundred bathers in the main pool at 16:00, three lifeguards were on poolside") breaks a
minimum when the counted things are fewer than the base needs (a hundred bathers need four lifeguards at one
for every 25), and a maximum when they are more than the base allows in all (twelve students and two
instructors: some instructor has more than four). Both counts must be the rule's own nouns, stated as exact
numbers in one sentence; a minimum needs the two at one moment (one clause, a clock time, or "at once"),
since a day's bathers and one shift's lifeguards are not one moment. A time unit as the base ("per day") is
a rate, read elsewhere. Pure functions over the cached parse.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from abilities.scu_guard import measure
from abilities.scu_guard.counts import _SIMULTANEOUS_RE, read_counts
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.forms import Form
from abilities.scu_guard.judge import Claim, _clause_at, _finding, band_guessed, sentence_span
from abilities.scu_guard.nlp import key, parse

# spans of time a count is taken over ("per night", "per shift"): a rate or a window, no base of things
_TIMES = frozenset({"second", "minute", "hour", "day", "night", "week", "fortnight", "month", "year", "shift",
                    "session", "season", "term", "weekend"})


def ratio_base(text: str) -> tuple[str, float] | None:
    """The thing a rule's count is proportioned to and how many of it make one share: "for every 25
    bathers" (bather, 25), "per instructor" (instructor, 1); None for a time base ("per day") or none."""
    got = _base(text)
    return None if got is None else got[0]


def without_base(text: str) -> str:
    """The rule without its base phrase ("At least one lifeguard must be on poolside [for every 25 bathers]"):
    what is left is read whole as any count bound is, its base's number being no second bound."""
    got = _base(text)
    return text if got is None else text[: got[1]] + text[got[2] :]


@lru_cache(maxsize=2048)
def _base(text: str) -> tuple[tuple[str, float], int, int] | None:
    doc = parse(text)
    for t in doc:
        lead = t.lower_ == "per" or t.lower_ in ("every", "each") and t.i > 0 and doc[t.i - 1].lower_ == "for"
        if not lead:
            continue
        noun = next((x for x in doc[t.i + 1 : t.i + 4] if x.pos_ in ("NOUN", "PROPN")), None)
        if noun is None or {noun.lower_, noun.lower_.rstrip("s")} & (_TIMES | set(measure.UNIT_WORDS)):
            return None
        nums = [measure._number(x.text) for x in doc[t.i + 1 : noun.i] if x.like_num or x.lower_ in measure.NUMBER_WORDS]
        if any(n is None for n in nums) or len(nums) > 1:
            return None
        start = doc[t.i - 1].idx if t.lower_ != "per" else t.idx
        return (key(noun), (nums[0] if nums else 1.0) or 1.0), start, noun.idx + len(noun.text)
    return None


def _measured(forms: Sequence[Form], claim: Claim) -> list[tuple[Form, int, int, str | None]]:
    """Each ratio rule the claim gives both counts for: (form, where, why it is broken or None if kept)."""
    out: list[tuple[Form, int, int, str | None]] = []
    rules = [f for f in forms if f.quantity is not None and f.quantity.dimension.startswith("count:")]
    if not rules:
        return out
    counted = [c for c in read_counts(claim.text) if not c.partitive and not c.more and len(c.counts) == 1]
    if len(counted) < 2:
        return out
    for f in rules:
        band = f.quantity
        assert band is not None
        base = ratio_base(f.text)
        if base is None or band_guessed(f, band):
            continue
        noun, (base_noun, share) = band.dimension[6:], base
        for c in counted:
            if c.counts[0][0] != noun or _clause_at(claim.clauses, c.start).negated:
                continue
            if measure._direction(claim.text, c.start, c.end) != "eq":
                continue
            s0, s1 = sentence_span(claim.text, c.start, c.end)
            bases = [b for b in counted if b.counts[0][0] == base_noun and s0 <= b.start < s1
                     and not _clause_at(claim.clauses, b.start).negated
                     and measure._direction(claim.text, b.start, b.end) == "eq"]
            if len(bases) != 1:
                continue
            have, many = c.counts[0][1], bases[0].counts[0][1]
            start, end = min(c.start, bases[0].start), max(c.end, bases[0].end)
            if band.low is not None and band.high is None:
                one_moment = _clause_at(claim.clauses, c.start) is _clause_at(claim.clauses, bases[0].start) or any(
                    s0 <= k.start < s1 for k in claim.clocks) or bool(_SIMULTANEOUS_RE.search(claim.text[s0:s1]))
                need = band.low * math.ceil(many / share)
                # "at least two staff per shift": the same staff may cover several shifts; only a share of
                # many things present at once ("for every 25 bathers") fixes how many are needed
                if share <= 1 or not one_moment:
                    continue
                broken = have < need
                detail = f"{have:g} {noun} for {many:g} {base_noun}: {f.text!r} needs {need:g}"
            elif band.high is not None and band.low is None:
                allowed = band.high * many / share
                broken = have > allowed
                detail = f"{have:g} {noun} for {many:g} {base_noun}: {f.text!r} allows at most {allowed:g}"
            else:
                continue
            out.append((f, start, end, detail if broken else None))
            break
    return out


def check_ratios(forms: Sequence[Form], claim: Claim) -> list[Finding]:
    """Count bounds in proportion to a base, broken by the two counts the claim states (module docstring)."""
    return [_finding(f, claim, start, end, "numeric_bound", why, basis="count_ratio")
            for f, start, end, why in _measured(forms, claim) if why is not None]


def kept_ratios(forms: Sequence[Form], claim: Claim) -> set[str]:
    """Rules whose proportion the claim's two counts keep: a count of the rule's noun alone ("eighteen
    pupils" against "at most 6 pupils per teacher", with three teachers) is then no finding."""
    return {f.text for f, _, _, why in _measured(forms, claim) if why is None}
