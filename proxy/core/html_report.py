"""`check --format html`: one self-contained page (no network, no CDN) to look at a checked session.

A timeline of exchanges marked pass/warn/fail, summaries per rule and per endpoint, and every exchange
expandable to its request, response and findings with their documentation sections. The data travels
as one JSON document inside the page; a small script builds the rows, and an exchange's details only
when it is opened, so a 50,000-exchange cassette still opens quickly. Pure: returns the text.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Callable, Sequence
from http import HTTPStatus
from typing import Any

from proxy.core.exchange import Body, Exchange
from proxy.core.findings import SEVERITIES, SEVERITY_ORDER, Finding, severity_counts
from proxy.core.reports import Report

BODY_SHOWN = 64 * 1024  # characters of one body kept in the page; the rest is cut with a note


def html_report(
    report: Report,
    exchanges: Sequence[Sequence[Exchange]],
    endpoint_of: Callable[[str, str], str],
    title: str = "commerce-proxy check",
) -> str:
    """The page; `exchanges` are each cassette's, in the order of `report.cassettes`."""
    data = report_data(report, exchanges, endpoint_of, title)
    # Inside <script> only "</" could end the element early; \u003c keeps the JSON the same JSON.
    embedded = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return (
        PAGE.replace("{{TITLE}}", html.escape(title))
        .replace("{{STYLE}}", STYLE)
        .replace("{{SCRIPT}}", SCRIPT)
        .replace("{{DATA}}", embedded)
    )


def report_data(
    report: Report,
    exchanges: Sequence[Sequence[Exchange]],
    endpoint_of: Callable[[str, str], str],
    title: str,
) -> dict[str, Any]:
    """Everything the page shows, as JSON: counts, per-rule and per-endpoint tables, the exchanges."""
    rows: list[dict[str, Any]] = []
    endpoints: dict[str, Counter[str]] = {}
    for number, (result, recorded) in enumerate(zip(report.cassettes, exchanges, strict=True)):
        found: dict[int, list[Finding]] = {}
        for finding in result.findings:
            found.setdefault(finding.exchange, []).append(finding)
        for index, exchange in enumerate(recorded):
            own = sorted(found.get(index, []), key=lambda item: SEVERITY_ORDER[item.severity])
            counts = severity_counts(own)
            mark = "fail" if counts["error"] else "warn" if counts["warning"] else "pass"
            request = exchange.request
            label = endpoint_of(request.method, request.path)
            tally = endpoints.setdefault(label, Counter())
            tally["exchanges"] += 1
            tally[mark] += 1
            tally.update({severity: counts[severity] for severity in SEVERITIES})
            rows.append(
                {
                    "cassette": number,
                    "index": index,
                    "mark": mark,
                    "method": request.method,
                    "target": request.target,
                    "status": exchange.response.status,
                    "reason": exchange.response.reason or _phrase(exchange.response.status),
                    "endpoint": label,
                    "recorded_at": exchange.recorded_at,
                    "duration_ms": exchange.duration_ms,
                    "request": {"headers": [list(pair) for pair in request.headers], **_body(request.body)},
                    "response": {
                        "headers": [list(pair) for pair in exchange.response.headers],
                        **_body(exchange.response.body),
                    },
                    "findings": [finding.to_json() for finding in own],
                }
            )
    totals = report.rule_totals()
    per_rule = {rule: count for rule, _, count in totals}
    # The severity in force (the project config may change a rule's), as the findings carry it.
    severity_in_force: dict[str, str] = {rule: severity for rule, severity, _ in totals}
    rules: list[dict[str, Any]] = [
        {
            "id": rule.id,
            "severity": severity_in_force.get(rule.id, rule.severity),
            "section": rule.section,
            "count": per_rule.get(rule.id, 0),
        }
        for rule in report.rules
        if rule.id not in report.off
    ]
    # Rules that found something first (most findings first), then the ones that found nothing.
    # Rules that found something first, errors before warnings before info (an error must not sit
    # under info rows), most findings first within a severity; then the ones that found nothing.
    rules.sort(
        key=lambda rule: (rule["count"] == 0, SEVERITY_ORDER[rule["severity"]], -rule["count"], rule["id"])
    )
    return {
        "title": title,
        "exchanges": report.exchanges,
        "counts": report.counts(),
        "failed": report.failed,
        "cassettes": [
            {"path": result.name, "exchanges": result.exchanges, "accepted_by_baseline": result.accepted}
            for result in report.cassettes
        ],
        "rules": rules,
        "endpoints": [
            {
                "endpoint": label,
                **{key: tally[key] for key in ("exchanges", "fail", "warn", "pass", *SEVERITIES)},
            }
            for label, tally in sorted(endpoints.items())
        ],
        "rows": rows,
    }


