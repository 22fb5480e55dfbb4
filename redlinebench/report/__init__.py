"""Reports people read: the per-run ``report.html``, the model comparison dashboard and the
redline viewer. Built from run-directory files alone; every page is one self-contained HTML file.
"""

from ._arena import write_arena_report
from ._charts import SVGChart, summary_chart
from ._compare import write_comparison
from ._load import ReportError, RunData, TrialRecord, load_run
from ._redline import render_document
from ._run_report import prerender_trial, write_run_report

__all__ = [
    "write_run_report",
    "write_arena_report",
    "prerender_trial",
    "write_comparison",
    "summary_chart",
    "SVGChart",
    "load_run",
    "RunData",
    "TrialRecord",
    "ReportError",
    "render_document",
]
