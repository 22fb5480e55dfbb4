"""The five tool schemas: OpenAI function-calling shape, derived from the typed functions."""

from __future__ import annotations

import json
from typing import Annotated, Literal, NotRequired, TypedDict

import pytest

from redlinebench.errors import ToolFailure
from redlinebench.tools import TOOL_NAMES, TOOL_SCHEMAS, ToolLimits, tool_schemas
from redlinebench.tools._schema import check_arguments, docstring_args, function_schema


def _fn(name: str) -> dict:
    return next(s["function"] for s in TOOL_SCHEMAS if s["function"]["name"] == name)


def test_five_tools_in_openai_format():
    assert TOOL_NAMES == ("read_document", "propose_edits", "add_comment", "mark_reserved", "end_session")
    for schema in TOOL_SCHEMAS:
        assert schema["type"] == "function"
        fn = schema["function"]
        assert set(fn) == {"name", "description", "parameters"}
        assert len(fn["description"]) > 60, fn["name"]
        params = fn["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        for prop in params["properties"].values():
            assert prop.get("description"), (fn["name"], prop)
    json.dumps(TOOL_SCHEMAS)  # serialisable as sent to providers


def test_propose_edits_schema_matches_spec():
    params = _fn("propose_edits")["parameters"]
    assert params["required"] == ["edits"]
    item = params["properties"]["edits"]["items"]
    assert item["required"] == ["op", "anchor", "comment"]
    assert item["properties"]["op"]["enum"] == ["replace", "delete", "insert_after"]
    anchor = item["properties"]["anchor"]
    assert anchor["required"] == ["paragraph_id", "text"]
    assert set(anchor["properties"]) == {"paragraph_id", "text", "context_before", "context_after", "occurrence"}
    assert anchor["properties"]["occurrence"]["type"] == "integer"
    assert params["properties"]["edits"]["maxItems"] == 50


def test_other_schemas():
    read = _fn("read_document")["parameters"]
    assert read["required"] == [] and set(read["properties"]) == {"start_id", "end_id", "clause"}
    add = _fn("add_comment")["parameters"]
    assert add["required"] == ["text"] and set(add["properties"]) == {"text", "paragraph_id", "span", "reply_to"}
    reserve = _fn("mark_reserved")["parameters"]
    assert reserve["required"] == ["start_id", "end_id", "comment"]
    assert _fn("end_session")["parameters"]["required"] == []


def test_limits_are_written_into_schemas():
    schemas = tool_schemas(ToolLimits(max_edits_per_batch=7, max_text_chars=100, max_comment_chars=200))
    edits = schemas[1]["function"]["parameters"]["properties"]["edits"]
    assert edits["maxItems"] == 7
    assert edits["items"]["properties"]["new_text"]["maxLength"] == 100
    assert edits["items"]["properties"]["comment"]["maxLength"] == 200
    assert TOOL_SCHEMAS[1]["function"]["parameters"]["properties"]["edits"]["maxItems"] == 50  # default untouched


class _Inner(TypedDict):
    name: Annotated[str, "the name"]
    count: NotRequired[Annotated[int, "how many"]]


def _sample(ctx: object, items: list[_Inner], mode: Literal["a", "b"] = "a", flag: bool | None = None) -> dict:
    """Do a thing.

    Longer explanation
    over two lines.

    Args:
        items: things to do,
            continued here.
        mode: which mode.
        flag: optional flag.
    """
    return {}


def test_schema_derivation_from_hints_and_docstring():
    fn = function_schema(_sample)["function"]
    assert fn["name"] == "_sample"
    assert fn["description"] == "Do a thing. Longer explanation over two lines."
    props = fn["parameters"]["properties"]
    assert props["items"]["description"] == "things to do, continued here."
    assert props["items"]["items"]["required"] == ["name"]
    assert props["items"]["items"]["properties"]["count"] == {"type": "integer", "description": "how many"}
    assert props["mode"] == {"type": "string", "enum": ["a", "b"], "description": "which mode."}
    assert props["flag"]["type"] == "boolean"
    assert fn["parameters"]["required"] == ["items"]


def test_docstring_args_stops_at_next_section():
    summary, args = docstring_args("Sum.\n\nArgs:\n    a: first.\n\nReturns:\n    b: not an arg.\n")
    assert summary == "Sum." and args == {"a": "first."}


@pytest.mark.parametrize("value,path,fragment", [
    ({"edits": "x"}, "arguments.edits", "must be a JSON array, got string"),
    ({"edits": [{"op": "replace", "anchor": {"paragraph_id": "p-1", "text": "t"}, "comment": 5}]},
     "arguments.edits[0].comment", "must be a JSON string, got integer"),
    ({"edits": [{"op": "nope", "anchor": {"paragraph_id": "p-1", "text": "t"}, "comment": "c"}]},
     "arguments.edits[0].op", "must be one of"),
    ({"edits": [{"op": "delete", "anchor": {"paragraph_id": "p-1"}, "comment": "c"}]},
     "arguments.edits[0].anchor.text", "is required"),
    ({"edits": [{"op": "delete", "anchor": {"paragraph_id": "p-1", "text": "t", "occurrence": True}, "comment": "c"}]},
     "arguments.edits[0].anchor.occurrence", "must be a JSON integer, got boolean"),
    ({"edits": [], "extra": 1}, "arguments.extra", "unknown field 'extra'"),
])
def test_check_arguments_names_the_place(value, path, fragment):
    params = _fn("propose_edits")["parameters"]
    with pytest.raises(ToolFailure) as info:
        check_arguments(params, value)
    assert info.value.code == "invalid_arguments"
    assert info.value.details["path"] == path and fragment in info.value.message


def test_unknown_field_message_lists_the_known_fields_or_says_there_are_none():
    with pytest.raises(ToolFailure) as info:
        check_arguments(_fn("end_session")["parameters"], {"page": 2})
    assert info.value.message == "arguments has unknown field 'page' (known: summary)"
    with pytest.raises(ToolFailure) as info:   # a tool without parameters
        check_arguments({"type": "object", "properties": {}, "additionalProperties": False}, {"page": 2})
    assert info.value.message == "arguments has unknown field 'page' (it takes no arguments)"


def test_null_is_accepted_for_optional_fields():
    params = _fn("add_comment")["parameters"]
    check_arguments(params, {"text": "hi", "paragraph_id": "p-001", "span": None, "reply_to": None})
    with pytest.raises(ToolFailure, match="arguments.text is required"):
        check_arguments(params, {"text": None, "paragraph_id": "p-001"})