def _body(body: Body) -> dict[str, Any]:
    """A body as text for people: JSON indented, text as is, binary as its base64; cut when huge."""
    if body.kind == "empty":
        return {"body": "", "body_kind": "empty"}
    text = json.dumps(body.value, indent=2, ensure_ascii=False) if body.kind == "json" else str(body.value)
    shown: dict[str, Any] = {"body": text[:BODY_SHOWN], "body_kind": body.kind}
    if len(text) > BODY_SHOWN:
        shown["cut"] = len(text)
    return shown


def _phrase(status: int) -> str | None:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return None


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; \
script-src 'unsafe-inline'">
<title>{{TITLE}}</title>
<style>{{STYLE}}</style>
</head>
<body>
<header>
  <h1><span id="verdict" class="verdict"></span> <span id="headline"></span></h1>
  <p id="cassettes"></p>
  <div class="counts">
    <span class="count"><b id="count-exchanges"></b> exchanges</span>
    <span class="count fail"><b id="count-error"></b> errors</span>
    <span class="count warn"><b id="count-warning"></b> warnings</span>
    <span class="count info"><b id="count-info"></b> info</span>
  </div>
</header>
<main>
<section>
  <h2>Timeline</h2>
  <p class="hint">One mark per exchange, in the order they happened: click one to open it.</p>
  <div id="timeline" role="list"></div>
</section>
<section>
    <h2>By rule</h2>
    <table id="by-rule"><thead><tr><th></th><th>rule</th><th>severity</th><th class="n">findings</th>
    <th>documentation (commerce-api.md)</th></tr></thead><tbody></tbody></table>
    <button id="more-rules" class="more" type="button"></button>
</section>
<section>
    <h2>By endpoint</h2>
    <table id="by-endpoint"><thead><tr><th>endpoint</th><th class="n">exchanges</th><th class="n">fail</th>
    <th class="n">warn</th><th class="n">errors</th><th class="n">warnings</th><th class="n">info</th></tr>
    </thead><tbody></tbody></table>
</section>
<section>
  <h2>Exchanges</h2>
  <div class="filters">
    <label><input type="radio" name="show" value="all" checked> all</label>
    <label><input type="radio" name="show" value="fail"> failing</label>
    <label><input type="radio" name="show" value="warn"> failing or warning</label>
    <input id="search" type="search" placeholder="filter by method, path, rule...">
    <span id="shown"></span>
  </div>
  <div id="exchanges"></div>
