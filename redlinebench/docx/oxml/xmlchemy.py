"""Declarative accessors for element classes (STYLE habit 5: declare XML, don't walk it)."""

from __future__ import annotations

from typing import Any, Callable

from .ns import qn


def _to_int(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


def _to_bool(value: str) -> bool:
    return value not in ("0", "false", "off")


_CONVERTERS: dict[type, Callable[[str], Any]] = {str: str, int: _to_int, bool: _to_bool}


class Attr:
    """An attribute read and written through a converter (``None`` removes it)."""

    def __init__(self, name: str, kind: type = str, *, required: bool = False, default: Any = None) -> None:
        self.clark = qn(name) if ":" in name else name
        self.kind = kind
        self.required = required
        self.default = default

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        raw = obj.get(self.clark)
        if raw is None:
            return self.default
        return _CONVERTERS[self.kind](raw)

    def __set__(self, obj: Any, value: Any) -> None:
        if value is None:
            if self.clark in obj.attrib:
                del obj.attrib[self.clark]
            return
        if self.kind is bool:
            value = "1" if value else "0"
        obj.set(self.clark, str(value))


class Child:
    """A child element: the first one, or all of them with ``many=True``."""

    def __init__(self, tag: str, *, many: bool = False) -> None:
        self.tag = tag
        self.many = many

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        if self.many:
            return obj.findall(qn(self.tag))
        return obj.find(qn(self.tag))
