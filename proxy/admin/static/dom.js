// Element helpers. Every string a caller passes becomes a text node or an attribute value:
// nothing here parses HTML, so user-controlled text (memory content, owners, sessions) can
// never become markup.

export const $ = (id) => document.getElementById(id);

// h("td", {class: "mono"}, "text", childNode, ...). Attributes: `class`, `on<event>` (a
// function), booleans (`disabled: true`), anything else via setAttribute.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      el.className = value;
    } else if (value === true) {
      el.setAttribute(name, "");
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function text(value) {
  return value === null || value === undefined ? "" : String(value);
}

export function shortTime(iso) {
  // 2026-12-03T07:42:34.707Z -> 2026-12-03 07:42:34
  return iso ? String(iso).replace("T", " ").replace(/\.\d+Z$|Z$/, "") : "";
}

export function fill(tbody, rows, emptyText, columns) {
  tbody.replaceChildren(...rows);
  if (!rows.length) {
    tbody.appendChild(h("tr", {}, h("td", { colspan: columns, class: "empty" }, emptyText)));
  }
}

export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

// A key/value table of a flat or nested object (nested objects become dotted names).
export function facts(object, prefix = "") {
  const rows = [];
  for (const [key, value] of Object.entries(object || {})) {
    const name = prefix + key;
    if (value && typeof value === "object" && !Array.isArray(value)) {
      rows.push(...facts(value, name + "."));
    } else {
      const shown = Array.isArray(value) ? JSON.stringify(value) : text(value);
      rows.push(h("tr", {}, h("th", { scope: "row" }, name), h("td", { class: "mono" }, shown)));
    }
  }
  return rows;
}
