"""Zero false positives on other engines' honest redlines (issue 29): docx-redline, jubarte-redlines and adeu
each redlined one embedded input per scenario x turn (``benchmarks/peer_redlines.py`` wrote them; the peers are
never our dependency, so their outputs are kept as files). Each holds a tracked replacement, a deletion, an
insertion and a comment by the task's author; the audit must find nothing, as written and after a python-docx
open-and-save, and the gate must pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redlinebench.docx import RedlineDocument
from redlinebench.judge import gate
from redlinebench.tasks import load_tasks

from .integrity_util import python_docx_roundtrip, run_audit

PEERS = Path(__file__).resolve().parents[1] / "fixtures" / "peers"
MANIFEST = json.loads((PEERS / "manifest.json").read_text())


@pytest.fixture(scope="module")
def tasks():
    return load_tasks("embedded")


def test_every_engine_and_cell_is_covered():
    engines = {m["engine"] for m in MANIFEST}
    assert engines == {"docx-redline", "jubarte", "adeu"}
    assert len({m["task_id"] for m in MANIFEST}) >= 10 and len(MANIFEST) >= 30


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda m: m["file"].removesuffix(".docx"))
def test_peer_redline_is_clean_and_passes_the_gate(entry, tasks):
    task = tasks[entry["task_id"]]
    source = Path(task.contract_path).read_bytes()
    output = (PEERS / entry["file"]).read_bytes()
    doc = RedlineDocument.open(output)
    own = [r for r in doc.revisions if r.author == entry["author"]]
    assert {str(getattr(r.type, "value", r.type)) for r in own} >= {"ins", "del"}, "the fixture must hold the author's tracked edits"
    assert [f.to_dict() for f in run_audit(source, output, entry["author"]).findings] == []
    assert [f.to_dict() for f in run_audit(source, python_docx_roundtrip(output), entry["author"]).findings] == []
    result = gate(output, entry["author"], original=source)
    assert result.passed, result.reason
