"""Judging: validity gate, judge prompt, litellm judges with cache and audit, panel, heuristic judge."""

from ._audit import (AuditLog, audit_logs_for, audit_section, audit_tally, near_miss_lines, new_attempt_id, read_audit,
                     redact)
from ._base import Judge, JudgeResult, create_judge, judge, judge_slug
from ._cache import JudgeCache, cache_key
from ._gate import GateResult, gate, open_output
from ._heuristic import HeuristicJudge
from ._litellm_judge import LiteLLMJudge, backoff_delay
from ._panel import create_judges, grade_trial, judge_method
from ._parse import ParsedVerdicts, UnparseableReply, parse_verdicts
from ._prompt import PROMPT_VERSION, SYSTEM_PROMPT, judge_messages
from .arena import LEVEL_VALUE, LEVELS, IssueVerdict, SideDeal, judge_deal

__all__ = [
    "LEVELS",
    "LEVEL_VALUE",
    "IssueVerdict",
    "SideDeal",
    "judge_deal",
    "PROMPT_VERSION",
    "SYSTEM_PROMPT",
    "AuditLog",
    "audit_logs_for",
    "audit_section",
    "audit_tally",
    "near_miss_lines",
    "GateResult",
    "HeuristicJudge",
    "Judge",
    "JudgeCache",
    "JudgeResult",
    "LiteLLMJudge",
    "ParsedVerdicts",
    "UnparseableReply",
    "backoff_delay",
    "cache_key",
    "create_judge",
    "create_judges",
    "gate",
    "grade_trial",
    "judge",
    "judge_messages",
    "judge_method",
    "new_attempt_id",
    "open_output",
    "read_audit",
    "judge_slug",
    "parse_verdicts",
    "redact",
]
