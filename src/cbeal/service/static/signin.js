// The sign-in page: keep the token in this tab, then list the lines it may see.
"use strict";
async function showStreams() {
  const me = await api("GET", "/api/v1/me");
  const { streams } = await api("GET", "/api/v1/streams");
  const list = document.getElementById("list");
  list.replaceChildren(...streams.map(name => el("li", {},
    el("strong", {}, name), " — ",
    me.role === "ingest" ? "" : el("a", { href: `label.html?stream=${encodeURIComponent(name)}` }, "label parts"),
    me.role === "ingest" ? "" : " · ",
    el("a", { href: `dashboard.html?stream=${encodeURIComponent(name)}` }, "dashboard"))));
  if (!streams.length) list.append(el("li", {}, "No lines yet: create one with the API."));
  document.getElementById("streams").hidden = false;
  document.getElementById("msg").textContent = `Signed in as ${me.name} (${me.role}).`;
  const next = param("next");
  if (next && next.startsWith("/ui/")) location.href = next;
}
document.getElementById("signin").addEventListener("submit", async ev => {
  ev.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("token").value.trim());
  try { await showStreams(); }
  catch (e) { document.getElementById("msg").textContent = "That token was refused."; }
});
if (param("expired")) document.getElementById("msg").textContent = "Please sign in again.";
if (token()) showStreams().catch(() => {});
else document.getElementById("token").focus();
