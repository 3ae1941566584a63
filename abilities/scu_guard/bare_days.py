"""Days of the month told by their ordinal alone: "next on Friday the 8th", "drained on the 1st and 8th".

A claim about a repeated event often names the month once ("In July", "on Monday 4 August") and the later
days by their ordinal only ("its next one on Friday the 8th", "then on the 17th and on the 22nd"); a log may
name no month at all ("on Monday the 2nd, next on Thursday the 5th"). The date reader reads a day only with
its month, so the gaps between such days were lost and a missed interval went unseen. English grammar fixes
the month: a bare ordinal day is in the month of the date told before it (the month after, when its number is
smaller: "28 May ... next on the 3rd" is 3 June); days told with no month anywhere are days of one month
while they run forward. Only an ordinal said as a day is read: after "the" or listed with one ("the 1st and
8th"), and followed by no noun of its own ("the 8th floor", "the 3rd hole" are no days).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Sequence

from abilities.scu_guard.measure import DateMention

_ORDINAL_RE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b", re.I)
_THE_RE = re.compile(r"\bthe\s+$", re.I)
_LIST_RE = re.compile(r"^\s*(?:,\s*(?:and\s+)?|and\s+)$", re.I)
# what may follow a day: the end, punctuation, or a word that opens no noun phrase of the ordinal's own
_AFTER_RE = re.compile(
    r"^(?:\s*$|\s*[,.;:!?)\-–—]|\s+(?:and|or|by|when|at|with|then|to|for|but|after|before|until|till|while|"
    r"which|was|were|is|are|as|so|from|in|on|again|too|also)\b)", re.I)
# a month of 31 days, for days told in a claim that names no month at all (their gaps need no more)
_NO_MONTH = dt.date(2000, 1, 1)


def _said_as_day(text: str, m: re.Match[str], prev_end: int | None) -> bool:
    """Is the ordinal at ``m`` a day of the month: after "the" or listed right after another such day, and
    followed by nothing that makes it a rank of a thing ("the 8th floor")?"""
    before = text[: m.start()]
    led = bool(_THE_RE.search(before)) or prev_end is not None and bool(_LIST_RE.match(text[prev_end : m.start()]))
    return led and bool(_AFTER_RE.match(text[m.end():]))


def _in_month_of(anchor: int, day: int) -> int | None:
    """Ordinal of ``day`` in the month of the day ``anchor``, or of the month after when that puts it before
    the anchor; None for a day the month does not have."""
    base = dt.date.fromordinal(anchor)
    year, month = base.year, base.month
    if day < base.day:
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    if day > calendar.monthrange(year, month)[1]:
        return None
    return dt.date(year, month, day).toordinal()


def with_bare_days(text: str, dates: Sequence[DateMention]) -> list[DateMention]:
    """``dates`` with the bare ordinal days of ``text`` added, each in the month of the date told before it (a
    month named alone, "In July", gives its own month); in text order. Without any date in the text, bare days
    are read in one month of 31 days as long as they run forward."""
    taken = [(d.start, d.end) for d in dates]
    known = sorted(dates, key=lambda d: d.start)
    out = list(dates)
    prev_end: int | None = None
    last: DateMention | None = None  # the latest date told before the ordinal, bare days included
    for m in _ORDINAL_RE.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            prev_end = None
            continue
        if not _said_as_day(text, m, prev_end):
            prev_end = None
            continue
        day = int(m.group(1))
        told = [d for d in known if d.end <= m.start()]
        before = told[-1] if told else None
        if last is not None and (before is None or last.start > before.start):
            before = last
        if before is None:
            if dates:
                break  # days before the first dated one: their month is not told yet
            anchor, year_known = _NO_MONTH.toordinal(), False
        else:
            anchor, year_known = before.first, before.year_known
            a, b = dt.date.fromordinal(before.first), dt.date.fromordinal(before.last)
            if before.first != before.last and not (
                    a.day == 1 and (a.year, a.month) == (b.year, b.month)
                    and b.day == calendar.monthrange(b.year, b.month)[1]):
                break  # a stretch that is not one whole month ("mid-August"): the month is not sure
        if not dates and last is not None and day <= dt.date.fromordinal(last.first).day:
            break  # no month anywhere: a day that turns back has an unknown month length between
        o = _in_month_of(anchor, day) if day >= 1 else None
        if o is None:
            break
        d = DateMention(o, o, year_known, m.start(1), m.end())
        out.append(d)
        last, prev_end = d, m.end()
    out.sort(key=lambda x: x.start)
    return out
