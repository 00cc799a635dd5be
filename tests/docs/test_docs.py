"""Every config and command in README.md and protocol.md is run, so the docs cannot rot.

- every YAML block is a tournament config: it must pass `arena validate` as written (its bots are
  stood in by the random sample bots, at the paths it names), then play with small settings;
- every `configs/*.yaml` validates and plays one game;
- every `arena ...` command line of a code block runs, in document order, in a sandbox holding the
  repository's sample bots and configs (shrunk to one game each), and exits 0; `make` lines are
  checked with `make -n` (running them is the test suite itself, or the benchmark);
- every `arena ...` named inline exists as a subcommand, with the options it is written with;
- every complete protocol message in a code block matches arena/protocol/schema.json, and a request's
  view has exactly the members the engine's view of that game has.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from arena.games import all_games, get_game
from arena.rng import Rng

pytestmark = pytest.mark.docs

REPO = Path(__file__).resolve().parents[2]
DOCS = ("README.md", "protocol.md")
ARENA = str(Path(sys.executable).with_name("arena"))
SAMPLE = REPO / "sample_bots"
TIMEOUT = 300


def blocks(name: str) -> list[tuple[str, int, str]]:
    """(language, first line number, text) of every code block: fenced, or indented by 4 spaces."""
    lines = (REPO / name).read_text(encoding="utf-8").splitlines()
    out: list[tuple[str, int, str]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            lang, start = line[3:].strip(), i + 1
            i += 1
            while not lines[i].startswith("```"):
                i += 1
            out.append((lang, start + 1, "\n".join(lines[start:i])))
        elif line.startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            start = i
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                i += 1
            out.append(("", start + 1, "\n".join(l[4:] for l in lines[start:i]).strip("\n")))
            continue
        i += 1
    return out


def command_lines(name: str) -> list[tuple[int, list[str]]]:
    """Every `arena ...` or `make ...` line of a code block, split like a shell would, comments dropped."""
    out = []
    for lang, first, text in blocks(name):
        if lang not in ("", "sh", "bash", "console"):
            continue
        for offset, line in enumerate(text.splitlines()):
            if line.split()[:1] in (["arena"], ["make"]):
                out.append((first + offset, shlex.split(line, comments=True)))
    return out


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def c_bot() -> Path:
    subprocess.run(["make", "-s", "sample_bots/c/random_bot"], cwd=REPO, check=True)
    return SAMPLE / "c" / "random_bot"


def stand_in(root: Path, word: str) -> None:
    """Make `word` (a path in a documented command, relative to `root`) exist: the sample bot it names,
    or a random sample bot of its language."""
    target = root / word
    if target.exists() or word.startswith("-") or not (word.endswith((".py", ".js")) or "/" in word):
        return
    if word.startswith("sample_bots/"):
        if not (root / "sample_bots").exists():
            (root / "sample_bots").symlink_to(SAMPLE)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if word.endswith(".py"):
        shutil.copy(SAMPLE / "python" / "random_bot.py", target)
        shutil.copy(SAMPLE / "python" / "arenabot.py", target.parent / "arenabot.py")
    elif word.endswith(".js"):
        shutil.copy(SAMPLE / "js" / "random_bot.js", target)


def shrink(config: dict[str, Any], out: Path) -> dict[str, Any]:
    """The same tournament, one game long, its results under `out`."""
    small = dict(config)
    small["schedule"] = {**(config.get("schedule") or {}), "rounds": 1, "rotations": "none"}
    small["output"] = {"store": str(out / "store.sqlite"), "replays": str(out / "replays")}
    small["time_control"] = {**(config.get("time_control") or {}), "decision_ms": 5000}
    small["concurrency"] = 1
    return small


def yaml_blocks() -> list[Any]:
    return [pytest.param(text, id=f"{name}:{first}") for name in DOCS for lang, first, text in blocks(name) if lang in ("yaml", "yml")]


@pytest.mark.parametrize("text", yaml_blocks())
def test_every_config_in_the_docs_validates_as_written_and_plays(text: str, tmp_path: Path, c_bot: Path) -> None:
    config = yaml.safe_load(text)
    folder = tmp_path / "cup" / "configs"
    folder.mkdir(parents=True)
    root = (folder / config.get("root", ".")).resolve()
    for entrant in config["entrants"]:
        command = entrant["command"]
        words = shlex.split(command) if isinstance(command, str) else [str(w) for w in command]
        for word in words:
            stand_in(root, word)
        if entrant.get("cwd"):
            (root / entrant["cwd"]).mkdir(parents=True, exist_ok=True)
    path = folder / "doc.yaml"
    path.write_text(text, encoding="utf-8")
    checked = run([ARENA, "validate", str(path)], cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    path.write_text(yaml.safe_dump(shrink(config, tmp_path / "out")), encoding="utf-8")
    played = run([ARENA, "run", "--quiet", str(path)], cwd=tmp_path)
    assert played.returncode == 0, played.stdout + played.stderr
    assert (tmp_path / "out" / "store.sqlite").is_file()


@pytest.mark.parametrize("path", sorted((REPO / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_config_validates_and_plays(path: Path, tmp_path: Path, c_bot: Path) -> None:
    checked = run([ARENA, "validate", str(path)], cwd=REPO)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    small = tmp_path / "configs" / path.name
    small.parent.mkdir()
    config = shrink(yaml.safe_load(path.read_text(encoding="utf-8")), tmp_path / "out")
    config["root"] = str(REPO)
    small.write_text(yaml.safe_dump(config), encoding="utf-8")
    played = run([ARENA, "run", "--quiet", str(small)], cwd=tmp_path)
    assert played.returncode == 0, played.stdout + played.stderr
    standings = run([ARENA, "standings", "--json", str(tmp_path / "out" / "store.sqlite")], cwd=tmp_path)
    table = json.loads(standings.stdout)
    assert table["games"] == table["scheduled"] >= 1
    assert [row["faults"] for row in table["standings"]] == [0] * len(table["standings"])  # its bots play its game


def sandbox(tmp_path: Path) -> Path:
    """A folder like the repository for a reader following the README: sample bots, configs (one game
    each, so the commands run fast), and `mybot.py`, the reader's own bot (a random bot here)."""
    box = tmp_path / "box"
    (box / "configs").mkdir(parents=True)
    (box / "sample_bots").symlink_to(SAMPLE)
    for path in (REPO / "configs").glob("*.yaml"):
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
        small = shrink(config, box / "out")
        small["output"] = {"store": (config.get("output") or {}).get("store", f"out/{path.stem}.sqlite")}
        (box / "configs" / path.name).write_text(yaml.safe_dump(small), encoding="utf-8")
    stand_in(box, "mybot.py")
    return box


