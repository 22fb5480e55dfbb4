"""The ``contract-redliner`` skill (Agent Skills format) and the MCP config an exported task ships.

The SPEC §2 tree has ``environment/skills/contract-redliner/``; Claude Code, Codex, OpenCode and
Harbor (``[environment] skills_dir``, ``harbor run --skill``) read a ``SKILL.md`` with ``name`` and
``description`` front matter. What it says is part of what the agent reads: its version is recorded
in task.toml next to the brief's (:data:`SKILL_VERSION`).
"""

from __future__ import annotations

import json

from ._layout import APP_DIR, OUTPUT_PATH

SKILL_NAME = "contract-redliner"
#: Bumped whenever the skill's text changes (results of different skill versions are not comparable).
SKILL_VERSION = "contract-redliner-1"
#: Where the Dockerfile puts the skills folder and task.toml's ``skills_dir`` points Harbor's agents.
SKILLS_DIR = "/skills"
MCP_SERVER_NAME = "redline"


def skill_markdown(integrity_rules: str) -> str:
    """The SKILL.md text: how to read, edit, comment, reply and finish with ``redlinebench doc``."""
    out = OUTPUT_PATH
    return f"""---
name: {SKILL_NAME}
description: Redline a Word contract with real tracked changes and margin comments using the `redlinebench doc` commands (read, edit, comment, reply, reserve), then leave the finished .docx for grading. Use when asked to mark up, negotiate or respond to edits in a .docx contract.
---

# Contract redliner

You negotiate a contract by editing a Word file. Every change you make must be a native tracked change
(`w:ins`/`w:del`) or a margin comment under the author string your brief gives (e.g.
`Reviewing Counsel (AgentCo Legal)`). The `redlinebench doc` commands do exactly that; do not edit the
.docx any other way.

## Start

```
cp {APP_DIR}/contract.docx {out}
redlinebench doc read {out}
```

`doc read` prints the document as paragraphs `[p-NNN]` with clause numbers, the tracked changes already in
it (who inserted or deleted what) and the comment threads (`cmt-N`). Read `{APP_DIR}/grounding/` (your
side's playbook and the commercial context) before editing.

## Edit

Write a JSON list of edits and apply it:

```
cat > edits.json <<'JSON'
[{{"op": "replace", "anchor": {{"paragraph_id": "p-012", "text": "thirty (30) days"}},
  "new_text": "sixty (60) days", "comment": "Our playbook requires 60 days' notice."}}]
JSON
redlinebench doc edit {out} edits.json --author "<author from the brief>"
```

- `op`: `replace` (the anchor text by `new_text`), `delete` (the anchor text), `insert_after` (new text after
  the anchor).
- `anchor.text` must be copied exactly from `doc read`; keep it short and unique within the paragraph.
- Every edit carries a `comment` explaining it to the other side.

## Comment and reply

```
redlinebench doc comment {out} --paragraph-id p-020 --text "..." --author "<author>"
redlinebench doc comment {out} --reply-to cmt-3 --text "Accepted." --author "<author>"
redlinebench doc reserve {out} --start p-030 --end p-034 --comment "..." --author "<author>"
```

Answer every outstanding edit of the other side: keep it (say so in a reply), counter it with your own tracked
change, or reject it with a tracked change that restores the text and a reply that says why. `doc reserve`
strikes a range of clauses and leaves "Reserved." so later numbering does not shift.

## Finish

Run `redlinebench doc read {out}` once more to check the result, then stop: the file at `{out}` is what is
graded. Never accept, reject or delete the other side's changes silently.

## What the integrity audit refuses

{integrity_rules}
"""


def mcp_config(author: str) -> str:
    """``.mcp.json`` (Claude-style) serving the redlining tools on the container's contract over stdio."""
    server = {"command": "redlinebench",
              "args": ["mcp", "--document", f"{APP_DIR}/contract.docx", "--author", author, "--output", OUTPUT_PATH]}
    return json.dumps({"mcpServers": {MCP_SERVER_NAME: server}}, indent=2) + "\n"


def mcp_server_entry(author: str) -> dict[str, object]:
    """The same server as task.toml's ``[[environment.mcp_servers]]`` (Harbor's own MCP wiring)."""
    server = json.loads(mcp_config(author))["mcpServers"][MCP_SERVER_NAME]
    return {"name": MCP_SERVER_NAME, "transport": "stdio", "command": server["command"], "args": server["args"]}
