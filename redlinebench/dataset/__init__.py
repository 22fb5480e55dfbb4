"""RedlineBench as a Hugging Face dataset: schemas, builder, cached loader, export, card, eval.yaml."""

from ..tasks._source import no_widget_warning

no_widget_warning()  # before `datasets` first imports tqdm.auto (a notebook without ipywidgets)

from ._builder import CITATION, DESCRIPTION, LICENSE, RedlineBench, RedlineBenchConfig
from ._features import CONFIG_NAMES, FEATURES, FULL_FEATURES, INDEX_FEATURES, SPLIT
from ._card import card_metadata, card_stats, eval_yaml_data, render_card, render_eval_yaml
from ._export import export_dataset
from ._load import load_dataset
from ._rows import full_row, index_row

__all__ = [
    "CITATION",
    "CONFIG_NAMES",
    "DESCRIPTION",
    "FEATURES",
    "FULL_FEATURES",
    "INDEX_FEATURES",
    "LICENSE",
    "SPLIT",
    "card_metadata",
    "card_stats",
    "eval_yaml_data",
    "export_dataset",
    "render_card",
    "render_eval_yaml",
    "RedlineBench",
    "RedlineBenchConfig",
    "full_row",
    "index_row",
    "load_dataset",
]
