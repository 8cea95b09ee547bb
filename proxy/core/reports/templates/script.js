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

// Not judged when no exchange was: a page no rule could look at is never a PASS.
const nothingJudged = data.exchanges > 0 && data.unjudged.exchanges >= data.exchanges;
const verdict = data.failed ? "fail" : data.counts.warning ? "warn" : nothingJudged ? "unjudged" : "pass";
const MARK_WORDS = {fail: "fail", warn: "warn", unjudged: "not judged", pass: "pass"};
const verdictBadge = document.getElementById("verdict");
verdictBadge.textContent = MARK_WORDS[verdict].toUpperCase();
verdictBadge.classList.add(verdict);
document.getElementById("headline").textContent = data.title;
document.title = `${data.title}: ${plural(data.counts.error, "error")}, ${plural(data.counts.warning, "warning")}`;
document.getElementById("cassettes").textContent = data.cassettes.map((cassette) => {
  const accepted = cassette.accepted_by_baseline ? `, ${cassette.accepted_by_baseline} accepted by the baseline` : "";
  return `${cassette.path} (${plural(cassette.exchanges, "exchange")}${accepted})`;
}).join(" \u00b7 ");
document.getElementById("count-exchanges").textContent = data.exchanges;
document.getElementById("count-unjudged").textContent = data.unjudged.exchanges;
for (const severity of ["error", "warning", "info"]) {
  document.getElementById(`count-${severity}`).textContent = data.counts[severity];
}
if (data.unjudged.exchanges) {
  document.getElementById("unjudged").append(element("p", {text: `${data.unjudged.headline}:`}),
    element("ul", {}, ...data.unjudged.lines.map((line) => element("li", {text: line}))));
}
if (data.coverage.headline) {
  document.getElementById("coverage").append(element("p", {text: `${data.coverage.headline}:`}),
    element("ul", {}, ...data.coverage.lines.map((line) => element("li", {text: line}))));
}

const ruleBody = document.querySelector("#by-rule tbody");
for (const rule of data.rules) {
  const mark = rule.count === 0 ? "pass" : {error: "fail", warning: "warn", info: "info"}[rule.severity];
  ruleBody.append(element("tr", {"data-rule": rule.id, class: rule.count ? "" : "quiet"},
    element("td", {}, element("span", {class: `mark ${mark}`, title: mark})),
    element("td", {}, element("code", {text: rule.id})),
    element("td", {text: rule.severity}),
    element("td", {class: "n", text: String(rule.count)}),
    element("td", {class: "doc", text: rule.citation})));
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
    ...["exchanges", "fail", "warn", "unjudged", "error", "warning", "info"].map(
      (key) => element("td", {class: "n", text: String(row[key])}))));
}

const headersText = (headers) => headers.map(([name, value]) => `${name}: ${value}`).join("\n");
const part = (heading, firstLine, message) => element("div", {class: "part"},
  element("h3", {text: heading}),
  element("pre", {class: "headers", text: [firstLine, headersText(message.headers)].join("\n")}),
  message.body ? element("pre", {class: "body-text", text: message.body}) : null,
  message.cut ? element("p", {class: "cut", text: `(cut: the body has ${message.cut} characters)`}) : null);

function fill(details, row) {
  const body = element("div", {class: "body"});
  const when = [row.recorded_at ? `recorded ${row.recorded_at}` : null,
    row.duration_ms !== null && row.duration_ms !== undefined ? `${row.duration_ms} ms` : null,
    `cassette ${data.cassettes[row.cassette].path}`].filter(Boolean).join(" \u00b7 ");
  body.append(element("p", {class: "hint", text: when}));
  body.append(element("div", {class: "parts"},
    part("Request", `${row.method} ${row.target}`, row.request),
    part("Response", `${row.status}${row.reason ? " " + row.reason : ""}`, row.response)));
  if (row.unjudged) body.append(element("p", {class: "unjudged-reason", text: row.unjudged}));
  const findings = element("div", {class: "findings"},
    element("h3", {text: row.findings.length ? `Findings (${row.findings.length})` : "Findings: none"}));
  for (const finding of row.findings) {
    findings.append(element("div", {class: `finding ${finding.severity}`, "data-rule": finding.rule},
      element("div", {}, element("span", {class: "sev", text: finding.severity}), " ",
        element("code", {text: finding.rule})),
      element("div", {class: "message", text: finding.message}),
      element("div", {class: "doc"}, element("b", {text: finding.cited_as === "spec" ? "Spec: " : "Documentation: "}),
        element("span", {class: "section", text: finding.citation}))));
  }
  body.append(findings);
  details.append(body);
}

const TICKS = 600;  // the most timeline marks: about one screen
const MARK_ORDER = {fail: 0, warn: 1, unjudged: 2, pass: 3};
const ticks = [];
const list = document.getElementById("exchanges");
const timeline = document.getElementById("timeline");
const opened = new WeakSet();
const rowsShown = [];
data.rows.forEach((row, position) => {
  const id = `exchange-${row.cassette}-${row.index}`;
  const counts = {error: 0, warning: 0, info: 0};
  for (const finding of row.findings) counts[finding.severity] += 1;
  const found = [row.findings.length ? Object.entries(counts).filter(([, n]) => n).map(([s, n]) => `${n} ${s}`).join(", ") : "",
    row.unjudged || ""].filter(Boolean).join("; ");
  const details = element("details", {class: `exchange ${row.mark}`, id, "data-mark": row.mark},
    element("summary", {},
      element("span", {class: `mark ${row.mark}`, title: MARK_WORDS[row.mark]}),
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
    tick.button.title = `#${row.index} ${row.method} ${row.target} \u2192 ${row.status}${found ? " (" + found + ")" : ""}${many}`;
    tick.button.setAttribute("aria-label", `exchange ${row.index}: ${MARK_WORDS[row.mark]}`);
  }
  rowsShown.push({details, row, text: `${row.method} ${row.target} ${row.status} ${row.endpoint} ${row.findings.map((f) => f.rule).join(" ")} ${row.unjudged || ""}`.toLowerCase()});
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
    const byMark = show === "unjudged" ? Boolean(row.unjudged)
      : show === "all" || row.mark === "fail" || (show === "warn" && row.mark === "warn");
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
