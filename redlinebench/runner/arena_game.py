"""One arena game (SPEC §8.1-8.5): seats, moves, the audit of each move, closing, the deal.

A move is a trial: the mover's agent gets the live document as its task's input, and the move is
audited against that input (gate and integrity audit, as ``run`` grades a trial). Move 1's input
is a dataset turn-1 input, so it is also graded as that task (``turn1_reward``). Each move is
made in ``<game>/.partial/move-NN`` and renamed to ``<game>/move-NN`` once its redline,
transcript, metrics, grade and ``move.json`` are written: a killed tournament keeps every finished
move and redoes the rest. ``game.json`` is written last, once the deal is judged.
"""

from __future__ import annotations

import shutil
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from ..errors import ConfigError, RedlineBenchError
from . import paths
from .arena_spec import ArenaSpec, GamePlan
from .atomic import publish_dir, read_json, write_json
from .scheduler import episode_metrics
from .spec import Entrant

GAMES = "games"
GAME = "game.json"
MOVE = "move.json"
INPUT = "input.docx"
AGREED = "agreed.docx"
PARTIAL = ".partial"
SEATS = ("first", "second")

#: A deal judge: ``async (task, agreed_docx, *, judges, judge_api_base, cache_dir, log_path) -> SideDeal``.
DealJudge = Callable[..., Any]


class GameStopped(Exception):
    """A game left unfinished (an errored episode, the spending cap): ``--resume`` continues it."""


def move_dir(game_dir: Path, t: int) -> Path:
    return game_dir / f"move-{t:02d}"


def other_side(side: str) -> str:
    return "B" if side == "A" else "A"


class ScenarioTasks:
    """The tasks of one scenario, and which one a mover gets (SPEC §8.1)."""

    def __init__(self, scenario: int, tasks: list[Any]) -> None:
        self.scenario = scenario
        mine = [t for t in tasks if int(t.scenario_id) == scenario]
        if not mine:
            raise ConfigError(f"scenario {scenario} has no task in the source")
        # per (turn, side): the first input group's variant a (else its first variant)
        self.by_turn: dict[tuple[int, str], Any] = {}
        for t in sorted(mine, key=lambda t: (int(t.turn), str(t.input_group), str(t.variant) != "a",
                                             str(t.variant))):
            self.by_turn.setdefault((int(t.turn), str(t.side).upper()), t)
        openers = [t for (turn, _), t in self.by_turn.items() if turn == 1]
        if not openers:
            raise ConfigError(f"scenario {scenario} has no turn-1 task, so no game can open on it")
        self.opening = openers[0]
        self.first_side = str(self.opening.side).upper()
        if not any(side != self.first_side for _, side in self.by_turn):
            raise ConfigError(f"scenario {scenario} has tasks of side {self.first_side} only; the second seat "
                              "would have no instruction or playbook")

    def side_of(self, seat: str) -> str:
        return self.first_side if seat == "first" else other_side(self.first_side)

    def task_for(self, side: str, t: int) -> Any:
        """The task of the latest turn <= t with this side (before the side's first turn: its first task)."""
        turns = sorted(turn for turn, s in self.by_turn if s == side)
        earlier = [turn for turn in turns if turn <= t]
        return self.by_turn[((earlier or turns)[-1], side)]


@dataclass
class ArenaContext:
    """What every game of a tournament shares."""

    root: Path
    spec: ArenaSpec
    agents: dict[str, Any]
    entrants: dict[str, Entrant]
    judges: list[Any]                       # rubric judges: move 1 is graded as its task
    scenarios: dict[int, ScenarioTasks]
    deal_judge: DealJudge
    cost_usd: float = 0.0
    errors: list[dict[str, Any]] = field(default_factory=list)
    stopped: str | None = None

    def over_budget(self) -> bool:
        cap = self.spec.max_cost
        if cap is not None and self.cost_usd >= cap:
            self.stopped = f"the spending cap of ${cap:g} was reached (${self.cost_usd:.4f} spent)"
            return True
        return False


def _cost(d: dict[str, Any] | None) -> float:
    try:
        return float((d or {}).get("cost_usd") or 0.0)
    except (TypeError, ValueError):
        return 0.0


