"""Panel majority vote (SPEC §5.4).

Per rubric, only the judges that returned a verdict for it vote (as the public reference does):
a judge that answered the task but left a rubric out abstains on that rubric. A verdict other
than exactly PASS/FAIL is a FAIL vote. PASS iff PASS votes are more than half of the votes cast;
a tie is FAIL; no vote at all is FAIL. With a single judge this is §5.3's rule: a rubric it left
out gets no vote and is FAIL.
"""

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


def votes_cast(answers: Mapping[str, Mapping[str, object]], rubric_id: str) -> dict[str, str]:
    """``{judge: "PASS" | "FAIL"}`` for the judges whose answer holds a verdict for ``rubric_id``.

    ``answers`` maps judge name -> {rubric id -> verdict} with only the rubrics that judge
    returned. A judge whose answer lacks the rubric (or that has no answer) casts no vote.
    """
    return {judge: normalize_verdict(answer[rubric_id])
            for judge, answer in answers.items() if rubric_id in answer}


def majority(votes: Mapping[str, str]) -> str:
    """PASS iff PASS votes are more than half of the votes cast (a tie, or no vote, is FAIL)."""
    n_pass = sum(1 for v in votes.values() if v == PASS)
    return PASS if 2 * n_pass > len(votes) else FAIL


def panel_vote(answers: Mapping[str, Mapping[str, object]], rubric_ids: Sequence[str]) -> dict[str, str]:
    """The panel's verdict per rubric: :func:`majority` of :func:`votes_cast`."""
    return {rid: majority(votes_cast(answers, rid)) for rid in rubric_ids}
