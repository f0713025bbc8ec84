// memtap Memory Studio: the entry module. Tabs (WAI-ARIA: role=tab, arrow keys, Home/End),
// the admin token and the status line; each tab is its own module with init() and show().

import { $ } from "./dom.js";
import { setToken, token } from "./api.js";
import * as memories from "./tab_memories.js";
import * as playground from "./tab_playground.js";
import * as requests from "./tab_requests.js";
import * as engine from "./tab_engine.js";
import * as owners from "./tab_owners.js";

const TABS = [
  ["memories", memories],
  ["playground", playground],
  ["requests", requests],
  ["engine", engine],
  ["owners", owners],
];

function status(message, isError) {
  const el = $("status");
  el.textContent = message;
  el.className = isError ? "error" : "ok";
}

const studio = {
  status,
  fail: (error) => status(error.message, true),
  open: (name, options) => select(name, options),
};

function tabButton(name) {
  return $("tab-" + name);
}

function select(name, options, focus) {
  const entry = TABS.find(([id]) => id === name) || TABS[0];
  for (const [id] of TABS) {
    const selected = id === entry[0];
    const button = tabButton(id);
    button.setAttribute("aria-selected", selected ? "true" : "false");
    button.tabIndex = selected ? 0 : -1;
    $("panel-" + id).hidden = !selected;
  }
  if (focus) tabButton(entry[0]).focus();
  if (location.hash !== "#" + entry[0]) history.replaceState(null, "", "#" + entry[0]);
  entry[1].show(studio, options || {});
}

function onTabKey(event) {
  const index = TABS.findIndex(([id]) => "tab-" + id === event.target.id);
  const moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: TABS.length - 1 };
  if (!(event.key in moves)) return;
  event.preventDefault();
  const next = (moves[event.key] + TABS.length) % TABS.length;
  select(TABS[next][0], {}, true);
}

function wireTabs() {
  // The buttons are in index.html (their names are part of the contract); wire them here.
  for (const [id] of TABS) {
    tabButton(id).addEventListener("click", () => select(id));
    tabButton(id).addEventListener("keydown", onTabKey);
    $("panel-" + id).setAttribute("aria-labelledby", "tab-" + id);
  }
}

function current() {
  const name = location.hash.slice(1);
  return TABS.some(([id]) => id === name) ? name : "memories";
}

document.addEventListener("DOMContentLoaded", () => {
  wireTabs();
  for (const [, module] of TABS) module.init(studio);
  $("token").value = token();
  $("auth").addEventListener("submit", (event) => {
    event.preventDefault();
    setToken($("token").value.trim());
    status(token() ? "token set for this tab" : "no token (loopback only)", false);
    select(current());
  });
  window.addEventListener("hashchange", () => select(current()));
  select(current());
});
