"""Hold the project's own summary of the API documentation to the source documents, when a maintainer has
them at hand: `scripts/audit-docs FOLDER`, where FOLDER holds `commerce-api.md` and `api-notes.md`.

The test suite never needs those documents (a clone has only what the repository carries); this check is
how the carried summary (docs/documentation-map.md, docs/api-notes-audit.md) is kept in step with them.
It prints one line per row of the sources the summary does not map, and exits 1 when there is any.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAPPING = ROOT / "docs" / "documentation-map.md"
AUDIT = ROOT / "docs" / "api-notes-audit.md"

# (heading in commerce-api.md, how docs/documentation-map.md names each first cell of its table)
TABLES = (
    ("### Feature (resource type", "Feature `{}`"),
    ("### Paginated list envelope", "Envelope `{}`"),
    ("## Limits", "Limit: {}"),
    ("Query parameters:", "Query `{}`"),
)
NUMBERED = (
    ("### Update a feature", "Update a feature, rule {}"),
    ("### Get a custom API entry", "Get a custom API entry, rule {}"),
    ("### List endpoints that support pagination", "Pagination rule {}"),
)
UPDATE_PAYLOAD = "### Feature update payload"


def table_rows(spec: str, heading: str) -> list[str]:
    """The first cells of the first table under `heading`, without its header row."""
    if heading not in spec:
        return []
    section = spec[spec.index(heading) :]
    rows = []
    for line in section.splitlines()[2:]:
        if line.startswith("| ") and not line.startswith("|---"):
            rows.append(line.split("|")[1].strip())
        elif rows and not line.startswith("|"):
            break
    return rows[1:]


def numbered_rules(spec: str, heading: str) -> list[str]:
    """The numbers of the `Rules:` list of the section under `heading`."""
    if heading not in spec:
        return []
    section = spec[spec.index(heading) + len(heading) :]
    following = re.search(r"^#{2,3} ", section, flags=re.MULTILINE)
    section = section[: following.start()] if following else section
    if "Rules:" not in section:
        return []
    return re.findall(r"^(\d+)\. ", section[section.index("Rules:") :], flags=re.MULTILINE)


def section_counts(text: str, item: str) -> dict[str, int]:
    """How many items (bullets, or table rows) each `## ` section holds."""
    counts: dict[str, int] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].split("(")[0].strip()
            counts[current] = 0
        elif current is not None and re.match(item, line):
            counts[current] += 1
    return counts


def spec_problems(spec: str, mapping: str) -> list[str]:
    """Rows, rules and fields of commerce-api.md that the documentation map does not name."""
    problems = []
    for heading, form in TABLES:
        rows = table_rows(spec, heading)
        if not rows:
            problems.append(f"commerce-api.md: no table under {heading!r}")
        problems += [
            f"commerce-api.md {heading!r}: {form.format(row)} is not mapped"
            for row in rows
            if form.format(row) not in mapping
        ]
    payload_rows = [
        line.split("|")[1] for line in mapping.splitlines() if line.startswith("| Update payload")
    ]
    for field in table_rows(spec, UPDATE_PAYLOAD):
        if not any(f"`{field}`" in row for row in payload_rows):
            problems.append(f"commerce-api.md {UPDATE_PAYLOAD!r}: Update payload `{field}` is not mapped")
    for heading, form in NUMBERED:
        numbers = numbered_rules(spec, heading)
        if not numbers:
            problems.append(f"commerce-api.md: no numbered rules under {heading!r}")
        problems += [
            f"commerce-api.md {heading!r}: {form.format(n)} is not mapped"
            for n in numbers
            if form.format(n) not in mapping
        ]
    return problems


def notes_problems(notes: str, audit: str) -> list[str]:
    """Sections of api-notes.md whose bullets the audit page does not give one row each."""
    bullets = section_counts(notes, r"- ")
    rows = section_counts(audit, r"\| (?!bullet |fact |---)")
    return [
        f"api-notes.md '## {name}': {count} bullets, docs/api-notes-audit.md has {rows.get(name, 0)} rows"
        for name, count in bullets.items()
        if rows.get(name, 0) != count
    ]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(
            "usage: scripts/audit-docs FOLDER  (FOLDER holds commerce-api.md and api-notes.md)",
            file=sys.stderr,
        )
        return 2
    folder = Path(argv[0])
    try:
        spec = (folder / "commerce-api.md").read_text(encoding="utf-8")
        notes = (folder / "api-notes.md").read_text(encoding="utf-8")
    except OSError as error:
        print(f"audit-docs: error: cannot read {error.filename}: {error.strerror}", file=sys.stderr)
        return 2
    problems = spec_problems(spec, MAPPING.read_text(encoding="utf-8"))
    problems += notes_problems(notes, AUDIT.read_text(encoding="utf-8"))
    for problem in problems:
        print(problem)
    print(f"audit-docs: {len(problems)} problem(s)" if problems else "audit-docs: the summary maps every row")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
