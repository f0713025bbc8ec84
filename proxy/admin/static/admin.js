// memtap admin page: plain JS over the admin API. Memory content is only ever inserted with
// textContent (never innerHTML): it is user-controlled text.
"use strict";

const API = "api";
const PAGE_SIZE = 50;
let offset = 0;

const $ = (id) => document.getElementById(id);

function token() {
  return sessionStorage.getItem("memtap-token") || "";
}

function setStatus(text, isError) {
  const el = $("status");
  el.textContent = text;
  el.className = isError ? "error" : "";
}

async function call(method, path, body) {
  const headers = { Accept: "application/json" };
  if (token()) headers.Authorization = "Bearer " + token();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(API + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = data && data.error ? data.error : { code: "http_error", message: response.statusText };
    throw new Error(error.message + " (" + error.code + ")");
  }
  return data;
}

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (className) td.className = className;
  row.appendChild(td);
  return td;
}

async function loadMemories() {
  const params = new URLSearchParams();
  for (const [name, id] of [["owner", "f-owner"], ["session", "f-session"], ["type", "f-type"], ["q", "f-q"]]) {
    const value = $(id).value.trim();
    if (value) params.set(name, value);
  }
  if ($("f-superseded").checked) params.set("include_superseded", "true");
  params.set("limit", PAGE_SIZE);
  params.set("offset", offset);
  try {
    const page = await call("GET", "/memories?" + params.toString());
    const rows = $("rows");
    rows.replaceChildren();
    for (const memory of page.items) {
      const tr = document.createElement("tr");
      cell(tr, memory.updated_at, "mono");
      cell(tr, memory.owner, "mono");
      cell(tr, memory.type);
      cell(tr, memory.session);
      cell(tr, memory.content + (memory.superseded_by ? "  [superseded]" : ""), "content");
      const actions = cell(tr, "");
      const del = document.createElement("button");
      del.type = "button";
      del.textContent = "delete";
      del.addEventListener("click", () => deleteMemory(memory.id));
      actions.appendChild(del);
      rows.appendChild(tr);
    }
    const last = offset + page.items.length;
    $("page-info").textContent = page.total ? `${offset + 1}–${last} of ${page.total}` : "no memories";
    $("prev").disabled = offset === 0;
    $("next").disabled = last >= page.total;
    setStatus("ok", false);
  } catch (error) {
    setStatus(error.message, true);
  }
}

async function deleteMemory(id) {
  if (!confirm("Delete this memory?")) return;
  try {
    await call("DELETE", "/memories/" + encodeURIComponent(id));
    await loadMemories();
  } catch (error) {
    setStatus(error.message, true);
  }
}

async function addMemory(event) {
  event.preventDefault();
  const body = { owner: $("a-owner").value.trim(), type: $("a-type").value, content: $("a-content").value };
  const session = $("a-session").value.trim();
  if (session) body.session = session;
  try {
    await call("POST", "/memories", body);
    $("a-content").value = "";
    await loadMemories();
  } catch (error) {
    setStatus(error.message, true);
  }
}

async function preview(event) {
  event.preventDefault();
  const body = { owner: $("p-owner").value.trim(), query: $("p-query").value };
  const session = $("p-session").value.trim();
  if (session) body.session = session;
  if ($("p-strategy").value) body.strategy = $("p-strategy").value;
  try {
    const result = await call("POST", "/retrieve-preview", body);
    const rows = $("preview-rows");
    rows.replaceChildren();
    for (const hit of result.results) {
      const tr = document.createElement("tr");
      cell(tr, Number(hit.score).toFixed(4), "mono");
      cell(tr, hit.tier);
      cell(tr, hit.tokens);
      cell(tr, hit.fts_rank);
      cell(tr, hit.vec_rank);
      cell(tr, hit.content, "content");
      rows.appendChild(tr);
    }
    $("block").textContent = result.block || "(nothing would be injected)";
    $("resolution").textContent = JSON.stringify(result.resolution, null, 2);
    setStatus(`${result.results.length} results`, false);
  } catch (error) {
    setStatus(error.message, true);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("token").value = token();
  $("auth").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem("memtap-token", $("token").value);
    loadMemories();
  });
  $("search").addEventListener("submit", (event) => { event.preventDefault(); offset = 0; loadMemories(); });
  $("prev").addEventListener("click", () => { offset = Math.max(0, offset - PAGE_SIZE); loadMemories(); });
  $("next").addEventListener("click", () => { offset += PAGE_SIZE; loadMemories(); });
  $("add").addEventListener("submit", addMemory);
  $("preview").addEventListener("submit", preview);
  loadMemories();
});
