"""Export of task trees in the real layout carrying keys and values we did not plan for: plain
``datasets.load_dataset`` reads it, types match the declared features and the parquet schema, and
every extra key survives in the JSON passthrough columns as strict JSON."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import yaml

from redlinebench.dataset import FEATURES, export_dataset
from tests.tasks.treefactory import edit_json

TASK = "redline-s1-t1-g01a"


def _strict(text: str):
    """JSON as RFC 8259 (and JSON.parse, and the viewer) reads it: no NaN or Infinity."""
    def refuse(constant: str):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _hostile(tree: Path) -> None:
    root = tree / "tasks" / TASK
    toml = root / "task.toml"
    text = toml.read_text(encoding="utf-8").replace(
        "[metadata]",
        "schema_version = 3\n\n[metadata]\nreleased = 2025-01-02T03:04:05Z\nnested = {a = 1, b = [1, 2]}\n"
        "ratio = nan\n",
    )
    text += "\n[environment]\ncpus = 2\nlimit = inf\n\n[[steps]]\nname = \"a\"\n\n[[steps]]\nname = \"b\"\n"
    toml.write_text(text, encoding="utf-8")
    rubrics = root / "tests/rubrics.json"
    edit_json(rubrics, lambda d: d.update(release="v2", extra_obj={"k": [1, None]})
              or d["rubrics"][0].update(source={"attorney": "B"}, score="PLACEHOLDER"))
    rubrics.write_text(rubrics.read_text(encoding="utf-8").replace('"PLACEHOLDER"', "NaN")
                       .replace('"release": "v2"', '"release": "v2", "confidence": -Infinity'), encoding="utf-8")


def test_extra_keys_and_non_finite_numbers_survive_as_strict_json(tree: Path, tmp_path: Path) -> None:
    _hostile(tree)
    out = tmp_path / "export"
    export_dataset(tree, out)
    row = next(r for r in datasets.load_dataset(str(out), "full", split="test") if r["task_id"] == TASK)
    metadata = _strict(row["metadata"])
    assert metadata["released"] == "2025-01-02T03:04:05+00:00"
    assert metadata["nested"] == {"a": 1, "b": [1, 2]}
    assert (metadata["ratio"], metadata["confidence"]) == ("nan", "-inf")
    assert (metadata["release"], metadata["extra_obj"]) == ("v2", {"k": [1, None]})
    config = _strict(row["task_config"])
    assert config["environment"] == {"cpus": 2, "limit": "inf"}
    assert config["steps"] == [{"name": "a"}, {"name": "b"}] and config["schema_version"] == 3
    assert _strict(row["rubrics"][0]["extra"]) == {"source": {"attorney": "B"}, "score": "nan"}


def test_declared_parquet_and_loaded_features_agree_column_for_column(tree: Path, tmp_path: Path) -> None:
    _hostile(tree)
    out = tmp_path / "export"
    export_dataset(tree, out)
    front = yaml.safe_load((out / "README.md").read_text(encoding="utf-8").split("---\n")[1])
    default = [c["config_name"] for c in front["configs"] if c.get("default")]
    assert default == ["tasks"]
    for entry in front["configs"]:
        name = entry["config_name"]
        [files] = entry["data_files"]
        schema = pq.read_schema(out / files["path"])
        # what the Hub viewer infers: the parquet's own arrow types, with and without the HF metadata
        assert datasets.Features.from_arrow_schema(schema) == FEATURES[name]
        assert datasets.Features.from_arrow_schema(schema.remove_metadata()) == FEATURES[name]
        assert schema.names == list(FEATURES[name])
        loaded = datasets.load_dataset(str(out), name, split="test")
        assert loaded.features == FEATURES[name] and len(loaded) == 14
    plain = datasets.load_dataset(str(out))
    assert list(plain) == ["test"] and plain["test"].features == FEATURES["tasks"]
