"""The UI's filters as SQL: a parsed `Query` compiled into a condition on the index's `exchanges` table
with bound parameters. No user text is ever part of the SQL: column names come from fixed tables here,
values are only ever parameters."""

from __future__ import annotations

from typing import Any

from proxy.core.ui.query import Query

# The text condition, always last (its parameter too): `TrafficIndex.matching` drives the query from it.
TEXT_CONDITION = "id IN (SELECT rowid FROM bodies WHERE bodies MATCH ?)"
_SEVERITY_COLUMNS = {"error": "errors", "warning": "warnings", "info": "infos"}  # fixed names, not input


def compiled(query: Query) -> tuple[str, tuple[Any, ...]]:
    """The SQL condition on `exchanges` for a query, and its parameters: values only ever bound."""
    conditions: list[str] = []
    parameters: list[Any] = []
    for column, value in (
        ("method", query.method),
        ("endpoint", query.endpoint),
        ("cassette", query.cassette),
    ):
        if value is not None:
            conditions.append(f"{column} = ?")
            parameters.append(value)
    statuses = query.status_range
    if statuses is not None:
        conditions.append("status BETWEEN ? AND ?")
        parameters.extend(statuses)
    if query.path is not None:
        conditions.append("route GLOB ?")
        parameters.append(sql_glob(query.path))
    if query.rule is not None:
        conditions.append("id IN (SELECT exchange FROM findings WHERE rule = ?)")
        parameters.append(query.rule)
    if query.severity is not None:
        conditions.append(f"{_SEVERITY_COLUMNS[query.severity]} > 0")
    if query.has_findings is not None:
        conditions.append(f"errors + warnings + infos {'>' if query.has_findings else '='} 0")
    if query.text is not None:  # last, its parameter too: `matching` drives the query from it
        conditions.append(TEXT_CONDITION)
        parameters.append('"' + query.text.replace('"', '""') + '"')  # one phrase: the text as it is
    return " AND ".join(conditions) or "1", tuple(parameters)


def sql_glob(pattern: str) -> str:
    """A `path` pattern as SQLite's GLOB reads it: `*` and `?` wild, `[` literal."""
    return pattern.replace("[", "[[]")
