"""Where the task tree comes from, decided in one place and explained.

Order (issue 3): an explicit path; ``$REDLINEBENCH_BENCHMARK_DIR``; ``./benchmark/``; the Hub
snapshot of the pinned revision (real files in the user cache, honouring ``HF_HUB_OFFLINE``);
the embedded synthetic set shipped in the package. Every :class:`Source` carries the reason it
was chosen, so ``redlinebench tasks where`` and run records can say which data was scored.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .. import config
from .._atomic import atomic_write_json
from ..errors import ConfigError, HubError, TaskError
from ._model import INSTRUCTION, TASK_NAME_RE, TASK_TOML

log = logging.getLogger(__name__)

SourceKind = Literal["path", "env", "local", "hub", "embedded"]
_MARKER = ".redlinebench-snapshot.json"


#: How messages name the benchmark shipped inside the package.
EMBEDDED_LABEL = "the embedded synthetic set"


@dataclass(frozen=True)
class Source:
    """A resolved task tree. ``path`` is the dataset root; task directories live in ``tasks_dir``."""

    kind: SourceKind
    path: Path
    reason: str
    revision: str | None = None
    tasks_dir: Path = field(default=None)  # type: ignore[assignment]
    skipped: tuple[str, ...] = ()  # why earlier candidates were not used

    def __post_init__(self) -> None:
        if self.tasks_dir is None:
            object.__setattr__(self, "tasks_dir", self.path / "tasks")

    def __repr__(self) -> str:
        rev = f", revision={self.revision[:12]!r}" if self.revision else ""
        return f"Source({self.kind!r}, {str(self.path)!r}{rev})"

    @property
    def label(self) -> str:
        """The tree as messages name it: "the embedded synthetic set" for the set shipped in the
        package (its folder inside site-packages says nothing a user can act on; config.json
        records it as ``embedded``), else its folder."""
        return EMBEDDED_LABEL if self.kind == "embedded" else str(self.path)

    @property
    def named(self) -> str:
        """The label with the kind of tree where the label does not say it (``hub: /cache/...``)."""
        return self.label if self.kind == "embedded" else f"{self.kind}: {self.label}"

    def describe(self) -> str:
        rev = f" @ {self.revision}" if self.revision else ""
        return f"{self.named}{rev} ({self.reason})"

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "path": str(self.path),
            "tasks_dir": str(self.tasks_dir),
            "reason": self.reason,
            "revision": self.revision,
            "skipped": list(self.skipped),
        }


def _looks_like_task(directory: Path) -> bool:
    return bool(TASK_NAME_RE.match(directory.name)) or (directory / TASK_TOML).is_file()


def task_dirs(tasks_dir: Path) -> list[Path]:
    """Task directories below ``tasks_dir`` in (scenario, turn, group, variant) order.

    A directory is a task when its name is a task name or it holds a task file; hidden and
    private directories are ignored.
    """
    found = []
    for child in tasks_dir.iterdir():
        if not child.is_dir() or child.name.startswith((".", "_")):
            continue
        if _looks_like_task(child) or (child / INSTRUCTION).is_file() or (child / "tests").is_dir():
            found.append(child)
    return sorted(found, key=_order_key)


def _order_key(path: Path) -> tuple:
    match = TASK_NAME_RE.match(path.name)
    if match is None:
        return (1, path.name)
    s, t, g, v = match.groups()
    return (0, int(s), int(t), int(g), v, path.name)  # the name breaks ties (g1a / g01a): a stable order


def _locate(directory: Path) -> tuple[Path, Path]:
    """(dataset root, tasks dir) for a directory that is either the root or ``tasks/`` itself."""
    if not directory.exists():
        raise ConfigError(f"task source does not exist: {directory}")
    if not directory.is_dir():
        raise ConfigError(f"task source is not a directory: {directory}")
    nested = directory / "tasks"
    if nested.is_dir():
        return directory, nested
    children = [c for c in directory.iterdir() if c.is_dir() and not c.name.startswith((".", "_"))]
    if any(_looks_like_task(c) for c in children):
        root = directory.parent if directory.name == "tasks" else directory
        return root, directory
    if (directory / TASK_TOML).is_file():
        raise TaskError(
            "this is a single task directory; give the directory that contains it (or its tasks/ parent)",
            path=directory,
        )
    if (directory / "eval.yaml").is_file() or (directory / "data" / "tasks").is_dir():
        raise TaskError("a dataset export without its task tree (parquet only): export it again with "
                        "`redlinebench dataset export --include-tree`, or give the task tree itself", path=directory)
    raise TaskError("no task directories found (expected tasks/redline-s<S>-t<T>-g<GG><v>/)", path=directory)


def _from_dir(kind: SourceKind, directory: Path, reason: str, skipped: tuple[str, ...] = ()) -> Source:
    root, tasks = _locate(directory.expanduser().resolve())
    if kind != "embedded" and is_embedded_dir(root):
        # the shipped synthetic set named by its path (as `redlinebench demo` does) is still the
        # synthetic set: record it so, or a run of it could pass for a run of some real task tree
        kind, reason = "embedded", f"{reason}; the package's own copy"  # the label names the set
    return Source(kind=kind, path=root, reason=reason, tasks_dir=tasks, skipped=skipped)


def is_embedded_dir(directory: str | Path) -> bool:
    """True when ``directory`` (a dataset root or its ``tasks/``) is the synthetic set shipped in the package."""
    embedded = config.embedded_benchmark_dir()
    try:
        path, own = Path(directory).expanduser().resolve(), embedded.resolve()
    except (OSError, RuntimeError):
        return False
    return path == own or (path.name == "tasks" and path.parent == own)


# -- the Hub ------------------------------------------------------------------------------
def hub_snapshot_dir(revision: str | None = None) -> Path:
    """Where the Hub snapshot of ``revision`` (default: the pinned one) is materialised as real files."""
    revision = revision or config.HUB_DATASET_REVISION
    return config.cache_dir() / "hub" / config.HUB_DATASET_ID.replace("/", "--") / revision


def _snapshot_complete(folder: Path, revision: str) -> bool:
    try:
        marker = json.loads((folder / _MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return marker.get("revision") == revision and (folder / "tasks").is_dir()


def no_widget_warning() -> None:
    """Keep tqdm's "IProgress not found" warning (Jupyter without ipywidgets) out of notebooks: it is
    raised when ``huggingface_hub`` or ``datasets`` first import ``tqdm.auto``, and every progress bar
    of ours is off or plain text anyway. Call before importing either."""
    import warnings

    warnings.filterwarnings("ignore", message="IProgress not found")


def download_hub_snapshot(revision: str | None = None, *, offline: bool | None = None) -> Path:
    """Fetch (or reuse) the pinned snapshot as real files; raises ``HubError`` when impossible.

    The endpoint is read from ``HF_ENDPOINT`` at call time (huggingface_hub reads it only at
    import), so a caller or a test can point it elsewhere without re-importing anything.
    """
    revision = revision or config.HUB_DATASET_REVISION
    folder = hub_snapshot_dir(revision)
    if _snapshot_complete(folder, revision):
        return folder
    offline = config.hub_offline() if offline is None else offline
    if offline:
        raise HubError(f"HF_HUB_OFFLINE is set and no complete snapshot is cached at {folder}")
    no_widget_warning()
    try:
        import httpx2
        from huggingface_hub import HfApi, snapshot_download
        from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError
    except ImportError as exc:  # pragma: no cover - a hard dependency
        raise HubError("huggingface_hub is not installed (pip install huggingface_hub)") from exc
    endpoint = os.environ.get("HF_ENDPOINT") or None
    timeout = float(os.environ.get("HF_HUB_ETAG_TIMEOUT", "10"))
    try:
        # One plain request first: without a network, snapshot_download retries for ~20 s.
        HfApi(endpoint=endpoint).dataset_info(config.HUB_DATASET_ID, revision=revision, timeout=timeout)
    except HfHubHTTPError as exc:
        raise HubError(_hub_answer(exc, revision, endpoint)) from exc
    except (httpx2.HTTPError, OSError) as exc:
        raise HubError(f"cannot reach the Hub for {config.HUB_DATASET_ID}@{revision[:12]}: {_first_line(exc)}") from exc
    folder.mkdir(parents=True, exist_ok=True)
    try:
        path = snapshot_download(
            repo_id=config.HUB_DATASET_ID,
            repo_type="dataset",
            revision=revision,
            local_dir=str(folder),
            endpoint=endpoint,
            etag_timeout=timeout,
        )
    except (HfHubHTTPError, LocalEntryNotFoundError, OSError, ValueError) as exc:
        raise HubError(f"could not download {config.HUB_DATASET_ID}@{revision[:12]}: {_first_line(exc)}") from exc
    root = Path(path)
    if not (root / "tasks").is_dir():
        raise HubError(f"the snapshot of {config.HUB_DATASET_ID}@{revision[:12]} has no tasks/ directory", path=root)
    try:
        atomic_write_json(root / _MARKER, {"repo_id": config.HUB_DATASET_ID, "revision": revision}, indent=None)
    except OSError as exc:
        raise HubError(f"cannot record the snapshot's revision: {exc.strerror or exc}", path=root / _MARKER) from exc
    return root


def _hub_answer(exc: Exception, revision: str, endpoint: str | None) -> str:
    """The Hub's HTTP answer in words: a 404 for the repository or the revision is a reply, and
    calling it "cannot reach the Hub" sends people to debug their network instead of the name."""
    from huggingface_hub import constants
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError, RevisionNotFoundError

    repo, where = config.HUB_DATASET_ID, endpoint or constants.ENDPOINT
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(exc, GatedRepoError):
        return (f"the Hub ({where}) answered that dataset {repo} is gated (HTTP {status}): "
                "accept its conditions on the Hub and log in (`hf auth login` or HF_TOKEN)")
    if isinstance(exc, RepositoryNotFoundError):
        return (f"the Hub ({where}) answered that dataset repository {repo} was not found (HTTP {status}; "
                "a private repository answers the same without a valid token)")
    if isinstance(exc, RevisionNotFoundError):
        return f"the Hub ({where}) answered that revision {revision} was not found in dataset {repo} (HTTP {status})"
    return f"the Hub ({where}) answered HTTP {status} for {repo}@{revision[:12]}: {_first_line(exc)}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


# -- resolution ---------------------------------------------------------------------------
def resolve_source(source: str | Path | None = None) -> Source:
    """Decide which task tree to use (see module docstring); never silently picks a broken one.

    ``source`` may be a directory (dataset root or its ``tasks/``), ``"embedded"``, ``"hub"`` or
    ``"hub@<revision>"``. An explicitly named source that does not exist is an error, not a
    reason to fall back.
    """
    if isinstance(source, Source):
        return source
    if source is not None and str(source) != "":
        text = str(source)
        if not Path(text).expanduser().exists():
            if text == "embedded":
                return _embedded((), reason="asked for explicitly")
            if text == "hub" or text.startswith("hub@"):
                revision = text.partition("@")[2] or config.HUB_DATASET_REVISION
                root = download_hub_snapshot(revision)  # HubError propagates: it was asked for
                return _from_hub(root, revision, "asked for explicitly", ())
        return _from_dir("path", Path(text), "given explicitly")

    skipped: list[str] = []
    env = config.benchmark_dir_env()
    if env is not None:
        return _from_dir("env", env, "$REDLINEBENCH_BENCHMARK_DIR is set")
    skipped.append("$REDLINEBENCH_BENCHMARK_DIR is not set")

    local = Path.cwd() / "benchmark"
    if local.is_dir():
        return _from_dir("local", local, "./benchmark/ exists in the working directory", tuple(skipped))
    skipped.append("no ./benchmark/ in the working directory")

    try:
        root = download_hub_snapshot()
    except HubError as exc:
        skipped.append(f"Hub snapshot unavailable: {exc}")
        log.info("not using the Hub snapshot: %s", exc)
        problem = exc
    else:
        return _from_hub(root, config.HUB_DATASET_REVISION, "pinned Hub snapshot", tuple(skipped))
    source = _embedded(tuple(skipped), reason="no local tree and no Hub snapshot")
    if not config.hub_offline():
        # HF_HUB_OFFLINE chose this; an unreachable Hub did not, and scores on the synthetic set
        # are not comparable with the real benchmark's: say so, once per process (a notebook loads
        # the tasks several times), rather than fall back silently.
        _hub_notice(problem)
    return source


_HUB_NOTICE_GIVEN = False


def _hub_notice(problem: Exception) -> None:
    global _HUB_NOTICE_GIVEN
    if _HUB_NOTICE_GIVEN:
        log.info("not using the Hub snapshot: %s", problem)
        return
    _HUB_NOTICE_GIVEN = True
    reason = " ".join(str(problem).split())
    reason = reason if len(reason) <= 120 else reason[:119] + "…"  # huggingface_hub's own texts run long
    log.warning("warning: using the embedded synthetic task set, not %s (%s); source 'hub' requires the "
                "real set, HF_HUB_OFFLINE=1 picks this one quietly", config.HUB_DATASET_ID, reason)


def _from_hub(root: Path, revision: str, reason: str, skipped: tuple[str, ...]) -> Source:
    return Source(
        kind="hub",
        path=root,
        reason=f"{reason}: {config.HUB_DATASET_ID}",
        revision=revision,
        tasks_dir=root / "tasks",
        skipped=skipped,
    )


def _embedded(skipped: tuple[str, ...], *, reason: str) -> Source:
    folder = config.embedded_benchmark_dir()
    if not folder.is_dir():
        raise TaskError(
            "no benchmark found: " + "; ".join(skipped) + f"; and the embedded set is not built ({folder} is missing)."
            " Give a task tree with --source or $REDLINEBENCH_BENCHMARK_DIR."
        )
    return _from_dir("embedded", folder, reason, skipped)  # the label names the set: the reason only says why
