"""Repeat a measurement and summarise it as median and range: one number hides the noise."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
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


def fmt(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.4f}"


def repeat(name: str, unit: str, measure: Callable[[], float], repeats: int) -> Figure:
    return Figure(name, unit, tuple(measure() for _ in range(repeats)))
