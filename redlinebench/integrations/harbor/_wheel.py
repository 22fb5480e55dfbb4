"""A wheel of the running redlinebench, for ``export harbor`` when neither ``--wheel`` nor
``--package-spec`` is given (the package is not on PyPI, so a bare ``pip install redlinebench``
in the task's Dockerfile would fail to build).

The wheel is built from the source checkout the package runs from (``pyproject.toml`` next to
the ``redlinebench/`` directory) with ``pip wheel --no-deps --no-build-isolation``: offline, with
the build backend already installed in this Python. The checkout is copied to a temporary
directory first, so the build leaves no ``build/`` or ``*.egg-info`` in it and a stale
``build/lib`` can never put deleted files into the wheel.
"""

from __future__ import annotations

import importlib.util
import shlex
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


def _backend(root: Path) -> str:
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    return str((data.get("build-system") or {}).get("build-backend") or "setuptools.build_meta:__legacy__")


def build_wheel(dest: Path, *, pkg: Path | None = None) -> Path:
    """Build a wheel of the running redlinebench into ``dest`` and return its path.

    Raises :class:`ConfigError` (one line, saying to pass ``--wheel`` or ``--package-spec``) when
    the package is not running from a source checkout, the build backend is not installed, or
    the build fails.
    """
    pkg = pkg or package_dir()
    root = source_root(pkg)
    if root is None:
        origin = installed_from()
        hint = (f" (it was installed from {origin}: `pip wheel --no-deps -w dist {shlex.quote(str(origin))}` makes one)"
                if origin is not None else "")
        raise ConfigError("redlinebench is not on PyPI and is not running from a source checkout here "
                          f"(no pyproject.toml next to {pkg}), so no wheel can be built for the tasks: "
                          f"{_INSTEAD}{hint}")
    backend = _backend(root)
    module = backend.split(":")[0]
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ConfigError(f"cannot build a redlinebench wheel: its build backend {module!r} is not installed in "
                          f"{sys.executable} (pip install it, the build runs offline with --no-build-isolation), or "
                          + _INSTEAD)
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="redlinebench-wheel-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        shutil.copyfile(root / "pyproject.toml", src / "pyproject.toml")
        for name in _ROOT_FILES:
            if (root / name).is_file():
                shutil.copyfile(root / name, src / name)
        shutil.copytree(pkg, src / pkg.name, ignore=_IGNORE)
        out = Path(tmp) / "dist"
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
               "--no-cache-dir", "--disable-pip-version-check", "-q", "-w", str(out), str(src)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConfigError(f"cannot build a redlinebench wheel from {root} ({exc}): {_INSTEAD}") from None
        wheels = sorted(out.glob("redlinebench-*.whl"))
        if proc.returncode != 0 or len(wheels) != 1:
            lines = [ln.strip() for ln in (proc.stderr or proc.stdout or "").splitlines() if ln.strip()]
            why = lines[-1] if lines else f"pip exited with {proc.returncode}"
            raise ConfigError(f"cannot build a redlinebench wheel from {root} (pip wheel: {why}): {_INSTEAD}")
        target = dest / wheels[0].name
        shutil.copyfile(wheels[0], target)
    return target
