"""What a run records about itself in config.json: spec, versions, data source and fingerprint."""

from __future__ import annotations

import platform
import sys
import time
from importlib import metadata
from typing import Any

from .spec import RunSpec

CONFIG_SCHEMA_VERSION = 1
_DEPENDENCIES = ("litellm", "datasets", "huggingface_hub", "lxml", "python-docx", "numpy", "pyarrow",
                 "click", "rich", "pyyaml", "openai", "httpx")


def versions() -> dict[str, Any]:
    """Package, Python and dependency versions (``null`` for a dependency that is not installed)."""
    from .. import __version__

    deps: dict[str, str | None] = {}
    for name in _DEPENDENCIES:
        try:
            deps[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            deps[name] = None
    return {"redlinebench": __version__, "python": sys.version.split()[0],
            "platform": platform.platform(), "dependencies": deps}


def data_record(taskset: Any, tasks: list[Any]) -> dict[str, Any]:
    """Where the tasks came from and a fingerprint that ``--resume`` checks before continuing."""
    source = getattr(taskset, "source", None)
    record: dict[str, Any] = {
        "kind": getattr(source, "kind", None),
        "path": str(getattr(source, "path", "") or "") or None,
        "revision": getattr(source, "revision", None),
        "reason": getattr(source, "reason", None),
        "fingerprint": taskset.fingerprint() if hasattr(taskset, "fingerprint") else None,
        "n_tasks_in_source": len(taskset.tasks),
        "n_tasks": len(tasks),
        "task_ids": [t.task_id for t in tasks],
    }
    return record


def build_config(spec: RunSpec, taskset: Any, tasks: list[Any], judge_names: list[str]) -> dict[str, Any]:
    """config.json. ``spec`` is what ``--resume`` rebuilds the run from; ``data`` and ``source`` say
    which tasks were used (``source`` is the resolved location, for readers such as the report)."""
    data = data_record(taskset, tasks)
    return {
        "schema_version": CONFIG_SCHEMA_VERSION,
        "run_id": spec.run_id,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "spec": spec.to_dict(),
        "models": [e.label for e in spec.entrants],
        "judges": {"spec": spec.judges, "names": judge_names},
        "limits": spec.limits.to_dict(),
        "seed": spec.seed,
        "source": {"kind": data["kind"], "path": data["path"], "revision": data["revision"]},
        "data": data,
        "versions": versions(),
    }
