"""Reads that every request makes, written as SQL once per process and then only run.

Django compiles a queryset into SQL each time it is evaluated: for the match and seats that
every game page, preview and move reads, compiling took several times longer than the
database took to answer (0.34 ms of CPU against 0.08 ms for the seats with their match,
puzzle and players). A ``Prepared`` read writes its SQL once, from the models' documented
``_meta`` API (the rows of one model, each argument compared with one column, the related
rows that ``select_related`` would join, an order, a lock), and afterwards only runs it
with the real arguments. Rows become instances through ``Model.from_db`` and related
instances are set through the relation, as ``select_related`` leaves them: the same
instances, the same single query, without the compiling.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, timedelta
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Field, ForeignKey, Model
from django.utils import timezone
from django.utils.dateparse import parse_datetime


def field_of(model: type[Model], name: str) -> Field:
    """``model``'s field ``name`` ("pk": its primary key), one with a column of its own;
    ValueError for another (a reverse or many-to-many relation)."""
    meta = model._meta
    field = meta.pk if name == "pk" else meta.get_field(name)
    if not isinstance(field, Field) or not field.column:
        raise ValueError(f"{model.__name__}.{name} has no column of its own")
    return field


def column(model: type[Model], name: str) -> str:
    """The database column of ``model``'s field ``name`` (``field_of``), unquoted."""
    field = field_of(model, name)
    assert field.column  # field_of refuses a field without one
    return field.column


@dataclass(frozen=True)
class _Part:
    """One model's columns in a row: from ``start`` to ``end`` (its primary key at ``pk``),
    made into an instance of ``model`` and set on the instance of part ``parent`` through
    ``relation``."""

    model: type[Model]
    start: int
    end: int
    attnames: tuple[str, ...]
    pk: int
    converters: tuple[tuple[int, Callable[[Any], Any]], ...]
    parent: int | None
    relation: str | None


