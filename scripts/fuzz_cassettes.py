"""Fuzz `parse_cassette` with atheris: any input is a cassette that writes back and loads the same, or
one `CassetteFormatError` line naming the file. `--target heads` fuzzes the servers' request parser and
`--target redaction` the redaction instead (see scripts/fuzz_targets.py).

Seeds are the shipped cassettes (cut to libFuzzer's length limit) and hand-written hostile ones; a
dictionary of YAML and cassette tokens steers the mutations. libFuzzer bounds each input's time and the
process's memory; the run stops after `--runs` inputs or `--seconds`, whichever comes first, and prints
one line of figures (also written as JSON with `--figures FILE`).
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))
with atheris.instrument_imports(include=["proxy", "yaml"]):
    import fuzz_targets

    from proxy.app.scratch import scratch_folder
    from proxy.core.cassette.document import dump_cassette, parse_cassette
    from proxy.errors import CassetteFormatError

ROOT = Path(__file__).resolve().parent.parent
MAX_LEN = 4096
TOKENS = [
    "cassette_format: 2",
    "cassette_format: 1",
    "exchanges:",
    "request:",
    "response:",
    "method: GET",
    "path: /v2/brands",
    "query: ",
    "headers:",
    "status: 200",
    "json: |",
    "text: ",
    "base64: ",
    "decoded_from: gzip",
    "&a ",
    "*a",
    "<<: *a",
    "!!python/object/apply:os.system ['true']",
    "!!python/name:os.system",
    "!!binary ",
    "!!set ",
    "!!omap ",
    "!!timestamp ",
    "? ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "---",
    "...",
    "%YAML 1.1",
    "'",
    '"',
    "\\u0000",
    "~",
    ".inf",
    "0x1F",
]
HOSTILE_SEEDS = [
    "a: " + "[" * 600 + "]" * 600,
    "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]\n" for n in range(1, 8)),
    "&a [*a]",
    "cassette_format: 2\nexchanges: !!python/object/apply:os.system ['true']\n",
    "cassette_format: 2\nexchanges:\n- request: {method: GET, path: /, headers: {}}\n"
    "  response: {status: 200, headers: {}, json: '" + "[" * 600 + "]" * 600 + "'}\n",
    "cassette_format: 2\nexchanges: {a: 1}\n",
    "cassette_format: 2\nexchanges:\n- request: {method: 7, path: [], headers: x}\n  response: {}\n",
]


def one_input(data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # the file reader refuses non-UTF-8 before parsing (tests/reliability cover it)
    try:
        cassette = parse_cassette(text, "fuzz.yaml")
    except CassetteFormatError as error:
        if "\n" in str(error) or not str(error).startswith("fuzz.yaml"):
            raise AssertionError(f"not one line naming the file: {str(error)!r}") from None
        return
    written = dump_cassette(cassette)  # whatever loads is written back and loads as the same cassette
    if parse_cassette(written, "written.yaml") != cassette:
        raise AssertionError(f"written back, the cassette changed: {written!r}")


def loader_seeds() -> list[bytes]:
    texts = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "cassettes").glob("*.yaml"))]
    return [text.encode("utf-8") for text in [*(text[:MAX_LEN] for text in texts), *HOSTILE_SEEDS]]


# target: (what each input goes through, seed inputs, dictionary tokens)
TARGETS = {
    "loader": (one_input, loader_seeds, TOKENS),
    "heads": (fuzz_targets.heads_input, lambda: fuzz_targets.HEAD_SEEDS, fuzz_targets.HEAD_TOKENS),
    "redaction": (
        fuzz_targets.redaction_input,
        lambda: fuzz_targets.REDACTION_SEEDS,
        fuzz_targets.REDACTION_TOKENS,
    ),
}


def _escaped(token: str) -> str:
    """A token as libFuzzer's dictionary writes it: printable ASCII as itself, any other byte as \\xNN."""
    return "".join(
        chr(byte) if 32 <= byte < 127 and byte not in (34, 92) else f"\\x{byte:02X}"
        for byte in token.encode()
    )


