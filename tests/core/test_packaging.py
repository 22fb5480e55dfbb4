"""The wheel carries what the code reads at run time: judge panels, the price table, run presets.

A checkout hides packaging mistakes (files next to the package are found by relative paths), so
this builds a real wheel from a copy of the sources, installs it into a private directory and
asks a fresh interpreter, started in an empty directory, what it finds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from redlinebench import config

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import json
import redlinebench
from redlinebench.judge import create_judges
from redlinebench.judge._cost import fallback_prices
from redlinebench.runner.presets import load_preset

print(json.dumps({
    "package": redlinebench.__file__,
    "prices": fallback_prices(),
    "presets": {name: load_preset(name)["_path"] for name in ("default", "smoke", "local-server")},
    "panel": [j.model for j in create_judges("panel")],
    "single": [j.name for j in create_judges("single")],
}))
"""


def _pip(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the built wheel, the directory it was installed into)."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"  # a clean copy: an in-tree build/ could still hold files the sources lost
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "redlinebench", src / "redlinebench",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _pip("wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(base / "dist"), str(src))
    [wheel] = (base / "dist").glob("redlinebench-*.whl")
    _pip("install", "--no-deps", "--no-index", "-q", "--target", str(base / "site"), str(wheel))
    return wheel, base / "site"


@pytest.mark.slow
def test_the_wheel_ships_every_judge_and_preset_config(installed):
    wheel, _ = installed
    shipped = ROOT / "redlinebench" / "configs"
    expected = {f"redlinebench/configs/{p.relative_to(shipped).as_posix()}" for p in shipped.rglob("*.yaml")}
    assert {"redlinebench/configs/judges/prices.yaml", "redlinebench/configs/judges/default.yaml",
            "redlinebench/configs/presets/smoke.yaml"} <= expected
    with zipfile.ZipFile(wheel) as zf:
        assert expected <= set(zf.namelist())


@pytest.mark.slow
def test_an_installed_wheel_finds_prices_panels_and_presets_outside_a_checkout(installed, tmp_path):
    _, site = installed
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([sys.executable, "-c", _PROBE], cwd=empty, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(found["package"]).is_relative_to(site)  # the installed copy, not this checkout

    shipped = config.packaged_configs_dir()
    table = yaml.safe_load((shipped / "judges" / "prices.yaml").read_text(encoding="utf-8"))["prices"]
    assert found["prices"] and set(found["prices"]) == {str(m) for m in table}
    for name, path in found["presets"].items():
        assert Path(path) == site / "redlinebench" / "configs" / "presets" / f"{name}.yaml"
    panel = yaml.safe_load((shipped / "judges" / "default.yaml").read_text(encoding="utf-8"))["judges"]
    assert found["panel"] == panel
    assert found["single"] == ["openai/gpt-5.4-mini"]


def test_the_licence_is_an_spdx_expression(installed):
    """PEP 639: ``license = "Apache-2.0"`` (a TOML table is deprecated by setuptools and warns at
    every build); the wheel says so in ``License-Expression``."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "Apache-2.0"
    assert any(r.replace(" ", "").startswith("setuptools>=77") for r in project["build-system"]["requires"])
    wheel, _ = installed
    with zipfile.ZipFile(wheel) as z:
        [meta] = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        headers = z.read(meta).decode().split("\n\n", 1)[0].splitlines()
    assert "License-Expression: Apache-2.0" in headers
    assert not any(h.startswith("License:") for h in headers)


def test_extras_with_inspect_pin_boto3_inside_aiobotocores_botocore_range():
    """`pip install .` takes the newest boto3; `pip install ".[dev]"` afterwards walked back 34
    aiobotocore and 20 boto3 releases (inspect-ai -> s3fs -> aiobotocore pins botocore to a few
    patches). Measured in a throwaway venv holding boto3 1.44.8: 38 s and 20 boto3 versions tried
    without the pin, 15 s and one with it."""
    import tomllib
    from importlib import metadata

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    base = {Requirement(r).name: Requirement(r) for r in project["dependencies"]}
    for extra, reqs in project["optional-dependencies"].items():
        parsed = {Requirement(r).name: Requirement(r) for r in reqs}
        if "inspect-ai" not in parsed:
            continue
        boto3, aiobotocore = parsed.get("boto3"), parsed.get("aiobotocore")
        assert boto3 is not None and aiobotocore is not None, extra
        assert any(s.operator == "<" for s in boto3.specifier) and any(s.operator == "<" for s in aiobotocore.specifier)
        allowed = [v for v in ("1.43.115", "1.43.116", "1.43.117", "1.43.118", "1.44.8") if v in boto3.specifier]
        assert allowed, extra
        try:
            botocore = next(Requirement(r) for r in metadata.requires("aiobotocore") or []
                            if Requirement(r).name == "botocore")
            litellm = next(Requirement(r) for r in metadata.requires("litellm") or []
                           if Requirement(r).name == "boto3" and not Requirement(r).marker)
        except (metadata.PackageNotFoundError, StopIteration):
            continue
        if metadata.version("aiobotocore") in aiobotocore.specifier:  # boto3 x.y.z needs botocore x.y.z
            assert all(v in botocore.specifier and v in litellm.specifier for v in allowed), (extra, allowed)
    assert "boto3" not in base  # the pin is the extras' business: a base install stays unconstrained
