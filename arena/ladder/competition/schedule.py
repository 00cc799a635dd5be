"""The competition's calendar in the server config: the `phases:` section.

    phases:
      deadline: 2026-12-01T18:00:00+01:00   # open -> frozen at this moment (uploads close)
      final: 2026-12-02T09:00:00+01:00      # optional: frozen -> final (the ladder stops)
      closed: 2026-12-03T12:00:00+01:00     # optional: final -> closed (read-only)
      timezone: Europe/Paris                # optional: how pages show times (else the deadline's own offset)

Every time must carry its UTC offset (a time without one means different moments to the organiser and
the server); the times must come in order. Each mistake is noted on the config's reader, so the config
lists them all at once.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from arena.tournament.config.reader import Reader, join, kind

TIME_KEYS = ("deadline", "final", "closed")  # the phase each one starts: frozen, final, closed
KEYS = {*TIME_KEYS, "timezone"}


@dataclass(frozen=True)
class PhaseSchedule:
    deadline: dt.datetime | None = None  # open -> frozen
    final: dt.datetime | None = None  # frozen -> final
    closed: dt.datetime | None = None  # final -> closed
    timezone: str = ""  # an IANA zone for the pages ("" : each time's own offset)

    def zone(self) -> dt.tzinfo | None:
        return ZoneInfo(self.timezone) if self.timezone else (self.deadline.tzinfo if self.deadline else None)

    def show(self, moment: dt.datetime | float | None) -> str:
        """A moment as pages and messages show it: in the competition's zone, with its UTC offset."""
        if moment is None:
            return "none"
        if isinstance(moment, (int, float)):
            moment = dt.datetime.fromtimestamp(moment, dt.timezone.utc)
        local = moment.astimezone(self.zone() or dt.timezone.utc)
        offset = local.strftime("%z")
        return f"{local:%Y-%m-%d %H:%M} (UTC{offset[:3]}:{offset[3:]})"

    def to_json(self) -> dict[str, Any]:
        return {k: (getattr(self, k).isoformat() if getattr(self, k) else None) for k in TIME_KEYS} | {"timezone": self.timezone}


def read_schedule(r: Reader, value: Any) -> PhaseSchedule:
    """The `phases:` section (absent: no deadline, the organiser moves the phases by hand)."""
    if value is None:
        return PhaseSchedule()
    data = r.attempt(lambda: r.mapping(value, "phases", KEYS), None)
    if data is None:
        return PhaseSchedule()
    times = {key: r.attempt(lambda: _moment(r, data[key], join("phases", key)), None) for key in TIME_KEYS if key in data}
    zone = ""
    if "timezone" in data:
        zone = r.attempt(lambda: _zone(r, data["timezone"]), "")
    if ("final" in times or "closed" in times) and "deadline" not in data:
        r.note("phases.deadline", "missing: a final or closing time needs the deadline before it")
    known = [(k, t) for k, t in ((k, times.get(k)) for k in TIME_KEYS) if t is not None]
    for (k1, t1), (k2, t2) in zip(known, known[1:]):
        if t2 <= t1:
            r.note(join("phases", k2), f"{t2.isoformat()} is not after phases.{k1} ({t1.isoformat()}): the phases go in order "
                   "deadline < final < closed")
    return PhaseSchedule(times.get("deadline"), times.get("final"), times.get("closed"), zone)


def _moment(r: Reader, value: Any, where: str) -> dt.datetime:
    """YAML reads an unquoted ISO time as a datetime, a quoted one as text: both are taken; neither without
    its UTC offset."""
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            r.fail(where, f"expected a time like 2026-12-01T18:00:00+01:00, got {value[:60]!r}")
    if not isinstance(value, dt.datetime):
        r.fail(where, f"expected a time like 2026-12-01T18:00:00+01:00, got {kind(value)}")
    if value.tzinfo is None or value.utcoffset() is None:
        r.fail(where, f"{value.isoformat()} has no UTC offset: write it as {value.isoformat()}+01:00 (or Z for UTC), "
               "so it is the same moment for everyone")
    return value


def _zone(r: Reader, value: Any) -> str:
    name = r.string(value, "phases.timezone")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        r.fail("phases.timezone", f"unknown time zone {name[:60]!r} (an IANA name like Europe/Paris or UTC)")
    return name
