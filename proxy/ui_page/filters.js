// The filter: every FILTER parameter of the API, kept in the page's URL (location query) so a view can
// be shared, and read back from it. The open exchange is `exchange=ID` in the same query.

export const FIELDS = [
  "method", "status", "path", "endpoint", "rule", "severity", "has_findings", "cassette", "text",
];

export function fromSearch(search) {
  const params = new URLSearchParams(search);
  const filter = {};
  for (const field of FIELDS) {
    const value = params.get(field);
    if (value) filter[field] = value;
  }
  const opened = Number.parseInt(params.get("exchange") || "", 10);
  return { filter, exchange: Number.isFinite(opened) && opened > 0 ? opened : null };
}

export function toSearch(filter, exchange) {
  const params = new URLSearchParams(pairs(filter));
  if (exchange) params.set("exchange", String(exchange));
  const text = params.toString();
  return text ? `?${text}` : "";
}

export function pairs(filter) {
  return FIELDS.filter((field) => filter[field]).map((field) => [field, filter[field]]);
}

export function isEmpty(filter) {
  return pairs(filter).length === 0;
}

export function readForm(form) {
  const filter = {};
  for (const field of FIELDS) {
    const value = form.elements[field].value.trim();
    if (value) filter[field] = value;
  }
  return filter;
}

export function fillForm(form, filter) {
  for (const field of FIELDS) {
    const input = form.elements[field];
    const value = filter[field] || "";
    if (input.tagName === "SELECT" && value && ![...input.options].some((o) => o.value === value)) {
      input.append(new Option(value, value));
    }
    input.value = value;
  }
}