async def play_game(ctx: ArenaContext, plan: GamePlan) -> dict[str, Any] | None:
    """Play (or finish) one game; its record, or None when it was left unfinished."""
    gdir = ctx.root / GAMES / plan.game_id
    done = read_json(gdir / GAME)
    if isinstance(done, dict) and done.get("outcome"):
        for t in range(1, int(done.get("moves") or 0) + 1):  # what the finished game spent counts toward the cap
            ctx.cost_usd += _cost(read_json(move_dir(gdir, t) / MOVE))
        return done
    shutil.rmtree(gdir / PARTIAL, ignore_errors=True)
    st = ctx.scenarios[plan.scenario]
    live = Path(st.opening.contract_path)
    outcome, closed_at, forfeit_by, played = "no_deal", None, None, 0
    try:
        for t in range(1, ctx.spec.max_turns + 1):
            seat = SEATS[(t - 1) % 2]
            label = plan.first if seat == "first" else plan.second
            mdir = move_dir(gdir, t)
            record = read_json(mdir / MOVE)
            if not (isinstance(record, dict) and (mdir / paths.GRADE).is_file()):
                if ctx.over_budget():
                    raise GameStopped(ctx.stopped)
                shutil.rmtree(mdir, ignore_errors=True)
                record = await make_move(ctx, plan, t, seat, label, st.task_for(st.side_of(seat), t), live, gdir)
            else:
                ctx.cost_usd += _cost(record)
            played = t
            if record["step"] == "forfeit":
                outcome, forfeit_by = "forfeit", seat
                break
            if record["step"] == "closed":
                outcome, closed_at = "closed", t
                break
            live = mdir / paths.REDLINE
    except GameStopped as exc:
        ctx.errors.append({"game_id": plan.game_id, "error": str(exc)})
        return None
    sides = await judge_sides(ctx, plan, st, gdir, outcome, closed_at)
    if sides is None:
        return None
    game: dict[str, Any] = {"game_id": plan.game_id, "dir": f"{GAMES}/{plan.game_id}", "scenario": plan.scenario,
                            "first": plan.first, "second": plan.second, "trial": plan.trial, "outcome": outcome,
                            "moves": played}
    if closed_at is not None:
        game["closed_at"] = closed_at
    if forfeit_by is not None:
        game["forfeit_by"] = forfeit_by
    game["sides"] = sides
    write_json(gdir / GAME, game)
    return game


async def make_move(ctx: ArenaContext, plan: GamePlan, t: int, seat: str, label: str, task: Any, live: Path,
                    gdir: Path) -> dict[str, Any]:
    """One move: the episode in a staging folder, its audit (and on move 1 its grade), then publish."""
    staging = gdir / PARTIAL / f"move-{t:02d}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    shutil.copyfile(live, staging / INPUT)
    # the mover's task, with the live document as its input; the golden redline belongs to move 1 only
    mover_task = replace(task, contract_path=staging / INPUT, golden_path=task.golden_path if t == 1 else None)
    metrics = await run_episode(ctx.agents[label], ctx.entrants[label], mover_task, plan.trial, staging)
    if metrics["status"] == "errored":
        err = str(metrics.get("error") or "the episode failed").strip().splitlines()
        ctx.cost_usd += _cost(metrics)
        raise GameStopped(f"move {t} by {label}: {err[-1] if err else 'errored'}")
    record = await audit_move(ctx, plan, t, seat, label, task, staging)
    record["cost_usd"] = round(_cost(metrics) + _cost((read_json(staging / paths.GRADE) or {}).get("usage")), 6)
    write_json(staging / MOVE, record)
    publish_dir(staging, move_dir(gdir, t))
    ctx.cost_usd += record["cost_usd"]
    return record


async def run_episode(agent: Any, entrant: Entrant, task: Any, trial: int, workdir: Path) -> dict[str, Any]:
    """The agent's episode in ``workdir`` and its metrics.json, exactly as a run's trial has them
    (plugin checks, error lines, a missing redline.docx is an error to retry, not a forfeit)."""
    metrics = await episode_metrics(agent, entrant, task, trial, workdir)
    write_json(workdir / paths.METRICS, metrics)
    return metrics


def _authored(doc: Any, author: str) -> "Counter[tuple[str, str]]":
    """(kind, text) of the author's tracked changes (not their paragraph ids: those shift when a
    paragraph before them is accepted or rejected away)."""
    revs = list(doc.revisions) + [r for _, r in doc.story_revisions()]
    return Counter((str(r.type), (r.text or "").strip()) for r in revs
                   if r.author == author and (r.text or "").strip())


def new_changes(doc: Any, original: Any, author: str) -> int:
    """Tracked changes with text by ``author`` in the output that its input did not hold, in every
    story (its pending changes of earlier moves do not count; comments and replies are no changes)."""
    return sum((_authored(doc, author) - _authored(original, author)).values())


