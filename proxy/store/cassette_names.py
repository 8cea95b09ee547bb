"""`X-Commerce-Cassette: NAME` resolved to a cassette file inside the cassette folder, never outside it."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from proxy.errors import CommerceProxyError

CASSETTE_SUFFIXES = (".yaml", ".yml")
LONGEST_NAME = 255


class CassetteNameError(CommerceProxyError):
    """A cassette name a client sent that names no cassette in the folder (or tries to leave it)."""


def resolve_cassette_name(folder: Path, name: str) -> Path:
    """The cassette file NAME means: `NAME`, `NAME.yaml` or `NAME.yml` below the folder.

    Refused: absolute names, `..` or `.` parts, backslashes, control characters, and anything that
    resolves (through symbolic links too) to a file outside the folder.
    """
    shown = repr(name[:80])
    if not name or len(name) > LONGEST_NAME:
        raise CassetteNameError(f"cassette name {shown} must be 1 to {LONGEST_NAME} characters")
    if any(ord(character) < 32 for character in name) or "\\" in name:
        raise CassetteNameError(f"cassette name {shown} has a control character or backslash")
    parts = PurePosixPath(name)
    if parts.is_absolute() or any(part in ("..", ".") for part in parts.parts) or name.endswith("/"):
        raise CassetteNameError(f"cassette name {shown} must be a relative name inside the cassette folder")
    root = folder.resolve()
    candidates = (
        [name] if name.endswith(CASSETTE_SUFFIXES) else [name + suffix for suffix in CASSETTE_SUFFIXES]
    )
    for candidate in candidates:
        try:
            path = (root / candidate).resolve()
            found = path.is_file()
        except OSError as error:  # a part longer than the file system takes, a loop of links...
            raise CassetteNameError(
                f"cassette name {shown} cannot be a file name: {error.strerror}"
            ) from None
        if not path.is_relative_to(root):
            raise CassetteNameError(f"cassette name {shown} leads outside the cassette folder {folder}")
        if found:
            return path
    raise CassetteNameError(f"no cassette {shown} in {folder} (looked for {', '.join(candidates)})")
