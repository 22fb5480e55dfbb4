"""Zero false positives of the integrity audit on legitimate outputs (SPEC §5.1): shipped goldens,
judge-check documents, the baselines and scripted sessions of the engine's tools, as written and
after an open-and-save by python-docx and by LibreOffice. ``benchmarks/integrity.py`` runs the
whole set; here one task per scenario x turn keeps CI fast."""

from __future__ import annotations

import re

import pytest

from redlinebench.tasks import load_tasks

from .integrity_util import legitimate_corpus, python_docx_roundtrip, run_audit


@pytest.fixture(scope="module")
def corpus():
    seen, tasks = set(), []
    for task in load_tasks("embedded"):
        if (task.scenario_id, task.turn) not in seen:
            seen.add((task.scenario_id, task.turn))
            tasks.append(task)
    return legitimate_corpus(tasks)


def _findings(items):
    found = {name: [f.to_dict() for f in run_audit(src, out, author).findings] for name, src, out, author in items}
    return {name: hits for name, hits in found.items() if hits}


def test_legitimate_outputs_have_no_finding(corpus):
    assert len(corpus) > 60
    assert _findings(corpus) == {}


def test_python_docx_open_and_save_adds_no_finding(corpus):
    assert _findings([(n, s, python_docx_roundtrip(o), a) for n, s, o, a in corpus]) == {}


@pytest.mark.libreoffice
def test_libreoffice_open_and_save_adds_no_finding(corpus, soffice, tmp_path):
    from tests.fixtures.libreoffice import round_trip_docx

    chosen = [item for item in corpus if re.search(r"(golden|scripted|accept-all|judge-check reverse)$", item[0])]
    stems = {f"doc{i:03d}": item for i, item in enumerate(chosen)}
    saved = round_trip_docx(soffice, {stem: item[2] for stem, item in stems.items()}, tmp_path)
    assert _findings([(item[0], item[1], saved[stem], item[3]) for stem, item in stems.items()]) == {}
