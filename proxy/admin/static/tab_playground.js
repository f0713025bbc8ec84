// Playground: retrieve-preview. Ranked results, the exact block the proxy would inject, and
// the resolution (strategy, tiers, fallbacks, floor, timings).

import { $, facts, fill, h } from "./dom.js";
import { call } from "./api.js";

let studio = null;

function rank(value) {
  return value === null || value === undefined ? "–" : String(value);
}

function score(value) {
  // Scores span orders of magnitude (RRF ~0.03, bm25 relevance can be tiny): 3 significant digits.
  const n = Number(value);
  return n === 0 ? "0" : Math.abs(n) < 0.001 ? n.toExponential(2) : n.toPrecision(3);
}

function hitRow(hit, index) {
  return h("tr", { "data-id": hit.id },
    h("td", { class: "mono" }, String(index + 1)),
    h("td", { class: "mono" }, score(hit.score)),
    h("td", {}, hit.tier),
    h("td", { class: "mono" }, rank(hit.fts_rank)),
    h("td", { class: "mono" }, rank(hit.vec_rank)),
    h("td", { class: "mono" }, hit.similarity === null || hit.similarity === undefined ? "–" : Number(hit.similarity).toFixed(3)),
    h("td", { class: "mono" }, String(hit.tokens)),
    h("td", { class: "content" }, hit.content),
  );
}

async function preview(event) {
  event.preventDefault();
  const body = { owner: $("p-owner").value.trim(), query: $("p-query").value };
  const session = $("p-session").value.trim();
  if (session) body.session = session;
  if ($("p-strategy").value) body.strategy = $("p-strategy").value;
  if ($("p-budget").value) body.max_tokens = Number($("p-budget").value);
  try {
    const result = await call("POST", "/retrieve-preview", body);
    fill($("p-rows"), result.results.map(hitRow), "nothing passes the floor for this query", 8);
    $("p-block").textContent = result.block || "(nothing would be injected)";
    $("p-resolution").replaceChildren(...facts({ tokens: result.tokens, ...result.resolution }));
    studio.status(`${result.results.length} result${result.results.length === 1 ? "" : "s"}, ${result.tokens} tokens`, false);
  } catch (error) {
    studio.fail(error);
  }
}

export function init(s) {
  studio = s;
  $("p-form").addEventListener("submit", preview);
}

export function show(s, options) {
  if (options.owner) $("p-owner").value = options.owner;
}
