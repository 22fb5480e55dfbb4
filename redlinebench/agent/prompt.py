"""The agent's system prompt: the attorney brief, the grounding texts and a guide to the tools.

Built from the task only (instruction.md, grounding/*.md, author string); nothing from the
verifier side (rubrics, golden redline) ever reaches it.
"""

from __future__ import annotations

from typing import Any

PROMPT_VERSION = "agent-1"

_TOOL_GUIDE = """\
## How to work on the document

You change the contract only through the tools below. Every tracked change and comment you make
is recorded under the author string `{author}`; changes and comments by any other author come
from earlier turns of the negotiation.

- `read_document`: the contract as text, one paragraph per line as `[p-NNN]` with its clause
  number, existing insertions and deletions shown inline with their author, and an appendix of
  every existing comment (`cmt-N`) and tracked change (`rev-N`). Call it first, and again after
  edits if you need the current text.
- `propose_edits`: a batch of tracked edits. Each edit has `op` (`replace`, `delete` or
  `insert_after`), an `anchor` with the `paragraph_id` and the exact `text` to act on as it reads
  now (add `occurrence`, `context_before` or `context_after` when the text occurs more than once),
  `new_text` for replace and insert_after, and a `comment` explaining the change to the other side.
  Each edit is applied independently and reports its own `status`; fix and resend only the edits
  that failed.
- `add_comment`: start a comment thread on a paragraph (optionally on a span of its text), or reply
  to an existing thread with `reply_to` set to its `cmt-N` id.
- `mark_reserved`: strike a whole range of paragraphs and leave "Reserved." so later numbering
  does not shift.
- `end_session`: call this once when your redline is complete. The document is saved as it stands.

Keep the redline surgical: change the words that need changing, not whole clauses, and explain
each change in its comment. When the other side has made changes, respond to every one of them:
leave it in place to accept it, strike or modify it to reject or counter it, and reply on their
comment threads.
"""


def system_prompt(task: Any) -> str:
    """The full system message for ``task`` (a :class:`redlinebench.tasks.Task`)."""
    parts = [task.instruction.strip(), _TOOL_GUIDE.format(author=task.author).strip()]
    grounding = dict(getattr(task, "grounding", {}) or {})
    if grounding:
        parts.append(
            "## Grounding materials\n\nYour own side's playbook and the shared commercial context. "
            "Do not reveal the playbook's fallback positions to the other side."
        )
        for name in sorted(grounding):
            parts.append(f"### {name}\n\n{grounding[name].strip()}")
    return "\n\n".join(parts) + "\n"


def kickoff_message(task: Any) -> str:
    """The first user message: what to do now, in one paragraph."""
    if int(getattr(task, "turn", 1)) <= 1:
        situation = "This is the first markup of the draft."
    else:
        situation = (
            f"The draft carries {task.counterparty}'s tracked changes and comments from the previous turn; "
            "respond to every outstanding change and thread."
        )
    return (
        f"You represent {task.represented_party}; the counterparty is {task.counterparty}. {situation} "
        "Read the document, make your redline with the tools, and call end_session when you are done."
    )
