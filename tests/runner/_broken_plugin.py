"""A plugin module that fails on import (test_plugin_agent: one clear error, no traceback)."""

raise RuntimeError("this plugin fails on import")
