// The UI's JSON API (docs/ui.md), relative to this file: /_proxy/ui/assets/ -> /_proxy/ui/api/.
// The access cookie goes with every request on its own (same origin).

const API = new URL("../api/", import.meta.url);

export const MAX_LIMIT = 500;

export class ApiError extends Error {}

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
    headers: { Accept: "application/json" },
    credentials: "same-origin",
    signal,
  });
  if (response.status === 404) return null;
  if (!response.ok) throw new ApiError(`${response.status}: ${await oneLine(response)}`);
  return response.json();
}

export const info = () => getJson("info");
export const counts = (filterPairs) => getJson("counts", filterPairs);
export const exchange = (id) => getJson(`exchanges/${encodeURIComponent(id)}`);

export function window_(filterPairs, offset, limit) {
  const asked = Math.min(limit, MAX_LIMIT);
  return getJson("exchanges", [...filterPairs, ["offset", String(offset)], ["limit", String(asked)]]);
}

// The token for the calls that change state. The cookie is HttpOnly, so the page cannot read it; the
// server puts it in /api/info's "token" only for a request that came with the cookie (a page on another
// origin can read no answer of ours, and sends no SameSite=Strict cookie).
let token = "";

export function useToken(value) {
  token = typeof value === "string" ? value : "";
}

export async function postJson(path, document) {
  const response = await fetch(apiUrl(path), {
    method: "POST",
    headers: {
      Accept: "application/json",
      "Content-Type": "application/json",
      "X-Commerce-Proxy-Token": token,
    },
    credentials: "same-origin",
    body: JSON.stringify(document),
  });
  if (!response.ok) throw new ApiError(`${response.status}: ${await oneLine(response)}`);
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
export const acceptFinding = (id, rule) => postJson("baseline", { exchange: id, rule });
export const deleteExchange = (id) => postJson(`${one(id)}/delete`, {});
export const editExchange = (id, field, value, unset = false) =>
  postJson(`${one(id)}/edit`, unset ? { field, unset: true } : { field, value });
export const resend = (id) => postJson(`${one(id)}/resend`, {});
export const exportUrl = (filterPairs, format) => apiUrl("export", [...filterPairs, ["format", format]]);
