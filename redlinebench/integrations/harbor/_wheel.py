"""A wheel of the running redlinebench, for ``export harbor`` when neither ``--wheel`` nor
``--package-spec`` is given (the package is not on PyPI, so a bare ``pip install redlinebench``
in the task's Dockerfile would fail to build).

The wheel is built from the source checkout the package runs from (``pyproject.toml`` next to
the ``redlinebench/`` directory), or, for a plain ``pip install .``, from the checkout pip recorded
in ``direct_url.json``. ``pip wheel --no-deps`` builds it: offline with ``--no-build-isolation``
when this Python already has every ``[build-system] requires`` (setuptools>=69 and wheel), else
with pip's build isolation, which fetches them from the package index (a fresh ``python -m venv``
has an old setuptools without ``bdist_wheel``). The checkout is copied to a temporary directory
first, so the build leaves no ``build/`` or ``*.egg-info`` in it and a stale ``build/lib`` can
never put deleted files into the wheel.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from ...errors import ConfigError

#: How to get past a failed build, appended to every error of this module.
_INSTEAD = "pass --wheel PATH (a redlinebench wheel) or --package-spec SPEC (a requirement your own index serves)"
#: Files at the checkout root a build may read besides pyproject.toml and the package.
_ROOT_FILES = ("README.md", "README.rst", "LICENSE", "LICENSE.txt", "MANIFEST.in", "setup.py", "setup.cfg")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "*.egg-info", ".*")
#: What a tools-only wheel leaves out, relative to ``redlinebench/``: the embedded task set, whose
#: rubrics and golden redlines are the answer key an agent in the task container must not find.
ANSWER_KEY_DIRS = ("_data/benchmark",)


def _ignore(pkg: Path, *, tools_only: bool):
    """shutil.copytree's ``ignore``: build litter always, the embedded task set for a tools-only wheel."""
    skip = {(pkg / rel).resolve() for rel in ANSWER_KEY_DIRS} if tools_only else set()

    def ignore(directory: str, names: list[str]) -> set[str]:
        base = Path(directory).resolve()
        return set(_IGNORE(directory, names)) | {n for n in names if base / n in skip}

    return ignore


def package_dir() -> Path:
    """The ``redlinebench/`` directory the running package was imported from."""
    import redlinebench

    return Path(redlinebench.__file__).resolve().parent


def source_root(pkg: Path | None = None) -> Path | None:
    """The source checkout the package runs from, or None when it was installed (from a wheel)."""
    pkg = pkg or package_dir()
    pyproject = pkg.parent / "pyproject.toml"
    if not pyproject.is_file():
        return None
    try:
        name = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("name")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return pkg.parent if name == "redlinebench" else None


def installed_from() -> Path | None:
    """The local checkout an installed (not editable) redlinebench was ``pip install``-ed from, if pip recorded one."""
    import json
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    try:
        dist = metadata.distribution("redlinebench")
        info = json.loads(dist.read_text("direct_url.json") or "null")
    except (metadata.PackageNotFoundError, OSError, ValueError):
        return None
    url = info.get("url") if isinstance(info, dict) else None
    if not isinstance(url, str) or not url.startswith("file://") or "dir_info" not in info:
        return None
    path = Path(unquote(urlparse(url).path))
    return path if source_root(path / "redlinebench") is not None else None


def _build_system(root: Path) -> tuple[str, list[str]]:
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    system = data.get("build-system") or {}
    return (str(system.get("build-backend") or "setuptools.build_meta:__legacy__"),
            [str(r) for r in system.get("requires") or ["setuptools>=40.8.0"]])


def unmet_requirements(requires: list[str]) -> list[str]:
    """The build requirements this Python does not satisfy (then pip must isolate the build)."""
    from importlib import metadata

    from packaging.requirements import Requirement

    unmet = []
    for text in requires:
        req = Requirement(text)
        try:
            version = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            unmet.append(text)
            continue
        if req.specifier and not req.specifier.contains(version, prereleases=True):
            unmet.append(f"{text} (have {version})")
    return unmet


