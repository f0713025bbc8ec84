// Memories: filters (search debounced), history toggle, paging, add, inline edit, delete with
// confirmation, export / import, and the stats of the filtered owner.

import { $, debounce, fill, h, shortTime } from "./dom.js";
import { call, callText, query } from "./api.js";

const PAGE_SIZE = 25;
const TYPES = ["factual", "episodic", "procedural", "semantic"];
let offset = 0;
let studio = null;

function filters() {
  return {
    owner: $("m-owner").value, session: $("m-session").value, type: $("m-type").value,
    q: $("m-q").value, include_superseded: $("m-history").checked ? "true" : "",
  };
}

export async function load() {
  try {
    const page = await call("GET", "/memories" + query({ ...filters(), limit: PAGE_SIZE, offset }));
    fill($("m-rows"), page.items.map(row), "no memories match", 6);
    const last = offset + page.items.length;
    $("m-page").textContent = page.total ? `${offset + 1}–${last} of ${page.total}` : "no memories";
    $("m-prev").disabled = offset === 0;
    $("m-next").disabled = last >= page.total;
    studio.status(page.total === 1 ? "1 memory" : `${page.total} memories`, false);
  } catch (error) {
    fill($("m-rows"), [], "could not list memories", 6);
    studio.fail(error);
  }
  await loadStats();
}

async function loadStats() {
  const owner = $("m-owner").value.trim();
  const box = $("m-stats");
  if (!owner) {
    box.hidden = true;
    return;
  }
  try {
    const stats = (await call("GET", "/owners" + query({ owner }))).items[0];
    const s = stats || { live: 0, superseded: 0, tokens: 0, requests: 0, episodes: 0, last_activity: null };
    box.replaceChildren(
      h("strong", {}, owner), " · ",
      stat("live", s.live), stat("superseded", s.superseded), stat("tokens", s.tokens),
      stat("episodes", s.episodes || 0), stat("requests", s.requests), stat("last activity", shortTime(s.last_activity) || "never"),
    );
    box.hidden = false;
  } catch (error) {
    box.hidden = true;
  }
}

function stat(label, value) {
  return h("span", { class: "stat" }, h("span", { class: "label" }, label + " "), String(value));
}

function row(memory) {
  const tr = h("tr", { "data-id": memory.id, class: memory.superseded_by ? "superseded" : "" });
  tr.append(
    h("td", { class: "mono nowrap" }, shortTime(memory.updated_at)),
    h("td", { class: "mono" }, memory.owner),
    h("td", {}, memory.type),
    h("td", {}, memory.session || ""),
    h("td", { class: "content" }, memory.content,
      memory.superseded_by ? h("span", { class: "tag" }, "superseded") : null),
    h("td", { class: "actions" },
      h("button", { type: "button", class: "edit", onclick: () => edit(tr, memory) }, "Edit"),
      h("button", { type: "button", class: "delete", onclick: () => confirmDelete(tr, memory) }, "Delete")),
  );
  return tr;
}

function edit(tr, memory) {
  const content = h("textarea", { class: "edit-content", rows: 3, "aria-label": "content" });
  content.value = memory.content;
  const type = h("select", { class: "edit-type", "aria-label": "type" },
    ...TYPES.map((t) => h("option", { selected: t === memory.type }, t)));
  const save = async () => {
    try {
      await call("PUT", "/memories/" + encodeURIComponent(memory.id), { content: content.value, type: type.value });
      studio.status("memory saved", false);
      await load();
    } catch (error) {
      studio.fail(error);
    }
  };
  tr.children[2].replaceChildren(type);
  tr.children[4].replaceChildren(content);
  tr.children[5].replaceChildren(
    h("button", { type: "button", class: "save", onclick: save }, "Save"),
    h("button", { type: "button", onclick: () => tr.replaceWith(row(memory)) }, "Cancel"),
  );
  content.focus();
}

function confirmDelete(tr, memory) {
  const remove = async () => {
    try {
      await call("DELETE", "/memories/" + encodeURIComponent(memory.id));
      studio.status("memory deleted", false);
      await load();
    } catch (error) {
      studio.fail(error);
    }
  };
  const no = h("button", { type: "button", onclick: () => tr.replaceWith(row(memory)) }, "Keep");
  tr.children[5].replaceChildren(
    h("span", { class: "confirm" }, "Delete this memory? "),
    h("button", { type: "button", class: "confirm-delete danger", onclick: remove }, "Yes, delete"),
    no,
  );
  no.focus();
}

async function add(event) {
  event.preventDefault();
  const body = { owner: $("m-add-owner").value.trim(), type: $("m-add-type").value, content: $("m-add-content").value };
  const session = $("m-add-session").value.trim();
  if (session) body.session = session;
  try {
    const created = await call("POST", "/memories", body);
    $("m-add-content").value = "";
    studio.status("memory added: " + created.id, false);
    await load();
  } catch (error) {
    studio.fail(error);
  }
}

function report(text) {
  $("m-io").textContent = text;
  $("m-io").hidden = false;
}

async function exportOwner() {
  const owner = $("m-owner").value.trim() || $("m-add-owner").value.trim();
  if (!owner) {
    studio.status("type an owner in the filter to export its memories", true);
    return;
  }
  try {
    const lines = await callText("GET", "/owners/" + encodeURIComponent(owner) + "/export");
    const count = lines.split("\n").filter((line) => line.trim()).length;
    const link = h("a", { href: URL.createObjectURL(new Blob([lines], { type: "application/x-ndjson" })), download: `memtap-${owner}.jsonl` });
    document.body.appendChild(link);
    link.click();
    link.remove();
    report(`exported ${count} memories of ${owner}`);
  } catch (error) {
    studio.fail(error);
  }
}

async function importFile() {
  const file = $("m-import").files[0];
  if (!file) return;
  try {
    const result = JSON.parse(await callText("POST", "/import", await file.text(), "application/x-ndjson"));
    report(`imported ${file.name}: ${result.created} created, ${result.updated} updated, ${result.skipped} skipped`
      + (result.errors.length ? "\n" + result.errors.join("\n") : ""));
    $("m-import").value = "";
    await load();
  } catch (error) {
    studio.fail(error);
  }
}

export function init(s) {
  studio = s;
  const reload = () => { offset = 0; load(); };
  const later = debounce(reload, 300);
  for (const id of ["m-owner", "m-session", "m-q"]) $(id).addEventListener("input", later);
  $("m-type").addEventListener("change", reload);
  $("m-history").addEventListener("change", reload);
  $("m-filters").addEventListener("submit", (event) => { event.preventDefault(); reload(); });
  $("m-prev").addEventListener("click", () => { offset = Math.max(0, offset - PAGE_SIZE); load(); });
  $("m-next").addEventListener("click", () => { offset += PAGE_SIZE; load(); });
  $("m-add").addEventListener("submit", add);
  $("m-export").addEventListener("click", exportOwner);
  $("m-import").addEventListener("change", importFile);
}

export function show(s, options) {
  if (options.owner !== undefined) {
    $("m-owner").value = options.owner;
    $("m-add-owner").value = options.owner;
    offset = 0;
  }
  if (options.memoryId) {
    // A link from the Requests tab: show that one memory (history on: it may be superseded).
    call("GET", "/memories/" + encodeURIComponent(options.memoryId))
      .then((memory) => {
        fill($("m-rows"), [row(memory)], "", 6);
        $("m-page").textContent = "memory " + memory.id;
      })
      .catch((error) => studio.fail(error));
    return;
  }
  load();
}
