"""Dates of a repeated event: day lists under one month, registers in cited chunks.

A claim often lists several days under one month ("on 2 and 9 March", "on Wednesday 1, Wednesday 8 and
Monday 27 April"); the date reader sees only the day that carries the month, so the gaps between the
listed days are lost. A cited chunk that keeps a register of the rule's own event ("Inspection register:
Mon 2 Mar ...; Mon 9 Mar ...") dates that very event: a claim date found in it is a date of the event,
not a guess from a shared word.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from abilities.scu_guard import measure
from abilities.scu_guard.nlp import light_keys

# a bare day number (after an optional weekday), then a comma or "and": "Wednesday 1, ", "2 and "
_LISTED_DAY_RE = re.compile(
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?"
    r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)$", re.I)
_WEEKDAY_LEAD_RE = re.compile(r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?(?:the\s+)?$", re.I)


def listed_dates(text: str, dates: Sequence[measure.DateMention]) -> list[measure.DateMention]:
    """The claim's dates with the bare days listed before a dated day added ("2 and 9 March" is 2 March and
    9 March), each in the month and year of the dated day it is listed with; in text order. A day list runs
    back only over day numbers joined by commas or "and", so "2 and 9 March" is read but "platform 2 and 9
    March" is not (the list must start the phrase: a preposition or punctuation before it)."""
    out = list(dates)
    for d in dates:
        if d.first != d.last:
            continue
        end = d.start - len(_WEEKDAY_LEAD_RE.search(text[: d.start]).group(0))
        found: list[measure.DateMention] = []
        while True:
            m = _LISTED_DAY_RE.search(text[:end])
            if not m:
                break
            day = int(m.group(1))
            base = dt.date.fromordinal(d.first)
            try:
                o = base.replace(day=day).toordinal()
            except ValueError:
                break
            if o >= (found[-1].first if found else d.first):
                break  # a list runs forward in time; anything else is not a day list
            found.append(measure.DateMention(o, o, d.year_known, m.start(1), m.end(1)))
            end = m.start()
        if found and re.search(r"(?:^|[,;:(]|\b(?:on|from|of|between)\b)\s*$", text[:end], re.I):
            out.extend(found)
    out.sort(key=lambda x: x.start)
    return out


def without_weekdays(text: str) -> str:
    """``text`` with its weekday names removed: "then on Wednesday" joins two dates as "then on" does."""
    for _, _, s, e in reversed(measure.find_weekdays(text)):
        text = text[:s] + text[e:]
    return text


def register_days(action: set[str], thing: set[str], chunk_texts: Sequence[str]) -> set[tuple[int, int]]:
    """(month, day) of the dates a cited chunk gives for the rule's event: all dates of a chunk whose heading
    (the text before its first date) names the rule's action and thing ("Maintenance log - rigger bolt
    inspection: Monday 2 February ...; Thursday 19 February ..."), else those of an entry (split at ";" or a
    sentence end) naming both ("filters replaced Monday 5 January"). Words match by stem; a rule without
    words for its thing needs only the action."""
    out: set[tuple[int, int]] = set()
    if not action:
        return out

    def names_event(text: str) -> bool:
        present = set(light_keys(text))
        return _hits(action, present) and (not thing or _hits(thing, present))

    for text in chunk_texts:
        dates = [d for d in measure.find_dates(text) if d.first == d.last]
        if not dates:
            continue
        if names_event(text[: dates[0].start]):
            out |= {day_key(d.first) for d in dates}
            continue
        for part in re.split(r";|(?<=[a-z0-9)][.!?])\s+(?=[A-Z])", text):
            if names_event(part):
                out |= {day_key(d.first) for d in measure.find_dates(part) if d.first == d.last}
    return out


def logged(text: str, start: int, end: int, days: set[tuple[int, int]]) -> bool:
    """Are the first and last dates in ``text[start:end]`` both register days?"""
    ds = [d for d in measure.find_dates(text[start:end]) if d.first == d.last]
    return bool(ds) and {day_key(ds[0].first), day_key(ds[-1].first)} <= days


def _hits(words: set[str], present: set[str]) -> bool:
    """Does any word share a stem with a present word (a prefix of four letters or more either way)?"""
    return any(w == p or (min(len(w), len(p)) >= 4 and (w.startswith(p) or p.startswith(w)))
               for w in words for p in present)


def day_key(ordinal: int) -> tuple[int, int]:
    """(month, day) of an ordinal day."""
    x = dt.date.fromordinal(ordinal)
    return x.month, x.day
