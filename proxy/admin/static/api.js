// The admin API client: the token lives in sessionStorage (this tab only, gone when it
// closes) and goes in the Authorization header; on loopback without a token none is sent.

const API = "api";
const TOKEN_KEY = "memtap-token";

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message + " (" + code + ")");
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

function headers(extra) {
  const sent = { Accept: "application/json", ...extra };
  if (token()) sent.Authorization = "Bearer " + token();
  return sent;
}

async function check(response) {
  if (response.ok) return response;
  const data = await response.json().catch(() => null);
  const error = data && data.error ? data.error : { code: "http_error", message: response.statusText };
  throw new ApiError(response.status, error.code, error.message, error.field);
}

export async function call(method, path, body) {
  const response = await fetch(API + path, {
    method,
    headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await check(response);
  return response.json();
}

// Raw text in and out (export / import of JSON lines).
export async function callText(method, path, body, contentType) {
  const response = await fetch(API + path, {
    method,
    headers: headers(body === undefined ? {} : { "Content-Type": contentType }),
    body,
  });
  await check(response);
  return response.text();
}

export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && String(value).trim() !== "") {
      search.set(name, String(value).trim());
    }
  }
  const text = search.toString();
  return text ? "?" + text : "";
}