def test_every_command_in_the_docs_runs(tmp_path: Path, c_bot: Path) -> None:
    box = sandbox(tmp_path)
    ran = []
    for name in DOCS:
        for line, words in command_lines(name):
            if words[0] == "make":  # `make test` is this suite, `make bench` minutes long: the target must exist
                result = run(["make", "-n", *words[1:]], cwd=REPO)
            else:
                for word in words[1:]:
                    stand_in(box, word)
                result = run([ARENA, *words[1:]], cwd=box)
            assert result.returncode == 0, f"{name}:{line}: {shlex.join(words)}\n{result.stdout}{result.stderr}"
            ran.append(words[:2])
    assert ["arena", "play"] in ran and ["arena", "run"] in ran and ["make", "demo"] in ran  # the extraction works


def inline_commands() -> list[Any]:
    found = []
    for name in DOCS:
        text = (REPO / name).read_text(encoding="utf-8")
        for match in re.finditer(r"`(arena [^`]+)`", text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(pytest.param(match.group(1), id=f"{name}:{line}:{match.group(1)}"))
    return found


@pytest.mark.parametrize("command", inline_commands())
def test_every_inline_command_names_a_real_subcommand_and_options(command: str) -> None:
    words = command.split()
    helped = run([ARENA, words[1], "--help"], cwd=REPO)
    assert helped.returncode == 0, f"`{command}`: no subcommand {words[1]!r}\n{helped.stderr}"
    for option in (w for w in words[2:] if w.startswith("-")):
        assert re.search(rf"(^|[\s,]){re.escape(option)}\b", helped.stdout), f"`{command}`: {words[1]} has no option {option}"


MESSAGE = re.compile(r"^(referee →|bot\s+←)\s+(\{.*\})\s*$")


def documented_messages() -> list[tuple[int, bool, dict[str, Any]]]:
    """(line, sent by the referee, message) of every complete message line in protocol.md's blocks."""
    out = []
    for lang, first, text in blocks("protocol.md"):
        for offset, line in enumerate(text.splitlines()):
            match = MESSAGE.match(line)
            if match and "…" not in line:
                out.append((first + offset, match.group(1).startswith("referee"), json.loads(match.group(2))))
    return out


def test_every_complete_message_in_protocol_md_matches_the_schema_and_the_engine() -> None:
    schema = json.loads((REPO / "arena" / "protocol" / "schema.json").read_text(encoding="utf-8"))
    from_bot = dict(schema, oneOf=[{"$ref": "#/$defs/botHello"}, {"$ref": "#/$defs/answer"}])
    messages = documented_messages()
    assert len(messages) >= 6  # the Kododo exchange is written out in full
    requests = 0
    name = "protocol.md"
    for line, by_referee, message in messages:
        try:
            jsonschema.validate(message, schema if by_referee else from_bot)
        except jsonschema.ValidationError as exc:
            raise AssertionError(f"{name}:{line}: {exc.message}") from None
        if message.get("type") == "request":
            requests += 1
            view = message["view"]
            seats = len(view["hand_sizes"]) if "hand_sizes" in view else 2
            engine = get_game(message["game"]).new_game(seats, None, 0).view(message["seat"])
            assert set(view) == set(engine), f"{name}:{line}: view members differ from the engine's: {sorted(set(view) ^ set(engine))}"
    assert requests >= 2


def game_section(name: str) -> str:
    text = (REPO / "protocol.md").read_text(encoding="utf-8")
    sections = [s for s in re.split(r"^## ", text, flags=re.M) if f"Game name `{name}`" in s]
    assert len(sections) == 1, f"protocol.md needs one section saying: Game name `{name}`"
    return sections[0]


@pytest.mark.parametrize("name", sorted(spec.name for spec in all_games()))
def test_every_view_member_and_event_of_a_game_is_documented_in_its_section(name: str) -> None:
    """Played at every player count: each view member, event kind and event field the engine produces
    is named in the game's protocol.md section (a member added to an engine without a word fails)."""
    spec = get_game(name)
    section = game_section(name)
    views, kinds, fields = set(), set(), set()
    for seats in range(spec.min_seats, spec.max_seats + 1):
        state = spec.new_game(seats, None, seats)
        rng = Rng(seats)
        while not state.is_over():
            views |= set(state.view(0))
            actions = {s: (lambda legal: legal[rng.below(len(legal))])(state.legal_actions(s)) for s in state.to_move()}
            for event in state.apply(actions):
                kinds.add(event.kind)
                fields |= set(event.data)
    named = lambda word: f"`{word}`" in section or f'"{word}"' in section  # noqa: E731
    assert [v for v in sorted(views) if not named(v)] == [], "view members not in protocol.md"
    assert [k for k in sorted(kinds) if not named(k)] == [], "event kinds not in protocol.md"
    assert [f for f in sorted(fields) if not named(f)] == [], "event fields not in protocol.md"
