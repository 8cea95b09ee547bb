// The UI's JSON API (docs/ui.md), relative to this file: /_proxy/ui/assets/ -> /_proxy/ui/api/.
// Every call carries the server's token in the X-Commerce-Proxy-Token header: the page's cookie opens
// the page alone (a browser sends cookies to every port of a host; no other page can set our header).

const API = new URL("../api/", import.meta.url);

export const MAX_LIMIT = 500;

export class ApiError extends Error {}
export class TokenRefused extends ApiError {} // a 403: this page holds no token of its server's

// The token: the server's redirect from the printed address puts it in the fragment (`#token=T`, never
// sent to any server); the page keeps it in localStorage, which is this origin's alone (scheme, host
// and port), and takes it out of the address bar.
const KEPT = "commerce-proxy-token";
let token = "";

export function takeToken() {
  const given = new URLSearchParams(location.hash.slice(1)).get("token") || "";
  if (given) history.replaceState(history.state, "", `${location.pathname}${location.search}`);
  try {
    if (given) localStorage.setItem(KEPT, given);
    token = given || localStorage.getItem(KEPT) || "";
  } catch {
    token = given; // storage refused (a private window's rule): this tab still works
  }
  return token !== "";
}

export const authorized = (more = {}) => ({ ...more, "X-Commerce-Proxy-Token": token });

async function refused(response) {
  const line = `${response.status}: ${await oneLine(response)}`;
  return response.status === 403 ? new TokenRefused(line) : new ApiError(line);
}

export function apiUrl(path, pairs = []) {
  const url = new URL(path, API);
  for (const [name, value] of pairs) url.searchParams.append(name, value);
  return url;
}

async function oneLine(response) {
  const text = (await response.text()).trim();
  try {
    const document = JSON.parse(text);
    if (document && typeof document.error === "string") return document.error;
    const first = document && Array.isArray(document.errors) ? document.errors[0] : null;
    if (first && typeof first.detail === "string") return first.detail; // the API's error document
    if (document && typeof document.message === "string") return document.message;
  } catch {
    // not JSON: the text itself
  }
  return text.split("\n")[0] || response.statusText;
}

export async function getJson(path, pairs = [], signal = undefined) {
  const response = await fetch(apiUrl(path, pairs), {
    headers: authorized({ Accept: "application/json" }),
    credentials: "same-origin",
    signal,
  });
  if (response.status === 404) return null;
  if (!response.ok) throw await refused(response);
  return response.json();
}

export const info = () => getJson("info");
export const counts = (filterPairs) => getJson("counts", filterPairs);
export const exchange = (id) => getJson(`exchanges/${encodeURIComponent(id)}`);

export function window_(filterPairs, offset, limit) {
  const asked = Math.min(limit, MAX_LIMIT);
  return getJson("exchanges", [...filterPairs, ["offset", String(offset)], ["limit", String(asked)]]);
}

export async function postJson(path, document) {
  const response = await fetch(apiUrl(path), {
    method: "POST",
    headers: authorized({ Accept: "application/json", "Content-Type": "application/json" }),
    credentials: "same-origin",
    body: JSON.stringify(document),
  });
  if (!response.ok) throw await refused(response);
  return response.json();
}

async function mustGet(path, pairs = []) {
  const found = await getJson(path, pairs);
  if (found === null) throw new ApiError(`404: ${path} not found`);
  return found;
}

const one = (id) => `exchanges/${encodeURIComponent(id)}`;
export const curl = (id) => mustGet(`${one(id)}/curl`);
export const diff = (a, b, all = false) =>
  mustGet("diff", [["a", String(a)], ["b", String(b)], ...(all ? [["all", "1"]] : [])]);
export const sources = () => mustGet("sources");
export const cassetteDiff = (a, b, all = false) =>
  mustGet("cassette-diff", [["a", a], ["b", b], ...(all ? [["all", "1"]] : [])]);
export const acceptFinding = (id, rule) => postJson("baseline", { exchange: id, rule });
// An action names the exchange shown by its identity too: its id may name another one since.
export const deleteExchange = (id, identity) => postJson(`${one(id)}/delete`, { identity });
// The value goes as typed (`text`): the server reads it as `cassette set` does, numbers as spelled.
export const editExchange = (id, identity, field, text, unset = false) =>
  postJson(`${one(id)}/edit`, unset ? { field, unset: true, identity } : { field, text, identity });
export const resend = (id) => postJson(`${one(id)}/resend`, {});
export const exportUrl = (filterPairs, format) => apiUrl("export", [...filterPairs, ["format", format]]);

// A download needs the header too, so it is fetched and handed to the browser as a file of its own.
export async function download(url) {
  const response = await fetch(url, { headers: authorized(), credentials: "same-origin" });
  if (!response.ok) throw await refused(response);
  const disposition = response.headers.get("Content-Disposition") || "";
  const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] || "export";
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}
