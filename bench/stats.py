"""Repeat a measurement and summarise it as median and range: one number hides the noise."""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


@dataclass(frozen=True)
class Figure:
    name: str
    unit: str
    values: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def row(self) -> str:
        lo, hi = min(self.values), max(self.values)
        return f"| {self.name} | {fmt(self.median)} | {fmt(lo)} - {fmt(hi)} | {self.unit} | {len(self.values)} |"


def byte_compile(*folders: Path) -> None:
    """Byte-compile arena (and `folders`) as an installed package is: with PYTHONDONTWRITEBYTECODE set and
    no __pycache__, every process a bench starts would compile arena's sources again (tens of ms each)."""
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "arena"), *map(str, folders)],
                   check=True, stdout=subprocess.DEVNULL)


def fmt(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.4f}"


def repeat(name: str, unit: str, measure: Callable[[], float], repeats: int) -> Figure:
    return Figure(name, unit, tuple(measure() for _ in range(repeats)))


def write_section(path: Path, key: str, title: str, text: str) -> None:
    """Put `text` into the file between `<!-- key:begin -->` and `<!-- key:end -->` (appended if absent),
    so that each benchmark owns its section and `python -m bench` keeps the others."""
    begin, end = f"<!-- {key}:begin -->", f"<!-- {key}:end -->"
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    section = f"{begin}\n## {title}\n\n{text}\n{end}"
    if begin in old and end in old:
        new = old[: old.index(begin)] + section + old[old.index(end) + len(end) :]
    else:
        new = old.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(new, encoding="utf-8")


def marked_sections(text: str) -> list[str]:
    """Every `<!-- key:begin -->` ... `<!-- key:end -->` section of a file, in order."""
    return [m.group(0) for m in re.finditer(r"<!-- ([\w-]+):begin -->.*?<!-- \1:end -->", text, flags=re.S)]


def report(command: str, note: str, verdicts: list[str], figures: list[Figure]) -> str:
    """A benchmark's section: how it was run, its verdicts (a table's rows and remarks), its figures."""
    return "\n".join([
        f"Command: `{command}` ({note}).",
        "",
        *verdicts,
        "",
        "| figure | median | range | unit | repeats |",
        "|---|---|---|---|---|",
        *[f.row() for f in figures],
    ])
