"""The ``tasks`` config is exactly the Hub viewer index of SPEC §3: names, order, types."""

from __future__ import annotations

import pyarrow as pa

from redlinebench.dataset import FULL_FEATURES, INDEX_FEATURES

# SPEC §3, copied by hand from the table.
SPEC_COLUMNS = [
    ("task_id", pa.string()),
    ("scenario_id", pa.string()),
    ("scenario_label", pa.string()),
    ("turn", pa.int64()),
    ("represented_party", pa.string()),
    ("counterparty", pa.string()),
    ("rubric_variant", pa.string()),
    ("instruction_preview", pa.string()),
    ("rubric_count", pa.int64()),
    ("rubric_category_counts", pa.string()),
    ("rubric_criteria_preview", pa.list_(pa.string())),
    ("contract_path", pa.string()),
    ("rubrics_path", pa.string()),
    ("attorney_redline_doc_path", pa.string()),
    ("source_task_path", pa.string()),
]


def test_index_features_match_the_viewer_column_for_column() -> None:
    schema = INDEX_FEATURES.arrow_schema
    assert [f.name for f in schema] == [n for n, _ in SPEC_COLUMNS]
    assert [(f.name, f.type) for f in schema] == SPEC_COLUMNS
    assert len(INDEX_FEATURES) == 15


def test_full_config_starts_with_the_index_columns() -> None:
    names = list(FULL_FEATURES)
    assert names[:15] == [n for n, _ in SPEC_COLUMNS]
    assert all(FULL_FEATURES[n] == INDEX_FEATURES[n] for n in INDEX_FEATURES)
    schema = FULL_FEATURES.arrow_schema
    assert str(schema.field("contract_docx").type) == "binary"
    assert str(schema.field("rubrics").type) == (
        "list<item: struct<id: string, criteria: string, category: string, weight: int64, "
        "justification: string, extra: string>>"
    )
    assert str(schema.field("grounding").type) == "list<item: struct<name: string, text: string>>"
