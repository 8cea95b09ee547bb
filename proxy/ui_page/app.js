// The page: wires the filter form, the URL, the counts, the windowed list, the exchange pane and the
// live push together. Every number and row comes from the JSON API; the page keeps no traffic of its own
// beyond the pages of rows in view.

import * as api from "./api.js";
import { FIELDS, fromSearch, toSearch, pairs, isEmpty, readForm, fillForm } from "./filters.js";
import { WindowedList } from "./list.js";
import { showCounts, fillChoices } from "./counts.js";
import { showExchange, showMissing } from "./detail.js";
import { follow } from "./live.js";
import { Actions } from "./actions.js";
import { comparable, showCompare } from "./sources.js";
import { el } from "./dom.js";

const REFRESH_MS = 500; // counts (and a filtered list) are asked again at most this often while rows arrive

const form = document.getElementById("filters");
const infoLine = document.getElementById("info");
const statusLine = document.getElementById("status");
const countsNav = document.getElementById("counts");
const pane = document.getElementById("pane");
const listRoot = document.getElementById("list");

let { filter, exchange: openId } = fromSearch(location.search);
let about = null;
let liveState = "";
let refreshTimer = 0;
let stale = false; // rows arrived that the list could not place itself
let opening = 0;
let actions = null;
let comparableSources = []; // offline: the cassettes and verify reports the compare pane offers

const list = new WindowedList(listRoot, {
  fetchPage: async (offset, limit) => {
    const answer = await api.window_(pairs(filter), offset, limit);
    say("");
    return answer;
  },
  onOpen: (id) => open(id),
  onError: (error) => say(error.message, true),
  onPick: (ids) => picked(ids),
});

// Two rows picked in the list (ctrl-click, or Space on the selected row): the later one opens with the
// diff of the two under its buttons, the first picked as `a`.
async function picked(ids) {
  if (ids.length < 2) {
    say(ids.length === 1 ? `#${ids[0]} picked: ctrl-click (or Space on) another row to diff the two` : "");
    return;
  }
  const [a, b] = ids;
  say("");
  await open(b);
  if (openId === b && actions) await actions.run(() => actions.diff(a, b));
}

function say(message, isError = false) {
  statusLine.textContent = message;
  statusLine.classList.toggle("error", isError);
}

function showInfo() {
  if (!about) return;
  const sources = (about.sources || []).join(", ");
  const parts = [`${about.mode}`, `${about.exchanges} exchanges`];
  if (sources) parts.push(sources);
  if (liveState) parts.push(liveState);
  infoLine.textContent = parts.join(" · ");
  document.body.dataset.mode = about.mode;
  showLeftOut(about.left_out || 0);
}

// A live server lists only the latest exchanges from before the page was first opened: the one line
// above the list says how many it left out (`left_out` in `api/info`), and is absent when it left out none.
const LEFT_OUT_WORDS = { replay: ["answer", "served"], record: ["exchange", "recorded"] };

function showLeftOut(count) {
  const line = document.getElementById("left-out");
  if (count <= 0) {
    line?.remove();
    return;
  }
  const [noun, verb] = LEFT_OUT_WORDS[about?.mode] || ["exchange", "seen"];
  const [were, are] = count === 1 ? [`${noun} was`, "is"] : [`${noun}s were`, "are"];
  const text =
    `${count.toLocaleString("en-US")} earlier ${were} ${verb} before this page was first opened ` +
    `and ${are} not listed`;
  if (line) line.textContent = text;
  else listRoot.prepend(el("p", { id: "left-out", text }));
}

// A live server's count of exchanges left out may still grow while it hands the page the ones it kept:
// it is read again with the counts (the rest of `info` comes with the pushed rows).
async function refreshLeftOut() {
  if (!about || about.mode === "offline") return;
  const fresh = await api.info().catch(() => null);
  if (fresh && about) {
    about.left_out = fresh.left_out;
    showLeftOut(about.left_out || 0);
  }
}

function writeUrl(push) {
  const url = `${location.pathname}${toSearch(filter, openId)}`;
  if (url !== `${location.pathname}${location.search}`) {
    history[push ? "pushState" : "replaceState"](null, "", url);
  }
}

let countsAsked = 0;
const COUNTS_WAIT_MS = 250; // counts still being counted are asked again after this (then longer)
const COUNTS_WAIT_MS_MOST = 2000;
const COUNTS_WAITS_MOST = 200;

async function loadCounts(waits = 0) {
  const asked = waits === 0 ? (countsAsked += 1) : countsAsked;
  try {
    const document_ = await api.counts(pairs(filter));
    if (document_ === null || asked !== countsAsked) return; // a later filter's counts are on their way
    showCounts(countsNav, document_, filter, { toggle });
    if (document_.total === null) {
      if (waits < COUNTS_WAITS_MOST) {
        const delay = Math.min(COUNTS_WAIT_MS * 2 ** waits, COUNTS_WAIT_MS_MOST);
        setTimeout(() => asked === countsAsked && loadCounts(waits + 1), delay);
      }
      return;
    }
    fillChoices(document.getElementById("rule-names"), Object.keys(document_.rules || {}));
    fillChoices(document.getElementById("endpoint-names"), Object.keys(document_.endpoints || {}));
  } catch (error) {
    say(error.message, true);
  }
}

function exportLinks() {
  for (const format of ["har", "cassette"]) {
    document.getElementById(`export-${format}`).href = api.exportUrl(pairs(filter), format).href;
  }
}

