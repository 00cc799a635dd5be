"""`arena verify` loads neither the server nor the live referee (issue 35, item 3).

Each probe is a fresh interpreter that runs `arena verify` through its CLI (the command group loads the
command's module when it is used, as `arena verify ...` does) and prints every module then loaded. The
control preloads the modules the old layout pulled in (the signer under `arena.server`, the verifier under
`arena.referee`), so the probe is seen to notice a server or a referee when one is loaded.
The layering itself is import-linter's contract in pyproject.toml; this checks what really runs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.audit.signing import load_or_create_key, public_pem, sign_replay
from arena.audit.verify import verify_replay

PROBE = """
import sys
for name in sys.argv[2].split(","):
    if name:
        __import__(name)
from click.testing import CliRunner
from arena.cli import main
result = CliRunner().invoke(main, ["verify", *sys.argv[3:]])
assert result.exit_code == 0, result.output
print(result.output.splitlines()[0])
print("\\n".join(sorted(sys.modules)))
"""

# What verifying must not load: the competition server and its web stack, the live referee (processes,
# pipes, the referee loop), the tournament runner and the report pages.
FORBIDDEN = ("arena.server", "arena.referee", "arena.tournament", "arena.web", "starlette", "uvicorn")


def loaded(preload: str, *args: str) -> tuple[str, set[str]]:
    out = subprocess.run([sys.executable, "-c", PROBE, "probe", preload, *args], capture_output=True, text=True,
                         check=True, timeout=60).stdout.splitlines()
    return out[0], set(out[1:])


def forbidden(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.startswith(FORBIDDEN))


def signed_copy(original: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of a replay with a server's signature record beside it, and that server's public key."""
    replay = tmp_path / "game.jsonl"
    replay.write_bytes(original.read_bytes())
    key = load_or_create_key(tmp_path / "server.key")
    report = verify_replay(replay)
    sign_replay(key, replay, "probe", 1, {"points": list(report.points), "ranks": list(report.ranks)})
    pub = tmp_path / "server.pub"
    pub.write_text(public_pem(key))
    return replay, pub


@pytest.mark.parametrize("control", [False, True], ids=["verify", "control-old-layout-preloaded"])
def test_arena_verify_loads_no_server_and_no_live_referee(games: dict[str, Path], control: bool) -> None:
    first, modules = loaded("arena.server,arena.referee.referee" if control else "", str(games["faults"]))
    assert first.startswith("ok: ")
    assert "arena.audit.verify" in modules and "arena.cli.verify" in modules  # the probe saw verify run
    if control:
        assert {"arena.server", "arena.referee.referee", "arena.referee.session"} <= set(forbidden(modules))
    else:
        assert forbidden(modules) == []


def test_arena_verify_of_a_signed_result_loads_no_server(games: dict[str, Path], tmp_path: Path) -> None:
    replay, pub = signed_copy(games["clean"], tmp_path)
    first, modules = loaded("", str(replay), "--key", str(pub))
    assert "signed by the key's server 'probe'" in first
    assert "arena.audit.signing" in modules and forbidden(modules) == []
