"""``redlinebench arena``: whole negotiations between agents (SPEC §8), thin wiring to runner.arena."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .._termtable import echo

from ..errors import ConfigError
from ._options import SCENARIO
from .tasks import SOURCE_METAVAR

#: Options that define a tournament: a resumed one takes them from arena_spec.json.
_SPEC_OPTIONS = ("model", "agent", "source", "scenario", "max_turns", "trials", "judges", "max_steps", "timeout",
                 "temperature", "seed", "no_prompt_cache")


def build_arena_spec(opts: dict[str, Any]) -> Any:
    """The ArenaSpec the options describe; players are built exactly as ``run`` builds entrants."""
    from ..runner import ArenaSpec
    from .run import _build_spec

    run_opts = {"model": opts.get("model") or (), "agent": opts.get("agent") or (), "source": opts.get("source"),
                "trials": 1, "judges": opts.get("judges") or "panel", "max_steps": opts.get("max_steps"),
                "timeout": opts.get("timeout"), "temperature": opts.get("temperature"), "seed": opts.get("seed"),
                "api_base": opts.get("api_base"), "judge_api_base": opts.get("judge_api_base"),
                "no_prompt_cache": opts.get("no_prompt_cache"), "run_id": "arena"}
    judges = run_opts["judges"]
    if Path(judges).expanduser().is_file():  # a panel file: found again on --resume from another folder
        run_opts["judges"] = str(Path(judges).expanduser().resolve())
    rspec = _build_spec(run_opts)
    return ArenaSpec(players=rspec.entrants, scenarios=tuple(opts.get("scenario") or ()),
                     max_turns=opts.get("max_turns") or 6, trials=opts.get("trials") or 1, judges=rspec.judges,
                     source=rspec.source, concurrency=opts.get("concurrency") or 2, max_cost=opts.get("max_cost"),
                     limits=rspec.limits, seed=rspec.seed, api_base=rspec.api_base,
                     judge_api_base=rspec.judge_api_base, prompt_cache=rspec.prompt_cache)


def _fmt(x: Any, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def table_rows(summary: dict[str, Any]) -> list[list[str]]:
    rows = []
    for r in summary.get("models_summary", []):
        lo, hi = r["rating_ci"]
        rows.append([r["model"], f"{r['rating']:.0f}", f"{lo:.0f}-{hi:.0f}", f"{r['wins']}/{r['ties']}/{r['losses']}",
                     _fmt(r["closed_rate"]), _fmt(r["utility_first"]), _fmt(r["utility_second"]),
                     str(r["breaches"]), str(r["forfeits"])])
    return rows


def print_table(summary: dict[str, Any], console: Any) -> list[str]:
    """The ratings table, fitted to the terminal (80 columns keep every number)."""
    from .._termtable import Col, print_fitted

    cols = (Col("model", "left", shrink=True, min_width=12), Col("rating"), Col("95% interval", short="95% CI"),
            Col("W/T/L"), Col("closed", short="clsd"), Col("utility first", short="u1st"),
            Col("utility second", short="u2nd"), Col("breaches", short="brch"), Col("forfeits", short="forf"))
    n = len(summary.get("games", []))
    hidden = print_fitted(console, cols, table_rows(summary),
                          title=f"arena: {n} games, {len(summary.get('scenarios', []))} scenario(s), "
                                f"max {summary.get('max_turns')} moves")
    console.print(LEGEND, markup=False, highlight=False)
    return hidden


LEGEND = ("W/T/L: pairings won, tied, lost (a pairing = the two games of two players on one scenario and trial); "
          "closed (clsd): share of games that closed; utility first/second (u1st/u2nd): mean utility in that seat; "
          "breaches (brch): games whose deal crossed the player's walk-away; forfeits (forf): games it forfeited")


def _dry_run(spec: Any) -> None:
    from rich.console import Console

    from .._termtable import Col, print_fitted
    from ..runner.arena import dry_run
    from .run import _usd

    plan = dry_run(spec)
    echo(f"plan: {len(plan['players'])} players x {len(plan['scenarios'])} scenario(s) "
         f"({', '.join(map(str, plan['scenarios']))}) x 2 seat orders x {plan['trials']} trial(s) = "
         f"{plan['games']} games, at most {plan['max_moves']} moves ({plan['max_turns']} per game)")
    echo(f"players: {', '.join(plan['players'])}")
    echo(f"judges: {spec.judges}; deal judge calls: at most {plan['deal_judge_calls_max']}")
    cols = (Col("role", "left"), Col("name", "left", shrink=True, min_width=14), Col("calls"),
            Col("tokens in", short="in"), Col("tokens out", short="out"), Col("cost USD", short="USD"))
    rows = [[r["role"], r["name"], f"{r['calls']:,}", f"{r['tokens_in']:,}", f"{r['tokens_out']:,}",
             "unknown price" if r["cost_usd"] is None else _usd(r["cost_usd"])] for r in plan["rows"]]
    print_fitted(Console(), cols, rows, title="estimate: every game played to --max-turns (an upper bound)")
    total = plan["cost_usd"]
    echo("total: " + ("unknown (a model has no price in litellm's table)" if total is None
                      else f"at most about ${_usd(total)} (deal judging not priced)"))
    from ..runner.api import create_judge_list
    from ..runner.preflight import missing_keys

    models = [p.model for p in spec.players if p.agent == "llm" and p.model]
    missing = missing_keys(models, create_judge_list(spec.run_spec()), api_base=spec.api_base,
                           judge_api_base=spec.judge_api_base)
    from .run import warn_missing_keys

    warn_missing_keys(missing, "tournament")
    echo("nothing was run (--dry-run)")


def game_line() -> Any:
    """A line on stderr as each game ends: ``[3] s1-a-vs-b-t1: closed at move 3``."""
    count = [0]

    def show(plan: Any, game: dict[str, Any] | None) -> None:
        count[0] += 1
        if game is None:
            what = "not finished"
        elif game["outcome"] == "closed":
            what = f"closed at move {game['closed_at']}"
        elif game["outcome"] == "forfeit":
            what = f"forfeit by the {game['forfeit_by']} seat ({game[game['forfeit_by']]}) at move {game['moves']}"
        else:
            what = f"no deal after {game['moves']} moves"
        echo(f"[{count[0]}] {plan.game_id}: {what}", err=True)

    return show


def finish(result: Any, console: Any) -> None:
    print_table(result.summary, console)
    echo(f"tournament folder: {Path(result.run_dir).resolve()}")
    if result.report:
        echo(f"page: {Path(result.report).resolve()}")
    left = result.summary.get("not_finished") or []
    if left:
        for row in left[:10]:
            lines = str(row.get("error") or "").strip().splitlines()
            echo(f"  not finished: {row['game_id']}: {lines[-1] if lines else 'not played'}")
        echo(f"error: {len(left)} game(s) not finished; fix the cause, then continue with "
             f"`redlinebench arena --resume --run-dir {result.run_dir}`", err=True)
        raise SystemExit(1)


def register(main: click.Group) -> None:
    @main.command("arena")
    @click.option("--model", "-m", multiple=True, metavar="MODEL",
                  help="A litellm model string to play (as `run --model`). Repeatable.")
    @click.option("--agent", "-a", multiple=True, metavar="AGENT",
                  help="llm (default with --model), a baseline (noop, accept-all, golden, playbook), or a plugin "
                       "(pkg.module:factory or a 'redlinebench.agents' entry point). Repeatable.")
    @click.option("--scenario", type=SCENARIO, multiple=True, help="Play this scenario (repeatable) [all of the source].")
    @click.option("--max-turns", type=click.IntRange(1, 99), default=None, help="Moves before a game is no_deal [6].")
    @click.option("--trials", "-k", type=click.IntRange(1, 1000), default=None,
                  help="Times each pairing plays each scenario (both seat orders each time) [1].")
    @click.option("--judges", metavar="SPEC", default=None,
                  help="panel (default), heuristic (offline), a comma list of litellm models, or a panel YAML "
                       "file: they judge each deal, and grade move 1 as its task.")
    @click.option("--source", metavar=SOURCE_METAVAR, help="Task tree to play on (as `run --source`).")
    @click.option("--run-dir", type=click.Path(path_type=Path), help="Tournament folder [runs/arena-<time>].")
    @click.option("--resume", is_flag=True, help="Continue the tournament in --run-dir: finished moves are kept, "
                  "an unfinished move is redone.")
    @click.option("--concurrency", "-j", type=click.IntRange(1, 1024), default=None,
                  help="Games at once; the moves of a game run in order [2].")
    @click.option("--max-cost", type=click.FloatRange(0, min_open=True), default=None, metavar="USD",
                  help="No new move is started once the tournament has spent this much (known prices).")
    @click.option("--dry-run", is_flag=True, help="Print the plan of games and an upper cost estimate; play nothing.")
    @click.option("--api-base", metavar="URL", help="OpenAI-compatible endpoint for the models.")
    @click.option("--judge-api-base", metavar="URL", help="OpenAI-compatible endpoint for the judges.")
    @click.option("--max-steps", type=click.IntRange(1, 10_000), help="Model calls per move [40].")
    @click.option("--timeout", type=click.FloatRange(1), help="Seconds per model call [300].")
    @click.option("--temperature", type=click.FloatRange(0, 2), help="Sampling temperature (default: provider's).")
    @click.option("--seed", type=int, default=None, help="Seed passed to providers that accept one [0].")
    @click.option("--no-prompt-cache", is_flag=True, help="No prompt-cache markers (as `run`).")
    @click.option("--skip-key-check", is_flag=True, help="Do not check provider credentials before starting.")
    @click.option("--no-progress", is_flag=True, help="No line per finished game.")
    def arena_cmd(**opts: Any) -> None:
        """Play whole negotiations between agents, judge each deal against both playbooks, rate the players.

        \b
        Examples:
          redlinebench arena --agent playbook --agent accept-all \\
              --agent noop --judges heuristic
          redlinebench arena --model openai/gpt-5.4-mini \\
              --model anthropic/claude-haiku-4-5
          redlinebench arena --resume --run-dir runs/arena-20260101-120000-abc123

        Layout: RUN_DIR/arena_spec.json, RUN_DIR/arena_summary.json, RUN_DIR/games/<game_id>/{game.json,
        agreed.docx, move-01/, ...}; each move folder is laid out like a run's trial.
        """
        from rich.console import Console

        from ..runner import ArenaSpec
        from ..runner import arena as play
        from ..runner.spec import new_run_id

        if opts["resume"]:
            if not opts.get("run_dir"):
                raise ConfigError("--resume needs --run-dir (the folder of the tournament to continue)")
            if opts["dry_run"]:
                raise ConfigError("--dry-run plans a new tournament; it does not combine with --resume")
            ctx = click.get_current_context()
            given = [k for k in _SPEC_OPTIONS if ctx.get_parameter_source(k) is click.core.ParameterSource.COMMANDLINE]
            if given:
                raise ConfigError(f"--resume continues the tournament as arena_spec.json says; drop "
                                  f"{', '.join('--' + k.replace('_', '-') for k in given)} (only --concurrency, "
                                  "--max-cost, --api-base and --judge-api-base may change)")
            spec: ArenaSpec | None = None
            changes = {k: opts[k] for k in ("concurrency", "max_cost", "api_base", "judge_api_base")
                       if opts.get(k) is not None}
            run_dir = opts["run_dir"]
            if changes:
                from ..runner.arena import SPEC_FILE
                from ..runner.atomic import read_json

                stored = read_json(Path(run_dir) / SPEC_FILE)
                if isinstance(stored, dict):
                    spec = ArenaSpec.from_dict(stored).replace(**changes)
        else:
            spec = build_arena_spec(opts)
            if opts["dry_run"]:
                _dry_run(spec)
                return
            run_dir = opts.get("run_dir") or Path("runs") / f"arena-{new_run_id()}"
        try:
            result = play(spec, run_dir, resume=opts["resume"], check_keys=not opts["skip_key_check"],
                          on_game=None if opts["no_progress"] else game_line())
        except KeyboardInterrupt:
            echo(f"interrupted: finished moves are saved in {run_dir}; continue with "
                 f"`redlinebench arena --resume --run-dir {run_dir}`", err=True)
            raise SystemExit(130)
        finish(result, Console())

