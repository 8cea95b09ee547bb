"""The benchmarks page of the docs, as a full `scripts/bench` run writes it: how it measures, then the
run's own results (machine, versions, date, tables). Nothing in it is written by hand."""

from __future__ import annotations

METHOD = """# Benchmarks

This page is written by `scripts/bench`, from its last full run: edit the script, not the page.

`scripts/bench` measures commerce-proxy against what a team would use instead, on 127.0.0.1 only, with
bounded durations (about 15 minutes on a 2-core machine; `scripts/bench --quick` takes about a minute:
one round, 16 connections, 1 s runs, 1,000 exchanges, written to `bench-results.md`). It installs its
tools when it can (nginx-light and wrk from Debian's packages when run as root; talkback and WireMock
from npm into `.bench/`; mitmproxy, vcrpy and cassetter are in the test extras). `-o FILE` writes
elsewhere; `scripts/bench replay-core` times replay's matching core in-process.

- **Throughput.** nginx serves 20 documented list pages of about 4 KB (it is not the bottleneck); wrk
  (2 threads, `--latency`) rotates over them with a bearer token at 16 and 64 connections. Subjects: the
  upstream directly (the limit); the baseline, `scripts/benchmarks/baseline.py` (aiohttp.web, one pooled
  ClientSession, uvloop: about 40 lines); commerce-proxy's `record` (recording and checking), `spy` and
  `replay`; mitmdump in reverse mode (pass-through, `-w`, `--server-replay`); talkback (record in
  OVERWRITE mode, replay); WireMock (`--proxy-all --record-mappings`, playback). Each replay peer
  replays its own recording of the 20 pages, and its figure counts only when wrk saw no non-2xx answer
  and every page then reads back 2xx and equal to the recording.
- **Rounds.** Every subject starts fresh in each of the interleaved rounds; a figure is the median over
  rounds, a ratio the median of same-round ratios: the machines are shared and noisy, so compare within
  one run.
- **Loading.** 1,000, 10,000 and 50,000 exchanges with 4 KB bodies, in each tool's own format, each
  load in a fresh process (peak memory from VmHWM); cold is a load with no parse cache (the YAML is
  parsed and the cache entry written), warm the same load again. Then `check` on the largest cassette,
  load included, cold and warm. Written data is flushed before loads are timed.
- **Machine.** The project's bytecode is compiled first, as an installed tool's is after its first run.
  A CPU reference, a fixed pure-Python loop, is timed at the start and around the `check` runs: read
  absolute figures (requests/s, exchanges/s) beside it, since the machine's speed drifts; ratios
  measured side by side do not.
- **verify.** `verify` re-sends a 1,000-exchange session of reads (list walks over ten endpoints and
  entry reads) to an upstream that takes 50 ms an answer (`replay --latency 50` over the same cassette,
  so nothing drifts), at `--concurrency 8`, whole command timed. The floor beside it is what that
  latency and concurrency allow (1,000 x 50 ms / 8); `scripts/bench --only verify` runs this part alone.
- **The web UI.** `scripts/bench --only ui` generates a cassette set of 1,000,000 exchanges of about 1 KB
  (`--ui-exchanges N`; `--quick` 20,000) and measures, in one run: a warm `check` of the set against
  building the UI's offline index of it (each in a fresh process, the parse cache warm; the ratio, and
  the index file's size); `commerce-proxy ui` on the built index: the first paint of the list in
  Debian's chromium (Playwright), its JS heap after scrolling end to end (DevTools), and the p95 of the
  API's answers to a fixed set of filters, scroll positions and counts; then `record` in front of nginx
  at full rate (wrk) with the UI off, on with no page and on with one page (ratios of requests/s), and
  the live lag: probe requests sent beside the load, from each answer to its row drawn in the page, and
  whether every probe is listed (the list scrolled end to end after the load).
- **`check --spec`.** `scripts/bench --only contract` generates a spec of the published specs' size
  (25 files and a shared one, about 600 operations, 2.5 MB of YAML: `allOf` over a shared base,
  nullable fields, a discriminated `oneOf`, formats) with 11 overlays of both kinds, and measures each
  figure beside its goal, with a line for a goal missed: loading the specs with their overlays, warm
  (goal: at most 1 s), and a warm `check --spec` of the loading part's largest cassette (goal: at least
  10,000 exchanges a second), beside the same check without `--spec` and a check of resource reads
  only the spec judges; then, in-process, the judging alone and the validators compared
  (jsonschema-rs, the one used; fastjsonschema when installed; the `jsonschema` reference).
- **The matrix.** `scripts/bench --only matrix` (about 30 minutes; `--quick` two small workloads) measures
  commerce-proxy's `replay` against talkback, WireMock playback and the aiohttp pass-through (the upstream as
  the limit), and `record` against `mitmdump -w`, on a base workload and on variants of it, one dimension at a
  time. The base: wrk with one thread, keep-alive, sending only the request line, Host and Accept, asks 50
  distinct URLs in turn (40 list pages `/v2/products?page[limit]=25&page[offset]=K`, brackets not
  percent-encoded, of about 4 KB, with the documented envelope; 10 custom API entry reads
  `/v2/extensions/wishlists/ID` of about 0.3 KB), at 1, 16, 64 and 256 connections. The variants, at 64
  connections: one URL repeated and 1,000 distinct URLs (list pages past the 10,000-record offset limit go on
  in `/v2/brands` and `/v2/categories`); every answer 0.3 KB, 4 KB or 64 KB; two wrk threads; a new connection
  per request (`Connection: close`). Each workload has its own nginx; each replay subject replays its own
  recording of the workload's URLs and counts only when they read back 2xx and equal to the recording. Every
  subject starts fresh in each of two rounds and gets a 2 s warm-up before its 5 s runs; a ratio is the median
  of same-round ratios. A ratio below its goal (replay at least 1.3x talkback at the base workload's 16 and 64
  connections and 1.0x in every cell, record at least 6x `mitmdump -w`) is named at the end of the run and
  below the table. The run writes its own section of this page; a full run keeps it.
- **Subsets.** `scripts/bench --only throughput --subjects 'replay|talkback'` runs the named subjects
  (with the limit and the baseline) for quick comparisons; only a full run writes this page.

## The last full run
"""


MATRIX_BEGIN = "<!-- The matrix: written by `scripts/bench --only matrix` -->"
MATRIX_END = "<!-- The end of the matrix -->"


def page(results: list[str], matrix: str = "") -> str:
    """The whole page: the method, the results lines of one run, then the matrix section (if any)."""
    shifted = ("#" + line if line.startswith("## ") else line for line in results)
    return METHOD + "\n" + "\n".join(shifted) + "\n" + (f"\n{matrix}" if matrix else "")


def matrix_section(lines: list[str]) -> str:
    """The matrix's section of the page, between the markers with_matrix finds again."""
    return "\n".join([MATRIX_BEGIN, "## The throughput matrix", "", *lines, "", MATRIX_END]) + "\n"


def kept_matrix(text: str) -> str:
    """The matrix section of a page (empty when it has none)."""
    begin, end = text.find(MATRIX_BEGIN), text.find(MATRIX_END)
    return text[begin : end + len(MATRIX_END)] + "\n" if 0 <= begin < end else ""


def with_matrix(text: str, section: str) -> str:
    """The page with its matrix section replaced by `section` (added at the end when it has none)."""
    old = kept_matrix(text)
    return text.replace(old, section) if old else text.rstrip("\n") + "\n\n" + section
