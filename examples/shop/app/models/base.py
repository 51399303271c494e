"""A tiny declarative base: a table is a class, its columns are class attributes.

It has the shape of an ORM model (``__tablename__`` plus ``Column`` attributes)
without depending on an ORM, so the example runs on the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class Column:
    """One column of a table: its SQL type and constraints."""

    sql_type: str
    primary_key: bool = False
    nullable: bool = True
    default: Any = None
    foreign_key: str | None = None


class Model:
    """Base class of every table. Rows are instances; unknown columns are refused."""

    __tablename__: ClassVar[str] = ""

    def __init__(self, **values: Any) -> None:
        for name, column in self.columns().items():
            setattr(self, name, values.pop(name, column.default))
        if values:
            unknown = ", ".join(sorted(values))
            raise TypeError(f"{self.__tablename__} has no column(s): {unknown}")

    @classmethod
    def columns(cls) -> dict[str, Column]:
        """The columns in declaration order, base classes first."""
        found: dict[str, Column] = {}
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                if isinstance(value, Column):
                    found[name] = value
        return found

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.columns()}

    def __repr__(self) -> str:
        pk = next((n for n, c in self.columns().items() if c.primary_key), None)
        ident = getattr(self, pk) if pk else "?"
        return f"<{type(self).__name__} {self.__tablename__}#{ident}>"
