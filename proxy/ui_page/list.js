// The windowed list: only the rows in view plus a margin are in the document, and rows are fetched by
// offset, one page of PAGE rows at a time, as the list scrolls. The scroll height stands for every
// matching row; past MAX_HEIGHT pixels (625,000 rows) it is scaled, so a million rows fit a browser's largest element.

import { el, clear, bytes } from "./dom.js";

export const ROW_HEIGHT = 24;
export const PAGE = 200;
// Rows drawn above and below the visible ones, so a short scroll shows rows at once. Small: while the
// list follows a busy server, each push makes the rows in view anew, and rows that scroll past the
// view meanwhile are not drawn at all (they are in the list, fetched again when scrolled back to).
const MARGIN = 10;
const MAX_HEIGHT = 15_000_000; // under Firefox's largest element (about 17.9M px); Chrome's is 33.5M
const KEPT_PAGES = 12;
const WAIT_MS = 150; // a total still being counted: the page is asked again after this, then twice as long...
const WAIT_MS_MOST = 2000;
const WAITS_MOST = 200; // ...at most this many times for one filter

const COLUMNS = [
  ["id", "#"], ["recording", "cassette#index"], ["method", "method"], ["path", "path"],
  ["status", "status"], ["time", "time"], ["size", "size"], ["findings", "findings"],
  ["answered", "answered by"],
];

export class WindowedList {
  constructor(root, { fetchPage, onOpen, onError, onPick = () => {} }) {
    this.fetchPage = fetchPage; // (offset, limit) -> Promise<{total, exchanges}>
    this.onOpen = onOpen;
    this.onError = onError;
    this.onPick = onPick; // (ids) after a row is picked for a diff or unpicked: the ids picked, in order
    this.picked = []; // ids picked for a diff (ctrl-click, Space): at most two, in the order picked
    this.total = 0; // the rows known to match: their total, or as many as are known while it is counted
    this.counting = false; // the server is still counting the total (`total: null`)
    this.waits = 0;
    this.pages = new Map(); // page number -> rows
    this.loading = new Set();
    this.generation = 0;
    this.selected = -1; // offset of the selected row
    this.openId = null;
    this.frame = 0;
    this.drawn = new Map(); // offset -> [what its row element shows, the element]: kept while unchanged

    this.header = el("div", { class: "row head", role: "row" },
      ...COLUMNS.map(([key, label]) => el("span", { class: `c-${key}`, role: "columnheader", text: label })));
    this.scroller = el("div", { class: "scroller", tabindex: "0", role: "grid", "aria-label": "exchanges" });
    this.spacer = el("div", { class: "spacer" });
    this.empty = el("p", { class: "empty", text: "" });
    this.scroller.append(this.spacer);
    clear(root).append(this.header, this.scroller, this.empty);

    this.scroller.addEventListener("scroll", () => this.schedule());
    this.scroller.addEventListener("keydown", (event) => this.key(event));
    this.spacer.addEventListener("click", (event) => {
      const row = event.target.closest(".row");
      if (!row) return;
      const picking = event.ctrlKey || event.metaKey;
      this.choose(Number(row.dataset.offset), !picking);
      if (picking) this.pick(Number(row.dataset.offset));
    });
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
  }

  // A new filter: forget every row and start at the top (or keep the scroll position on a refresh).
  reset({ keepPosition = false } = {}) {
    this.generation += 1;
    this.pages.clear();
    this.loading.clear();
    this.waits = 0;
    if (!keepPosition) {
      this.total = 0;
      this.counting = false;
      this.selected = -1;
      this.scroller.scrollTop = 0;
      this.spacer.replaceChildren(); // no row of the last filter stays in view under the new one
      this.drawn.clear();
      this.empty.textContent = "";
      this.layout();
    }
    return this.load(0, true);
  }

  // New rows arrived under a filter: fetch the pages in view again, keeping what is shown meanwhile.
  refresh() {
    this.generation += 1;
    this.loading.clear();
    const { view, top } = this.geometry();
    const first = Math.floor(Math.max(0, top / ROW_HEIGHT - MARGIN) / PAGE);
    const last = Math.floor((top + view) / ROW_HEIGHT + MARGIN) / PAGE;
    for (const page of [...this.pages.keys()]) if (page < first || page > last) this.pages.delete(page);
    const wanted = this.total === 0 ? [0] : [];
    for (let page = first; page <= Math.max(first, Math.floor(last)); page += 1) wanted.push(page);
    return Promise.all([...new Set(wanted)].map((page) => this.load(page, page === 0)));
  }

