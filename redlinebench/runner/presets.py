"""Run presets: YAML files of defaults for ``redlinebench run --preset NAME|PATH``.

A preset may set ``model`` or ``models`` and ``agent`` or ``agents`` (each a string or a list), ``judges``, ``trials``, ``concurrency``, ``workers``, ``seed``,
``api_base``, ``prompt_cache`` (true/false) and ``limits`` (see :class:`redlinebench.agent.AgentLimits`). Command-line options win.
Names resolve to ``configs/presets/<name>.yaml`` in the working directory, then to the copy shipped
inside the package (``redlinebench/configs/presets/``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import config
from ..errors import ConfigError

KEYS = {"model", "models", "agent", "agents", "judges", "trials", "concurrency", "workers", "seed", "api_base", "judge_api_base", "limits",
        "description", "prompt_cache"}


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
    data = _normalized(data, path)
    data["_path"] = str(path)
    return data


def _names(data: dict[str, Any], one: str, many: str, path: Path) -> list[str]:
    """``one``/``many`` may each be a string or a list of strings; both together are refused."""
    if one in data and many in data:
        raise ConfigError(f"give '{one}' or '{many}', not both", path=path)
    value = data.get(one, data.get(many))
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(v, str) and v.strip() for v in items):
        raise ConfigError(f"'{one if one in data else many}' must be a string or a list of strings, "
                          f"got {value!r}", path=path)
    return [v.strip() for v in items]


def _normalized(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """Checked values; ``model``/``agent`` folded into the ``models``/``agents`` lists."""
    out = {k: v for k, v in data.items() if k not in ("model", "models", "agent", "agents")}
    for one, many in (("model", "models"), ("agent", "agents")):
        names = _names(data, one, many, path)
        if names:
            out[many] = names
    for key in ("trials", "concurrency", "workers", "seed"):
        if key in out and (isinstance(out[key], bool) or not isinstance(out[key], int)
                           or out[key] < (0 if key == "seed" else 1)):
            low = 0 if key == "seed" else 1
            raise ConfigError(f"'{key}' must be a whole number of at least {low}, got {out[key]!r}", path=path)
    if "prompt_cache" in out and not isinstance(out["prompt_cache"], bool):
        raise ConfigError(f"'prompt_cache' must be true or false, got {out['prompt_cache']!r}", path=path)
    for key in ("judges", "api_base", "judge_api_base", "description"):
        if key in out and out[key] is not None and not isinstance(out[key], str):
            raise ConfigError(f"'{key}' must be a string, got {out[key]!r}", path=path)
    return out
