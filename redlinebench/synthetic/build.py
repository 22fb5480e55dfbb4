"""Build the embedded synthetic benchmark: sources in, Harbor task tree out.

The negotiation tree is played in turn order. Turn 1 of every scenario starts from the rendered
template; the input of a later group is its parent's golden, re-authored under the parent
attorney's own name (``Priya Raman (AgentCo Legal)``) so that only the current task's changes
carry ``Reviewing Counsel``. Everything is deterministic (fixed dates, counters, sorted output),
so a rebuild is byte-identical, and the tree is written to a temporary sibling directory and
moved into place only when complete.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .._atomic import atomic_replace_dir
from ..errors import RedlineBenchError
from .judgecheck import Case, cases, expected_verdicts
from .negotiate import Applied, play, reviewing_author, turn_date
from ..tasks._positions import agreed_paragraphs
from .positions import golden_problems, move_problems, positions_json, render_playbook, template_headings
from .render import render_contract
from .sources import GroupSpec, ScenarioSpec, Script, SourceError, VariantSpec, load_sources
from .writer import DOCKERFILE, TEST_SH, instruction, metadata, rubrics_json, task_name, task_toml

#: Where the reviewable sources live in a source checkout.
SOURCES_DIR = Path(__file__).resolve().parents[2] / "data" / "synthetic"
#: Where the built tree ships inside the package.
PACKAGED_DIR = Path(__file__).resolve().parents[1] / "_data" / "benchmark"


@dataclass
class BuildReport:
    out: Path
    tasks: list[str] = field(default_factory=list)
    input_groups: Counter = field(default_factory=Counter)
    accept_only: list[str] = field(default_factory=list)
    judge_cases: int = 0
    bytes_written: int = 0

    def summary(self) -> str:
        multi = sum(1 for n in self.input_groups.values() if n >= 2)
        return (f"{len(self.tasks)} tasks in {len(self.input_groups)} input groups ({multi} with 2+ variants), "
                f"{len(self.accept_only)} accept-only, {self.judge_cases} judge-check cases, "
                f"{self.bytes_written / 1e6:.2f} MB -> {self.out}")


class _Writer:
    def __init__(self, root: Path, report: BuildReport) -> None:
        self.root = root
        self.report = report

    def write(self, rel: str, data: bytes | str, *, executable: bool = False) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        raw = data.encode("utf-8") if isinstance(data, str) else data
        path.write_bytes(raw)
        os.chmod(path, 0o755 if executable else 0o644)
        self.report.bytes_written += len(raw)


def _grounding_name(party: str) -> str:
    return f"{party.lower()}_playbook.md"


def _check_golden_truth(group: GroupSpec, variant: VariantSpec, script: Script) -> None:
    verdicts = expected_verdicts(variant, (o.id for o in script.ops))
    wrong = [
        f"{group.path}: variant {variant.letter}: rubric {r.id} ({w:+d}) would be {verdicts[r.id]} on the "
        f"{'golden' if script.is_golden else 'reference'}"
        for r, w in variant.rubrics
        if (verdicts[r.id] == "PASS") != (w > 0)
    ]
    if wrong:
        raise SourceError(wrong)


class _Scenario:
    """Plays one scenario's tree and writes its tasks."""

    def __init__(self, spec: ScenarioSpec, out: _Writer) -> None:
        self.spec = spec
        self.out = out
        self.negotiators = {s: spec.party(s).negotiator for s in ("A", "B")}
        self.inputs: dict[str, bytes] = {}        # group name -> agent-side input
        self.handoff: dict[str, bytes] = {}       # script key -> the redline as the next turn receives it
        self.played: dict[tuple[str, str, tuple[str, ...]], Applied] = {}
        self.template_text: list[tuple[str, str]] = []   # (clause number, text) of the clean template
        self.states: list[tuple[str, list[tuple[str, str]]]] = []   # agreed text of the template and each golden

    def _applied(self, script: Script, ops, source: bytes, author: str) -> Applied:
        key = (script.key, author, tuple(o.id for o in ops))
        if key not in self.played:
            label = f"s{self.spec.id}/{script.key}"
            self.played[key] = play(self.spec, script, ops, source, author=author, label=label,
                                    author_of_side=self.negotiators)
        return self.played[key]

    def _play(self, script: Script, ops, source: bytes, author: str) -> bytes:
        return self._applied(script, ops, source, author).data

    def run(self) -> None:
        template = render_contract(self.spec)
        headings = template_headings(self.spec)
        self.template_text = agreed_paragraphs(template, headings)
        self.states = [("template", self.template_text)]
        problems: list[str] = []
        for group in self.spec.groups:   # the goldens first: every task's moves come from the whole tree
            source = template if group.turn == 1 else self.handoff[group.parent or ""]
            self.inputs[group.name] = source
            side = self.spec.side_of(group.turn)
            for key, script in sorted(group.scripts.items()):
                if script.is_golden:
                    self.handoff[key] = self._play(script, script.ops, source, self.negotiators[side])
                    problems += golden_problems(self.spec, key, self.handoff[key], self.template_text)
                    self.states.append((key, agreed_paragraphs(self.handoff[key], headings)))
        problems += move_problems(self.spec, self.template_text, self.states)
        if problems:
            raise SourceError(problems)
        for group in self.spec.groups:
            for variant in group.variants:
                self._task(group, variant, self.inputs[group.name])

    def _task(self, group: GroupSpec, variant: VariantSpec, source: bytes) -> None:
        spec = self.spec
        side = spec.side_of(group.turn)
        party = spec.party(side).name
        author = reviewing_author(party)
        script = group.scripts[variant.script_key]
        _check_golden_truth(group, variant, script)
        meta = metadata(spec, group, variant, author)
        name = meta["task_id"]
        base = f"tasks/{name}"
        report = self.out.report
        report.tasks.append(name)
        report.input_groups[meta["input_group"]] += 1
        grounding = {
            _grounding_name(party): render_playbook(spec.playbooks[side], spec.positions[side]),
            "commercial_context.md": spec.context,
        }
        w = self.out.write
        w(f"{base}/task.toml", task_toml(meta, has_golden=script.is_golden, accept_only=group.accept_only))
        w(f"{base}/instruction.md", instruction(spec, group, author, sorted(grounding)))
        w(f"{base}/environment/Dockerfile", DOCKERFILE)
        w(f"{base}/environment/app/contract.docx", source)
        for fname, text in sorted(grounding.items()):
            w(f"{base}/environment/app/grounding/{fname}", text)
        w(f"{base}/tests/rubrics.json", rubrics_json(meta, variant))
        w(f"{base}/tests/test.sh", TEST_SH, executable=True)
        w(f"{base}/tests/positions.json",
          json.dumps(positions_json(spec, side, self.template_text, self.states), indent=2, ensure_ascii=False) + "\n")
        applied = self._applied(script, script.ops, source, author)
        golden = applied.data
        calls = {
            "task_id": name,
            "author": author,
            "date": turn_date(spec, group.turn).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "note": "the golden (or accept-only reference) as tool calls on environment/app/contract.docx; "
                    "replaying them in a ToolSession with this author and date reproduces it byte for byte",
            "calls": list(applied.calls),
        }
        w(f"{base}/tests/judge_check/golden_calls.json", json.dumps(calls, indent=2, ensure_ascii=False) + "\n")
        if script.is_golden:
            w(f"{base}/tests/attorney_redlines.docx", golden)
            golden_rel = "../attorney_redlines.docx"
        else:
            report.accept_only.append(name)
            w(f"{base}/tests/judge_check/reference.docx", golden)
            golden_rel = "reference.docx"
        self._judge_check(base, meta, variant, script, source, author, golden_rel)

    def _judge_check(self, base: str, meta: dict, variant: VariantSpec, script: Script, source: bytes,
                     author: str, golden_rel: str) -> None:
        entries = []
        for case in cases(script, variant):
            if case.name == "golden":
                rel = golden_rel
            else:
                rel = f"{case.name}.docx"
                self.out.write(f"{base}/tests/judge_check/{rel}", self._play(script, case.ops, source, author))
            entries.append(self._entry(case, rel, variant))
        entries.insert(1, {
            "name": "null",
            "description": "the input returned unchanged: no change or comment by the task author",
            "file": "../../environment/app/contract.docx",
            "gate": False,
            "ops": [],
            "removed_ops": [o.id for o in script.ops],
            "added_ops": [],
            "verdicts": expected_verdicts(variant, ()),
        })
        self.out.report.judge_cases += len(entries)
        body = {
            "task_id": meta["task_id"],
            "author": author,
            "golden_kind": "attorney" if script.is_golden else "reference (accept-only task; no attorney golden)",
            "rule": "verdict = PASS iff every op in requires is present and no op in unless is present. "
                    "Files are relative to this directory. Cases with gate false fail the validity gate "
                    "(reward 0 without judges); their verdicts are what a judge should still answer.",
            "ground_truth": {
                r.id: {"requires": list(r.requires), "unless": list(r.unless), "weight": wgt}
                for r, wgt in variant.rubrics
            },
            "ops": {o.id: _describe(o) for o in script.ops + script.violations},
            "cases": entries,
        }
        self.out.write(f"{base}/tests/judge_check/expected.json", json.dumps(body, indent=2, ensure_ascii=False) + "\n")

    @staticmethod
    def _entry(case: Case, rel: str, variant: VariantSpec) -> dict:
        return {
            "name": case.name,
            "description": case.description,
            "file": rel,
            "gate": bool(case.ops),
            "ops": [o.id for o in case.ops],
            "removed_ops": list(case.removed),
            "added_ops": list(case.added),
            "verdicts": expected_verdicts(variant, case.present),
        }


