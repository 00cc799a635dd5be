"""A fresh venv with a game package installed by pip (as its users install it), arena reachable from it."""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
from pathlib import Path


class Venv:
    def __init__(self, folder: Path, module: str) -> None:
        self.folder, self.module = folder, module
        self.python = folder / "bin" / "python"
        self.arena = folder / "bin" / "arena"

    def run(self, *args: str, cwd: Path | None = None, ok: bool = True, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([str(self.arena), *args], capture_output=True, text=True, cwd=cwd, timeout=timeout)
        if ok:
            assert done.returncode == 0, f"arena {' '.join(args)}: {done.stdout}\n{done.stderr}"
        return done

    def package(self) -> Path:
        out = subprocess.run([str(self.python), "-c", f"import {self.module}; print({self.module}.HERE)"], capture_output=True, text=True, check=True)
        return Path(out.stdout.strip())


def fresh_venv_with(tmp: Path, package: Path, module: str) -> Venv:
    """A fresh venv that reaches arena (and its dependencies) through a .pth file, with the example
    built as a wheel and installed by pip, as a game's users install it."""
    env = Venv(tmp / "venv", module)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env.folder)], check=True)
    purelib = subprocess.run([str(env.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    ours = site.getsitepackages()[0]
    (Path(purelib) / "arena-dev.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    env.arena.write_text(f"#!{env.python}\nimport sys\nfrom arena.cli import main\nsys.argv[0] = 'arena'\nmain()\n")
    env.arena.chmod(0o755)
    wheels, source = tmp / "wheels", tmp / "source"
    shutil.copytree(package, source)  # a build writes into its source folder (egg-info, build/): not into the checkout's
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels),
                    str(source)], check=True, capture_output=True)
    wheel = next(wheels.glob("*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(env.python), "install", "--quiet", "--no-deps", "--no-index",
                    "--target", purelib, str(wheel)], check=True, capture_output=True)
    return env
