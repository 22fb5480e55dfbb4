"""Model-string facts told without litellm (configs/providers.yaml + litellm's model table read as a
file) agree with litellm itself, and turn a typo or a missing key into an error in under a second."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from redlinebench.agent.credentials import missing_credentials
from redlinebench.agent.providers import _facts, key_vars, unroutable
from redlinebench.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
TYPOS = {"opnai/gpt-4o": "openai/gpt-4o", "antropic/claude-haiku-4-5": "anthropic/claude-haiku-4-5",
         "gpt4o": "openai/gpt-4o", "gemni/gemini-2.5-flash": "gemini/gemini-2.5-flash",
         "meta-llama/Llama-3-8b": "meta_llama/Llama-3-8b"}


def _litellm():
    from redlinebench._litellm import get_litellm

    return get_litellm()


def test_every_provider_litellm_routes_is_listed_so_none_is_called_a_typo():
    names = {getattr(p, "value", p) for p in _litellm().provider_list}
    assert names <= _facts()["providers"], sorted(names - _facts()["providers"])


@pytest.mark.parametrize("provider", sorted(_facts()["keys"]))
def test_the_key_table_says_what_litellm_says(provider, monkeypatch):
    for name in list(os.environ):
        if name.endswith(("_API_KEY", "_TOKEN")):
            monkeypatch.delenv(name)
    litellm = _litellm()
    model = f"{provider}/some-model"
    report = litellm.validate_environment(model=model)
    assert not report["keys_in_environment"] and report["missing_keys"] == key_vars(model)
    assert missing_credentials([model]) == {model: key_vars(model)}
    for var in key_vars(model):  # any one of them will do; an empty one is no key (litellm would send "")
        monkeypatch.setenv(var, "")
        assert litellm.validate_environment(model=model)["keys_in_environment"]
        assert missing_credentials([model]) == {model: key_vars(model)}
        monkeypatch.setenv(var, "k-123456")
        assert missing_credentials([model]) == {}
        monkeypatch.delenv(var)


@pytest.mark.parametrize("model,meant", sorted(TYPOS.items()))
def test_a_typo_is_named_with_what_was_meant_and_litellm_agrees_it_cannot_route(model, meant):
    assert unroutable(model).endswith(f"did you mean {meant}?")
    with pytest.raises(Exception):
        _litellm().get_llm_provider(model=model)


@pytest.mark.parametrize("model,api_base", [
    ("openai/gpt-4o", None), ("gpt-4o", None), ("zai/glm-4.6", None),  # zai is a provider, one letter from xai
    ("hosted_vllm/my-model", None), ("ft:gpt-4o-mini:org::abc", None),
    ("opnai/gpt-4o", "http://127.0.0.1:8000/v1"),  # with an endpoint litellm may tell the provider by its URL
    ("acme/model-1", None),                        # no near provider: litellm decides, with its own message
    ("qwerty-zzz", None),
])
def test_what_litellm_may_accept_is_left_to_litellm(model, api_base):
    assert unroutable(model, api_base) is None


def _no_litellm(monkeypatch):
    import redlinebench._litellm as door

    def refuse():
        raise AssertionError("litellm was imported before the check")

    monkeypatch.setattr(door, "get_litellm", refuse)


def test_a_typo_and_a_missing_key_stop_a_run_before_litellm_is_imported(tmp_path, monkeypatch):
    from redlinebench.runner import Entrant, RunSpec, run

    _no_litellm(monkeypatch)  # the one door to litellm: nothing may pass it before the check
    with pytest.raises(ConfigError, match=r"'opnai/gpt-4o': no provider 'opnai' in litellm; did you mean openai/gpt-4o\?"):
        run(RunSpec(entrants=(Entrant("llm", "opnai/gpt-4o"),), judges="heuristic"), tmp_path / "a", progress=False)
    with pytest.raises(ConfigError, match=r"anthropic/claude-haiku-4-5 needs ANTHROPIC_API_KEY"):
        run(RunSpec(entrants=(Entrant("llm", "anthropic/claude-haiku-4-5"),), judges="heuristic"), tmp_path / "b",
            progress=False)
    with pytest.raises(ConfigError, match=r"openai/gpt-5.4-mini needs OPENAI_API_KEY"):  # the default panel's judges
        run(RunSpec(entrants=(Entrant("noop"),)), tmp_path / "c", progress=False)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()  # nothing was written


def test_the_cli_reports_a_typo_with_exit_2_in_well_under_a_second_of_cpu(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")
    code = ("import sys, runpy\n"
            "from redlinebench.runner import preflight\n"
            "real = preflight.check_routable\n"
            "def spy(*a, **k):\n"
            "    print('litellm loaded at the check:', 'litellm' in sys.modules, file=sys.stderr)\n"
            "    return real(*a, **k)\n"
            "preflight.check_routable = spy\n"
            "sys.argv = ['redlinebench', 'run', '--model', 'opnai/gpt-4o', '--run-dir', sys.argv[1]]\n"
            "runpy.run_module('redlinebench', run_name='__main__')\n")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "run")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"cli typo: exit {proc.returncode} after {wall:.2f} s wall, {cpu:.2f} s CPU")
    assert proc.returncode == 2, proc.stderr
    assert "litellm loaded at the check: False" in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        "error: litellm cannot route 'opnai/gpt-4o': no provider 'opnai' in litellm; did you mean openai/gpt-4o?")
    assert not (tmp_path / "run").exists()
    # importing litellm alone costs ~4.5 s of CPU; wall time is left generous for a loaded machine
    assert cpu < 2.0, cpu
    assert wall < 20, wall  # 2 cores shared with other jobs: wall time swings 3x; the CPU figure is the guard