class Prepared[M: Model]:
    """The instances of ``model`` whose fields ``where`` (attribute names) equal the
    arguments, one argument each, in order; with the related instances of ``related``
    (paths of foreign keys, as ``select_related`` takes them), ordered by ``order_by``
    (field names, "-" for descending), locked until the transaction ends with
    ``for_update``. Calling the read with the arguments returns the list of instances."""

    def __init__(
        self,
        model: type[M],
        *where: str,
        related: tuple[str, ...] = (),
        order_by: tuple[str, ...] = (),
        for_update: bool = False,
        using: str = DEFAULT_DB_ALIAS,
    ) -> None:
        if not where:
            raise ValueError("a prepared read takes at least one argument")
        if len(set(where)) != len(where):
            raise ValueError("each argument of a prepared read must be used exactly once")
        self.model = model
        self.where = where
        self.related = related
        self.order_by = order_by
        self.for_update = for_update
        self.alias = using
        self._plan: tuple[str, tuple[_Part, ...]] | None = None

    def __call__(self, *values: Any) -> list[M]:
        if len(values) != len(self.where):
            raise TypeError(f"this read takes {len(self.where)} arguments, not {len(values)}")
        sql, parts = self._plan or self._make_plan()
        with connections[self.alias].cursor() as cursor:
            cursor.execute(sql, values)
            rows = cursor.fetchall()
        return [self._instance(row, parts) for row in rows]

    def one(self, *values: Any) -> M:
        """The single row's instance; the model's DoesNotExist if there is none."""
        found = self(*values)
        if not found:
            name = self.model.__name__
            # every concrete model has its DoesNotExist; the stubs give the base Model none
            raise self.model.DoesNotExist(  # type: ignore[attr-defined]
                f"{name} matching query does not exist."
            )
        return found[0]

    def _instance(self, row: tuple, parts: tuple[_Part, ...]) -> M:
        made: list[Model | None] = []
        for part in parts:
            values = list(row[part.start : part.end])
            parent = None if part.parent is None else made[part.parent]
            if part.parent is not None and values[part.pk] is None:
                obj = None  # a nullable relation without a row
            else:
                for index, convert in part.converters:
                    values[index] = convert(values[index])
                obj = part.model.from_db(self.alias, part.attnames, values)
            if parent is not None and part.relation is not None:
                setattr(parent, part.relation, obj)
            made.append(obj)
        return made[0]  # type: ignore[return-value]  # the read's own row: an M, never None

    def _make_plan(self) -> tuple[str, tuple[_Part, ...]]:
        connection = connections[self.alias]
        quote = connection.ops.quote_name
        columns: list[str] = []
        parts: list[_Part] = []
        joins: list[str] = []
        by_path: dict[str, int] = {}
        nullable: dict[int, bool] = {}
        aliases: list[str] = []

        def add(model: type[Model], parent: int | None, relation: str | None) -> int:
            # the read's own table by its name, as Django writes it; joined ones as t1, t2...
            alias = f"t{len(parts)}" if parts else quote(model._meta.db_table)
            fields = list(model._meta.concrete_fields)
            start = len(columns)
            columns.extend(f"{alias}.{quote(column(model, f.name))}" for f in fields)
            converters = tuple(
                (i, convert)
                for i, f in enumerate(fields)
                if (convert := _converter(f, connection)) is not None
            )
            parts.append(
                _Part(
                    model,
                    start,
                    len(columns),
                    tuple(f.attname for f in fields),
                    fields.index(model._meta.pk),
                    converters,
                    parent,
                    relation,
                )
            )
            aliases.append(alias)
            return len(parts) - 1

        add(self.model, None, None)
        for path in self.related:
            model: type[Model] = self.model
            at = 0
            walked = []
            for name in path.split("__"):
                walked.append(name)
                key = "__".join(walked)
                field = model._meta.get_field(name)
                if not isinstance(field, ForeignKey):
                    raise ValueError(f"{key} is not a foreign key")
                if key not in by_path:
                    target = field.related_model
                    index = add(target, at, name)
                    outer = field.null or nullable.get(at, False)
                    nullable[index] = outer
                    join = "LEFT OUTER JOIN" if outer else "INNER JOIN"
                    joins.append(
                        f"{join} {quote(target._meta.db_table)} t{index}"
                        f" ON {aliases[at]}.{quote(column(model, name))}"
                        f" = t{index}.{quote(column(target, field.target_field.name))}"
                    )
                    by_path[key] = index
                model, at = field.related_model, by_path[key]
        table = aliases[0]
        where = " AND ".join(
            f"{table}.{quote(column(self.model, name))} = %s" for name in self.where
        )
        sql = f"SELECT {', '.join(columns)} FROM {table}"
        if joins:
            sql += " " + " ".join(joins)
        sql += f" WHERE {where}"
        if self.order_by:
            order = []
            for name in self.order_by:
                by = quote(column(self.model, name.lstrip("-")))
                order.append(f"{table}.{by} {'DESC' if name.startswith('-') else 'ASC'}")
            sql += " ORDER BY " + ", ".join(order)
        if self.for_update and connection.features.has_select_for_update:
            sql += " FOR UPDATE"
        self._plan = (sql, tuple(parts))
        return self._plan


def _converter(field: Field, connection) -> Callable[[Any], Any] | None:
    """How a column's value as the database driver gives it becomes the field's Python
    value, where the two differ: the field's own ``from_db_value`` (JSON), and the types
    SQLite keeps as text or numbers (an aware datetime, a timedelta)."""
    if hasattr(field, "from_db_value"):
        return lambda value: field.from_db_value(value, None, connection)
    kind = field.get_internal_type()
    if kind == "DateTimeField" and settings.USE_TZ:
        return _aware
    if kind == "DurationField":
        return _duration
    return None


def _aware(value: Any) -> Any:
    if isinstance(value, str):
        value = parse_datetime(value)
    if value is not None and timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return value


def _duration(value: Any) -> Any:
    return timedelta(microseconds=value) if isinstance(value, int) else value