  // Rows pushed from the server that continue an unfiltered list; false when they cannot be placed.
  append(rows) {
    const lastPage = Math.floor(Math.max(this.total - 1, 0) / PAGE);
    const last = this.total === 0 ? [] : this.pages.get(lastPage);
    if (!last || (this.total > 0 && last.length !== this.total - lastPage * PAGE)) return false;
    const lastId = this.total === 0 ? 0 : last[last.length - 1].id;
    const atEnd = this.atEnd();
    for (const row of rows) {
      if (row.id <= lastId) continue;
      const page = Math.floor(this.total / PAGE);
      if (!this.pages.has(page)) this.pages.set(page, []);
      this.pages.get(page).push(row);
      this.total += 1;
    }
    if (this.total > 0) this.empty.textContent = ""; // "No exchange matches." was the list before these
    this.layout();
    if (atEnd) this.scrollToOffset(this.total - 1);
    // A page left open on a busy server keeps the pages near its view and the last one (where the next
    // push goes), not every row pushed: the others are fetched again when scrolled back to.
    this.forget(Math.floor(this.geometry().top / ROW_HEIGHT / PAGE), Math.floor((this.total - 1) / PAGE));
    this.schedule();
    return true;
  }

  atEnd() {
    const s = this.scroller;
    return this.total === 0 || s.scrollTop + s.clientHeight >= s.scrollHeight - 2 * ROW_HEIGHT;
  }

  async load(page, first = false) {
    if (this.loading.has(page)) return;
    const generation = this.generation;
    this.loading.add(page);
    try {
      const answer = await this.fetchPage(page * PAGE, PAGE);
      if (generation !== this.generation) return;
      // A list at its end stays there when a fetch brings more rows (a filtered list, or one whose
      // last page was let go, takes new rows this way, not by `append`).
      const following = this.total > 0 && this.atEnd();
      // While counting, the most rows known so far (another page may have known more).
      const known = this.counting ? this.total : 0;
      this.counting = answer.total === null;
      this.total = this.counting ? Math.max(answer.at_least, known) : answer.total;
      this.pages.set(page, answer.exchanges);
      this.forget(page);
      this.layout();
      if (following) this.scrollToOffset(this.total - 1);
    } catch (error) {
      if (generation === this.generation) this.onError(error);
      return;
    } finally {
      if (generation === this.generation) this.loading.delete(page);
    }
    if (first) this.empty.textContent = this.total === 0 && !this.counting ? "No exchange matches." : "";
    if (this.counting) this.askAgain(page, first, generation);
    this.schedule();
  }

  // The total is still being counted: the page is asked again (more and more slowly) until it comes,
  // so the scroll height grows to every matching row then; rows shown meanwhile are already right.
  askAgain(page, first, generation) {
    if (this.waits >= WAITS_MOST) return;
    const delay = Math.min(WAIT_MS * 2 ** this.waits, WAIT_MS_MOST);
    this.waits += 1;
    setTimeout(() => {
      if (generation === this.generation && this.counting) this.load(page, first);
    }, delay);
  }

  // Keeps the KEPT_PAGES pages nearest `near`, and `also` whatever its distance.
  forget(near, also = -1) {
    if (this.pages.size <= KEPT_PAGES) return;
    const far = [...this.pages.keys()].filter((page) => page !== also)
      .sort((a, b) => Math.abs(b - near) - Math.abs(a - near));
    for (const page of far.slice(0, this.pages.size - KEPT_PAGES)) this.pages.delete(page);
  }

  // The scroll geometry: the virtual height, and the real pixel offset at the top of the view.
  geometry() {
    const view = this.scroller.clientHeight;
    const real = this.total * ROW_HEIGHT;
    const virtual = Math.min(real, MAX_HEIGHT);
    const ratio = virtual > view ? (real - view) / (virtual - view) : 1;
    return { view, real, virtual, top: this.scroller.scrollTop * ratio, ratio };
  }

  layout() {
    this.spacer.style.height = `${Math.min(this.total * ROW_HEIGHT, MAX_HEIGHT)}px`;
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  render() {
    const { view, top } = this.geometry();
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - MARGIN);
    const last = Math.min(this.total - 1, Math.ceil((top + view) / ROW_HEIGHT) + MARGIN);
    // A row element still showing the same row object, place and marks is kept: while rows are pushed
    // only the new ones are made, not every row in view again on each push.
    const drawn = new Map();
    const rows = [];
    for (let offset = first; offset <= last; offset += 1) {
      const page = Math.floor(offset / PAGE);
      const rowsOfPage = this.pages.get(page);
      const row = rowsOfPage ? rowsOfPage[offset - page * PAGE] : undefined;
      if (row === undefined && !this.loading.has(page)) this.load(page);
      const y = this.scroller.scrollTop + offset * ROW_HEIGHT - top;
      const classes = this.rowClasses(offset, row);
      const kept = this.drawn.get(offset);
      const node = kept && kept[0].row === row && kept[0].y === y && kept[0].classes === classes
        ? kept[1] : this.rowElement(offset, row, y, classes);
      drawn.set(offset, [{ row, y, classes }, node]);
      rows.push(node);
    }
    this.drawn = drawn;
    placeChildren(this.spacer, rows);
  }