def _describe(op) -> str:
    place = (f"Section {op.clause}" if op.clause else f"table after Section {op.cell[0]}, row {op.cell[1]}, "
             f"column {op.cell[2]}" if op.cell else op.where or f"reply to {op.to}")
    what = {
        "replace": f"replace \u201c{op.text}\u201d with \u201c{op.new_text}\u201d",
        "delete": f"delete \u201c{op.text}\u201d",
        "insert": f"insert \u201c{(op.new_text or '').strip()}\u201d after \u201c{op.after}\u201d",
        "add_clause": f"add a new paragraph \u201c{op.new_text}\u201d",
        "comment": f"comment \u201c{op.comment}\u201d",
        "reply": f"reply \u201c{op.comment}\u201d",
    }[op.op]
    return f"{place}: {what}"


def build_synthetic(out: str | Path, sources: str | Path | None = None) -> BuildReport:
    """Write the whole task tree under ``out`` (``out/tasks/...``), replacing a previous build."""
    out = Path(out)
    src = Path(sources) if sources is not None else SOURCES_DIR
    if not src.is_dir():
        raise RedlineBenchError("synthetic sources not found; run from a source checkout or pass --sources DIR",
                                path=src)
    scenarios = load_sources(src)
    if out.exists() and not out.is_dir():
        raise RedlineBenchError("exists and is not a directory", path=out)
    if out.is_dir() and any(out.iterdir()) and not (out / "tasks").is_dir():
        raise RedlineBenchError("is not empty and does not hold a previous build (no tasks/); refusing to replace it",
                                path=out)
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        report = BuildReport(out=out)
        writer = _Writer(stage, report)
        for spec in scenarios:
            _Scenario(spec, writer).run()
        manifest = {
            "name": "redlinebench-synthetic",
            "description": "Embedded synthetic RedlineBench: three negotiations between AgentCo, LargeCo and GiantCo "
                           "in the Harbor task layout, with golden redlines, rubrics and a judge-check set.",
            "license": "CC-BY-4.0",
            "tasks": len(report.tasks),
            "input_groups": len(report.input_groups),
            "accept_only": sorted(report.accept_only),
            "scenarios": {str(s.id): s.label for s in scenarios},
        }
        writer.write("benchmark.json", json.dumps(manifest, indent=2) + "\n")
        atomic_replace_dir(stage, out)
        os.chmod(out, 0o755)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return report


__all__ = ["BuildReport", "PACKAGED_DIR", "SOURCES_DIR", "build_synthetic"]
