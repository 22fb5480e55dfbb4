"""An Inspect solver standing in for an agent that writes the .docx itself (loaded by path:
``inspect eval ... --solver tests/integrations/manipulating_solver.py@manipulator``)."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.solver import solver

from redlinebench.integrations.inspect_solver import FINISHED_KEY, OUTPUT_KEY, output_path_for, task_for_state
from tests.manipulated import honest_output, manipulated_output


@solver
def manipulator(output_dir: str, honest: bool = False):
    async def solve(state, generate):
        task = task_for_state(state)
        out = output_path_for(Path(output_dir), state)
        out.parent.mkdir(parents=True, exist_ok=True)
        make = honest_output if honest else manipulated_output
        out.write_bytes(make(task.contract_path, task.author))
        state.store.set(OUTPUT_KEY, str(out))
        state.store.set(FINISHED_KEY, True)
        state.completed = True
        return state

    return solve