  rowClasses(offset, row) {
    const classes = ["row"];
    if (offset === this.selected) classes.push("selected");
    if (row && row.id === this.openId) classes.push("open");
    if (row && this.picked.includes(row.id)) classes.push("picked");
    return classes.join(" ");
  }

  rowElement(offset, row, y, classes) {
    const node = el("div", { class: classes, role: "row", "data-offset": offset });
    node.style.top = `${y}px`;
    if (row === undefined) {
      node.append(el("span", { class: "c-loading", text: "…" }));
      return node;
    }
    node.dataset.id = row.id;
    const findings = row.findings || {};
    const answered = row.answered;
    node.append(
      el("span", { class: "c-id", text: row.id }),
      el("span", { class: "c-recording", text: recording(row), title: recording(row) }),
      el("span", { class: "c-method", text: row.method }),
      el("span", { class: "c-path", text: row.path, title: row.path }),
      el("span", { class: `c-status s${String(row.status ?? "")[0] || "none"}`, text: row.status ?? "—" }),
      el("span", { class: "c-time", text: shortTime(row.time), title: row.time ?? "" }),
      el("span", { class: "c-size", text: bytes(row.size) }),
      el("span", { class: "c-findings" },
        badge("error", findings.error), badge("warning", findings.warning), badge("info", findings.info)),
      el("span", { class: "c-answered", text: answered ? answered.by : "", title: answeredTitle(answered) }),
    );
    return node;
  }

  rowAt(offset) {
    const page = this.pages.get(Math.floor(offset / PAGE));
    return page ? page[offset % PAGE] : undefined;
  }

  choose(offset, open) {
    if (this.total === 0) return;
    this.selected = Math.max(0, Math.min(this.total - 1, offset));
    this.scrollToOffset(this.selected);
    const row = this.rowAt(this.selected);
    if (open && row) this.onOpen(row.id);
    this.schedule();
  }

  // A row picked for a diff, or unpicked when it was; a third pick starts a new pair.
  pick(offset) {
    const row = this.rowAt(offset);
    if (!row) return;
    if (this.picked.includes(row.id)) this.picked = this.picked.filter((id) => id !== row.id);
    else this.picked = this.picked.length >= 2 ? [row.id] : [...this.picked, row.id];
    this.schedule();
    this.onPick([...this.picked]);
  }

  unpickAll() {
    this.picked = [];
    this.schedule();
  }

  markOpen(id) {
    this.openId = id;
    this.schedule();
  }

  scrollToOffset(offset) {
    const { view, real, virtual, top, ratio } = this.geometry();
    let wanted = top;
    if (offset * ROW_HEIGHT < top) wanted = offset * ROW_HEIGHT;
    else if ((offset + 1) * ROW_HEIGHT > top + view) wanted = (offset + 1) * ROW_HEIGHT - view;
    if (wanted !== top) this.scroller.scrollTop = virtual > view ? wanted / ratio : 0;
    if (real === 0) this.scroller.scrollTop = 0;
  }

  key(event) {
    const step = { ArrowDown: 1, ArrowUp: -1, PageDown: 20, PageUp: -20 }[event.key];
    if (step !== undefined) {
      event.preventDefault();
      this.choose(this.selected < 0 ? 0 : this.selected + step, false);
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      this.choose(event.key === "Home" ? 0 : this.total - 1, false);
    } else if (event.key === " " && this.selected >= 0) {
      event.preventDefault();
      this.pick(this.selected);
    } else if (event.key === "Enter") {
      event.preventDefault();
      const row = this.rowAt(this.selected);
      if (row) this.onOpen(row.id);
    }
  }
}

// Makes `nodes` the children of `parent`, in order, moving only what is not already in place.
function placeChildren(parent, nodes) {
  const wanted = new Set(nodes);
  for (const child of [...parent.children]) if (!wanted.has(child)) child.remove();
  let at = parent.firstElementChild;
  for (const node of nodes) {
    if (node === at) at = at.nextElementSibling;
    else parent.insertBefore(node, at);
  }
}

function recording(row) {
  if (row.cassette === null || row.cassette === undefined) return "";
  return row.index === null || row.index === undefined ? row.cassette : `${row.cassette}#${row.index}`;
}

function shortTime(time) {
  if (!time) return "";
  const found = /T(\d\d:\d\d:\d\d)/.exec(time);
  return found ? found[1] : time;
}

function answeredTitle(answered) {
  if (!answered) return "";
  return [answered.by, answered.recording, answered.detail].filter(Boolean).join(": ");
}

function badge(severity, count) {
  return count ? el("span", { class: `badge ${severity}`, title: `${count} ${severity}`, text: count }) : null;
}
