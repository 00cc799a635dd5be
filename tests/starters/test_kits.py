"""The starter kits (starters/): each kit's helper passes its own tests in its own language's runner,
and `arena new-bot LANG` then `arena check-bot GAME DIR` (built in the sandbox, as the server builds)
passes for every language and every game.

A missing toolchain fails these tests, naming what to install (`tools/system-deps` installs them for
`make test`); they never skip.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.build.languages import DEFAULTS, NAMES, by_name

GAMES = ("kododo", "kolpa", "kodama-duo", "kodama-draft")

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).with_name("arena"))
LANGUAGES = by_name(DEFAULTS)

# Each kit's own tests, as its README says, run in a fresh copy of the kit.
UNIT_TESTS: dict[str, list[list[str]]] = {
    "python": [[sys.executable, "-m", "unittest", "-v"]],
    "js": [["node", "--test", "test/"]],
    "c": [["make", "test"]],
    "cpp": [["make", "test"]],
    "rust": [["cargo", "test", "--offline"]],
    "go": [["go", "test", "./..."]],
    "java": [["javac", "-d", "test-classes", "src/Arena.java", "src/Json.java", "src/Main.java", "test/KitTest.java"],
             ["java", "-cp", "test-classes", "KitTest"]],
}
# The output that proves the runner ran the tests (not zero of them).
RAN = {"python": "Ran 2 tests", "js": "# pass 2", "c": "ok   start and end", "cpp": "ok   start and end",
       "rust": "7 passed", "go": "ok  \tbot/arena", "java": "ok   start and end"}


def require_tools(language: str) -> None:
    missing = LANGUAGES[language].missing()
    assert not missing, (f"the {language} kit needs {', '.join(missing)} in /usr/bin: run tools/system-deps --kits "
                         "(make test does), or install them with apt-get")


@pytest.mark.process
@pytest.mark.slow
@pytest.mark.parametrize("language", NAMES)
def test_kit_helper_passes_its_own_tests(language: str, tmp_path: Path) -> None:
    require_tools(language)
    kit = tmp_path / "kit"
    shutil.copytree(ROOT / "starters" / language, kit)
    out = ""
    for argv in UNIT_TESTS[language]:
        done = subprocess.run(argv, cwd=kit, capture_output=True, text=True, timeout=600,
                              env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path / "home"),
                                   "GOCACHE": str(tmp_path / "go-cache"), "GOPATH": str(tmp_path / "go-path"),
                                   "GOFLAGS": "-mod=mod", "CARGO_HOME": str(tmp_path / "cargo")})
        out += done.stdout + done.stderr
        assert done.returncode == 0, f"{' '.join(argv)} failed:\n{out}"
    assert RAN[language] in out, out


@pytest.fixture(scope="module")
def new_bots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`arena new-bot LANG kododo DIR` for every language."""
    base = tmp_path_factory.mktemp("new-bots")
    made = {}
    for language in NAMES:
        dest = base / f"my-{language}"
        done = subprocess.run([ARENA, "new-bot", language, "kododo", str(dest)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert (dest / "manifest.json").is_file() and (dest / "README.md").is_file()
        made[language] = dest
    return made


@pytest.mark.process
@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("language", NAMES)
def test_new_bot_passes_check_bot_in_the_sandbox(language: str, game: str, new_bots: dict[str, Path]) -> None:
    require_tools(language)
    folder = new_bots[language]
    done = subprocess.run([ARENA, "check-bot", game, str(folder), "--quick", "--sandbox", "--json"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"check-bot {game} {language}:\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    report = json.loads(done.stdout)
    assert report["sandbox"] is True
    assert all(check["status"] != "fail" for check in report["checks"]), report
