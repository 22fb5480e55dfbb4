"""Edit cases over the corpus: each edit anchored on visible text must change exactly that text.

A case names a fixture, an edit batch (paragraphs by index, resolved to ids on load) and the
whole-document accepted text it must produce. Shared by the edit tests and the LibreOffice
oracle tests, which check the same outputs independently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from typing import Any

from redlinebench.docx import RedlineDocument
from tests.fixtures.corpus import CORPUS, US

DATE = datetime(2026, 2, 1, 12, 0, 0, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Case:
    name: str
    fixture: str
    edits: tuple[dict[str, Any], ...]  # anchor.paragraph_id is an int index here
    accepted: tuple[str, ...]
    comments: tuple[dict[str, Any], ...] = field(default_factory=tuple)  # add_comment kwargs (paragraph by index)

    def resolved_edits(self, doc: RedlineDocument) -> list[dict[str, Any]]:
        out = []
        for edit in self.edits:
            edit = {**edit, "anchor": dict(edit["anchor"])}
            edit["anchor"]["paragraph_id"] = doc.paragraphs[edit["anchor"]["paragraph_id"]].id
            edit.setdefault("comment", f"{US} proposes this change.")
            out.append(edit)
        return out


def _e(op: str, index: int, text: str, new_text: str | None = None, **anchor: Any) -> dict[str, Any]:
    edit: dict[str, Any] = {"op": op, "anchor": {"paragraph_id": index, "text": text, **anchor}}
    if new_text is not None:
        edit["new_text"] = new_text
    return edit


def _acc(fixture: str, changes: dict[int, str | None], inserts: dict[int, list[str]] | None = None) -> tuple[str, ...]:
    """The fixture's accepted text with paragraph ``i`` replaced (None: removed) and new lines after ``i``."""
    base = CORPUS[fixture].expect.accepted
    assert base is not None
    out: list[str] = []
    for i, line in enumerate(base):
        value = changes.get(i, line)
        if value is not None:
            out.append(value)
        out.extend((inserts or {}).get(i, []))
    return tuple(out)


