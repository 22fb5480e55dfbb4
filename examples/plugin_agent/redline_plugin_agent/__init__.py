"""An example RedlineBench agent plugin (see agent.py)."""
