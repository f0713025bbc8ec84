// Owners: every owner with counts and last activity; erase needs the owner id typed again
// and shows the receipt of what was removed.

import { $, facts, fill, h, shortTime } from "./dom.js";
import { call } from "./api.js";

let studio = null;

function row(owner) {
  return h("tr", { "data-owner": owner.owner },
    h("td", { class: "mono" }, owner.owner),
    h("td", { class: "mono" }, String(owner.live)),
    h("td", { class: "mono" }, String(owner.superseded)),
    h("td", { class: "mono" }, String(owner.tokens)),
    h("td", { class: "mono" }, String(owner.requests)),
    h("td", { class: "mono nowrap" }, shortTime(owner.last_activity)),
    h("td", { class: "actions" },
      h("button", { type: "button", onclick: () => studio.open("memories", { owner: owner.owner }) }, "Memories"),
      h("button", { type: "button", onclick: () => studio.open("playground", { owner: owner.owner }) }, "Preview"),
      h("button", { type: "button", class: "erase danger", onclick: () => askErase(owner.owner) }, "Erase…")),
  );
}

function askErase(owner) {
  const box = $("o-erase");
  const typed = h("input", { id: "o-erase-confirm", class: "mono", autocomplete: "off", "aria-label": "type the owner id to confirm" });
  const go = h("button", { type: "button", id: "o-erase-go", class: "danger", disabled: true }, "Erase everything of this owner");
  typed.addEventListener("input", () => { go.disabled = typed.value.trim() !== owner; });
  go.addEventListener("click", () => erase(owner));
  box.replaceChildren(
    h("h2", {}, "Erase owner"),
    h("p", {}, "This deletes every memory, queued turn, index entry and vector of ", h("strong", { class: "mono" }, owner),
      ". It cannot be undone. Type the owner id to confirm:"),
    h("div", { class: "row" }, typed, go,
      h("button", { type: "button", onclick: () => { box.hidden = true; } }, "Cancel")),
  );
  box.hidden = false;
  typed.focus();
}

async function erase(owner) {
  const box = $("o-erase");
  try {
    const receipt = await call("DELETE", "/owners/" + encodeURIComponent(owner));
    box.replaceChildren(
      h("h2", {}, "Erased " + receipt.owner),
      h("p", {}, "Receipt:"),
      h("table", { class: "facts", id: "o-receipt" }, h("tbody", {}, ...facts(receipt.removed || {}, "removed."))),
    );
    studio.status("owner erased: " + owner, false);
    await load(false);
  } catch (error) {
    studio.fail(error);
  }
}

export async function load(hideErase = true) {
  if (hideErase) $("o-erase").hidden = true;
  try {
    const body = await call("GET", "/owners");
    fill($("o-rows"), body.items.map(row), "no owners yet", 7);
    $("o-note").textContent = body.truncated ? "(counted from the first memories only: the store is large)" : "";
    studio.status(body.items.length === 1 ? "1 owner" : `${body.items.length} owners`, false);
  } catch (error) {
    studio.fail(error);
  }
}

export function init(s) {
  studio = s;
  $("o-refresh").addEventListener("click", () => load());
}

export function show() {
  load();
}
