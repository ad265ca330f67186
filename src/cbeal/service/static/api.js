// Shared by the cbeal pages: the token, API calls, and the words a quality engineer reads.
"use strict";

const TOKEN_KEY = "cbeal-token";

function token() { return sessionStorage.getItem(TOKEN_KEY); }

function requireToken() {
  if (!token()) {
    location.href = "index.html?next=" + encodeURIComponent(location.pathname + location.search);
    throw new Error("no token");
  }
}

async function api(method, path, body) {
  const headers = { "Authorization": "Bearer " + token() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, { method, headers,
                                body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status === 401) {
    sessionStorage.removeItem(TOKEN_KEY);
    const signInPage = /\/ui\/(index\.html)?$/.test(location.pathname);
    if (!signInPage) location.href = "index.html?expired=1";
    throw new Error("token refused");
  }
  if (r.status === 204) return null;
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    const err = new Error(typeof data.detail === "string" ? data.detail : r.statusText);
    err.status = r.status;
    throw err;
  }
  return data;
}

// an error about a line the service does not have, in the words of the page's reader (the
// API's own reply names the route that creates a stream: words for a developer)
function missingLine(e, name) {
  if (e.status !== 404 || !String(e.message).startsWith("no stream named")) return null;
  return el("p", { class: "error", role: "alert" }, `There is no line named “${name}” on this ` +
            "server. ", el("a", { href: "index.html" }, "See the lines you can open"),
            " (or ask an administrator to add this one).");
}

function param(name) { return new URLSearchParams(location.search).get(name); }

function signOut() { sessionStorage.removeItem(TOKEN_KEY); location.href = "index.html"; }

// no inline handlers (the Content-Security-Policy allows no inline script)
document.addEventListener("DOMContentLoaded", () => {
  for (const b of document.querySelectorAll("[data-sign-out]")) b.addEventListener("click", signOut);
});

function fmt(v, digits = 3) {
  if (v === null || v === undefined) return "–";
  if (typeof v !== "number") return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2);
  return Number(v.toFixed(digits)).toString();
}

function ago(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  }
  return node;
}