CASES: tuple[Case, ...] = (
    Case("tab_and_spaces", "tabs_spaces", (
        _e("replace", 0, "three (3) years", "five (5) years"),
        _e("replace", 1, "ninety (90)", "sixty (60)"),
        _e("insert_after", 2, "spaced words", " (sic)"),
        _e("replace", 3, "Director", "Managing Director"),
        _e("delete", 4, "governing law"),
    ), _acc("tabs_spaces", {
        0: "Term:\tfive (5) years from the Effective Date.",
        1: "   Leading spaces before the notice period of sixty (60) days.",
        2: "Double  spaced  words (sic) in the liability cap of USD 1,000,000.",
        3: "Name:\tAgentCo Ltd.\tTitle:\tManaging Director",
        4: "Trailing space after the clause. ",
    })),
    Case("hyperlinks", "hyperlinks", (
        _e("replace", 0, "as updated from time to time", "as in effect on the Effective Date"),
        _e("delete", 1, "during business hours"),
        _e("replace", 2, "Internal link", "Cross-reference"),
        _e("replace", 0, "the Service Description as", "the Service Schedule as"),
    ), _acc("hyperlinks", {
        0: "The Services are described in the Service Schedule as in effect on the Effective Date.",
        1: "Support: support@agentco.example.",
        2: "Cross-reference to definitions starts this paragraph.",
    })),
    Case("split_runs", "mixed_runs", (
        _e("replace", 0, "Customer", "Client"),
        _e("delete", 0, "undisputed"),
        _e("replace", 1, "Confidential Information means", "Confidential Information shall mean"),
        _e("replace", 2, "cde", "CDE"),
    ), _acc("mixed_runs", {
        0: "The Client shall pay all invoices promptly.",
        1: "Confidential Information shall mean all non-public information.",
        2: "abCDEfg",
    })),
    Case("fields", "fields", (
        _e("delete", 1, "as set out in Section 1,"),
        _e("replace", 1, "neither party is liable", "neither party shall be liable"),
        _e("replace", 2, "at London", "in London"),
    ), _acc("fields", {
        1: "Except neither party shall be liable.",
        2: "Dated 1 January 2026 in London.",
    })),
    Case("table_cells", "tables", (
        _e("replace", 5, "USD 120,000", "USD 100,000"),
        _e("insert_after", 10, "Quarterly", " in arrears"),
        _e("replace", 7, "thirty (30)", "forty-five (45)"),
        _e("replace", 9, "15,000", "12,500"),
    ), _acc("tables", {
        5: "USD 100,000", 10: "Quarterly in arrears.", 7: "Net forty-five (45) days.", 9: "USD 12,500",
    })),
    Case("their_changes", "prior_changes", (
        _e("delete", 0, "sixty (60)"),
        _e("replace", 1, "promptly", "immediately"),
        _e("replace", 2, "in USD", "in EUR"),
        _e("insert_after", 5, "The Customer may audit the Vendor once a year.", "The audit is at the Customer's cost."),
        _e("replace", 10, "only", "exclusively"),
        _e("replace", 3, "Late payments", "Overdue payments"),
    ), _acc("prior_changes", {
        0: "Fees are payable within days of invoice.",
        1: "The Vendor shall immediately notify the Customer.",
        2: "Payments are made in EUR.",
        3: "Overdue payments bear interest. Time is of the essence. ",
        8: "Support covers email support exclusively.",
    }, inserts={5: ["The audit is at the Customer's cost."]})),
    Case("commented_paragraphs", "comments", (
        _e("replace", 0, "USD 5,000,000", "USD 2,000,000"),
        _e("replace", 1, "secret", "confidential"),
        _e("delete", 2, "and sent by courier"),
    ), _acc("comments", {
        0: "The Vendor shall maintain insurance of USD 2,000,000 per claim.",
        1: "Each party shall keep the other's Confidential Information confidential.",
        2: "Notices must be in writing.",
    }), comments=({"reply_to": 0, "text": "We have reduced the cap as discussed."},
                  {"paragraph_id": 1, "span": "Confidential Information", "text": "Defined in clause 1."})),
    Case("normalised_anchors", "odd_text", (
        _e("replace", 1, "customer's data", "Customer Data"),
        _e("replace", 1, "\"Curly quotes\" - an em dash", "\"Curly quotes\" - a dash"),
        _e("replace", 3, "\u20ac100", "\u20ac200"),
        _e("replace", 4, "and on end.", "and on finish."),
        _e("insert_after", 2, "line two", " (continued)"),
    ), (
        "",
        "\u201cCurly quotes\u201d \u2014 a dash, a\u00a0non-breaking space and the Customer Data.",
        "Line one line two (continued) of the same paragraph.",
        "Unicode: caf\u00e9, na\u00efve, \u00a7 4.2, \u20ac200, \u2264 5%, \u05e9\u05dc\u05d5\u05dd, \U0001f4c4.",
        "Long " + "clause text that goes on and on " * 150 + "finish.",
        "\t",
    )),
    Case("word_quirks", "word_quirks", (
        _e("replace", 0, "Teh", "The"),
        _e("replace", 0, "deliver", "provide"),
        _e("replace", 0, "the Services", "the Deliverables"),
        _e("replace", 1, "AgentCo Ltd.", "AgentCo Limited"),
        _e("replace", 2, "block wrapper", "block-level wrapper"),
        _e("replace", 3, "licence", "license"),
        _e("delete", 4, "and extension elements"),
        _e("replace", 5, "of the schedule", "of Schedule 2"),
    ), _acc("word_quirks", {
        0: "The Vendor shall provide the Deliverables.",
        1: "The Supplier is AgentCo Limited of London.",
        2: "Content control paragraph with a block-level wrapper.",
        3: "A non\u2011exclusive, royaltyfree license \u2022 worldwide.",
        4: "Ligatures.",
        5: "Page 1 of Schedule 2.",
    })),
    Case("word_like", "word_like", (
        _e("delete", 2, "and Deliverables"),
        _e("replace", 3, "Schedule 1.", "Schedule 2."),
        _e("replace", 8, "5%", "10%"),
        _e("insert_after", 4, "for SLA failures.", "\nService credits are capped at 20% of monthly fees."),
    ), _acc("word_like", {
        2: "The Vendor shall provide the Services\t described in Schedule 1.",
        3: "Fees are set out in Schedule 2.",
        8: "10%",
    }, inserts={4: ["Service credits are capped at 20% of monthly fees."]})),
)


@cache
def run_case(name: str) -> tuple[bytes, bytes, tuple[dict[str, Any], ...]]:
    """(input bytes, output bytes, per-edit results) for the case; computed once per session."""
    case = next(c for c in CASES if c.name == name)
    data = CORPUS[case.fixture].data()
    doc = RedlineDocument.open(data, name=f"{case.fixture}.docx")
    results = doc.apply_edits(case.resolved_edits(doc), author=US, date=DATE)
    for spec in case.comments:
        kwargs = dict(spec)
        if "reply_to" in kwargs:
            kwargs["reply_to"] = doc.comments[kwargs["reply_to"]].id
        if "paragraph_id" in kwargs:
            kwargs["paragraph_id"] = doc.paragraphs[kwargs["paragraph_id"]].id
        doc.add_comment(author=US, date=DATE, **kwargs)
    return data, doc.to_bytes(), tuple(results)
