"""``redlinebench``: one CLI, thin. Each command family lives in its own module and only
wires options to library calls; heavy imports (litellm, datasets) happen inside commands so
``redlinebench --help`` stays fast.
"""

from __future__ import annotations

import sys
from importlib import import_module

import click

from .. import __version__
from ..errors import RedlineBenchError

# Command-family modules, each exposing ``register(group: click.Group) -> None``.
_FAMILIES = (
    "doc",           # redlinebench doc ...            (engine, issue 2)
    "tasks",         # redlinebench tasks|dataset ...  (task model + HF dataset, issue 3)
    "data",          # redlinebench data ...           (synthetic benchmark, issue 4)
    "scoring",       # redlinebench score|summarize|judge ... (issue 5)
    "run",           # redlinebench run|demo ...       (issue 6)
    "report",        # redlinebench report|compare ... (issue 8)
    "runs",          # redlinebench runs [DIR]         (issue 26)
    "integrations",  # redlinebench export|import|push|verify ... (issue 7)
    "reproduce",     # redlinebench reproduce (redlinebench-reproduce)    (issue 30)
)


def _usage(exc: click.UsageError) -> None:
    """A usage error as one line (the usage block and its hint say nothing the message does not)."""
    where = exc.ctx.command_path if exc.ctx is not None else "redlinebench"
    click.echo(f"error: {exc.format_message()} (see `{where} --help`)", err=True)
    sys.exit(2)


class _Main(click.Group):
    """Turns user errors into one line on stderr and a non-zero exit; bugs keep tracebacks.

    Exit codes, the same for every command: 2 when what was typed is wrong (an unknown option, a
    bad value, a path that does not exist, options that do not go together); 1 when the command
    ran and failed (a folder that holds no run or broken files, a provider or judge that failed,
    judging left incomplete, invalid tasks). 130 on Ctrl-C.
    """

    def make_context(self, info_name, args, parent=None, **extra):  # type: ignore[override]
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            _usage(exc)

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            _usage(exc)
        except RedlineBenchError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except OSError as exc:
            # A path the user gave cannot be written or read (a file where a folder should be, no
            # permission, a full disk): their environment, not our bug, so one line naming it.
            if not exc.filename:
                raise
            where = exc.filename if not exc.filename2 else f"{exc.filename} -> {exc.filename2}"
            click.echo(f"error: {where}: {exc.strerror or exc}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="redlinebench")  # also from a checkout that is not installed
def main() -> None:
    """RedlineBench: evaluate LLM agents on lawyer-grade contract redlining.

    \b
    Quick start (no API key, no network):
      redlinebench demo
    Run a model:
      redlinebench run --model openai/gpt-5.4-mini --judges panel
    """


for _name in _FAMILIES:
    try:
        _mod = import_module(f".{_name}", __name__)
    except ModuleNotFoundError as _exc:  # a family not written yet must not break the others
        if _exc.name != f"{__name__}.{_name}":
            raise
        continue
    _mod.register(main)