_PIP_NOISE = re.compile(r"see above|^note: |subprocess-exited-with-error|^hint:|^exit code:|^\[end of output\]|"
                        r"^\[\d+ lines of output\]", re.IGNORECASE)
_BOX = re.compile(r"^[×╰─>│\s]+")  # pip's frame around a subprocess's output
#: A line that states a cause: a Python exception, or a lowercase ``error:`` from the build backend.
_CAUSE = re.compile(r"^([\w.]*(Error|Exception)(:|$)|error: )")


def pip_failure(output: str, returncode: int) -> str:
    """The line of pip's output that says what went wrong (never its "See above for details").

    The build backend's own error (``error: invalid command 'bdist_wheel'``, ``ModuleNotFoundError:
    ...``) wins over pip's summary lines (``ERROR: Failed to build ...``).
    """
    lines = [_BOX.sub("", ln).strip() for ln in output.splitlines()]
    lines = [ln for ln in lines if ln and not _PIP_NOISE.search(ln)]
    for pick in ([ln for ln in lines if _CAUSE.match(ln)], [ln for ln in lines if ln.startswith("ERROR")], lines):
        if pick:
            return pick[-1]
    return f"pip exited with {returncode}"


def _checkout(pkg: Path) -> tuple[Path, Path]:
    """(checkout root, its ``redlinebench/`` directory) to build from, or a one-line ConfigError."""
    root = source_root(pkg)
    if root is not None:
        return root, pkg
    origin = installed_from()
    if origin is not None:
        return origin, origin / "redlinebench"
    raise ConfigError("redlinebench is not on PyPI and is not running from a source checkout here "
                      f"(no pyproject.toml next to {pkg}, and pip recorded no local checkout it was installed "
                      f"from), so no wheel can be built for the tasks: {_INSTEAD}")


def build_wheel(dest: Path, *, pkg: Path | None = None, tools_only: bool = False) -> Path:
    """Build a wheel of the running redlinebench into ``dest`` and return its path.

    ``tools_only``: without the embedded task set (:data:`ANSWER_KEY_DIRS`), the wheel a task
    container installs: the agent gets its ``redlinebench doc`` tools and the verifier its grader
    (which reads the task from ``/tests``), and nothing of any task's rubrics or goldens.

    Raises :class:`ConfigError` (one line, saying to pass ``--wheel`` or ``--package-spec``) when
    no checkout can be found, or the build fails (with the line of pip's output that says why).
    """
    root, pkg = _checkout(pkg or package_dir())
    backend, requires = _build_system(root)
    isolate = bool(unmet_requirements(requires))
    if not isolate:
        module = backend.split(":")[0]
        try:
            isolate = importlib.util.find_spec(module) is None
        except (ImportError, ValueError):
            isolate = True
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="redlinebench-wheel-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        shutil.copyfile(root / "pyproject.toml", src / "pyproject.toml")
        for name in _ROOT_FILES:
            if (root / name).is_file():
                shutil.copyfile(root / name, src / name)
        shutil.copytree(pkg, src / pkg.name, ignore=_ignore(pkg, tools_only=tools_only))
        out = Path(tmp) / "dist"
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "--disable-pip-version-check",
               "-q", "-w", str(out), str(src)]
        if not isolate:
            cmd[4:4] = ["--no-build-isolation", "--no-index"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConfigError(f"cannot build a redlinebench wheel from {root} ({exc}): {_INSTEAD}") from None
        wheels = sorted(out.glob("redlinebench-*.whl"))
        if proc.returncode != 0 or len(wheels) != 1:
            why = pip_failure((proc.stderr or "") + "\n" + (proc.stdout or ""), proc.returncode)
            how = ("with build isolation: pip fetches " + ", ".join(requires) + " from the package index"
                   if isolate else "offline, with this Python's own setuptools")
            raise ConfigError(f"cannot build a redlinebench wheel from {root} ({how}; pip wheel: {why}): {_INSTEAD}")
        target = dest / wheels[0].name
        shutil.copyfile(wheels[0], target)
    return target