def fuzz(target: str, runs: int, seconds: int, artifacts: Path, work: Path) -> None:
    """The fuzzing process itself: atheris.Fuzz exits it (0 when every input passed) without Python's
    exit handlers, so its corpus lives in `work`, a folder its parent makes and removes."""
    test_one, seeds, tokens = TARGETS[target]
    corpus, dictionary = work / "corpus", work / "tokens.dict"
    corpus.mkdir()
    for index, seed in enumerate(seeds()):
        (corpus / f"seed-{index}").write_bytes(seed)
    dictionary.write_text("".join(f'"{_escaped(token)}"\n' for token in tokens), encoding="ascii")
    atheris.Setup(
        [
            sys.argv[0],
            f"-runs={runs}",
            f"-max_total_time={seconds}",
            f"-max_len={MAX_LEN}",
            "-timeout=10",
            "-rss_limit_mb=2048",
            f"-dict={dictionary}",
            f"-artifact_prefix={artifacts}/",
            "-print_final_stats=1",
            str(corpus),
        ],
        test_one,
    )
    atheris.Fuzz()


def _unwind(signum: int, frame: object) -> None:
    """SIGTERM and SIGHUP end the run as Ctrl-C does, so the corpus folder goes with it."""
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20_000, help="inputs to try (default 20000)")
    parser.add_argument("--seconds", type=int, default=120, help="time limit (default 120)")
    parser.add_argument("--figures", type=Path, help="write the run's figures here as JSON")
    parser.add_argument(
        "--target",
        choices=sorted(TARGETS),
        default="loader",
        help="what to fuzz (default: the cassette loader)",
    )
    parser.add_argument("--in-process", type=Path, metavar="WORK", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    artifacts = ROOT / ".fuzz"
    artifacts.mkdir(exist_ok=True)
    if arguments.in_process:
        fuzz(arguments.target, arguments.runs, arguments.seconds, artifacts, arguments.in_process)
    for stop in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, _unwind)
    log = artifacts / f"last-run-{arguments.target}.log"
    with log.open("w", encoding="utf-8") as output, scratch_folder("commerce-proxy-fuzz-") as (work, held):
        command = [
            sys.executable,
            __file__,
            f"--in-process={work}",
            f"--target={arguments.target}",
            f"--runs={arguments.runs}",
        ]
        code = subprocess.run(
            [*command, f"--seconds={arguments.seconds}"],
            stdout=output,
            stderr=subprocess.STDOUT,
            check=False,
            pass_fds=(held,),  # the folder stays locked while the fuzzing process works in it
        ).returncode
    text = log.read_text(encoding="utf-8", errors="replace")
    stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)$", text, re.MULTILINE))
    figures = {
        "inputs_tried": int(stats.get("number_of_executed_units", 0)),
        "peak_rss_mb": int(stats.get("peak_rss_mb", 0)),
        "slowest_input_seconds": int(stats.get("slowest_unit_time_sec", 0)),
        "failures": 0 if code == 0 else 1,
    }
    if arguments.figures:
        arguments.figures.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    if code != 0:
        problem = re.findall(r"^(\w+(?:Error|Exception)\b.*)$", text, re.MULTILINE)
        saved = re.findall(r"^Test unit written to (.*)$", text, re.MULTILINE)
        print(
            f"scripts/fuzz: FAILED (exit {code}): {problem[-1] if problem else 'see the log'}; "
            f"input: {saved[-1] if saved else '?'}; log: {log}",
            file=sys.stderr,
        )
        return 1
    print(
        f"scripts/fuzz: {figures['inputs_tried']} inputs, no failure; peak RSS {figures['peak_rss_mb']} MB, "
        f"slowest input {figures['slowest_input_seconds']} s (log: {log})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
