// Requests: the request log (GET /api/requests), newest first. Memory ids link to the
// Memories tab; a row's details show every id and the reason when nothing happened.

import { $, fill, h, shortTime } from "./dom.js";
import { call, query } from "./api.js";

let studio = null;
let timer = null;

function memoryLinks(ids, full) {
  if (full && !ids.length) return ["none"];
  return ids.map((id) =>
    h("a", { href: "#memories", class: "memory-link mono", title: id,
      onclick: (event) => { event.preventDefault(); studio.open("memories", { memoryId: id }); } },
      full ? id : id.slice(0, 8)));
}

function idsCell(ids, pending) {
  if (pending) return h("td", { class: "pending" }, "pending…");
  return h("td", { class: "ids" }, h("span", { class: "count" }, String(ids.length)), ...memoryLinks(ids));
}

function row(item) {
  return h("tr", { "data-request-id": item.request_id },
    h("td", { class: "mono nowrap" }, shortTime(item.ts)),
    h("td", { class: "mono" }, item.owner || "(no key)"),
    h("td", {}, item.format || ""),
    h("td", {}, item.model || ""),
    h("td", { class: "mono" }, item.status === null ? "–" : String(item.status)),
    idsCell(item.injected, false),
    idsCell(item.extracted, item.extraction === "pending"),
    h("td", { class: "reason" }, item.skipped_reason || ""),
    h("td", { class: "mono" }, h("a", { href: "#requests", title: item.request_id,
      onclick: (event) => { event.preventDefault(); detail(item); } }, item.request_id.slice(0, 12))),
  );
}

function detail(item) {
  const box = $("r-detail");
  box.replaceChildren(
    h("h2", {}, "Request " + item.request_id),
    h("dl", {},
      ...[["owner", item.owner || "(no key)"], ["time", item.ts], ["format", item.format], ["model", item.model],
        ["status", item.status], ["extraction", item.extraction], ["extractor", item.extractor ? item.extractor + (item.extractor_fallback ? " (model: " + item.extractor_fallback + ")" : "") : "–"], ["why nothing", item.skipped_reason || "–"]]
        .flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v === null || v === undefined ? "" : String(v))]),
      h("dt", {}, "injected"), h("dd", { class: "ids" }, ...memoryLinks(item.injected, true)),
      h("dt", {}, "extracted"), h("dd", { class: "ids" }, ...memoryLinks(item.extracted, true))),
  );
  box.hidden = false;
}

export async function load() {
  try {
    const page = await call("GET", "/requests" + query({ owner: $("r-owner").value, limit: $("r-limit").value }));
    fill($("r-rows"), page.items.map(row), "no request went through memory yet", 9);
    studio.status(`${page.items.length} of the last ${page.size} requests`, false);
  } catch (error) {
    studio.fail(error);
  }
}

export function init(s) {
  studio = s;
  $("r-filters").addEventListener("submit", (event) => { event.preventDefault(); load(); });
  $("r-auto").addEventListener("change", () => {
    clearInterval(timer);
    if ($("r-auto").checked) timer = setInterval(() => { if (!$("panel-requests").hidden) load(); }, 2000);
  });
}

export function show() {
  load();
}
