"""Render a scenario's template contract (``contract.yaml``) as a clean Word document.

Numbered clauses use one real multi-level list (``1.`` / ``1.1``), so clause numbers come from
``numbering.xml`` exactly as in a Word-drafted contract; tables are real ``w:tbl`` elements whose
cells the agent can edit; inline clause headings ("Availability.") are bold runs. The output is
deterministic: same sources, same bytes.
"""

from __future__ import annotations

import re
from datetime import timedelta

from ..docx.build import DocumentBuilder, Run
from .sources import ClauseSpec, ScenarioSpec

#: "Availability. Provider shall ..." -> bold "Availability." (short, capitalised, no quotes)
_INLINE_HEADING = re.compile(r"^([A-Z][A-Za-z\-]*(?: [A-Za-z\-]+){0,4}\.) (?=\S)")


def template_owner(spec: ScenarioSpec) -> str:
    """The party whose paper this is: the side that does NOT give the first markup."""
    return spec.party(spec.other(spec.side_of(1))).name


def _clause_content(clause: ClauseSpec) -> list[str | Run]:
    text = clause.text or ""
    m = _INLINE_HEADING.match(text)
    if not m:
        return [text]
    return [Run(m.group(1), bold=True), text[m.end(1):]]


def render_contract(spec: ScenarioSpec) -> bytes:
    """The clean turn-1 input of ``spec`` as ``.docx`` bytes."""
    c = spec.contract
    owner = template_owner(spec)
    b = DocumentBuilder(
        title=c.name,
        subject=f"{spec.label}: {c.subtitle}",
        creator=f"{owner} Legal",
        date=spec.start - timedelta(days=14),
        para_ids=True,
        track_revisions=True,
    )
    b.header(c.subtitle)
    b.footer(f"{owner} Confidential")
    b.title(c.title)
    if c.subtitle:
        b.paragraph(Run(c.subtitle, italic=True), align="center")
    for para in c.preamble:
        b.paragraph(para, align="both")
    numbering = b.new_list("clauses")
    for clause in c.clauses:
        if clause.level == 0:
            b.clause(Run(clause.heading or "", bold=True), level=0, numbering=numbering)
        else:
            b.clause(_clause_content(clause), level=clause.level, numbering=numbering)
        if clause.table is not None:
            b.table([list(clause.table.header), *[list(r) for r in clause.table.rows]], header=True)
    parties = sorted({spec.party("A").name, spec.party("B").name}, key=lambda n: n != owner)
    b.paragraph(
        "IN WITNESS WHEREOF, the parties have signed this Agreement by their authorised representatives with effect "
        "from the date of the last signature below (the \"Effective Date\")."
    )
    b.table(
        [
            [parties[0], parties[1]],
            ["By:", "By:"],
            ["Name:", "Name:"],
            ["Title:", "Title:"],
            ["Date:", "Date:"],
        ],
        header=False,
    )
    return b.to_bytes()


__all__ = ["render_contract", "template_owner"]
