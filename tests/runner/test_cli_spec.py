"""`redlinebench run` option handling: presets, agents/models, limits, and user errors as one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench import config
from redlinebench.cli import main
from redlinebench.cli.run import _build_spec
from redlinebench.errors import ConfigError
from redlinebench.runner.presets import load_preset

BASE = dict(model=(), agent=(), preset=None, source=None, tasks=None, scenario=None, turn=None, side=None,
            trials=None, concurrency=None, judges=None, run_dir=None, run_id=None, resume=False, dry_run=False,
            api_base=None, judge_api_base=None, max_steps=None, max_tokens=None, max_cost=None, timeout=None, temperature=None,
            seed=None, no_progress=True, no_prompt_cache=False)


def spec(**over):
    return _build_spec({**BASE, **over})


def test_models_become_llm_entrants_and_baselines_join():
    s = spec(model=("openai/a", "anthropic/b"), agent=("llm", "golden"), tasks="x, y,", side="b")
    assert [e.label for e in s.entrants] == ["openai/a", "anthropic/b", "golden"]
    assert s.filter.task_ids == ("x", "y") and s.filter.side == "B"  # normalised, as the CLI shows it
    assert s.judges == "panel" and s.trials == 1 and s.concurrency == 4


def test_limits_from_options_override_the_preset():
    s = spec(model=("openai/a",), preset="smoke", max_steps=5, temperature=0.0)
    assert s.limits.max_steps == 5 and s.limits.max_tokens == 300000 and s.limits.temperature == 0.0
    assert s.judges == "heuristic" and s.concurrency == 2


def test_local_server_preset_sets_api_base():
    s = spec(model=("openai/qwen",), preset="local-server")
    assert s.api_base == "http://localhost:8000/v1" and s.limits.call_timeout_s == 900


@pytest.mark.parametrize("over, message", [
    ({}, "say what to run"),
    ({"model": ("openai/a",), "agent": ("noop",)}, "add --agent llm"),
    ({"agent": ("llm",)}, "needs --model"),
    ({"agent": ("noop", "noop")}, "listed twice"),
    ({"model": ("openai/x", "openai_x")}, "share a trial directory"),
    ({"agent": ("golden",), "tasks": " , "}, "names no task id"),
])
def test_bad_combinations_are_user_errors(over, message):
    with pytest.raises(ConfigError, match=message):
        spec(**over)


def test_bad_preset_files_name_the_file_and_key(tmp_path):
    bad = tmp_path / "p.yaml"
    bad.write_text("limits:\n  max_stepz: 3\n")
    with pytest.raises(ConfigError, match="unknown limit 'max_stepz'"):
        spec(model=("openai/a",), preset=str(bad))
    bad.write_text("modle: x\n")
    with pytest.raises(ConfigError, match=r"p.yaml: unknown preset key\(s\) modle"):
        load_preset(str(bad))
    bad.write_text("limits: {max_steps: -1}\n")
    with pytest.raises(ConfigError, match="must be positive"):
        spec(model=("openai/a",), preset=str(bad))
    with pytest.raises(ConfigError, match="unknown preset 'nope'"):
        load_preset("nope")


@pytest.mark.parametrize("yaml_text", [
    "model: [openai/a, openai/b]\nagent: [llm, golden]\n",
    "models: [openai/a, openai/b]\nagents: [llm, golden]\n",
    "models: [openai/a, openai/b]\nagent: [llm, golden]\n",
])
def test_a_preset_names_one_model_or_several_under_either_key(tmp_path, yaml_text):
    preset = tmp_path / "p.yaml"
    preset.write_text(yaml_text)
    assert [e.label for e in spec(preset=str(preset)).entrants] == ["openai/a", "openai/b", "golden"]


@pytest.mark.parametrize("yaml_text, message", [
    ("model: openai/a\nmodels: [openai/b]\n", "give 'model' or 'models', not both"),
    ("agent: {name: llm}\n", "'agent' must be a string or a list of strings"),
    ("models: []\n", "'models' must be a string or a list of strings"),
    ("agents: [llm, 3]\n", "'agents' must be a string or a list of strings"),
    ("trials: two\n", "'trials' must be a whole number of at least 1"),
    ("concurrency: 0\n", "'concurrency' must be a whole number of at least 1"),
    ("workers: true\n", "'workers' must be a whole number"),
    ("judges: [a, b]\n", "'judges' must be a string"),
])
def test_wrong_types_in_a_preset_are_one_line_errors_naming_the_file(tmp_path, yaml_text, message):
    preset = tmp_path / "p.yaml"
    preset.write_text(yaml_text)
    result = CliRunner().invoke(main, ["run", "--preset", str(preset), "--dry-run"])
    assert result.exit_code != 0 and isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output and "p.yaml" in result.output and message in result.output


def test_presets_outside_a_checkout_come_from_the_package_and_misses_say_where_they_looked(tmp_path, monkeypatch):
    # a pip-installed user in an empty directory has no configs/: the shipped presets still resolve
    monkeypatch.chdir(tmp_path)
    smoke = load_preset("smoke")
    assert Path(smoke["_path"]) == config.packaged_configs_dir() / "presets" / "smoke.yaml"
    (tmp_path / "smoke").mkdir()  # a folder that happens to share the preset's name does not shadow it
    assert Path(load_preset("smoke")["_path"]) == config.packaged_configs_dir() / "presets" / "smoke.yaml"
    with pytest.raises(ConfigError) as err:
        load_preset("nope")
    message = str(err.value)
    assert str(tmp_path / "configs" / "presets") in message and "YAML file path" in message
    assert str(config.packaged_configs_dir() / "presets") in message and "smoke" in message


def test_cli_prints_one_line_errors_without_traceback(tmp_path):
    r = CliRunner().invoke(main, ["run", "--agent", "llm"])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.output.strip().splitlines() == [
        "error: --agent llm needs --model (a litellm model string, e.g. openai/gpt-5.4-mini)"]
    r = CliRunner().invoke(main, ["run", "--resume"])
    assert r.exit_code == 2 and "--resume needs --run-dir" in r.output
    r = CliRunner().invoke(main, ["run", "--resume", "--run-dir", str(tmp_path)])
    assert r.exit_code == 2 and "nothing to resume" in r.output
    r = CliRunner().invoke(main, ["run", "--resume", "--run-dir", str(tmp_path), "--model", "openai/x", "-k", "3"])
    assert r.exit_code == 2 and "nothing to resume" in r.output


def test_help_is_complete():
    r = CliRunner().invoke(main, ["run", "--help"])
    for opt in ("--model", "--agent", "--source", "--tasks", "--scenario", "--turn", "--side", "--trials",
                "--concurrency", "--judges", "--run-dir", "--resume", "--dry-run", "--api-base", "--preset"):
        assert opt in r.output
    assert "demo" in CliRunner().invoke(main, ["--help"]).output


@pytest.mark.parametrize("field", ["api_base", "judge_api_base"])
@pytest.mark.parametrize("url", ["localhost:8000/v1", "notaurl", "ftp://host/v1", "http://"])
def test_an_endpoint_that_is_not_an_http_url_is_refused_before_any_call(field, url):
    # Without a scheme litellm posts to a relative path: every episode retried for a minute and then
    # failed with "InternalServerError (500): ... /notaurl/chat/completions".
    with pytest.raises(ConfigError, match=r"must be an http:// or https:// URL"):
        spec(model=("openai/a",), **{field: url})
    assert spec(model=("openai/a",), **{field: "http://127.0.0.1:8000/v1"})


def test_prompt_cache_is_on_by_default_and_off_from_the_flag_or_a_preset(tmp_path):
    from redlinebench.runner.scheduler import make_agent
    from redlinebench.runner.spec import RunSpec

    on = spec(model=("anthropic/claude-haiku-4-5",))
    assert on.prompt_cache is True and make_agent(on.entrants[0], on)._markers
    off = spec(model=("anthropic/claude-haiku-4-5",), no_prompt_cache=True)
    assert off.prompt_cache is False and not make_agent(off.entrants[0], off)._markers
    preset = tmp_path / "p.yaml"
    preset.write_text("prompt_cache: false\n")
    assert spec(model=("openai/a",), preset=str(preset)).prompt_cache is False
    assert RunSpec.from_dict(off.to_dict()).prompt_cache is False  # recorded in config.json, resumed as is
    assert RunSpec.from_dict({k: v for k, v in on.to_dict().items() if k != "prompt_cache"}).prompt_cache is True
    preset.write_text("prompt_cache: maybe\n")
    with pytest.raises(ConfigError, match="'prompt_cache' must be true or false"):
        load_preset(str(preset))


def test_no_prompt_cache_reaches_the_judges():
    from redlinebench.runner.api import create_judge_list
    from redlinebench.runner.spec import RunSpec

    judges = create_judge_list(spec(model=("openai/a",), judges="anthropic/claude-haiku-4-5", no_prompt_cache=True))
    assert judges[0].prompt_cache is False and judges[0]._markers is None
    judges = create_judge_list(spec(model=("openai/a",), judges="anthropic/claude-haiku-4-5"))
    assert judges[0]._markers == [{"location": "message", "role": "system"}]
