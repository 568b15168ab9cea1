"""Reads that every request makes, compiled to SQL once per process and then only run.

Django compiles a queryset into SQL each time it is evaluated: for the match and seats that
every game page, preview and move reads, compiling took several times longer than the
database took to answer (0.34 ms of CPU against 0.08 ms for the seats with their match,
puzzle and players). A ``Prepared`` read builds its queryset once, with stand-in arguments,
keeps the SQL and the way Django turns its rows into model instances (related objects
included, as ``select_related`` fills them), and afterwards only runs the SQL with the real
arguments: the same instances, the same single query, without the compiling.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators

#: Stand-ins for the arguments while the SQL is made: numbers no row has.
_STAND_INS = (-730_001, -730_002, -730_003, -730_004)


@dataclass(frozen=True)
class _Plan:
    """What one database needs to run the read: its SQL, where each argument goes among
    the parameters, and how a row becomes instances."""

    alias: str
    sql: str
    params: tuple
    slots: tuple[tuple[int, int], ...]  # (parameter index, argument index)
    compiler: Any
    start: int
    end: int
    init_list: tuple[str, ...]
    from_db: Callable
    populators: tuple


class Prepared:
    """``build(*arguments)`` makes the queryset (plain fields, ``select_related``,
    ``select_for_update``, ordering; each argument used once, as a number). Calling the
    read with the real arguments returns the list the queryset would have."""

    def __init__(self, build: Callable[..., QuerySet], arguments: int = 1) -> None:
        if not 1 <= arguments <= len(_STAND_INS):
            raise ValueError(f"a prepared read takes 1 to {len(_STAND_INS)} arguments")
        self.build = build
        self.arguments = arguments
        self._plan: _Plan | None = None

    def __call__(self, *values: int) -> list[Model]:
        if len(values) != self.arguments:
            raise TypeError(f"this read takes {self.arguments} arguments, not {len(values)}")
        plan = self._plan or self._make_plan()
        params = list(plan.params)
        for index, argument in plan.slots:
            params[index] = values[argument]
        with connections[plan.alias].cursor() as cursor:
            cursor.execute(plan.sql, params)
            rows = cursor.fetchall()
        found = []
        for row in plan.compiler.results_iter([rows]):
            obj = plan.from_db(plan.alias, plan.init_list, row[plan.start : plan.end])
            for populator in plan.populators:
                populator.populate(row, obj)
            found.append(obj)
        return found

    def one(self, *values: int) -> Model:
        """The single row's instance; the model's DoesNotExist if there is none."""
        found = self(*values)
        if not found:
            model = self.build(*_STAND_INS[: self.arguments]).model
            raise model.DoesNotExist(f"{model.__name__} matching query does not exist.")
        return found[0]

    def _make_plan(self) -> _Plan:
        queryset = self.build(*_STAND_INS[: self.arguments])
        if queryset._fetch_mode.track_peers or queryset._known_related_objects:
            raise ValueError("a prepared read makes plain instances only")
        compiler = queryset.query.get_compiler(using=queryset.db)
        sql, params = compiler.as_sql()
        slots = []
        for argument, stand_in in enumerate(_STAND_INS[: self.arguments]):
            where = [i for i, p in enumerate(params) if p == stand_in]
            if len(where) != 1:
                raise ValueError("each argument of a prepared read must be used exactly once")
            slots.append((where[0], argument))
        if compiler.annotation_col_map or compiler.has_extra_select:
            raise ValueError("a prepared read makes plain instances only")
        klass_info, select = compiler.klass_info, compiler.select
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        model = klass_info["model"]
        fetch_mode = queryset._fetch_mode
        self._plan = _Plan(
            alias=queryset.db,
            sql=sql,
            params=tuple(params),
            slots=tuple(slots),
            compiler=compiler,
            start=start,
            end=end,
            init_list=tuple(f[0].target.attname for f in select[start:end]),
            from_db=partial(model.from_db, fetch_mode=fetch_mode),
            populators=tuple(get_related_populators(klass_info, select, queryset.db, fetch_mode)),
        )
        return self._plan