</section>
</main>
<script type="application/json" id="report-data">{{DATA}}</script>
<script>{{SCRIPT}}</script>
</body>
</html>
"""

STYLE = """
:root { --fail: #c62828; --warn: #b26a00; --pass: #2e7d32; --info: #1565c0; --line: #d9dde3; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1d232b;
  background: #f6f7f9; }
header { background: #fff; border-bottom: 1px solid var(--line); padding: 16px 24px; }
h1 { font-size: 20px; margin: 0 0 4px; }
.verdict { color: #fff; border-radius: 4px; padding: 1px 8px; font-size: 15px; vertical-align: 2px; }
.verdict.fail { background: var(--fail); } .verdict.warn { background: var(--warn); }
.verdict.pass { background: var(--pass); } h2 { font-size: 16px; margin: 20px 0 8px; }
main { padding: 0 24px 40px; }
.counts { display: flex; gap: 16px; margin-top: 8px; }
.count b { font-size: 18px; } .count.fail b { color: var(--fail); } .count.warn b { color: var(--warn); }
.count.info b { color: var(--info); }
.hint { color: #5c6670; margin: 0 0 6px; }
#timeline { display: flex; flex-wrap: wrap; gap: 2px; background: #fff; border: 1px solid var(--line);
  padding: 8px; border-radius: 6px; }
.tick { width: 12px; height: 22px; border-radius: 2px; cursor: pointer; border: 0; padding: 0; }
.tick.pass, .mark.pass { background: var(--pass); } .tick.warn, .mark.warn { background: var(--warn); }
.tick.fail, .mark.fail { background: var(--fail); } .mark.info { background: var(--info); }
.tick:hover, .tick:focus { outline: 2px solid #1d232b; }
tr.quiet { display: none; } table.all tr.quiet { display: table-row; }
#by-rule tbody tr { cursor: pointer; } #by-rule tr.chosen td { background: #e4ecf7; }
button.more { margin-top: 6px; background: none; border: 0; color: var(--info); cursor: pointer; padding: 0; }
.cassette-name { flex-basis: 100%; font-size: 12px; color: #5c6670; margin: 4px 0 2px; }
.cassette-name:first-child { margin-top: 0; }
h3.cassette { font-size: 14px; margin: 14px 0 4px; font-weight: 600; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef0f3; font-weight: 600; } td.n, th.n { text-align: right; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.mark { display: inline-block; width: 10px; height: 10px; border-radius: 50%; }
.filters { display: flex; gap: 12px; align-items: center; margin-bottom: 8px; }
#search { flex: 0 1 320px; padding: 4px 8px; }
details.exchange { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--pass);
  border-radius: 4px; margin: 4px 0; }
details.exchange.warn { border-left-color: var(--warn); } details.exchange.fail { border-left-color: var(--fail); }
details.exchange > summary { cursor: pointer; padding: 6px 10px; display: flex; gap: 10px; align-items: center; }
summary .index { color: #5c6670; min-width: 4em; } summary .method { font-weight: 600; min-width: 4em; }
summary .target { flex: 1; overflow-wrap: anywhere; } summary .found { color: #5c6670; }
.body { padding: 4px 14px 14px; }
.parts { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 12px; }
.part h3, .findings h3 { font-size: 14px; margin: 10px 0 4px; }
pre { background: #f3f4f6; border: 1px solid var(--line); padding: 8px; margin: 0; overflow: auto;
  max-height: 420px; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.finding { border: 1px solid var(--line); border-left: 4px solid var(--info); padding: 6px 10px; margin: 6px 0;
  background: #fcfcfd; }
.finding.error { border-left-color: var(--fail); } .finding.warning { border-left-color: var(--warn); }
.finding .sev { font-weight: 700; text-transform: uppercase; font-size: 12px; }
.finding.error .sev { color: var(--fail); } .finding.warning .sev { color: var(--warn); }
.doc { color: #37474f; } .doc b { font-weight: 600; }
.cut { color: #5c6670; font-style: italic; }
"""

SCRIPT = """
"use strict";
const data = JSON.parse(document.getElementById("report-data").textContent);
const element = (tag, attributes, ...children) => {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (name === "text") made.textContent = value; else made.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined) made.append(child);
  return made;
};
const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

const verdict = data.failed ? "fail" : data.counts.warning ? "warn" : "pass";
const verdictBadge = document.getElementById("verdict");
verdictBadge.textContent = verdict.toUpperCase();
verdictBadge.classList.add(verdict);
document.getElementById("headline").textContent = data.title;
document.title = `${data.title}: ${plural(data.counts.error, "error")}, ${plural(data.counts.warning, "warning")}`;
document.getElementById("cassettes").textContent = data.cassettes.map((cassette) => {
  const accepted = cassette.accepted_by_baseline ? `, ${cassette.accepted_by_baseline} accepted by the baseline` : "";
  return `${cassette.path} (${plural(cassette.exchanges, "exchange")}${accepted})`;
}).join(" \\u00b7 ");
document.getElementById("count-exchanges").textContent = data.exchanges;
for (const severity of ["error", "warning", "info"]) {
  document.getElementById(`count-${severity}`).textContent = data.counts[severity];
}

const ruleBody = document.querySelector("#by-rule tbody");
for (const rule of data.rules) {
  const mark = rule.count === 0 ? "pass" : {error: "fail", warning: "warn", info: "info"}[rule.severity];
  ruleBody.append(element("tr", {"data-rule": rule.id, class: rule.count ? "" : "quiet"},
    element("td", {}, element("span", {class: `mark ${mark}`, title: mark})),
    element("td", {}, element("code", {text: rule.id})),
    element("td", {text: rule.severity}),
    element("td", {class: "n", text: String(rule.count)}),
    element("td", {class: "doc", text: rule.section})));
}
let ruleFilter = null;  // a rule clicked in the table: only the exchanges it found something in
for (const row of ruleBody.querySelectorAll("tr")) {
  row.addEventListener("click", () => {
    ruleFilter = ruleFilter === row.dataset.rule ? null : row.dataset.rule;
    for (const other of ruleBody.querySelectorAll("tr")) other.classList.toggle("chosen", other.dataset.rule === ruleFilter);
    if (ruleFilter) document.querySelector("input[name=show][value=all]").checked = true;
    applyFilter();
  });
}
const quietRules = data.rules.filter((rule) => rule.count === 0).length;
const moreRules = document.getElementById("more-rules");
moreRules.hidden = quietRules === 0;
moreRules.textContent = `show the ${quietRules} rules in force that found nothing`;
moreRules.addEventListener("click", () => {
  const table = document.getElementById("by-rule");
  table.classList.toggle("all");
  moreRules.textContent = table.classList.contains("all")
    ? "hide the rules that found nothing" : `show the ${quietRules} rules in force that found nothing`;
});
const endpointBody = document.querySelector("#by-endpoint tbody");
for (const row of data.endpoints) {
  endpointBody.append(element("tr", {"data-endpoint": row.endpoint},
    element("td", {}, element("code", {text: row.endpoint})),
    ...["exchanges", "fail", "warn", "error", "warning", "info"].map(
      (key) => element("td", {class: "n", text: String(row[key])}))));
}

const headersText = (headers) => headers.map(([name, value]) => `${name}: ${value}`).join("\\n");
const part = (heading, firstLine, message) => element("div", {class: "part"},
  element("h3", {text: heading}),
  element("pre", {class: "headers", text: [firstLine, headersText(message.headers)].join("\\n")}),
  message.body ? element("pre", {class: "body-text", text: message.body}) : null,
  message.cut ? element("p", {class: "cut", text: `(cut: the body has ${message.cut} characters)`}) : null);

function fill(details, row) {
  const body = element("div", {class: "body"});
  const when = [row.recorded_at ? `recorded ${row.recorded_at}` : null,
    row.duration_ms !== null && row.duration_ms !== undefined ? `${row.duration_ms} ms` : null,
    `cassette ${data.cassettes[row.cassette].path}`].filter(Boolean).join(" \\u00b7 ");
  body.append(element("p", {class: "hint", text: when}));
  body.append(element("div", {class: "parts"},
    part("Request", `${row.method} ${row.target}`, row.request),
    part("Response", `${row.status}${row.reason ? " " + row.reason : ""}`, row.response)));
  const findings = element("div", {class: "findings"},
    element("h3", {text: row.findings.length ? `Findings (${row.findings.length})` : "Findings: none"}));
  for (const finding of row.findings) {
    findings.append(element("div", {class: `finding ${finding.severity}`, "data-rule": finding.rule},
      element("div", {}, element("span", {class: "sev", text: finding.severity}), " ",
        element("code", {text: finding.rule})),
      element("div", {class: "message", text: finding.message}),
      element("div", {class: "doc"}, element("b", {text: "Documentation: commerce-api.md \\u00a7 "}),
        element("span", {class: "section", text: finding.section}))));
  }
  body.append(findings);
  details.append(body);
}

const TICKS = 600;  // the most timeline marks: about one screen
const MARK_ORDER = {fail: 0, warn: 1, pass: 2};
const ticks = [];
const list = document.getElementById("exchanges");
const timeline = document.getElementById("timeline");
const opened = new WeakSet();
const rowsShown = [];
data.rows.forEach((row, position) => {
  const id = `exchange-${row.cassette}-${row.index}`;
  const counts = {error: 0, warning: 0, info: 0};
  for (const finding of row.findings) counts[finding.severity] += 1;
  const found = row.findings.length ? Object.entries(counts).filter(([, n]) => n).map(([s, n]) => `${n} ${s}`).join(", ") : "";
  const details = element("details", {class: `exchange ${row.mark}`, id, "data-mark": row.mark},
    element("summary", {},
      element("span", {class: `mark ${row.mark}`, title: row.mark}),
      element("span", {class: "index", text: `#${row.index}`}),
      element("span", {class: "method", text: row.method}),
      element("span", {class: "target", text: row.target}),
      element("span", {class: "status", text: String(row.status)}),
      element("span", {class: "found", text: found})));
  details.addEventListener("toggle", () => {
    if (details.open && !opened.has(details)) { opened.add(details); fill(details, row); }
  });
  if (row.index === 0 && data.cassettes.length > 1) {
    list.append(element("h3", {class: "cassette", text: data.cassettes[row.cassette].path}));
    timeline.append(element("div", {class: "cassette-name", text: data.cassettes[row.cassette].path}));
  }
  list.append(details);
  // One tick per exchange up to TICKS; past that a tick stands for a run of exchanges (its worst
  // mark, opening its first worst one), so the timeline stays one screen whatever the size.
  const perTick = Math.ceil(data.rows.length / TICKS);
  const bin = Math.floor(position / perTick);
  let tick = ticks[ticks.length - 1];
  if (!tick || tick.bin !== bin || tick.cassette !== row.cassette) {
    tick = {bin, cassette: row.cassette, worst: null, button: element("button", {class: "tick", role: "listitem"})};
    ticks.push(tick);
    timeline.append(tick.button);
  }
  if (!tick.worst || MARK_ORDER[row.mark] < MARK_ORDER[tick.worst.row.mark]) {
    tick.worst = {row, details, id};
    const many = perTick > 1 ? ` (and ${perTick - 1} more around it)` : "";
    tick.button.className = `tick ${row.mark}`;
    tick.button.dataset.target = id;
    tick.button.title = `#${row.index} ${row.method} ${row.target} \\u2192 ${row.status}${found ? " (" + found + ")" : ""}${many}`;
    tick.button.setAttribute("aria-label", `exchange ${row.index}: ${row.mark}`);
  }
  rowsShown.push({details, row, text: `${row.method} ${row.target} ${row.status} ${row.endpoint} ${row.findings.map((f) => f.rule).join(" ")}`.toLowerCase()});
});

for (const tick of ticks) {
  tick.button.addEventListener("click", () => {
    showAll();
    tick.worst.details.open = true;
    tick.worst.details.scrollIntoView({block: "start"});
  });
}

const search = document.getElementById("search");
function applyFilter() {
  const show = document.querySelector("input[name=show]:checked").value;
  const wanted = search.value.trim().toLowerCase();
  let count = 0;
  for (const {details, row, text} of rowsShown) {
    const byMark = show === "all" || row.mark === "fail" || (show === "warn" && row.mark === "warn");
    const byRule = !ruleFilter || row.findings.some((finding) => finding.rule === ruleFilter);
    const visible = byMark && byRule && (!wanted || text.includes(wanted));
    details.hidden = !visible;
    if (visible) count += 1;
  }
  const by = ruleFilter ? ` with findings of ${ruleFilter} (click the rule again to show all)` : "";
  document.getElementById("shown").textContent = `${count} of ${rowsShown.length} shown${by}`;
}
function showAll() {
  document.querySelector("input[name=show][value=all]").checked = true;
  search.value = "";
  ruleFilter = null;
  for (const row of ruleBody.querySelectorAll("tr.chosen")) row.classList.remove("chosen");
  applyFilter();
}
for (const radio of document.querySelectorAll("input[name=show]")) radio.addEventListener("change", applyFilter);
search.addEventListener("input", applyFilter);
applyFilter();
"""
