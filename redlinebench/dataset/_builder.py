"""``datasets`` builder for RedlineBench task trees (``datasets`` 5.x runs no loading scripts,
so the builder lives in the package and is used directly, or through ``redlinebench.load_dataset``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import datasets
from datasets.builder import Key

from .. import config as rb_config
from ..tasks import Task, load_tasks
from ._features import FEATURES, SPLIT
from ._rows import ROW_BUILDERS

DESCRIPTION = (
    "RedlineBench: an agent acts as in-house counsel for one party at one turn of a multi-turn contract "
    "negotiation and must return the contract as a Word document with tracked changes and comments; "
    "attorney-written weighted rubrics grade the redline."
)
HOMEPAGE = f"https://huggingface.co/datasets/{rb_config.HUB_DATASET_ID}"
LICENSE = "cc-by-4.0"
CITATION = f"""@misc{{redlinebench,
  title        = {{RedlineBench}},
  author       = {{{{Crosby Legal}}}},
  howpublished = {{\\url{{https://huggingface.co/datasets/{rb_config.HUB_DATASET_ID}}}}},
  note         = {{Hugging Face dataset, revision {rb_config.HUB_DATASET_REVISION}}}
}}"""


@dataclass
class RedlineBenchConfig(datasets.BuilderConfig):
    """``source_dir``: any task source ``resolve_source`` accepts (None = the default order).

    ``fingerprint`` only keys the cache: pass the tree's content hash so edited data is rebuilt.
    """

    source_dir: str | None = None
    fingerprint: str | None = None


class RedlineBench(datasets.GeneratorBasedBuilder):
    """Two configs over one task tree: ``tasks`` (the 15-column viewer index) and ``full``."""

    BUILDER_CONFIG_CLASS = RedlineBenchConfig
    BUILDER_CONFIGS = [
        RedlineBenchConfig(name="tasks", description="One row per task: the Hub viewer index (SPEC §3)."),
        RedlineBenchConfig(name="full", description="One row per task: instruction, grounding, rubrics, documents."),
    ]
    DEFAULT_CONFIG_NAME = "tasks"
    VERSION = datasets.Version("1.0.0")

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=DESCRIPTION,
            features=FEATURES[self.config.name],
            homepage=HOMEPAGE,
            license=LICENSE,
            citation=CITATION,
        )

    def _split_generators(self, dl_manager: Any) -> list[datasets.SplitGenerator]:
        # Parse (and fail with a clear TaskError) before any writing starts.
        tasks = load_tasks(self.config.source_dir).tasks
        return [datasets.SplitGenerator(name=datasets.Split(SPLIT), gen_kwargs={"tasks": tasks})]

    def _generate_examples(self, tasks: list[Task]) -> Iterator[tuple[Key, dict[str, Any]]]:
        row = ROW_BUILDERS[self.config.name]
        for index, task in enumerate(tasks):
            yield Key(0, index), row(task)
