"""How long to wait for the local stack, scaled to how busy the machine is.

Every start-up, shutdown and test wait on the local stack goes through
:func:`scaled`, so one knob covers them all. On a laptop that is idle the factor
is 1; on a CI runner with two cores and a load of 7 (other jobs beside the suite)
an emulator that starts in 3 s takes 10 or more, and fixed timeouts failed there.

``FOOTNOTE_TIMEOUT_SCALE`` (a number, e.g. ``3``) overrides the measured factor.
"""

from __future__ import annotations

import os

MAX_FACTOR = 6.0


def factor() -> float:
    """The multiplier for every timeout: the env override, else the run-queue load
    per core (1-minute load average), at least 1 and at most ``MAX_FACTOR``."""
    raw = os.environ.get("FOOTNOTE_TIMEOUT_SCALE")
    if raw:
        try:
            return max(1.0, float(raw))
        except ValueError:
            pass
    try:
        load = os.getloadavg()[0]
    except OSError:  # not available on this platform
        return 1.0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    per_core = load / max(1, cores or 1)
    return min(MAX_FACTOR, max(1.0, per_core))


def scaled(seconds: float) -> float:
    """``seconds`` as long as it takes on this machine right now."""
    return seconds * factor()