for (const format of ["har", "cassette"]) {
  document.getElementById(`export-${format}`).addEventListener("click", (event) => {
    event.preventDefault(); // the API needs the token header, which a plain link cannot send
    api.download(event.currentTarget.href).catch((error) => say(error.message, true));
  });
}

// The one line a page shows when it holds no token of its server's (opened by hand, or its server
// restarted with a new one): the token comes only from the address printed at start.
function noToken() {
  const line = document.createElement("p");
  line.id = "no-token";
  line.textContent =
    "This page needs its server's token: open the address commerce-proxy printed at start " +
    "(ui: http://…/_proxy/ui/?token=…).";
  document.body.replaceChildren(line);
}

// After an edit or a delete: ids after the edited exchange may have moved, so the window is fetched
// again where it stands, the counts too, and the exchange reopened (or the pane closed).
async function changedOffline(id) {
  list.unpickAll(); // the ids after the edited exchange may name others now
  const info = await api.info();
  if (info) {
    about = { ...about, ...info };
    showInfo();
  }
  await Promise.all([list.refresh(), loadCounts()]);
  if (id === null) closePane();
  else await open(id, false);
}

function applyFilter(next, push = true) {
  filter = next;
  fillForm(form, filter);
  exportLinks();
  writeUrl(push);
  list.reset();
  loadCounts();
}

function toggle(field, value) {
  const next = { ...filter };
  if (next[field] === value) delete next[field];
  else next[field] = value;
  applyFilter(next);
}

let missing = null; // the exchange the pane asked for that was not (yet) in the index
async function open(id, push = true) {
  openId = id;
  writeUrl(push);
  list.markOpen(id);
  const asked = (opening += 1);
  try {
    const doc = await api.exchange(id);
    if (asked !== opening) return;
    const close = () => closePane();
    const hrefFor = (other) => `${location.pathname}${toSearch(filter, other)}`;
    missing = doc === null ? id : null; // live: shown once the exchange is indexed (see onRows)
    if (doc === null) showMissing(pane, id, close);
    else showExchange(pane, doc, { openExchange: (other) => open(other), close, hrefFor, actions });
    document.body.classList.add("with-pane");
  } catch (error) {
    say(error.message, true);
  }
}

// The compare pane (offline, two or more cassettes or verify reports): it takes the exchange's place.
function openCompare() {
  openId = null;
  missing = null;
  opening += 1;
  list.markOpen(null);
  writeUrl(true);
  showCompare(pane, comparableSources, { close: closePane, say });
  document.body.classList.add("with-pane");
}

document.getElementById("compare").addEventListener("click", openCompare);

function closePane() {
  openId = null;
  missing = null;
  opening += 1;
  pane.hidden = true;
  document.body.classList.remove("with-pane");
  list.markOpen(null);
  writeUrl(true);
  list.scroller.focus();
}

function onRows(cursor, rows) {
  if (about) {
    about.cursor = cursor;
    about.exchanges += rows.length;
    showInfo();
  }
  if (rows.length === 0) return;
  if (missing !== null && missing === openId && rows.some((row) => row.id === missing)) open(missing, false);
  const placed = isEmpty(filter) && list.append(rows);
  stale = stale || !placed;
  if (refreshTimer) return; // one refresh at most every REFRESH_MS however fast rows come, never none
  refreshTimer = setTimeout(() => {
    refreshTimer = 0;
    if (stale) list.refresh();
    stale = false;
    loadCounts();
    refreshLeftOut();
  }, REFRESH_MS);
}

let typing = 0;
form.addEventListener("submit", (event) => {
  event.preventDefault();
  applyFilter(readForm(form));
});
form.addEventListener("change", () => applyFilter(readForm(form)));
form.addEventListener("input", (event) => {
  if (event.target.tagName !== "INPUT") return;
  clearTimeout(typing);
  typing = setTimeout(() => {
    const next = readForm(form);
    if (FIELDS.some((field) => (next[field] || "") !== (filter[field] || ""))) applyFilter(next, false);
  }, 400);
});
document.getElementById("clear").addEventListener("click", () => applyFilter({}));
window.addEventListener("popstate", () => {
  const state = fromSearch(location.search);
  filter = state.filter;
  fillForm(form, filter);
  exportLinks();
  list.reset();
  loadCounts();
  if (state.exchange) open(state.exchange, false);
  else if (openId) {
    openId = null;
    pane.hidden = true;
    document.body.classList.remove("with-pane");
    list.markOpen(null);
  }
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !pane.hidden) closePane();
});

async function start() {
  if (!api.takeToken()) return noToken();
  fillForm(form, filter);
  exportLinks();
  try {
    about = await api.info();
  } catch (error) {
    if (error instanceof api.TokenRefused) return noToken();
    infoLine.textContent = "";
    say(error.message, true);
    return;
  }
  actions = new Actions({ mode: about.mode, say, openExchange: (id) => open(id), changed: changedOffline });
  showInfo();
  await Promise.all([list.reset(), loadCounts()]);
  if (openId) open(openId, false);
  list.scroller.focus();
  if (about.mode === "offline") {
    comparableSources = await comparable().catch(() => []);
    document.getElementById("compare").hidden = comparableSources.length < 2;
  } else {
    follow(about.cursor ?? 0, {
      onRows,
      onState: (state) => {
        const back = state === "live" && liveState === "reconnecting";
        liveState = state;
        showInfo();
        // Back after a cut: what failed meanwhile (a count, a window) is asked again, and the error
        // it left on the status line goes (one that still holds is said again by the asking).
        if (back && statusLine.classList.contains("error")) {
          say("");
          list.refresh();
          loadCounts();
        }
      },
      onRefused: noToken,
    });
  }
}

start();
