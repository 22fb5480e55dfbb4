"""Agents: the litellm tool loop and the offline baselines (noop, accept-all, golden)."""

from .base import Agent, Episode, agent_names, create_agent
from .limits import AgentLimits
from .prompt import PROMPT_VERSION, kickoff_message, system_prompt

__all__ = ["Agent", "AgentLimits", "Episode", "PROMPT_VERSION", "agent_names", "create_agent",
           "kickoff_message", "system_prompt"]
