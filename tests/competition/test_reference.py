"""docs/server-config.md is the config's own reference: every key, its default and what it is; and
`arena validate` reads a server config with its phases, every mistake listed at once."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from arena.cli import main
from arena.ladder import config
from arena.ladder.competition.reference import TOP, reference, sections
from arena.ladder.uploads.archive import ArchiveLimits

DOC = Path(__file__).resolve().parents[2] / "docs" / "server-config.md"


def test_the_docs_page_is_the_generated_reference() -> None:
    assert DOC.read_text() == reference(), "run: python -m arena.ladder.competition.reference > docs/server-config.md"


def test_every_key_is_described() -> None:
    assert set(TOP) == config.TOP_KEYS, f"describe these top keys in reference.TOP: {config.TOP_KEYS ^ set(TOP)}"
    missing = [f"{name}.{key}" for name, keys in sections() for key, _, text in keys if not text]
    assert not missing, f"give these fields a comment (or an entry in reference.sections): {missing}"


def test_every_documented_key_is_one_the_config_takes_with_that_default(tmp_path: Path) -> None:
    data: dict[str, object] = {"game": "kododo", "players": 2, "data": str(tmp_path / "d")}
    for name, keys in sections():
        if name in ("build", "phases"):
            continue
        data[name] = {key: default for key, default, _ in keys}
    parsed = config.parse(data, tmp_path / "s.yaml")
    assert parsed.ladder == config.LadderRules() and parsed.archive == ArchiveLimits()
    import dataclasses

    plain = config.parse({k: v for k, v in data.items() if k not in dict(sections())}, tmp_path / "s.yaml")
    assert dataclasses.replace(parsed, raw={}) == dataclasses.replace(plain, raw={})  # the documented defaults are the defaults


def test_validate_reads_a_server_config_with_phases(tmp_path: Path) -> None:
    good = tmp_path / "ladder.yaml"
    good.write_text(yaml.safe_dump({"game": "kododo", "players": 2, "ladder": {"workers": 1},
                                    "phases": {"deadline": "2026-12-01T18:00:00+01:00", "timezone": "Europe/Paris"}}))
    done = CliRunner().invoke(main, ["validate", str(good)])
    assert done.exit_code == 0 and "phases: deadline 2026-12-01 18:00 (UTC+01:00)" in done.output, done.output
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"game": "kododo", "players": 2, "ladder": {"workers": 0},
                                   "phases": {"deadline": "2026-12-01T18:00:00", "timezone": "Nowhere/Land"}}))
    done = CliRunner().invoke(main, ["validate", str(bad)])
    assert done.exit_code == 2
    for expected in ("ladder.workers", "phases.deadline", "no UTC offset", "Nowhere/Land"):
        assert expected in done.output, done.output
