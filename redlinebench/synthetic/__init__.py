"""The embedded synthetic benchmark: reviewable sources (``data/synthetic/``) built into the
Harbor task tree that ships at ``redlinebench/_data/benchmark/``.

>>> from redlinebench.synthetic import build_synthetic
>>> build_synthetic("out/").summary()
"""

from .build import PACKAGED_DIR, SOURCES_DIR, BuildReport, build_synthetic
from .judgecheck import expected_verdict, expected_verdicts
from .sources import SourceError, load_sources

__all__ = [
    "BuildReport",
    "PACKAGED_DIR",
    "SOURCES_DIR",
    "SourceError",
    "build_synthetic",
    "expected_verdict",
    "expected_verdicts",
    "load_sources",
]
