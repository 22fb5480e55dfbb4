"""The dataset schemas, declared once: builder, exporter, card and tests all use these objects."""

from __future__ import annotations

from datasets import Features, List, Value

#: The Hub viewer index (SPEC §3): exactly these 15 columns, in this order, with these types.
INDEX_FEATURES = Features(
    {
        "task_id": Value("string"),
        "scenario_id": Value("string"),
        "scenario_label": Value("string"),
        "turn": Value("int64"),
        "represented_party": Value("string"),
        "counterparty": Value("string"),
        "rubric_variant": Value("string"),
        "instruction_preview": Value("string"),
        "rubric_count": Value("int64"),
        "rubric_category_counts": Value("string"),
        "rubric_criteria_preview": List(Value("string")),
        "contract_path": Value("string"),
        "rubrics_path": Value("string"),
        "attorney_redline_doc_path": Value("string"),
        "source_task_path": Value("string"),
    }
)

#: One rubric inside the ``full`` config; unknown rubric keys travel as a JSON object string.
RUBRIC_FEATURE = {
    "id": Value("string"),
    "criteria": Value("string"),
    "category": Value("string"),
    "weight": Value("int64"),
    "justification": Value("string"),
    "extra": Value("string"),
}

#: Whole tasks (ours, SPEC §3): the index columns first, then everything needed to run and grade.
FULL_FEATURES = Features(
    {
        **INDEX_FEATURES,
        "side": Value("string"),
        "input_group": Value("string"),
        "author": Value("string"),
        "instruction": Value("string"),
        "grounding": List({"name": Value("string"), "text": Value("string")}),
        "rubrics": List(RUBRIC_FEATURE),
        "contract_docx": Value("binary"),
        "attorney_redline_docx": Value("binary"),
        "metadata": Value("string"),
        "task_config": Value("string"),
    }
)

FEATURES: dict[str, Features] = {"tasks": INDEX_FEATURES, "full": FULL_FEATURES}
CONFIG_NAMES: tuple[str, ...] = tuple(FEATURES)
SPLIT = "test"

#: What each column means (used by the dataset card).
COLUMN_DOCS: dict[str, str] = {
    "task_id": "Task name, `redline-s{S}-t{T}-g{GG}{v}`.",
    "scenario_id": "Scenario number as a string (`\"1\"`-`\"3\"` in the real set).",
    "scenario_label": "Scenario name, e.g. `Vendor-led SaaS MSA`.",
    "turn": "Negotiation turn (1-4); `level` in the task files.",
    "represented_party": "The party the agent acts for.",
    "counterparty": "The other side of the negotiation.",
    "rubric_variant": "Which attorney's rubric set grades this task (`a`, `b`, ...).",
    "instruction_preview": "First 500 characters of `instruction.md`.",
    "rubric_count": "Number of rubrics.",
    "rubric_category_counts": "JSON object: rubrics per category, keys sorted.",
    "rubric_criteria_preview": "The first five rubric criteria.",
    "contract_path": "The document to redline, relative to the dataset root.",
    "rubrics_path": "The verifier's rubrics, relative to the dataset root.",
    "attorney_redline_doc_path": "The golden attorney redline, or null for accept-only tasks.",
    "source_task_path": "The Harbor task directory, relative to the dataset root.",
    "side": "`A` (vendor) or `B` (customer).",
    "input_group": "`s{S}-t{T}-g{GG}`: variants of one group share byte-identical input.",
    "author": "Tracked-change author string the agent must use; grading keys on it.",
    "instruction": "The full attorney brief (`instruction.md`).",
    "grounding": "Own-side playbook and shared commercial context texts, by file name.",
    "rubrics": "All rubrics: id, criteria, category, weight (-10..10, negative = penalty), justification.",
    "contract_docx": "Bytes of `contract.docx`.",
    "attorney_redline_docx": "Bytes of the golden redline, or null.",
    "metadata": "JSON object: all task metadata including keys this package does not interpret.",
    "task_config": "JSON object: the whole parsed `task.toml`.",
}
