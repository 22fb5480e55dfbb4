"""JSON Schema from typed tool functions, and a checker for model-supplied arguments.

A tool is declared once, as a Python function with type hints and a docstring (``Args:``
section); ``function_schema`` turns it into the OpenAI function-calling format and
``check_arguments`` holds a model's arguments against that same schema, so what the model is
told and what we enforce cannot drift apart. Only the JSON-shaped types tools need are
supported: str, int, bool, ``X | None`` (optional), ``list[T]``, ``Literal[...]``,
``TypedDict`` (``NotRequired`` keys) and ``Annotated[T, "description"]``.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints

from ..errors import ToolFailure, echoed, shown

__all__ = ["function_schema", "check_arguments", "docstring_args"]

_SCALARS: dict[type, str] = {str: "string", int: "integer", bool: "boolean", float: "number"}


def docstring_args(doc: str | None) -> tuple[str, dict[str, str]]:
    """(summary, {arg: description}) from a Google-style docstring."""
    if not doc:
        return "", {}
    doc = inspect.cleandoc(doc)
    head, _, rest = doc.partition("\nArgs:\n")
    summary = " ".join(line.strip() for line in head.strip().splitlines() if line.strip())
    args: dict[str, str] = {}
    current: str | None = None
    for line in rest.splitlines():
        if line and not line.startswith(" "):
            break  # next section (Returns:, ...)
        match = re.match(r"^\s{2,4}(\w+):\s*(.*)$", line)
        if match:
            current = match.group(1)
            args[current] = match.group(2).strip()
        elif current and line.strip():
            args[current] += " " + line.strip()
    return summary, args


def _unwrap(hint: Any) -> tuple[Any, str | None, bool | None]:
    """(bare type, description, required flag from Required/NotRequired or None)."""
    description = None
    required: bool | None = None
    while True:
        origin = get_origin(hint)
        if origin is typing.Annotated:
            base, *meta = get_args(hint)
            description = next((m for m in meta if isinstance(m, str)), description)
            hint = base
        elif origin is NotRequired:
            required = False
            hint = get_args(hint)[0]
        elif origin is Required:
            required = True
            hint = get_args(hint)[0]
        else:
            return hint, description, required


def _is_optional(hint: Any) -> tuple[Any, bool]:
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(hint) if a is not type(None)]
        if len(members) != len(get_args(hint)):
            return (members[0] if len(members) == 1 else Union[tuple(members)]), True
    return hint, False


def _type_schema(hint: Any) -> dict[str, Any]:
    hint, description, _ = _unwrap(hint)
    hint, _ = _is_optional(hint)
    schema: dict[str, Any]
    origin = get_origin(hint)
    if hint in _SCALARS:
        schema = {"type": _SCALARS[hint]}
    elif origin is Literal:
        values = list(get_args(hint))
        schema = {"type": _SCALARS[type(values[0])], "enum": values}
    elif origin in (list, typing.List):  # noqa: UP006
        (item,) = get_args(hint)
        schema = {"type": "array", "items": _type_schema(item)}
    elif typing.is_typeddict(hint):
        schema = _typeddict_schema(hint)
    else:
        raise TypeError(f"unsupported tool argument type: {hint!r}")
    if description:
        schema["description"] = description
    return schema


def _typeddict_schema(td: type) -> dict[str, Any]:
    hints = get_type_hints(td, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for key, hint in hints.items():
        _, _, flag = _unwrap(hint)
        properties[key] = _type_schema(hint)
        is_required = flag if flag is not None else (key in td.__required_keys__)
        if is_required:
            required.append(key)
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def function_schema(fn: Callable[..., Any], *, skip: int = 1) -> dict[str, Any]:
    """The OpenAI ``{"type": "function", "function": {...}}`` entry for ``fn``.

    The first ``skip`` parameters (the session context) are not model-facing. A parameter
    with a default is optional; its description comes from the docstring ``Args:``.
    """
    summary, arg_docs = docstring_args(fn.__doc__)
    all_params = list(inspect.signature(fn).parameters.values())
    # the context parameters' annotations may be forward references to types not importable here
    local_ns = {p.annotation: object for p in all_params[:skip] if isinstance(p.annotation, str)}
    hints = get_type_hints(fn, localns=local_ns, include_extras=True)
    params = all_params[skip:]
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in params:
        schema = _type_schema(hints[param.name])
        if param.name in arg_docs and "description" not in schema:
            schema["description"] = arg_docs[param.name]
        properties[param.name] = schema
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
    parameters: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    parameters["required"] = required
    return {"type": "function", "function": {"name": fn.__name__, "description": summary, "parameters": parameters}}


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "number": (int, float),
    "array": (list, tuple),
    "object": (Mapping,),
}


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    for name, kinds in _JSON_TYPES.items():
        if isinstance(value, kinds) and not (name in ("integer", "number") and isinstance(value, bool)):
            return name
    return type(value).__name__


def check_arguments(schema: Mapping[str, Any], value: Any, path: str = "arguments", *,
                    optional_null: bool = True) -> None:
    """Raise ``ToolFailure("invalid_arguments", ...)`` naming the first place ``value`` breaks ``schema``.

    ``null`` is accepted for optional object keys (models often send ``"span": null``).
    """
    expected = schema.get("type")
    kinds = _JSON_TYPES.get(expected or "", ())
    is_bool = isinstance(value, bool)
    if expected and (not isinstance(value, kinds) or (is_bool and expected in ("integer", "number"))):
        raise ToolFailure("invalid_arguments", f"{path} must be a JSON {expected}, got {_type_name(value)}",
                          path=path)
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(repr(v) for v in schema["enum"])
        raise ToolFailure("invalid_arguments", f"{path} must be one of {allowed}, got {shown(value)}", path=path)
    if expected == "integer" and "minimum" in schema and value < schema["minimum"]:
        raise ToolFailure("invalid_arguments", f"{path} must be at least {schema['minimum']}", path=path)
    if expected == "array":
        for index, item in enumerate(value):
            check_arguments(schema.get("items", {}), item, f"{path}[{index}]")
    if expected == "object":
        props: Mapping[str, Any] = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value or value[key] is None:
                raise ToolFailure("invalid_arguments", f"{path}.{key} is required", path=f"{path}.{key}")
        for key, item in value.items():
            if key not in props:
                if schema.get("additionalProperties", True) is False:
                    known = f"known: {', '.join(props)}" if props else "it takes no arguments"
                    raise ToolFailure("invalid_arguments", f"{path} has unknown field {shown(key)} ({known})",
                                      path=f"{path}.{echoed(key)}")
                continue
            if item is None and optional_null and key not in schema.get("required", []):
                continue
            check_arguments(props[key], item, f"{path}.{key}")
