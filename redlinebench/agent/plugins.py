"""Agents from outside the package: an import path ``pkg.module:factory``, or a name a package
registers in the ``redlinebench.agents`` entry-point group.

A run stores the string it was given (and, in config.json, the distribution and version that
provided it), so ``--resume`` loads the same agent again. Loading fails as one ConfigError that
names the agent and the cause, never a traceback, before any trial starts.

In a plugin's ``pyproject.toml``::

    [project.entry-points."redlinebench.agents"]
    my-agent = "my_package.agent:make_agent"
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Callable

from ..errors import ConfigError

GROUP = "redlinebench.agents"
_IDENT = r"[A-Za-z_]\w*"
_IMPORT_PATH = re.compile(rf"{_IDENT}(?:\.{_IDENT})*:{_IDENT}(?:\.{_IDENT})*")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Plugin:
    """A loaded plugin agent: its factory and where it came from (recorded in config.json)."""

    name: str                     # as given: ``pkg.module:factory`` or the entry-point name
    factory: Callable[..., Any]
    target: str                   # the import path the factory was loaded from
    distribution: str | None      # the installed distribution providing it (None: a bare module)
    version: str | None

    def record(self) -> dict[str, Any]:
        kind = "entry_point" if self.name != self.target else "import_path"
        return {"agent": self.name, "kind": kind, "target": self.target, "distribution": self.distribution,
                "version": self.version}


def is_import_path(name: str) -> bool:
    return bool(_IMPORT_PATH.fullmatch(name))


def plausible_name(name: str) -> bool:
    """Whether ``name`` could name a plugin (syntax only; loading decides)."""
    return isinstance(name, str) and (is_import_path(name) or bool(_NAME.fullmatch(name)))


def entry_points() -> dict[str, metadata.EntryPoint]:
    """The ``redlinebench.agents`` entry points installed, by name."""
    return {ep.name: ep for ep in metadata.entry_points(group=GROUP)}


def load_plugin(name: str, *, known: list[str] | None = None) -> Plugin:
    """Load the factory ``name`` designates (ConfigError with the reason when it cannot)."""
    if is_import_path(name):
        module, _, attr = name.partition(":")
        factory = _load(name, module, attr)
        dist, version = _distribution_of(module)
        return Plugin(name, factory, name, dist, version)
    eps = entry_points() if isinstance(name, str) and _NAME.fullmatch(name) else {}
    ep = eps.get(name)
    if ep is None:
        if known is None:  # every caller names the built-ins (the run's plugin check passed none)
            from .base import agent_names

            known = agent_names()
        import difflib

        builtin = ", ".join(known)
        installed = ", ".join(sorted(eps)) if eps else "none installed"
        near = difflib.get_close_matches(str(name), [*known, *eps], n=1)
        raise ConfigError(f"unknown agent {name!r}: not a built-in agent ({builtin}), not a "
                          f"{GROUP!r} entry point ({installed}), and not an import path "
                          "pkg.module:factory" + (f"; did you mean {near[0]!r}?" if near else ""))
    module, _, attr = ep.value.partition(":")
    factory = _load(name, module.strip(), attr.strip())
    dist = getattr(ep, "dist", None)
    return Plugin(name, factory, ep.value, getattr(dist, "name", None), getattr(dist, "version", None))


def _load(name: str, module: str, attr: str) -> Callable[..., Any]:
    try:
        obj: Any = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        hint = " (is its package installed, or its folder on PYTHONPATH?)" if exc.name and \
            module.startswith(exc.name) else ""
        raise ConfigError(f"agent {name!r}: cannot import {module!r}: {exc}{hint}") from None
    except Exception as exc:  # noqa: BLE001  the plugin's own import-time failure, in one line
        raise ConfigError(f"agent {name!r}: importing {module!r} failed: {type(exc).__name__}: {exc}") from None
    for part in attr.split(".") if attr else ():
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(f"agent {name!r}: {module!r} has no attribute {attr!r}") from None
    if not attr or not callable(obj):
        raise ConfigError(f"agent {name!r}: {module}:{attr} is not a callable factory (a class or a function "
                          "that returns an agent)")
    return obj


def _distribution_of(module: str) -> tuple[str | None, str | None]:
    """The installed distribution providing ``module`` (None, None for a module only on the path)."""
    top = module.split(".", 1)[0]
    try:
        names = metadata.packages_distributions().get(top) or []
    except Exception:  # noqa: BLE001  broken metadata of an unrelated package
        names = []
    for dist in names:
        try:
            return dist, metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None, None
