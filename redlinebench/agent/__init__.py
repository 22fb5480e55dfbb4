"""Agents: the litellm tool loop, the offline baselines (noop, accept-all, golden), imported
outputs, and plugins (an import path ``pkg.module:factory`` or a ``redlinebench.agents`` entry point).

Writing your own agent: an object with ``name``, ``label`` and ``async run(task, workdir, *, trial)
-> Episode`` (:class:`Agent`); inside ``run``, :func:`open_episode` opens the task's contract in a
:class:`~redlinebench.tools.ToolSession` for the task's author, a transcript, and saves the redline
(see ``redlinebench.agent.episode`` and ``examples/plugin_agent``). A factory building it receives
the run's ``model`` (or None), ``limits`` (:class:`AgentLimits`), ``api_base``, ``seed`` and
``prompt_cache`` as keyword arguments. :func:`get_litellm` is litellm as the package uses it (quiet:
no "Give Feedback" banner on every failed call); :func:`endpoint_params` gives the ``api_base`` and
``api_key`` a call needs, as the built-in agent sends them (a placeholder key for a keyless local server).
"""

from .._litellm import get_litellm
from .base import NO_OUTPUT, Agent, Episode, agent_names, create_agent
from .credentials import endpoint_params
from .episode import EpisodeContext, open_episode
from .limits import AgentLimits
from .plugins import GROUP as PLUGIN_GROUP, Plugin, load_plugin
from .prompt import PROMPT_VERSION, kickoff_message, system_prompt

__all__ = ["Agent", "AgentLimits", "Episode", "EpisodeContext", "NO_OUTPUT", "PLUGIN_GROUP", "PROMPT_VERSION",
           "Plugin", "agent_names", "create_agent", "endpoint_params", "get_litellm", "kickoff_message", "load_plugin", "open_episode",
           "system_prompt"]
