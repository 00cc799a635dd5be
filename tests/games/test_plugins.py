"""Games found through the `arena.games` entry points: an installed game is used by name as a built-in
one is; a broken plugin, or two claiming one name, is one line each and hides no other game."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import PluginError, UnknownGame
from arena.games import registry
from tests.support.plugins import fake_distribution, on_path

GOOFSPIEL = Path(__file__).resolve().parents[2] / "examples" / "goofspiel"
BUILT_IN = {"kododo", "kolpa", "kodama-duo", "kodama-draft"}


@pytest.fixture
def goofspiel(tmp_path, monkeypatch):
    """The example game installed as its pyproject.toml declares it (its entry point, its modules)."""
    root = fake_distribution(tmp_path / "site", "arena-goofspiel", "1.0.0", {"goofspiel": "goofspiel:SPEC"}, {})
    on_path(monkeypatch, GOOFSPIEL)
    on_path(monkeypatch, root)
    return root


def test_an_installed_game_is_found_by_name_with_where_it_comes_from(goofspiel):
    spec = registry.get_game("goofspiel")
    assert spec.name == "goofspiel" and spec.renderer is not None
    assert registry.source("goofspiel") == "arena-goofspiel 1.0.0 (goofspiel:SPEC)"
    assert registry.source("kolpa") == "arena 0.1.0 (arena.games.kolpa:SPEC)"
    assert {s.name for s in registry.all_games()} == BUILT_IN | {"goofspiel"}


def test_arena_games_lists_built_in_and_installed_games_with_their_source(goofspiel):
    result = CliRunner().invoke(main, ["games"])
    assert result.exit_code == 0
    heads = [line for line in result.output.splitlines() if line and not line.startswith(" ")]
    assert any(h.startswith("goofspiel 1.0 ") and h.endswith("from arena-goofspiel 1.0.0 (goofspiel:SPEC)") for h in heads)
    assert any(h.startswith("kododo ") and h.endswith("from arena 0.1.0 (arena.games.kododo:SPEC)") for h in heads)


def test_without_the_plugin_the_game_is_unknown(monkeypatch):  # the control
    on_path(monkeypatch, GOOFSPIEL)  # the modules alone: no entry point declares the game
    with pytest.raises(UnknownGame, match="unknown game 'goofspiel'"):
        registry.get_game("goofspiel")


def _broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_distribution(tmp_path / "broken", "arena-broken", "0.1", {"broken": "broken_game:SPEC"},
                      {"broken_game.py": "import no_such_module_anywhere\n"})
    fake_distribution(tmp_path / "notspec", "arena-notspec", "0.1", {"notspec": "notspec_game:SPEC"},
                      {"notspec_game.py": "SPEC = 'a string'\n"})
    for folder in ("broken", "notspec"):
        on_path(monkeypatch, tmp_path / folder)


def test_a_broken_plugin_is_one_line_and_hides_no_other_game(tmp_path, monkeypatch, goofspiel):
    _broken(tmp_path, monkeypatch)
    found = registry.catalogue()
    assert {s.name for s in found.games} == BUILT_IN | {"goofspiel"}
    assert sorted(str(e) for e in found.broken) == [
        "game 'broken' from arena-broken 0.1 (broken_game:SPEC) cannot be loaded: ModuleNotFoundError: No module named 'no_such_module_anywhere'",
        "game 'notspec' from arena-notspec 0.1 (notspec_game:SPEC) is a str, not an arena GameSpec",
    ]
    with pytest.raises(PluginError, match="cannot be loaded"):
        registry.get_game("broken")
    assert registry.get_game("goofspiel").name == "goofspiel"
    result = CliRunner().invoke(main, ["games"])
    assert result.exit_code == 0
    warnings = [line for line in result.output.splitlines() if line.startswith("arena: warning:")]
    assert len(warnings) == 2 and "Traceback" not in result.output
    assert sum(line.startswith(("kododo ", "kolpa ", "goofspiel ")) for line in result.output.splitlines()) == 3


def test_two_plugins_claiming_one_name_are_one_line_and_hide_no_other_game(tmp_path, monkeypatch, goofspiel):
    fake_distribution(tmp_path / "copy", "goofspiel-copy", "2.0", {"goofspiel": "goofspiel_copy:SPEC"},
                      {"goofspiel_copy.py": "from goofspiel import SPEC\n"})
    on_path(monkeypatch, tmp_path / "copy")
    found = registry.catalogue()
    assert {s.name for s in found.games} == BUILT_IN
    assert [str(e) for e in found.broken] == [
        "game 'goofspiel' is claimed by two packages: goofspiel-copy 2.0 (goofspiel_copy:SPEC) and arena-goofspiel 1.0.0 "
        "(goofspiel:SPEC); uninstall one of them"] or [str(e) for e in found.broken] == [
        "game 'goofspiel' is claimed by two packages: arena-goofspiel 1.0.0 (goofspiel:SPEC) and goofspiel-copy 2.0 "
        "(goofspiel_copy:SPEC); uninstall one of them"]
    with pytest.raises(PluginError, match="claimed by two packages"):
        registry.get_game("goofspiel")
    assert registry.get_game("kolpa").name == "kolpa"


def test_an_entry_point_naming_another_game_is_refused(tmp_path, monkeypatch, goofspiel):
    fake_distribution(tmp_path / "other", "misnamed", "1.0", {"bidding": "goofspiel:SPEC"}, {})
    on_path(monkeypatch, tmp_path / "other")
    with pytest.raises(PluginError, match="entry point 'bidding' from misnamed 1.0 .* gives a game named 'goofspiel'"):
        registry.get_game("bidding")


def test_an_installed_game_in_a_config_and_its_fillers(goofspiel, tmp_path):
    from arena.match.setup import default_fillers
    from arena.tournament.config import tournament as tconfig

    (tmp_path / "bot.py").write_text("")
    cfg = tconfig.parse({"name": "g", "game": "goofspiel", "players": 3, "entrants": [
        {"name": f"b{i}", "command": "python3 bot.py"} for i in range(3)]}, tmp_path / "t.yaml")
    assert cfg.game == "goofspiel"
    fillers = default_fillers(registry.get_game("goofspiel"))
    assert fillers[0][1] == str(GOOFSPIEL / "goofspiel" / "heuristic_bot.py")


def test_the_protocol_section_in_the_docs_is_the_one_the_spec_writes(goofspiel):
    from arena.games.docs import generated_games, protocol_reference, protocol_section, regenerate

    doc = (Path(__file__).resolve().parents[2] / "docs" / "writing-a-game.md").read_text(encoding="utf-8")
    assert generated_games(doc) == ["goofspiel"]
    assert regenerate(doc, registry.get_game) == doc
    assert "### goofspiel\n\n<!-- generated: arena games --protocol goofspiel -->\n" + protocol_reference(registry.get_game("goofspiel")) in doc
    printed = CliRunner().invoke(main, ["games", "goofspiel", "--protocol"]).output
    assert printed == protocol_section(registry.get_game("goofspiel"))
    assert "| `prizes_left` | integer |" in printed
