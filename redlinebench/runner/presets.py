"""Run presets: YAML files of defaults for ``redlinebench run --preset NAME|PATH``.

A preset may set ``model``/``models``, ``agent``, ``judges``, ``trials``, ``concurrency``, ``workers``, ``seed``,
``api_base`` and ``limits`` (see :class:`redlinebench.agent.AgentLimits`). Command-line options win.
Names resolve to ``configs/presets/<name>.yaml`` in the working directory, then to the copy shipped
inside the package (``redlinebench/configs/presets/``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import config
from ..errors import ConfigError

KEYS = {"model", "models", "agent", "agents", "judges", "trials", "concurrency", "workers", "seed", "api_base", "judge_api_base", "limits",
        "description"}


def preset_dirs() -> list[Path]:
    """Where preset names are looked up, in order (see :func:`redlinebench.config.config_search_dirs`)."""
    return config.config_search_dirs("presets")


def find_preset(name_or_path: str) -> Path:
    path = Path(name_or_path).expanduser()
    # a file path, not a name (a folder that happens to be called "smoke" here does not count)
    if path.suffix in {".yaml", ".yml"} or path.is_file() or "/" in name_or_path:
        if not path.is_file():
            raise ConfigError("preset file not found", path=path)
        return path
    for d in preset_dirs():
        for ext in (".yaml", ".yml"):
            candidate = d / f"{name_or_path}{ext}"
            if candidate.is_file():
                return candidate
    dirs = preset_dirs()
    known = sorted({p.stem for d in dirs if d.is_dir() for p in d.glob("*.y*ml")})
    raise ConfigError(f"unknown preset {name_or_path!r} (known: {', '.join(known) or 'none'}; looked in "
                      f"{' and '.join(str(d) for d in dirs)}; or pass a YAML file path)")


def load_preset(name_or_path: str) -> dict[str, Any]:
    import yaml

    path = find_preset(name_or_path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read preset: {exc}", path=path) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"not valid YAML: {str(exc).splitlines()[0]}", path=path) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError("a preset must be a mapping of settings", path=path)
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise ConfigError(f"unknown preset key(s) {', '.join(unknown)} (known: {', '.join(sorted(KEYS))})",
                          path=path)
    if "limits" in data and not isinstance(data["limits"], dict):
        raise ConfigError("'limits' must be a mapping", path=path)
    data["_path"] = str(path)
    return data
