"""RunSpec: everything that defines a run, as names and numbers (never objects).

It is written to ``config.json`` and read back by ``--resume``, which rebuilds the same agents,
tasks and judges from it.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import InitVar, asdict, dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..agent.limits import AgentLimits
from ..errors import ConfigError
from ..tasks import parse_task_name

BASELINES = ("noop", "accept-all", "golden", "playbook")
AGENTS = ("llm", *BASELINES)
#: the agent of ``import outputs``: redlines read from a folder (``agent.outputs``)
OUTPUTS = "outputs"


@dataclass(frozen=True)
class Entrant:
    """One competitor of a run: an agent, and for ``llm`` the litellm model string.

    ``agent`` may also be ``outputs`` (``model`` is then the label, ``outputs`` the folder) or a
    plugin: an import path ``pkg.module:factory`` or a ``redlinebench.agents`` entry-point name,
    optionally with a ``model`` handed to its factory.
    """

    agent: str
    model: str | None = None
    outputs: str | None = None
    #: A plugin agent's own ``label`` (taken when the run starts, recorded so ``--resume`` keeps it).
    name: str | None = None

    @property
    def is_plugin(self) -> bool:
        return self.agent not in AGENTS and self.agent != OUTPUTS

    @property
    def label(self) -> str:
        """The ``model`` column of grades: the model string, the baseline's name, the imported
        folder's label, or a plugin's own ``label`` (else its name, with its model: ``name/model``)."""
        if self.agent in ("llm", OUTPUTS):
            return self.model  # type: ignore[return-value]
        if self.is_plugin and self.name:
            return self.name
        if self.is_plugin and self.model:
            return f"{self.agent}/{self.model}"
        return self.agent

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"agent": self.agent, "model": self.model, "label": self.label}
        if self.outputs is not None:
            d["outputs"] = self.outputs
        if self.name is not None:
            d["name"] = self.name
        return d


@dataclass(frozen=True)
class TaskFilter:
    """Which tasks a run selects. ``limit``: only the first N of the selection, spread over its
    scenario x turn cells (see :func:`stratified_first`): a smoke run, the same tasks every time."""

    task_ids: tuple[str, ...] = ()
    scenario: int | None = None
    turn: int | None = None
    side: str | None = None
    limit: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.task_ids, str):
            object.__setattr__(self, "task_ids", (self.task_ids,))
        else:
            object.__setattr__(self, "task_ids", tuple(self.task_ids))
        for name in ("scenario", "turn", "limit"):
            value = getattr(self, name)
            if value is None:
                continue
            try:
                number = int(value)
            except (TypeError, ValueError):
                raise ConfigError(f"{name} must be a whole number, got {value!r}") from None
            if number < 1 or (isinstance(value, float) and value != number):
                raise ConfigError(f"{name} must be a whole number of at least 1, got {value!r}")
            object.__setattr__(self, name, number)
        if self.side is not None:
            side = str(self.side).strip().upper()
            if side not in ("A", "B"):
                raise ConfigError(f"side must be A (vendor) or B (customer), got {self.side!r}")
            object.__setattr__(self, "side", side)

    def to_dict(self) -> dict[str, Any]:
        return {"task_ids": list(self.task_ids), "scenario": self.scenario, "turn": self.turn, "side": self.side,
                "limit": self.limit}

    def describe(self) -> str:
        """The filters that are set, for people: ``scenario 7, turn 2, side A`` (``no filter`` when none is)."""
        parts = []
        if self.task_ids:
            parts.append(("task " if len(self.task_ids) == 1 else "tasks ") + ", ".join(self.task_ids))
        if self.scenario is not None:
            parts.append(f"scenario {self.scenario}")
        if self.turn is not None:
            parts.append(f"turn {self.turn}")
        if self.side is not None:
            parts.append(f"side {self.side.upper()}")
        if self.limit is not None:
            parts.append(f"limit {self.limit}")
        return ", ".join(parts) or "no filter"

    def excludes_name(self, name: str) -> bool:
        """True when a task directory of this name is surely not selected, read from its name alone.

        A broken task has no metadata to filter on; its name still carries scenario and turn (the
        side is not in it, so a side filter excludes nothing by name).
        """
        if self.task_ids:
            return name not in self.task_ids
        parsed = parse_task_name(name)
        if parsed is None:
            return False
        scenario, turn = parsed[0], parsed[1]
        return ((self.scenario is not None and scenario != self.scenario)
                or (self.turn is not None and turn != self.turn))

    def matches(self, task: Any) -> bool:
        if self.task_ids and task.task_id not in self.task_ids:
            return False
        if self.scenario is not None and int(task.scenario_id) != self.scenario:
            return False
        if self.turn is not None and int(task.turn) != self.turn:
            return False
        if self.side is not None and str(task.side).upper() != self.side.upper():
            return False
        return True

    def select(self, tasks: Sequence[Any]) -> list[Any]:
        """The tasks this filter selects, in order, the limit applied last."""
        chosen = [t for t in tasks if self.matches(t)]
        return chosen if self.limit is None else stratified_first(chosen, self.limit)


def stratified_first(tasks: Sequence[Any], n: int) -> list[Any]:
    """The first ``n`` tasks taken round-robin over the scenario x turn cells (cells in
    :func:`spread_order`, tasks in their order within a cell): one task of every cell before a
    second of any, so a smoke run of 12 touches the whole grid, and one of 3 or 4 already spans every
    scenario or every turn. Deterministic (no seed): the same tasks on every run and machine."""
    cells: dict[tuple[int, int], list[Any]] = {}
    for task in tasks:
        cells.setdefault((int(task.scenario_id), int(task.turn)), []).append(task)
    queues = [cells[k] for k in spread_order(cells)]
    picked: set[int] = set()
    depth = 0
    while len(picked) < min(n, len(tasks)):
        for queue in queues:
            if depth < len(queue) and len(picked) < n:
                picked.add(id(queue[depth]))
        depth += 1
    return [t for t in tasks if id(t) in picked]


def spread_order(cells: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """(scenario, turn) cells ordered so each prefix is spread: next comes the cell whose scenario
    and turn were taken least so far (ties: lowest scenario, then turn). On the 3 x 4 grid:
    1-1, 2-2, 3-3, 1-4, ... (ascending order made ``--limit 3`` scenario 1 only, turns 1-3)."""
    left = sorted(set(cells))
    taken_s: dict[int, int] = {}
    taken_t: dict[int, int] = {}
    order = []
    while left:
        cell = min(left, key=lambda c: (taken_s.get(c[0], 0) + taken_t.get(c[1], 0), taken_s.get(c[0], 0), c))
        left.remove(cell)
        order.append(cell)
        taken_s[cell[0]] = taken_s.get(cell[0], 0) + 1
        taken_t[cell[1]] = taken_t.get(cell[1], 0) + 1
    return order


def available(tasks: Iterable[Any]) -> str:
    """What a task set offers to select, for an error about an empty selection:
    ``39 tasks: scenarios 1, 2, 3; turns 1, 2, 3, 4; sides A, B``."""
    tasks = list(tasks)
    def values(get: Any) -> str:
        return ", ".join(str(v) for v in sorted({get(t) for t in tasks}, key=str))
    return (f"{len(tasks)} tasks: scenarios {values(lambda t: int(t.scenario_id))}; "
            f"turns {values(lambda t: int(t.turn))}; sides {values(lambda t: str(t.side).upper())}")


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


#: What ``--resume`` may change: how fast to go and where the servers are (a local server restarted
#: on another port), never what is run. CLI options of the same names.
RESUMABLE_FIELDS = ("concurrency", "workers", "api_base", "judge_api_base")


@dataclass(frozen=True)
class RunSpec:
    entrants: tuple[Entrant, ...]
    source: str | None = None                  # as given; resolved + fingerprinted in config.json
    filter: TaskFilter = field(default_factory=TaskFilter)
    trials: int = 1
    concurrency: int = 4
    workers: int = 1                           # processes sharing the trials (runner.workers)
    judges: str = "panel"                      # as the CLI: panel | heuristic | none | a,b,c | file
    limits: AgentLimits = field(default_factory=AgentLimits)
    seed: int = 0
    api_base: str | None = None                # the model's endpoint (OpenAI-compatible servers)
    judge_api_base: str | None = None          # the judges' endpoint, when they are served locally too
    run_id: str = ""                           # "" -> a new id (or, via run(), the run folder's name)
    prompt_cache: bool = True                  # cache markers / stable prefixes (--no-prompt-cache: off)
    # The selection as the CLI spells it (RunSpec(scenario=1, limit=5)); folded into ``filter``.
    scenario: InitVar[int | None] = None
    turn: InitVar[int | None] = None
    side: InitVar[str | None] = None
    tasks: InitVar[Sequence[str] | str | None] = None
    limit: InitVar[int | None] = None

    def __post_init__(self, scenario: Any, turn: Any, side: Any, tasks: Any, limit: Any) -> None:
        given = {k: v for k, v in (("scenario", scenario), ("turn", turn), ("side", side), ("task_ids", tasks),
                                   ("limit", limit)) if v is not None}
        if given:
            if self.filter != TaskFilter():
                raise ConfigError("give the task selection either as filter=TaskFilter(...) or as "
                                  "scenario=/turn=/side=/tasks=/limit=, not both")
            object.__setattr__(self, "filter", TaskFilter(**given))
        elif isinstance(self.filter, Mapping):
            object.__setattr__(self, "filter", TaskFilter(**self.filter))
        # A generated id remembers it was not chosen, so run(spec, "runs/mine") can name the run
        # after its folder, as the CLI does.
        object.__setattr__(self, "_generated_id", not self.run_id)
        if not self.run_id:
            object.__setattr__(self, "run_id", new_run_id())
        if not self.entrants:
            raise ConfigError("a run needs at least one agent (--agent) or model (--model)")
        from ..agent.plugins import plausible_name

        for e in self.entrants:
            if e.agent == OUTPUTS and not (e.model and e.outputs):
                raise ConfigError("the outputs agent grades a folder of redlines: use `redlinebench import outputs DIR "
                                  "--label NAME` (from Python: runner.import_outputs); it needs a label and a folder")
            if e.is_plugin and not plausible_name(e.agent):
                raise ConfigError(f"unknown agent {e.agent!r} (known: {', '.join(AGENTS)}; or a plugin: an import "
                                  "path pkg.module:factory or a 'redlinebench.agents' entry-point name)")
            if e.agent == "llm" and not e.model:
                raise ConfigError("the llm agent needs --model (a litellm model string, e.g. openai/gpt-5.4-mini)")
        labels = [e.label for e in self.entrants]
        if len(set(labels)) != len(labels):
            raise ConfigError(f"the same model or agent is listed twice: {labels}")
        from .paths import slug

        slugs = [slug(x) for x in labels]
        if len(set(slugs)) != len(slugs):
            raise ConfigError(f"these models would share a trial directory ({', '.join(sorted(set(slugs)))}); "
                              "run them in separate runs")
        if self.trials < 1:
            raise ConfigError(f"--trials must be at least 1, got {self.trials}")
        if self.concurrency < 1:
            raise ConfigError(f"--concurrency must be at least 1, got {self.concurrency}")
        if self.workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {self.workers}")
        for option, url in (("--api-base", self.api_base), ("--judge-api-base", self.judge_api_base)):
            if url is not None and not re.match(r"https?://[^/\s]", url, re.IGNORECASE):
                raise ConfigError(f"{option} must be an http:// or https:// URL (e.g. http://localhost:8000/v1), "
                                  f"got {url!r}")
        if not re.fullmatch(r"[A-Za-z0-9._-]+", self.run_id):
            raise ConfigError(f"run id {self.run_id!r} may only contain letters, digits, '.', '_' and '-'")

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "entrants": [e.to_dict() for e in self.entrants],
            "source": self.source,
            "filter": self.filter.to_dict(),
            "trials": self.trials,
            "concurrency": self.concurrency,
            "workers": self.workers,
            "judges": self.judges,
            "limits": self.limits.to_dict(),
            "seed": self.seed,
            "api_base": self.api_base,
            "judge_api_base": self.judge_api_base,
            "prompt_cache": self.prompt_cache,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "config.json") -> "RunSpec":
        try:
            f = data.get("filter") or {}
            return cls(
                entrants=tuple(Entrant(e["agent"], e.get("model"), e.get("outputs"), e.get("name"))
                               for e in data["entrants"]),
                source=data.get("source"),
                filter=TaskFilter(tuple(f.get("task_ids") or ()), f.get("scenario"), f.get("turn"), f.get("side"),
                                  f.get("limit")),
                trials=int(data.get("trials", 1)),
                concurrency=int(data.get("concurrency", 4)),
                workers=int(data.get("workers", 1)),
                judges=str(data.get("judges", "heuristic")),
                limits=AgentLimits.from_mapping(data.get("limits"), where=where),
                seed=int(data.get("seed", 0)),
                api_base=data.get("api_base"),
                judge_api_base=data.get("judge_api_base"),
                run_id=str(data["run_id"]),
                prompt_cache=bool(data.get("prompt_cache", True)),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ConfigError(f"not a run configuration this version can resume ({exc!r})", path=where) from None

    def replace(self, **changes: Any) -> "RunSpec":
        data = {**asdict(self), **changes}
        data["entrants"] = tuple(Entrant(**{k: v for k, v in e.items() if k != "label"}) if isinstance(e, dict) else e
                                 for e in data["entrants"])
        if isinstance(data["filter"], dict):
            data["filter"] = TaskFilter(**data["filter"])
        if isinstance(data["limits"], dict):
            data["limits"] = AgentLimits(**data["limits"])
        out = RunSpec(**data)
        if "run_id" not in changes:
            object.__setattr__(out, "_generated_id", self._generated_id)
        return out


# The selection keywords read back as the filter's values (``spec.scenario`` is ``spec.filter.scenario``).
for _name, _field in (("scenario", "scenario"), ("turn", "turn"), ("side", "side"), ("tasks", "task_ids"),
                      ("limit", "limit")):
    setattr(RunSpec, _name, property(lambda self, _f=_field: getattr(self.filter, _f)))
