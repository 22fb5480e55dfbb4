"""Judge panels from spec strings and YAML files (configs/judges/)."""

from __future__ import annotations

import pytest

from redlinebench import config
from redlinebench.errors import ConfigError
from redlinebench.judge import HeuristicJudge, LiteLLMJudge, create_judge, create_judges, judge_method


def test_default_panel_is_the_three_spec_models():
    judges = create_judges("panel")
    assert [j.model for j in judges] == ["openai/gpt-5.4-mini", "anthropic/claude-haiku-4-5",
                                         "gemini/gemini-3.1-flash-lite"]
    assert all(j.timeout == 120 and j.max_retries == 10 and j.temperature == 0 and j.json_mode for j in judges)
    assert judge_method(judges) == "llm"


def test_named_single_and_custom_example():
    assert [j.name for j in create_judges("single")] == ["openai/gpt-5.4-mini"]
    judges = create_judges(str(config.packaged_configs_dir() / "judges" / "custom-example.yaml"))
    assert [j.name for j in judges] == ["openai/gpt-5.4-mini", "local-qwen", "heuristic"]
    assert judges[1].api_base == "http://localhost:8000/v1" and judges[1].timeout == 300
    assert judge_method(judges) == "mixed"


def test_panel_names_resolve_in_the_working_directory_then_the_package(tmp_path, monkeypatch):
    # outside a checkout the shipped panels are found; a ./configs/judges/ of the user's wins
    monkeypatch.chdir(tmp_path)
    assert [j.model for j in create_judges("panel")][0] == "openai/gpt-5.4-mini"
    assert [j.name for j in create_judges("single")] == ["openai/gpt-5.4-mini"]
    own = tmp_path / "configs" / "judges"
    own.mkdir(parents=True)
    (own / "single.yaml").write_text("judges:\n  - openai/my-judge\n", encoding="utf-8")
    assert [j.name for j in create_judges("single")] == ["openai/my-judge"]


def test_comma_list_heuristic_none_and_overrides():
    judges = create_judges("openai/a, heuristic", api_base="http://127.0.0.1:9/v1", timeout=3, max_retries=1)
    assert isinstance(judges[0], LiteLLMJudge) and isinstance(judges[1], HeuristicJudge)
    assert (judges[0].api_base, judges[0].timeout, judges[0].max_retries) == ("http://127.0.0.1:9/v1", 3.0, 1)
    assert create_judges("none") == []
    assert judge_method(create_judges("heuristic")) == "heuristic"


def test_api_key_comes_from_the_named_variable_and_never_shows(monkeypatch, tmp_path):
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-from-env-123456")
    cfg = tmp_path / "p.yaml"
    cfg.write_text("judges:\n  - model: openai/x\n    api_key_env: MY_JUDGE_KEY\n", encoding="utf-8")
    [j] = create_judges(str(cfg))
    assert j._api_key == "sk-from-env-123456" and "sk-from" not in repr(j)


@pytest.mark.parametrize("text, message", [
    ("judges:\n  - model: openai/x\n    api_key: sk-123\n", "never write an API key"),
    ("judges:\n  - model: openai/x\n    colour: blue\n", "unknown judge option"),
    ("judges: []\n", "non-empty 'judges' list"),
    ("judges:\n  - 42\n", "model string or a mapping"),
    ("judges: [\n", "not valid YAML"),
    ("judges:\n  - {name: nameless}\n", "needs 'model'"),
])
def test_bad_configs_are_clear(tmp_path, text, message):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message) as info:
        create_judges(str(cfg))
    assert "bad.yaml" in str(info.value)


def test_bad_specs():
    with pytest.raises(ConfigError, match="not found"):
        create_judges("missing.yaml")
    with pytest.raises(ConfigError, match="unique"):
        create_judges("openai/a,openai/a")
    with pytest.raises(ConfigError, match="empty judge spec"):
        create_judges("  ")
    with pytest.raises(ConfigError, match="unknown judge kind"):
        create_judge("oracle")


@pytest.mark.parametrize("typo, meant", [("panl", "panel"), ("heuristc", "heuristic"), ("Heuristik", "heuristic")])
def test_a_mistyped_judge_spec_is_named_before_litellm_is_asked(typo, meant):
    """`--judges panl` went to litellm as a model string ('cannot tell the provider of panl')."""
    with pytest.raises(ConfigError) as info:
        create_judges(typo)
    assert f"did you mean {meant!r}?" in str(info.value) and "panel, heuristic, none" in str(info.value)
    assert [j.name for j in create_judges("Heuristic")] == [j.name for j in create_judges("heuristic")]
