"""Dates a claim gives by a weekday counted from another date it gives: "cut on Wednesday 11 March, its last
spray having gone on the previous Monday" is 9 March; "tested on 3 June and again the following Tuesday" is
10 June.

Why: a rule that bounds the time between two events ("at least 3 days since its last spray") is read from
two dates, and English often gives the second one as a weekday placed by the first. "The previous",
"the preceding", "the prior" put it in the week before the date; "the following", "the next" (with
"the") in the week after; a bare "next Tuesday" counts from when the text was written and is not read.
The date counted from is the nearest single day told before it in its sentence, else the claim's only one.
Pure function over the text and the dates already found in it.
"""

from __future__ import annotations

import datetime as dt
import re

from abilities.scu_guard import measure

_REL_RE = re.compile(r"\bthe\s+(?P<dir>previous|preceding|prior|following|next)\s+(?P<wd>"
                     + "|".join(measure.WEEKDAYS) + r")\b", re.I)


_SPAN_DAYS = {"day": 1, "week": 7, "fortnight": 14}
_LATER_RE = re.compile(r"\b(?:(?P<n>a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s+(?P<unit>day|week|"
                       r"fortnight)s?\s+(?:later|afterwards|on)|the\s+(?P<week>week)\s+after(?!\s+(?:the|a|an|its|his|"
                       r"her|their|that|this|\w+(?:'s|s')|\d)))\b", re.I)


def later_dates(text: str, dates: list[measure.DateMention]) -> list[measure.DateMention]:
    """The dates "a fortnight later", "three days later", "the week after" name, counted from a day the text
    dates (see the module docstring); a stretch told before a date of its own ("a week later, on 9 May") or
    before the event it counts from ("the week after the spray") is not read here."""
    out: list[measure.DateMention] = []
    for m in _LATER_RE.finditer(text):
        base = _base(text, dates, m)
        if base is None:
            continue
        if m.group("week"):
            monday = base.first - _named_weekday(text, base) + 7
            out.append(measure.DateMention(monday, monday + 6, base.year_known, m.start(), m.end()))
            continue
        n = m.group("n").lower()
        k = int(n) if n.isdigit() else int(measure.NUMBER_WORDS[n])
        day = base.first + k * _SPAN_DAYS[m.group("unit").lower()]
        out.append(measure.DateMention(day, day, base.year_known, m.start(), m.end()))
    return out


def _base(text: str, dates: list[measure.DateMention], m: re.Match[str]) -> measure.DateMention | None:
    """The single day a relative expression counts from: the nearest one told before it in its sentence, else
    the text's only one; None when a date is told right after it (the day is told, not counted)."""
    if any(re.fullmatch(r"[\s,(]*(?:on\s+)?(?:the\s+)?", text[m.end() : d.start]) for d in dates if d.start >= m.end()):
        return None
    single = [d for d in dates if d.first == d.last]
    s0 = max([0] + [x.end() for x in re.finditer(r"[.!?]\s", text[: m.start()])])
    before = [d for d in single if s0 <= d.start < m.start()]
    return before[-1] if before else single[0] if len({d.first for d in single}) == 1 else None


def relative_weekday_dates(text: str, dates: list[measure.DateMention]) -> list[measure.DateMention]:
    """The dates "the previous Monday", "the following Tuesday" name, counted from a day the text dates."""
    out: list[measure.DateMention] = []
    for m in _REL_RE.finditer(text):
        base = _base(text, dates, m)  # "the following Tuesday, 11 March": the date is told, not counted
        if base is None:
            continue
        w = measure.WEEKDAYS[m.group("wd").lower()]
        wd = _named_weekday(text, base)
        if m.group("dir").lower() in ("previous", "preceding", "prior"):
            day = base.first - ((wd - w) % 7 or 7)
        else:
            day = base.first + ((w - wd) % 7 or 7)
        out.append(measure.DateMention(day, day, base.year_known, m.start(), m.end()))
    return out


def _named_weekday(text: str, d: measure.DateMention) -> int:
    """The weekday a date is told with ("Wednesday 11 March", "11 March (a Wednesday)"), else its calendar's:
    a date without its year is placed in a year only by the weekday named with it."""
    for m in re.finditer(r"\b(" + "|".join(measure.WEEKDAYS) + r")\b", text, re.I):
        if (m.end() <= d.start and re.fullmatch(r"[\s,(]*(?:the\s+)?", text[m.end() : d.start])) or (
                d.end <= m.start() and re.fullmatch(r"[\s,(]*(?:a\s+)?", text[d.end : m.start()])):
            return measure.WEEKDAYS[m.group(1).lower()]
    return dt.date.fromordinal(d.first).weekday()
