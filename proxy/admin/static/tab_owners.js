// Owners: every owner with counts and last activity, the end users of a key (KEYOWNER:USERTAG)
// grouped under the key's own row; erase needs the owner id typed again and shows the receipt
// of what was removed. Erasing a key's owner erases only that exact owner, not its users.

import { $, facts, fill, h, shortTime } from "./dom.js";
import { call } from "./api.js";

let studio = null;

const NO_STATS = { live: 0, superseded: 0, tokens: 0, requests: 0, last_activity: null };

function row(owner, users) {
  const endUser = Boolean(owner.key_owner);
  return h("tr", {
    "data-owner": owner.owner,
    "data-key-owner": owner.key_owner,
    class: endUser ? "end-user" : "key-owner",
  },
    h("td", { class: "mono owner" }, endUser ? "↳ " : "", owner.owner),
    h("td", { class: "mono users" }, users ? String(users) : ""),
    h("td", { class: "mono" }, String(owner.live)),
    h("td", { class: "mono" }, String(owner.superseded)),
    h("td", { class: "mono" }, String(owner.tokens)),
    h("td", { class: "mono" }, String(owner.requests)),
    h("td", { class: "mono nowrap" }, shortTime(owner.last_activity)),
    h("td", { class: "actions" },
      h("button", { type: "button", onclick: () => studio.open("memories", { owner: owner.owner }) }, "Memories"),
      h("button", { type: "button", onclick: () => studio.open("playground", { owner: owner.owner }) }, "Preview"),
      h("button", { type: "button", class: "erase danger", onclick: () => askErase(owner.owner, users) }, "Erase…")),
  );
}

// The API lists owners newest activity first; a key's group comes where its newest member
// does, the key's own row first (made up, with zeros, when only its users have anything).
function grouped(items) {
  const groups = new Map();
  for (const item of items) {
    const key = item.key_owner || item.owner;
    if (!groups.has(key)) groups.set(key, { owner: null, users: [] });
    const group = groups.get(key);
    if (item.key_owner) group.users.push(item);
    else group.owner = item;
  }
  const rows = [];
  for (const [key, group] of groups) {
    rows.push(row(group.owner || { ...NO_STATS, owner: key, key_owner: null }, group.users.length));
    for (const user of group.users) rows.push(row(user, 0));
  }
  return { rows, keys: groups.size, users: items.filter((i) => i.key_owner).length };
}

function askErase(owner, users) {
  const box = $("o-erase");
  const typed = h("input", { id: "o-erase-confirm", class: "mono", autocomplete: "off", "aria-label": "type the owner id to confirm" });
  const go = h("button", { type: "button", id: "o-erase-go", class: "danger", disabled: true }, "Erase everything of this owner");
  typed.addEventListener("input", () => { go.disabled = typed.value.trim() !== owner; });
  go.addEventListener("click", () => erase(owner));
  box.replaceChildren(
    h("h2", {}, "Erase owner"),
    h("p", {}, "This deletes every memory, queued turn, index entry and vector of ", h("strong", { class: "mono" }, owner),
      ". It cannot be undone.",
      users ? ` Its end users (${users}) keep their own memories: erase each by its own id.` : "",
      " Type the owner id to confirm:"),
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

function summary(keys, users) {
  const owners = keys === 1 ? "1 owner" : `${keys} owners`;
  return users ? `${owners}, ${users} end user${users === 1 ? "" : "s"}` : owners;
}

export async function load(hideErase = true) {
  if (hideErase) $("o-erase").hidden = true;
  try {
    const body = await call("GET", "/owners");
    const { rows, keys, users } = grouped(body.items);
    fill($("o-rows"), rows, "no owners yet", 8);
    $("o-note").textContent = body.truncated ? "(counted from the first memories only: the store is large)" : "";
    studio.status(summary(keys, users), false);
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
