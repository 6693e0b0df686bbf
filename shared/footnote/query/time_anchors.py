"""The English month and weekday names the offline answer rules (``generation.extractive``,
``generation.names``) still import; they go with those rules. Time phrases are read by
:mod:`footnote.temporal`."""

from __future__ import annotations

import calendar

__all__ = ["MONTHS", "WEEKDAYS"]

MONTHS = {
    **{calendar.month_name[i].lower(): i for i in range(1, 13)},
    **{calendar.month_abbr[i].lower(): i for i in range(1, 13)},
    "sept": 9,
}
WEEKDAYS = {calendar.day_name[i].lower(): i for i in range(7)}
