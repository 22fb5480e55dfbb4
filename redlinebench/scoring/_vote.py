"""Panel majority vote (SPEC §5.4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

PASS = "PASS"
FAIL = "FAIL"


def normalize_verdict(value: object) -> str:
    """Exactly ``"PASS"`` is a pass; anything else (``"pass"``, ``True``, ``None``, ``"PARTIAL"``) is FAIL.

    SPEC §5.3: any verdict other than exactly PASS/FAIL counts as FAIL (padding included: two
    implementations must agree on every verdict).
    """
    return PASS if value == PASS else FAIL


def panel_vote(votes: Mapping[str, Mapping[str, object]], rubric_ids: Sequence[str]) -> dict[str, str]:
    """Combine judges' verdicts: PASS iff more than half of the judges that answered say PASS.

    ``votes`` maps judge name -> {rubric id -> verdict}. A judge listed in ``votes`` answered
    the task, so a rubric missing from its answer is its FAIL vote (SPEC §5.3). A judge absent
    from ``votes`` (it failed after all retries) does not vote; the caller marks the trial's
    judging incomplete. A tie is FAIL; no answering judge at all means FAIL everywhere.
    """
    out: dict[str, str] = {}
    n_judges = len(votes)
    for rid in rubric_ids:
        n_pass = sum(1 for answer in votes.values() if normalize_verdict(answer.get(rid)) == PASS)
        out[rid] = PASS if n_judges and 2 * n_pass > n_judges else FAIL
    return out
