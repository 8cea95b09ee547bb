# Sourced by scripts/run and scripts/test: make .venv and install the project into it when missing
# or when pyproject.toml changed since the last install.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"

ensure_venv() {
    local extras="$1"
    local python="${PYTHON:-}"
    if [ -z "$python" ]; then
        for candidate in python3.11 python3.12 python3.13 python3; do
            if command -v "$candidate" >/dev/null 2>&1; then python="$candidate"; break; fi
        done
    fi
    if [ -z "$python" ] || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        echo "commerce-proxy: error: Python 3.11 or newer is needed (set PYTHON=/path/to/python3.11)" >&2
        exit 2
    fi
    if [ ! -x "$VENV/bin/python" ]; then
        echo "commerce-proxy: creating $VENV" >&2
        "$python" -m venv "$VENV"
    fi
    local stamp="$VENV/.installed"
    local want
    want="$(cat "$ROOT/pyproject.toml" | sha256sum | cut -c1-16)-[$extras]"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "commerce-proxy: installing the project into $VENV${extras:+ (with $extras extras)}" >&2
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
        local target="$ROOT"
        [ -n "$extras" ] && target="$ROOT[$extras]"
        # pip compiles one file at a time; compileall below does it on every core, in a third of the time.
        "$VENV/bin/python" -m pip install --quiet --no-compile --disable-pip-version-check -e "$target" >&2
        # Not fatal: a package may ship a file that is not meant to compile (a template, old syntax).
        "$VENV/bin/python" -m compileall -q -j 0 "$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" >/dev/null || true
        echo "$want" > "$stamp"
    fi
    # Bytecode is written here, even where PYTHONDONTWRITEBYTECODE is set: without it every start of
    # the tool compiles the modules it imports again (0.3 s a start). Only changed files are compiled;
    # a file that does not compile is shown, and left to the command (or scripts/check) to report.
    if [ -d "$ROOT/proxy" ]; then "$VENV/bin/python" -m compileall -q -j 0 "$ROOT/proxy" >&2 || true; fi
}

# For commands that need no extras: an install made by scripts/test already has everything,
# so keep its extras rather than reinstalling without them.
ensure_venv_for_running() {
    if grep -qs '\[test\]' "$VENV/.installed"; then ensure_venv test; else ensure_venv ""; fi
}
