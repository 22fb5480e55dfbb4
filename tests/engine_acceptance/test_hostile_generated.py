"""Issue 17 item 11: hostile documents drawn from the families of ``tests/fixtures/hostile.py``.

Each drawn file goes through open, every tool, save, reopen, the gate and ``tasks validate``'s
census (:func:`tests.fixtures.hostile.exercise`): it is refused cleanly, the same way by all of
them, or it works, with no internal error and an output that reopens. The budget is fixed and
the draw derandomized, so CI runs the same cases every time (``benchmarks/hostile.py`` draws more).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixtures.hostile import (
    CORRUPTIONS,
    PART_KINDS,
    REL_TARGETS,
    ZIP_NAMES,
    bad_part,
    bad_relationship,
    empty_runs,
    entries_bomb,
    exercise,
    runs_bomb,
    text_heavy,
    unsafe_name,
)

_SEGMENTS = st.sampled_from(["word", "..", ".", "", "a.xml", "C:", "x\\y", "media", "b.rels"])
_NAMES = st.one_of(st.sampled_from(ZIP_NAMES),
                   st.tuples(st.sampled_from(["", "/"]), st.lists(_SEGMENTS, min_size=1, max_size=4))
                   .map(lambda t: t[0] + "/".join(t[1])))

FAMILIES = st.one_of(
    st.builds(bad_part, st.sampled_from(sorted(PART_KINDS)), st.sampled_from(CORRUPTIONS)),
    st.builds(bad_relationship, st.sampled_from(sorted(PART_KINDS)), st.sampled_from(REL_TARGETS)),
    st.builds(unsafe_name, _NAMES),
    st.builds(runs_bomb, st.one_of(st.integers(1, 3_000), st.sampled_from([2_499, 2_501, 20_001]))),
    st.builds(empty_runs, st.integers(1, 4_000), st.integers(1, 3)),
    st.builds(text_heavy, st.integers(10, 40_000), st.integers(1, 60)),
    st.builds(entries_bomb, st.integers(1, 3), st.sampled_from([1024 * 1024 - 1, 1024 * 1024])),
)


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(FAMILIES)
def test_a_drawn_hostile_document_is_refused_cleanly_or_works(data):
    report = exercise(data)
    assert report["outcome"] in ("refused", "ok"), report
    assert not report["problems"], report


def test_the_issue_cases_are_refused_at_open_naming_the_part():
    for kind in ("commentsExtended", "commentsIds", "commentsExtensible", "people"):
        for corruption in ("truncated", "dtd"):
            report = exercise(bad_part(kind, corruption))
            assert report["outcome"] == "refused" and kind in report["message"], report
    report = exercise(bad_relationship("comments", "document.xml"))
    assert report["outcome"] == "refused" and "document.xml" in report["message"], report
    report = exercise(bad_relationship("comments", "missing.xml"))
    assert report["outcome"] == "refused" and "missing" in report["message"], report
    for name in ("../evil.xml", "/abs/evil.xml", "word\\evil.xml"):
        report = exercise(unsafe_name(name))
        assert report["outcome"] == "refused" and "unsafe" in report["message"], report
