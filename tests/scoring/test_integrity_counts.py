"""Leaderboard integrity counts (SPEC §5.1): fatal findings and flags are counted per model, 0 when none."""

from __future__ import annotations

import json

from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.scoring import integrity_counts, summarize
from tests.scoring.test_aggregate import grade
from tests.scoring.test_cli_summarize import write_grades

UNTRACKED = {"kind": "untracked_change", "severity": "fatal", "paragraph_id": "p-012",
             "detail": "'twelve (12) months' became 'three (3) months' without a tracked change"}
SILENT = {"kind": "silent_reject", "severity": "flag", "paragraph_id": "p-020",
          "detail": "Acme's insertion 'USD 3,000,000' removed without a tracked change"}


def audited(g, *findings):
    fatal = [f for f in findings if f["severity"] == "fatal"]
    g["integrity"] = {"passed": not fatal, "version": "integrity-v1", "findings": list(findings)}
    if fatal:
        g["gate"] = {"passed": False, "reason": f"integrity: {fatal[0]['kind']} in {fatal[0]['paragraph_id']}"}
        g["status"] = "gate_failed"
        g["score"]["weighted"] = 0.0
    return g


def grades():
    return [
        audited(grade("redline-s1-t2-g01a", 1, 0.0, model="cheat"), UNTRACKED, SILENT),
        audited(grade("redline-s1-t2-g01a", 2, 0.5, model="cheat"), SILENT),
        audited(grade("redline-s1-t2-g01a", 3, 0.4, model="cheat")),
        audited(grade("redline-s1-t2-g01a", 1, 0.6, model="honest")),
        grade("redline-s1-t2-g01a", 1, 0.3, model="old"),  # written before the audit: never audited
    ]


def test_every_entry_counts_failures_and_flags_and_zero_when_none():
    summary = summarize(grades())
    entries = {e["model"]: e for e in summary["leaderboard"]}
    assert (entries["cheat"]["n_integrity_failures"], entries["cheat"]["n_integrity_flags"]) == (1, 1)
    assert entries["cheat"]["n_gate_failures"] == 1
    for model in ("honest", "old"):
        assert (entries[model]["n_integrity_failures"], entries[model]["n_integrity_flags"]) == (0, 0)
    assert (summary["n_integrity_failures"], summary["n_integrity_flags"]) == (1, 1)


def test_a_gate_failure_for_another_reason_is_not_an_integrity_failure():
    g = grade("redline-s1-t2-g01a", 1, 0.0, model="m", gate=False)
    assert integrity_counts([g]) == {"n_integrity_failures": 0, "n_integrity_flags": 0}


def test_summarize_prints_the_counts_only_when_some_model_has_them(tmp_path):
    write_grades(tmp_path / "a", grades())
    result = CliRunner().invoke(main, ["summarize", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    assert "integrity fail" in result.output and "integrity flags" in result.output
    assert "cheat: integrity audit: 1 trial(s) failed the gate on a fatal finding, 1 graded with flags" \
        in result.output
    clean = [g for g in grades() if g["model"] != "cheat"]
    write_grades(tmp_path / "b", clean)
    result = CliRunner().invoke(main, ["summarize", str(tmp_path / "b"), "--json"])
    assert result.exit_code == 0, result.output
    assert "integrity" not in CliRunner().invoke(main, ["summarize", str(tmp_path / "b")]).output
    entry = json.loads(result.output)["leaderboard"][0]
    assert entry["n_integrity_failures"] == 0 and entry["n_integrity_flags"] == 0
