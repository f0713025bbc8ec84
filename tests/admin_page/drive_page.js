// Drives proxy/admin/static/admin.js in node against a running memtap, with a minimal DOM
// stand-in: enough for the page's own calls (getElementById, createElement, textContent).
// Usage: node drive_page.js BASE_URL TOKEN OWNER  -> prints a JSON summary on stdout.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const [base, token, owner] = process.argv.slice(2);
const elements = {};
let ready = null;
const $ = (id) => document.getElementById(id);

class Element {
  constructor(tag) {
    this.tag = tag; this.value = ""; this.textContent = ""; this.children = [];
    this.listeners = {}; this.checked = false; this.disabled = false; this.className = "";
    this.type = "";
  }
  appendChild(child) { this.children.push(child); return child; }
  replaceChildren() { this.children = []; }
  addEventListener(type, fn) { this.listeners[type] = fn; }
  set innerHTML(_) { throw new Error("the page must never use innerHTML"); }
}

global.document = {
  getElementById: (id) => (elements[id] ??= new Element(id)),
  createElement: (tag) => new Element(tag),
  addEventListener: (type, fn) => { if (type === "DOMContentLoaded") ready = fn; },
};
global.sessionStorage = {
  store: {}, getItem(k) { return this.store[k] ?? null; }, setItem(k, v) { this.store[k] = String(v); },
};
global.confirm = () => true;
const realFetch = fetch;
const calls = [];
global.fetch = (url, options) => {
  calls.push(`${options.method} ${url}`);
  return realFetch(`${base}/_memtap/${url}`, options);
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));
const event = { preventDefault() {} };
const rows = (id) => $(id).children.map((tr) => tr.children.map((td) => td.textContent));

(async () => {
  const source = fs.readFileSync(path.join(__dirname, "../../proxy/admin/static/admin.js"), "utf8");
  vm.runInThisContext(source);
  ready();
  await settle();
  const statusWithoutToken = $("status").textContent;

  $("token").value = token;
  $("auth").listeners.submit(event);
  await settle();

  $("a-owner").value = owner;
  $("a-type").value = "factual";
  $("a-content").value = "<img src=x onerror=alert(1)> prefers green tea";
  await $("add").listeners.submit(event);
  $("a-content").value = "works on the billing service";
  await $("add").listeners.submit(event);
  await settle();
  const listed = rows("rows");

  $("f-q").value = "billing";
  $("search").listeners.submit(event);
  await settle();
  const searched = rows("rows");

  $("p-owner").value = owner;
  $("p-query").value = "what does the billing service use?";
  $("p-strategy").value = "keyword";
  await $("preview").listeners.submit(event);
  const previewed = rows("preview-rows");
  const resolution = $("resolution").textContent;
  const block = $("block").textContent;

  // Delete the searched row through its button.
  const button = $("rows").children[0].children[5].children[0];
  await button.listeners.click();
  await settle();
  const afterDelete = rows("rows");

  console.log(JSON.stringify({
    statusWithoutToken, listed, searched, previewed, resolution, block, afterDelete,
    pageInfo: $("page-info").textContent, status: $("status").textContent, calls,
  }));
})().catch((error) => { console.error(error); process.exit(1); });
