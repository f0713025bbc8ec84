// Engine: store, FTS, vector tier and embedding source (with its fallbacks), outbox and
// worker, the vector backlog with Reindex (resumable batches, progress shown), Qdrant when
// configured, and the runtime settings with their source, editable through PUT /api/settings.

import { $, facts, fill, h, text } from "./dom.js";
import { call } from "./api.js";

const REINDEX_BATCH = 25;
let studio = null;
let reindexing = false;

function pick(object, names) {
  const out = {};
  for (const name of names) if (object && name in object) out[name] = object[name];
  return out;
}

function offReason(vector, status) {
  if (vector.reason) return vector.reason;
  return status.embedding && status.embedding !== "none" ? "no dense vectors" : "no embedding model (embedding.source)";
}

async function loadStatus() {
  const status = await call("GET", "/engine-status");
  const store = status.store || {};
  $("e-store").replaceChildren(...facts({
    ...pick(store, ["kind", "driver", "sqlite_version", "path", "bytes", "url", "collection"]),
    fts: status.fts ? (status.fts.available ? "available" : "unavailable") : "–",
    "fts tokenizer": status.fts ? status.fts.tokenizer : "",
    ...pick(status.counts || {}, ["live", "superseded", "expired", "owners"]),
  }));
  const vector = status.vector || {};
  const embedding = vector.embedding || {};
  $("e-vector").replaceChildren(...facts({
    tier: vector.available ? vector.kind : "off (" + offReason(vector, status) + ")",
    ...pick(vector, ["dim", "vectors", "signature"]),
    embedding: status.embedding,
    "embedding requested": embedding.requested,
    "embedding source": embedding.source,
  }), ...(embedding.fallbacks || []).map((f) =>
    h("tr", { class: "fallback" }, h("th", { scope: "row" }, "fallback: " + f.source), h("td", {}, f.cause + " — " + text(f.message)))));
  $("e-outbox").replaceChildren(...facts(status.outbox || {}));
  const backlog = (status.counts && status.counts.needs_reindex) || vector.needs_reindex || 0;
  $("e-backlog").textContent = vector.available
    ? `${backlog} memories wait for a vector (${text(vector.vectors)} built).`
    : "No vector tier: nothing to build (" + offReason(vector, status) + ").";
  $("e-reindex").disabled = reindexing || !vector.available;
  const qdrant = store.kind === "qdrant" || vector.kind === "qdrant";
  $("e-qdrant-card").hidden = !qdrant;
  if (qdrant) {
    const health = await fetch("health").then((r) => r.json()).catch(() => ({}));
    const { kind, local, ...details } = store;
    $("e-qdrant").replaceChildren(...facts({ health: health.status, "health.store": health.store, ...details }));
  }
}

async function reindex() {
  if (reindexing) return;
  reindexing = true;
  $("e-reindex").disabled = true;
  const bar = $("e-progress");
  bar.hidden = false;
  bar.value = 0;
  let done = 0;
  let body = { limit: REINDEX_BATCH, force: $("e-force").checked };
  try {
    for (;;) {
      const step = await call("POST", "/reindex", body);
      body = { limit: REINDEX_BATCH };  // later batches continue the same pass
      done += step.done || 0;
      const total = done + (step.pending || 0);
      bar.max = Math.max(total, 1);
      bar.value = total ? done : 1;
      $("e-reindex-status").textContent = step.started === false
        ? "not started: " + text(step.reason)
        : `${done} of ${total} vectors built` + (step.finished ? " — done" : "…");
      if (step.finished || step.started === false || !step.pending) break;
    }
    if (!$("e-reindex-status").textContent.includes("done") && done >= 0) {
      $("e-reindex-status").textContent = `${done} vectors built — done`;
    }
  } catch (error) {
    studio.fail(error);
  } finally {
    reindexing = false;
    await loadStatus().catch((error) => studio.fail(error));
  }
}

function editor(setting) {
  const value = setting.value;
  if (typeof value === "boolean" || typeof setting.default === "boolean") {
    const select = h("select", { "aria-label": setting.name },
      h("option", { selected: value === true }, "true"), h("option", { selected: value === false }, "false"));
    return [select, () => select.value === "true"];
  }
  const stringy = typeof value === "string" || typeof setting.default === "string";
  const input = h("input", { "aria-label": setting.name, class: "setting", placeholder: value === null ? "null" : "" });
  input.value = value === null ? "" : stringy ? value : JSON.stringify(value);
  const read = () => {
    const raw = input.value.trim();
    if (raw === "") return null;
    if (stringy) return raw;
    try {
      return JSON.parse(raw);
    } catch {
      return raw;  // the API says what is wrong with it
    }
  };
  return [input, read];
}

function settingRow(setting, hasOverride) {
  const [input, read] = editor(setting);
  const save = async () => {
    try {
      await call("PUT", "/settings", { [setting.name]: read() });
      studio.status("saved " + setting.name, false);
      await loadSettings();
    } catch (error) {
      studio.fail(error);
    }
  };
  const reset = async () => {
    try {
      await call("DELETE", "/settings/" + encodeURIComponent(setting.name));
      studio.status("override dropped: " + setting.name, false);
      await loadSettings();
    } catch (error) {
      studio.fail(error);
    }
  };
  // The declaration's range (1..16000) or, for a word, its choices (recent | keyword | ...).
  const allowed = setting.range || (setting.type && setting.type.includes(" | ") ? setting.type : "");
  const help = (setting.help || "") + (allowed ? " (" + allowed + ")" : "");
  return h("tr", { "data-setting": setting.name, title: help },
    h("th", { scope: "row", class: "mono" }, setting.name, h("div", { class: "help" }, help)),
    h("td", {}, input),
    h("td", {}, h("span", { class: "source source-" + setting.source }, setting.source)),
    h("td", { class: "mono" }, JSON.stringify(setting.default)),
    h("td", { class: "actions" },
      h("button", { type: "button", class: "save", onclick: save }, "Save"),
      hasOverride ? h("button", { type: "button", onclick: reset }, "Reset") : null),
  );
}

async function loadSettings() {
  const body = await call("GET", "/settings");
  fill($("e-settings"), body.settings.map((s) => settingRow(s, s.name in body.overrides)), "no runtime settings", 5);
}

export function init(s) {
  studio = s;
  $("e-reindex").addEventListener("click", reindex);
}

export async function show() {
  try {
    await Promise.all([loadStatus(), loadSettings()]);
    studio.status("engine status loaded", false);
  } catch (error) {
    studio.fail(error);
  }
}
