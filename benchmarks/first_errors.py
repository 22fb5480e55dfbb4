"""How fast a newcomer's mistakes are reported (issue 26): a mistyped model string, a missing
provider key, and a dead ``--api-base``, each through ``redlinebench run`` in a fresh process.

    python benchmarks/first_errors.py [--repeat 3]

The baseline, measured in the same run: a fresh process that imports litellm and asks it to
route the same model string (what telling a typo cost before the checks moved ahead of litellm).
The typo and the missing key must be told in under a second of wall time on an idle machine
(the CPU time is printed too: on a loaded machine it is the steadier figure). The dead endpoint
(a closed loopback port) is timed to the one-line error; it imports litellm and runs episodes, so
it is compared with the same baseline to show what the episodes themselves cost.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _timed(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, int, str]:
    """(wall s, child CPU s, exit code, last line of output) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    return wall, cpu, proc.returncode, lines[-1] if lines else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PYTHONPATH=str(REPO), LITELLM_LOCAL_MODEL_COST_MAP="True", HF_HUB_OFFLINE="1")
    py = sys.executable
    run = [py, "-m", "redlinebench", "run"]
    cases = [
        ("baseline: import litellm, route 'opnai/gpt-4o'", [py, "-c", (
            "import litellm\ntry:\n    litellm.get_llm_provider(model='opnai/gpt-4o')\nexcept Exception:\n    pass")],
         {}),
        ("typo: --model opnai/gpt-4o", [*run, "--model", "opnai/gpt-4o"], {}),
        ("no provider: --model gpt4o", [*run, "--model", "gpt4o"], {}),
        ("missing ANTHROPIC_API_KEY", [*run, "--model", "anthropic/claude-haiku-4-5", "--judges", "heuristic"], {}),
        ("dead --api-base (refused port), 2 tasks", [*run, "--model", "openai/x", "--api-base",
                                                     f"http://127.0.0.1:{_closed_port()}", "--judges", "heuristic",
                                                     "--limit", "2"], {"OPENAI_API_KEY": "sk-not-a-real-key"}),
    ]
    print(f"first errors, median of {args.repeat} fresh processes (wall / CPU):")
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, argv, extra in cases:
            walls, cpus, last, code = [], [], "", 0
            for _ in range(args.repeat):
                wall, cpu, code, last = _timed(argv, {**env, **extra}, tmp)
                walls.append(wall)
                cpus.append(cpu)
            rows[label] = (statistics.median(walls), statistics.median(cpus))
            said = f" exit {code}: {last[:90]}" if not label.startswith("baseline") else ""
            print(f"  {label:44s} {rows[label][0]:6.2f} s / {rows[label][1]:5.2f} s{said}")
    base_wall = rows[cases[0][0]][0]
    ok = True
    for label, _argv, _extra in cases[1:4]:
        wall, _cpu = rows[label]
        ok &= wall < 1.0
        print(f"  {label:44s} {wall / base_wall:5.2f}x the baseline (target < 1 s wall)")
    dead = rows[cases[4][0]][0]
    print(f"  dead endpoint: {dead:.1f} s to its one-line error, {dead - base_wall:.1f} s beyond importing litellm")
    print("all targets met" if ok else "target missed (on a loaded machine, read the CPU column)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
