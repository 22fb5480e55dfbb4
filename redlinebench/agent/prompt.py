"""The agent's system prompt: the attorney brief, the grounding texts and a guide to the tools.

Built from the task only (instruction.md, grounding/*.md, author string); nothing from the
verifier side (rubrics, golden redline) ever reaches it.
"""

from __future__ import annotations

from typing import Any

#: Part of every transcript, metrics.json and grade: scores of different prompt versions are not
#: comparable (the prompt, the tool results and the views the model reads are part of the benchmark).
#: agent-2: the read view names authors by aliases (A1, A2) with a legend, groups its appendix by
#: paragraph, takes a range; tool results are sent as text; edit results carry the changed lines.
#: agent-3: the read view states each fact once: changes inline as {+x}A1 / {-x}A1 / {-x+y}A1 (no
#: revision ids, no tracked-changes appendix), each comment thread right after its paragraph with
#: its anchor marked in the text (<cmt-N>...</>); edit results carry the same blocks.
#: agent-4: a full read ends with the page headers and footers (one line each, when they hold
#: text) and the changed note paragraphs, changes inline (SPEC §5.1: every story a reader sees).
#: agent-5: paragraph text and clause numbers from the rendering model (integrity v3): runs in
#: paragraph-level alternate content as Word renders them, ruby text, numbers as the audit computes them,
#: and a `hidden from a Word reader: ...` note on a line whose text a reader of the page cannot see; tool
#: results name what went wrong with a call itself (cut off at the output limit, a repeated call),
#: arguments that did not parse are replayed as {"unparsable_arguments": ...}, and an empty reply after
#: tool results gets one nudge (EMPTY_TURN_NUDGE) before the episode ends.
PROMPT_VERSION = "agent-5"

#: Sent once when a reply after tool results is empty: a stall, more often than an answer.
EMPTY_TURN_NUDGE = ("Your last reply was empty. Continue the review with the tools, or call end_session "
                    "if you are done.")

_TOOL_GUIDE = """\
## How to work on the document

You change the contract only through the tools below. Every tracked change and comment you make
is recorded under the author string `{author}`; changes and comments by any other author come
from earlier turns of the negotiation.

- `read_document`: the contract as text, one paragraph per line as `[p-NNN]` with its clause
  number. Pending changes are inline, each followed by its author's alias: `{{+inserted}}A1`,
  `{{-deleted}}A1`, `{{-old+new}}A1` (a replacement); the header's legend says who each alias is and
  which one is you. `<cmt-N>...</>` marks the text comment `cmt-N` is on; the comment thread
  (`cmt-N A1 [reply to cmt-M] [resolved]: text`) follows the paragraph's line. A trailing `[...]`
  notes table cells and changes the text does not show; `[p-NNN/tb1.1]` lines show text in a
  text box (not editable); a full read ends with the headers, footers and changed notes (not
  editable). Call it once at the start; for part of
  the contract pass `clause` (e.g. "3.3": that clause and its sub-clauses) or `start_id`/`end_id`.
- `propose_edits`: a batch of tracked edits. Each edit has `op` (`replace`, `delete` or
  `insert_after`), an `anchor` with the `paragraph_id` and the exact `text` to act on as it reads
  now (add `occurrence`, `context_before` or `context_after` when the text occurs more than once),
  `new_text` for replace and insert_after, and a `comment` explaining the change to the other side.
  Each edit is applied independently and reports its own `status`; fix and resend only the edits
  that failed. The result also shows the current line (and threads) of every paragraph you changed,
  exactly as `read_document` would show them now: no need to read again to see your edits.
- `add_comment`: start a comment thread on a paragraph (optionally on a span of its text), or reply
  to an existing thread with `reply_to` set to its `cmt-N` id. The result shows the paragraph's line.
- `mark_reserved`: strike a whole range of paragraphs and leave "Reserved." so later numbering
  does not shift. The result shows the struck paragraphs' lines.
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
