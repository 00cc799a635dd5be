"""Where a tournament's games are played: a Dask scheduler's address, or a LocalCluster started here."""

from __future__ import annotations

from dataclasses import dataclass

from arena.errors import ArenaError


class ClusterError(ArenaError):
    """The cluster cannot play this tournament (no dask installed, unreachable, a worker that cannot start a bot)."""


@dataclass(frozen=True)
class ClusterSpec:
    """Where the games go: a scheduler address, or a LocalCluster of `local_workers` started here."""

    address: str | None = None
    local_workers: int | None = None

    @classmethod
    def parse(cls, text: str) -> "ClusterSpec":
        text = text.strip()
        if text.startswith("local:"):
            count = text.removeprefix("local:")
            if not count.isdigit() or int(count) < 1:
                raise ClusterError(f"--cluster {text!r}: write local:N with N a whole number of workers, e.g. local:2")
            return cls(local_workers=int(count))
        if "://" not in text:
            raise ClusterError(
                f"--cluster {text!r}: give a scheduler address such as tcp://10.0.0.5:8786, or local:N for N workers here"
            )
        return cls(address=text)

    def describe(self) -> str:
        return self.address if self.address is not None else f"a local cluster of {self.local_workers} workers"
