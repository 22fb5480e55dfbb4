"""The offline heuristic judge: rubric reading and verdicts on real redlines."""

from __future__ import annotations

import pytest

from redlinebench.docx import RedlineDocument
from redlinebench.judge import HeuristicJudge, create_judges
from redlinebench.judge._heuristic import clause_numbers, parse_rubric
from tests.judge.docs import AUTHOR, base_contract, redline
from tests.judge.doubles import FakeRubric, FakeTask


@pytest.mark.parametrize("criteria, verb, negated, clauses", [
    ("Rejects in Section 1.3 the inclusion of PCI-DSS Standards", "reject", False, ["1.3"]),
    ("Replaces in Section 1.4 unilateral protection with mutual protection", "replace", False, ["1.4"]),
    ("Deletes in Section 3.3.5 the warranty that the services are error free", "delete", False, ["3.3.5"]),
    ("Accepts the counterparty's change to Section 4.2", "accept", False, ["4.2"]),
    ("Does not agree to uncapped liability", "accept", True, []),
    ("Inserts in Sections 9.1 and 9.2 a cap", "insert", False, ["9.1"]),
    ("Strikes clause 12(b) entirely", "delete", False, ["12"]),
    ("Preserves the 12-month term in 13.1", "accept", False, ["13.1"]),
])
def test_parse_rubric(criteria, verb, negated, clauses):
    p = parse_rubric(criteria)
    assert (p.verb, p.negated) == (verb, negated)
    assert p.clauses[: len(clauses)] == clauses


def test_replacement_parts():
    p = parse_rubric("Replaces in Section 1.1 thirty (30) days with sixty (60) days")
    assert p.old == ["30", "30", "days"] or set(p.old) == {"30", "day"}
    assert set(p.new) == {"60", "day"}


def test_original_numbers_ignore_paragraphs_the_author_inserted():
    doc = redline()
    numbers = clause_numbers(doc, AUTHOR)
    # p-006 (inserted by the author) has no original number; the rest keep theirs
    assert numbers == [None, "1.1", "1.2", None, "1.3", None]


CASES = [
    ("Replaces in Section 1.1 thirty (30) days with sixty (60) days", "PASS", "FAIL"),
    ("Changes the payment term in Section 1.1 to sixty days", "PASS", "FAIL"),
    ("Rejects in Section 1.2 the counterparty's annual audit right", "PASS", "FAIL"),
    ("Deletes in Section 1.2 the audit right", "PASS", "FAIL"),
    ("Accepts the counterparty's audit right in Section 1.2", "FAIL", "PASS"),
    ("Inserts in Section 1.3 a carve-out preserving liability for fraud", "PASS", "FAIL"),
    ("Inserts in Section 1.1 a late-payment interest charge", "FAIL", "FAIL"),
    ("Preserves the liability cap in Section 1.3", "PASS", "PASS"),
    ("Does not delete the liability cap in Section 1.3", "PASS", "PASS"),
    ("Deletes in Section 1.3 the liability cap", "FAIL", "FAIL"),
]


@pytest.mark.parametrize("criteria, on_model, on_untouched", CASES)
def test_verdicts(criteria, on_model, on_untouched):
    judge = HeuristicJudge()
    assert judge.verdict(criteria, redline(), AUTHOR)[0] == on_model
    assert judge.verdict(criteria, RedlineDocument.open(base_contract()), AUTHOR)[0] == on_untouched


async def test_grade_is_deterministic_and_offline():
    task = FakeTask(author=AUTHOR, rubrics=tuple(FakeRubric(f"r{i}", c) for i, (c, _, _) in enumerate(CASES)))
    [judge] = create_judges("heuristic")
    doc = redline()
    first = await judge.grade(task, doc.annotated_view(focus_author=AUTHOR), doc)
    second = await judge.grade(task, "", redline())
    assert first.ok and first.method == "heuristic" and first.cost_usd == 0
    assert first.verdicts == second.verdicts
    assert [first.verdicts[f"r{i}"] for i in range(len(CASES))] == [m for _, m, _ in CASES]
    assert all(first.justifications.values())
    missing_doc = await judge.grade(task, "", None)
    assert not missing_doc.ok


# ---------------------------------------------------------------- what a Word reader sees (issue 22)
FRAUD = "Inserts in Section 1.3 a carve-out preserving liability for fraud"
CARVE = " This cap does not apply to liability for fraud (a carve-out)."


def _clause(insertion: str, untracked: str = "") -> RedlineDocument:
    from tests.docx.util import docx, ins, p, r_

    return RedlineDocument.open(docx(p(r_("1.2 Fees are due monthly.")) + p(r_("1.3 Liability is capped at fees."),
                                                                           ins(insertion, author=AUTHOR, rid=5),
                                                                           untracked)
                                     + p(r_("1.4 Term."))), name="t.docx")


@pytest.mark.parametrize("rpr", ["<w:vanish/>", '<w:color w:val="FFFFFF"/>', '<w:sz w:val="2"/>',
                                 "<w:specVanish/>", "<w:webHidden/>"])
def test_hidden_insertions_earn_nothing(rpr):
    judge = HeuristicJudge()
    visible = _clause(f"<w:r><w:t xml:space=\"preserve\">{CARVE}</w:t></w:r>")
    hidden = _clause(f"<w:r><w:rPr>{rpr}</w:rPr><w:t xml:space=\"preserve\">{CARVE}</w:t></w:r>")
    assert judge.verdict(FRAUD, visible, AUTHOR)[0] == "PASS"
    assert judge.verdict(FRAUD, hidden, AUTHOR)[0] == "FAIL"


def test_text_box_text_counts_when_tracked_and_visible():
    from tests.docx.test_annotated_grammar import _box
    from tests.docx.util import ins, p, r_

    judge = HeuristicJudge()
    tracked = _clause("<w:r><w:t>.</w:t></w:r>", untracked=_box(p(ins(r_(CARVE), author=AUTHOR, rid=9))))
    assert judge.verdict(FRAUD, tracked, AUTHOR)[0] == "PASS"
    whole_box = _clause(f"<w:r><w:t>.</w:t></w:r>" + _box(p(r_(CARVE))))   # the box is the tracked insertion
    assert judge.verdict(FRAUD, whole_box, AUTHOR)[0] == "PASS"
    untracked = _clause("<w:r><w:t>.</w:t></w:r>", untracked=_box(p(r_(CARVE))))
    assert judge.verdict(FRAUD, untracked, AUTHOR)[0] == "FAIL"
    hidden = _clause("<w:r><w:t>.</w:t></w:r>", untracked=_box(p(ins(f"<w:r><w:rPr><w:vanish/></w:rPr><w:t>{CARVE}</w:t></w:r>",
                                                            author=AUTHOR, rid=9))))
    assert judge.verdict(FRAUD, hidden, AUTHOR)[0] == "FAIL"
