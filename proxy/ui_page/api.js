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