async def audit_move(ctx: ArenaContext, plan: GamePlan, t: int, seat: str, label: str, task: Any,
                     staging: Path) -> dict[str, Any]:
    """Gate and integrity audit of the move against its own input; grade.json as a trial's.

    Move 1 is graded as its task by the rubric judges; a later move's input is no dataset state,
    so its grade.json records the audit only (``judge_method`` ``audit``, no rubric).
    """
    from ..judge import gate, grade_trial, open_output

    redline = staging / paths.REDLINE
    output = redline if redline.is_file() else None
    doc, _ = open_output(output)
    if t == 1:
        grade = await grade_trial(task, output, ctx.judges, model=label, trial=plan.trial, run_dir=ctx.root,
                                  trial_dir=staging, document=doc, original=staging / INPUT)
        gate_d = dict(grade.gate)
    else:
        checked = gate(output, task.author, document=doc, original=staging / INPUT)
        gate_d = checked.to_dict()
        write_move_grade(staging, task, label, plan.trial, t, checked, doc)
    passed = bool(gate_d.get("passed"))
    changes = 0
    if doc is not None and passed:
        from ..docx import RedlineDocument

        changes = new_changes(doc, RedlineDocument.open(staging / INPUT), task.author)
    step = "forfeit" if not passed else ("closed" if changes == 0 else "continue")
    return {"move": t, "seat": seat, "model": label, "task_id": task.task_id, "author": task.author,
            "gate": gate_d, "tracked_changes": changes, "step": step}


def write_move_grade(staging: Path, task: Any, label: str, trial: int, t: int, checked: Any, doc: Any) -> None:
    from ..scoring import TrialGrade, document_diagnostics, no_document_diagnostics

    grade = TrialGrade(task_id=task.task_id, model=label, trial=trial, scenario_id=int(task.scenario_id),
                       turn=int(task.turn), side=task.side, input_group=task.input_group, variant=task.variant,
                       status="graded" if checked.passed else "gate_failed", judge_method="audit", judges=[],
                       gate=checked.to_dict(), weighted=0.0,
                       diagnostics=document_diagnostics(doc, task.author) if doc is not None
                       else no_document_diagnostics(),
                       integrity=checked.integrity.to_dict() if checked.integrity is not None else None,
                       extra={"arena_move": t})
    grade.write(staging / paths.GRADE)


def accepted_copy(redline: Path, out: Path) -> None:
    """The agreed text: the closing move's output with every revision accepted."""
    from ..docx import RedlineDocument

    doc = RedlineDocument.open(redline)
    doc.accept()
    tmp = out.with_name(out.name + ".tmp")
    doc.save(tmp)
    tmp.replace(out)


def _issues(deal: Any) -> list[dict[str, Any]]:
    out = []
    for v in getattr(deal, "issues", None) or []:
        d = v if isinstance(v, dict) else {k: getattr(v, k, None) for k in ("issue", "level", "quote",
                                                                              "justification")}
        out.append({"issue": d.get("issue"), "level": d.get("level"), "quote": d.get("quote"),
                    "justification": d.get("justification")})
    return out


async def judge_sides(ctx: ArenaContext, plan: GamePlan, st: ScenarioTasks, gdir: Path, outcome: str,
                      closed_at: int | None) -> dict[str, Any] | None:
    """Each seat's utility, breach and issue levels (SPEC §8.4); None when judging was incomplete."""
    labels = {"first": plan.first, "second": plan.second}
    if outcome != "closed":
        return {seat: {"model": labels[seat], "utility": 0.0, "breach": False, "issues": []} for seat in SEATS}
    agreed = gdir / AGREED
    accepted_copy(move_dir(gdir, closed_at) / paths.REDLINE, agreed)  # type: ignore[arg-type]
    sides: dict[str, Any] = {}
    for seat in SEATS:
        task = st.task_for(st.side_of(seat), int(closed_at))  # type: ignore[arg-type]
        try:
            deal = await ctx.deal_judge(task, agreed, judges=ctx.spec.judges, judge_api_base=ctx.spec.judge_api_base,
                                        cache_dir=ctx.root / ".cache" / "arena",
                                        log_path=ctx.root / paths.AUDIT)
        except RedlineBenchError as exc:
            ctx.errors.append({"game_id": plan.game_id, "error": f"deal judge ({seat}): {exc}"})
            return None
        ctx.cost_usd += _cost(getattr(deal, "usage", None))
        if not getattr(deal, "complete", True):
            ctx.errors.append({"game_id": plan.game_id, "error": f"deal judging incomplete for the {seat} seat"})
            return None
        sides[seat] = {"model": labels[seat], "utility": round(float(deal.utility), 4), "breach": bool(deal.breach),
                       "issues": _issues(deal)}
    return sides
