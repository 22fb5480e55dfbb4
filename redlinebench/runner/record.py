"""What a run records about itself in config.json: spec, versions, data source and fingerprint."""

from __future__ import annotations

import platform
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from .paths import portable
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


def source_location(source: Any, run_dir: str | Path | None) -> str | None:
    """Where a resolved source lies, as a run records it: nothing for the shipped set (``kind``
    embedded says it all, on any machine), else the folder relative to the run directory (see
    :func:`.paths.portable`). Without a run directory the path is kept as it is (callers that
    write no run folder decide for themselves)."""
    kind, path = getattr(source, "kind", None), getattr(source, "path", None)
    if not path:
        return None
    if run_dir is None:
        return str(path)
    return None if kind == "embedded" else portable(path, run_dir)


def data_record(taskset: Any, tasks: list[Any], run_dir: str | Path | None = None) -> dict[str, Any]:
    """Where the tasks came from and a fingerprint that ``--resume`` checks before continuing.

    With ``run_dir`` the location is recorded relative to it (no absolute path of this machine
    in a file people share)."""
    source = getattr(taskset, "source", None)
    record: dict[str, Any] = {
        "kind": getattr(source, "kind", None),
        "path": source_location(source, run_dir),
        "revision": getattr(source, "revision", None),
        "reason": getattr(source, "reason", None),
        "fingerprint": taskset.fingerprint() if hasattr(taskset, "fingerprint") else None,
        "n_tasks_in_source": len(taskset.tasks),
        "n_tasks": len(tasks),
        "task_ids": [t.task_id for t in tasks],
    }
    return record


def recorded_spec_source(spec_source: str | None, source: Any, run_dir: str | Path | None) -> str | None:
    """``spec.source`` as config.json keeps it: a name (``embedded``, ``hub@REV``) as given, the shipped
    set by its name even when it was given as a folder (``demo``), a folder relative to the run."""
    if spec_source is None or getattr(source, "kind", None) == "embedded":
        return None if spec_source is None else "embedded"
    text = str(spec_source)
    if not Path(text).expanduser().exists() and (text == "hub" or text.startswith("hub@")):
        return text
    return portable(text, run_dir) if run_dir is not None else text


def recorded_judges(judges: str, run_dir: str | Path | None) -> str:
    """The judge spec as config.json keeps it: a panel YAML file relative to the run, anything else as given."""
    path = Path(judges).expanduser()
    if run_dir is None or not judges.endswith((".yaml", ".yml")) or not path.is_file():
        return judges
    return portable(path, run_dir)


def build_config(spec: RunSpec, taskset: Any, tasks: list[Any], judge_names: list[str],
                 run_dir: str | Path | None = None) -> dict[str, Any]:
    """config.json. ``spec`` is what ``--resume`` rebuilds the run from; ``data`` and ``source`` say
    which tasks were used (``source`` is the resolved location, for readers such as the report).
    Local folders are recorded relative to ``run_dir`` (:func:`.paths.portable`)."""
    data = data_record(taskset, tasks, run_dir)
    spec_dict = spec.to_dict()
    spec_dict["source"] = recorded_spec_source(spec.source, getattr(taskset, "source", None), run_dir)
    spec_dict["judges"] = recorded_judges(spec.judges, run_dir)
    for entrant in spec_dict["entrants"]:  # a folder of imported outputs, relative to the run
        if entrant.get("outputs") is not None and run_dir is not None:
            entrant["outputs"] = portable(entrant["outputs"], run_dir)
    imported = [{"kind": "outputs", "label": e["label"], "folder": e["outputs"]}
                for e in spec_dict["entrants"] if e.get("outputs") is not None]
    config = {
        "schema_version": CONFIG_SCHEMA_VERSION,
        "run_id": spec.run_id,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "spec": spec_dict,
        "models": [e.label for e in spec.entrants],
        "judges": {"spec": spec_dict["judges"], "names": judge_names},
        "limits": spec.limits.to_dict(),
        "seed": spec.seed,
        "source": {"kind": data["kind"], "path": data["path"], "revision": data["revision"]},
        "data": data,
        "versions": versions(),
    }
    if imported:  # an `import outputs` run: whose redlines, from which folder
        config["imported"] = imported
    return config
