"""ArenaSpec: what defines a tournament (SPEC §8), as names and numbers, and its plan of games.

Written to ``arena_spec.json`` and read back by ``--resume``. Players are given as ``run`` gives
entrants (``Entrant``: models, baselines, plugins); the agent settings are a :class:`RunSpec`'s,
so agents, key checks and endpoints are built by the same code as a run's.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any, Mapping, Sequence

from ..agent.limits import AgentLimits
from ..errors import ConfigError
from .spec import Entrant, RunSpec

#: What ``--resume`` may change: how fast to go, the spending cap and where the servers are.
ARENA_RESUMABLE = ("concurrency", "max_cost", "api_base", "judge_api_base")


def game_slug(label: str) -> str:
    """A player label in a game id: lower-cased, every character outside ``[a-z0-9.-]`` -> ``-``."""
    return re.sub(r"[^a-z0-9.-]", "-", label.lower())


@dataclass(frozen=True)
class GamePlan:
    """One game of the tournament: scenario, the two seats' labels, the trial."""

    scenario: int
    first: str
    second: str
    trial: int

    @property
    def game_id(self) -> str:
        return f"s{self.scenario}-{game_slug(self.first)}-vs-{game_slug(self.second)}-t{self.trial}"


@dataclass(frozen=True)
class ArenaSpec:
    players: tuple[Entrant, ...]
    scenarios: tuple[int, ...] = ()          # () = every scenario of the source
    max_turns: int = 6
    trials: int = 1
    judges: str = "panel"                    # as RunSpec.judges: panel | heuristic | a,b,c | file
    source: str | None = None
    concurrency: int = 2                     # games at once; the moves of a game run in order
    max_cost: float | None = None            # no new move is started once this much is spent (USD)
    limits: AgentLimits = field(default_factory=AgentLimits)
    seed: int = 0
    api_base: str | None = None
    judge_api_base: str | None = None
    prompt_cache: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "scenarios", tuple(sorted({_whole("--scenario", s) for s in self.scenarios})))
        if len(self.players) < 2:
            raise ConfigError("an arena needs at least two players (--model/--agent, repeatable)")
        self.run_spec()  # the entrant, label and endpoint checks of a run
        labels = [p.label for p in self.players]
        slugs = [game_slug(x) for x in labels]
        if len(set(slugs)) != len(slugs):
            raise ConfigError(f"these players would share game ids ({', '.join(labels)}); give distinct names")
        if self.max_turns < 1:
            raise ConfigError(f"--max-turns must be at least 1, got {self.max_turns}")
        if self.trials < 1:
            raise ConfigError(f"--trials must be at least 1, got {self.trials}")
        if self.concurrency < 1:
            raise ConfigError(f"--concurrency must be at least 1, got {self.concurrency}")
        if self.max_cost is not None and not self.max_cost > 0:
            raise ConfigError(f"--max-cost must be a positive number of USD, got {self.max_cost}")
        if self.judges.strip().lower() == "none":
            raise ConfigError("the arena judges every deal: --judges must name judges (panel, heuristic, a,b,c "
                              "or a YAML file), not none")

    @property
    def labels(self) -> list[str]:
        return [p.label for p in self.players]

    def run_spec(self) -> RunSpec:
        """The agent side of the tournament as a RunSpec (agents, key checks, judges are built from it)."""
        return RunSpec(entrants=self.players, source=self.source, judges=self.judges, limits=self.limits,
                       seed=self.seed, api_base=self.api_base, judge_api_base=self.judge_api_base,
                       prompt_cache=self.prompt_cache, run_id="arena")

    def games(self, scenarios: Sequence[int]) -> list[GamePlan]:
        """Every pairing of players on every scenario, both seat orders, times ``trials`` (SPEC §8.6)."""
        out = []
        for s in scenarios:
            for k in range(1, self.trials + 1):
                for a, b in combinations(self.labels, 2):
                    out += [GamePlan(int(s), a, b, k), GamePlan(int(s), b, a, k)]
        return out

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["players"] = [p.to_dict() for p in self.players]
        d["scenarios"] = list(self.scenarios)
        d["limits"] = self.limits.to_dict()
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "arena_spec.json") -> "ArenaSpec":
        try:
            kw = {k: data[k] for k in ("max_turns", "trials", "judges", "source", "concurrency", "max_cost", "seed",
                                       "api_base", "judge_api_base", "prompt_cache") if k in data}
            return cls(players=tuple(Entrant(p["agent"], p.get("model"), p.get("outputs")) for p in data["players"]),
                       scenarios=tuple(data.get("scenarios") or ()),
                       limits=AgentLimits.from_mapping(data.get("limits"), where=where), **kw)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ConfigError(f"not an arena specification this version can resume ({exc!r})", path=where) from None

    def replace(self, **changes: Any) -> "ArenaSpec":
        data = {f: getattr(self, f) for f in self.__dataclass_fields__}
        data.update(changes)
        return ArenaSpec(**data)


def _whole(option: str, value: Any) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{option} must be a whole number, got {value!r}") from None
    if n < 1 or (isinstance(value, float) and value != n):
        raise ConfigError(f"{option} must be a whole number of at least 1, got {value!r}")
    return n
