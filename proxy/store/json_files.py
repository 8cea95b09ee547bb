"""A JSON document read from a file (a HAR to import), with errors that name the file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from proxy.errors import CassetteFormatError
from proxy.store.regular_files import file_bytes, text_of


def read_json_file(path: Path, what: str) -> Any:
    """A JSON document from a file (a HAR...); errors name the file and line."""
    raw = file_bytes(path, what)
    try:
        return json.loads(text_of(raw, path))
    except json.JSONDecodeError as error:
        raise CassetteFormatError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    except RecursionError:
        raise CassetteFormatError(f"{path}: not usable JSON: nested too deeply") from None
