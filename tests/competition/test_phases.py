"""The competition's phases on a fake clock: legal steps only, the deadline moving open -> frozen by itself,
every change recorded (from, to, who, when) and kept across a restart; the config's `phases:` section."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from arena.errors import ConfigError, PhaseError, UploadsClosed
from arena.ladder.competition.phases import Phase, Phases, SCHEDULE_WHO
from arena.ladder.config import PhaseSchedule
from arena.ladder.config import parse
from arena.ladder.db import Database

PARIS = dt.timezone(dt.timedelta(hours=1))
DEADLINE = dt.datetime(2026, 12, 1, 18, 0, tzinfo=PARIS)


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def phases(tmp_path: Path, schedule: PhaseSchedule = PhaseSchedule(), t: float = 0.0) -> tuple[Phases, Clock]:
    clock = Clock(t or DEADLINE.timestamp() - 3600)
    return Phases(Database(tmp_path / "server.sqlite"), schedule, clock), clock


def test_a_new_competition_is_open_and_moves_one_step_at_a_time(tmp_path: Path) -> None:
    p, clock = phases(tmp_path)
    assert p.current().phase is Phase.OPEN and p.current().history == ()
    for step, who in ((Phase.FROZEN, "ada"), (Phase.FINAL, "bob"), (Phase.CLOSED, "cy")):
        clock.t += 10
        change = p.advance(step, who)
        assert (change.after, change.who, change.at) == (step, who, clock.t)
    found = p.current()
    assert found.phase is Phase.CLOSED and found.since == clock.t
    assert [(c.before, c.after, c.who) for c in found.history] == [
        (Phase.OPEN, Phase.FROZEN, "ada"), (Phase.FROZEN, Phase.FINAL, "bob"), (Phase.FINAL, Phase.CLOSED, "cy")]


@pytest.mark.parametrize("start, target", [(0, "final"), (0, "closed"), (1, "closed"), (1, "open"), (2, "frozen"),
                                           (0, "open"), (3, "closed"), (3, "open")])
def test_a_change_out_of_order_is_refused_and_changes_nothing(tmp_path: Path, start: int, target: str) -> None:
    p, _ = phases(tmp_path)
    for step in list(Phase)[1:start + 1]:
        p.advance(step, "setup")
    before = p.current()
    with pytest.raises(PhaseError) as refused:
        p.advance(target, "organiser")
    assert p.current() == before
    message = str(refused.value)
    assert "nothing changed" in message or "can only become" in message or "closed, its last phase" in message
    if start == 0 and target == "final":  # the issue's case: what to do is said
        assert "it can only become frozen next, not final" in message and "move it to frozen first" in message
    # the control: the next phase in order is taken from the same state
    if start < 3:
        assert p.advance(list(Phase)[start + 1], "organiser").after is list(Phase)[start + 1]


def test_an_unknown_phase_is_named(tmp_path: Path) -> None:
    p, _ = phases(tmp_path)
    with pytest.raises(PhaseError, match="unknown phase 'frozzen'"):
        p.advance("frozzen", "x")
    assert p.current().phase is Phase.OPEN


def test_the_deadline_freezes_the_competition_by_itself_on_the_injected_clock(tmp_path: Path) -> None:
    p, clock = phases(tmp_path, PhaseSchedule(deadline=DEADLINE))
    clock.t = DEADLINE.timestamp() - 0.001
    assert p.phase is Phase.OPEN
    p.check_upload()  # the control: a second before, uploads are taken
    clock.t = DEADLINE.timestamp() + 5
    found = p.current()
    assert found.phase is Phase.FROZEN and found.history[-1].who == SCHEDULE_WHO
    assert found.since == DEADLINE.timestamp()  # frozen since the deadline, however late it was first asked
    with pytest.raises(UploadsClosed) as closed:
        p.check_upload()
    assert str(closed.value).startswith("uploads closed since 2026-12-01 18:00 (UTC+01:00)")
    assert len(p.current().history) == 1  # asked again: no second change


def test_later_times_move_the_phases_in_order_each_recorded(tmp_path: Path) -> None:
    final, closed = DEADLINE + dt.timedelta(days=1), DEADLINE + dt.timedelta(days=2)
    p, clock = phases(tmp_path, PhaseSchedule(DEADLINE, final, closed))
    clock.t = closed.timestamp() + 1  # the server was down through all three: each step is still recorded
    found = p.current()
    assert found.phase is Phase.CLOSED
    assert [c.after for c in found.history] == [Phase.FROZEN, Phase.FINAL, Phase.CLOSED]


def test_the_phase_survives_a_restart(tmp_path: Path) -> None:
    p, _ = phases(tmp_path)
    p.advance("frozen", "ada")
    p.db.close()
    again, _ = phases(tmp_path)
    assert again.current().phase is Phase.FROZEN and again.current().history[0].who == "ada"


def test_two_organisers_at_once_make_one_change(tmp_path: Path) -> None:
    first, _ = phases(tmp_path)
    second = Phases(Database(tmp_path / "server.sqlite"), PhaseSchedule(), first.clock)
    first.advance("frozen", "ada")
    with pytest.raises(PhaseError, match="meanwhile"):  # the second saw open and asks open -> frozen
        second._change(Phase.OPEN, Phase.FROZEN, "bob")
    assert len(first.current().history) == 1


def test_the_enter_hook_hears_each_change_into_its_phase(tmp_path: Path) -> None:
    p, _ = phases(tmp_path)
    heard: list[str] = []
    p.on_enter(Phase.FINAL, lambda change: heard.append(change.who))
    p.advance("frozen", "a")
    assert heard == []
    p.advance("final", "b")
    assert heard == ["b"]


def test_the_phase_allows_what_the_issue_says() -> None:
    assert [p.uploads for p in Phase] == [True, False, False, False]
    assert [p.ladder for p in Phase] == [True, True, False, False]
    assert [p.read_only for p in Phase] == [False, False, False, True]


# --- the config's `phases:` section ------------------------------------------------------------------------


def config(tmp_path: Path, phases_section: object) -> object:
    return parse({"game": "kododo", "players": 2, "data": str(tmp_path / "d"), "phases": phases_section}, tmp_path / "s.yaml")


def test_the_config_reads_times_with_their_offset(tmp_path: Path) -> None:
    import yaml

    section = yaml.safe_load("deadline: 2026-12-01T18:00:00+01:00\nfinal: '2026-12-02T09:00:00+01:00'\ntimezone: Europe/Paris")
    got = config(tmp_path, section).phases  # type: ignore[attr-defined]
    assert got.deadline == DEADLINE and got.final == DEADLINE + dt.timedelta(hours=15) and got.closed is None
    assert got.show(DEADLINE) == "2026-12-01 18:00 (UTC+01:00)"
    assert got.show(dt.datetime(2026, 7, 1, 12, tzinfo=dt.timezone.utc)) == "2026-07-01 14:00 (UTC+02:00)"  # summer in Paris


def test_every_mistake_in_the_phases_section_is_listed_at_once(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as bad:
        config(tmp_path, {"deadline": "2026-12-01T18:00:00", "final": "2026-11-01T18:00:00+01:00",
                          "closed": "2026-10-01T18:00:00+01:00", "timezone": "Mars/Olympus", "freeze": "soon"})
    text = str(bad.value)
    for expected in ("phases.deadline", "has no UTC offset", "phases.closed", "is not after phases.final",
                     "Mars/Olympus", "phases.freeze", "unknown key"):
        assert expected in text, text
    assert config(tmp_path, {"deadline": "2026-12-01T18:00:00Z"}).phases.deadline is not None  # type: ignore[attr-defined]


def test_a_final_time_without_a_deadline_is_a_mistake(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="phases.deadline"):
        config(tmp_path, {"final": "2026-12-01T18:00:00+00:00"})


def test_require_says_how_to_reach_the_phase_a_step_runs_in(tmp_path: Path) -> None:
    p, _ = phases(tmp_path)
    with pytest.raises(PhaseError, match="the final runs in the final phase, and the competition is open: move it there first"):
        p.require(Phase.FINAL, "the final")
    p.advance("frozen", "a")
    p.advance("final", "a")
    assert p.require(Phase.FINAL, "the final").phase is Phase.FINAL  # the control


def test_uploads_closed_since_is_when_the_competition_left_open(tmp_path: Path) -> None:
    p, clock = phases(tmp_path, PhaseSchedule(deadline=DEADLINE))
    clock.t = DEADLINE.timestamp() + 10
    p.current()
    clock.t += 86400
    p.advance("final", "organiser")  # a day later: uploads were closed at the deadline still
    with pytest.raises(UploadsClosed, match=r"^uploads closed since 2026-12-01 18:00 \(UTC\+01:00\): the competition is final"):
        p.check_upload()
    assert p.banner()[1] == "phase: final; uploads closed since 2026-12-01 18:00 (UTC+01:00)"
