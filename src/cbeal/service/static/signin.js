// The sign-in page: keep the token in this tab, then list the lines it may see.
"use strict";
async function showStreams() {
  const me = await api("GET", "/api/v1/me");
  const { streams } = await api("GET", "/api/v1/streams");
  const list = document.getElementById("list");
  const labels = me.role === "annotate" || me.role === "admin";
  const reviews = me.role === "review" || me.role === "admin";
  list.replaceChildren(...streams.map(name => el("li", {},
    el("strong", {}, name), " — ",
    labels ? el("a", { href: `label.html?stream=${encodeURIComponent(name)}` }, "label parts") : "",
    labels ? " · " : "",
    reviews ? el("a", { href: `label.html?stream=${encodeURIComponent(name)}&review=1` },
                 "review disputed parts") : "",
    reviews ? " · " : "",
    el("a", { href: `dashboard.html?stream=${encodeURIComponent(name)}` }, "dashboard"))));
  if (!streams.length) {
    list.append(el("li", {}, "No lines yet. An administrator adds one, e.g. by replaying a " +
                   "file: cbeal replay FILE --stream NAME --create."));
  }
  document.getElementById("streams").hidden = false;
  document.getElementById("signin-card").hidden = true;  // signed in: the form has done its job
  document.getElementById("who").replaceChildren(`Signed in as ${me.name} (${me.role}). `,
    el("button", { class: "link", onclick: signOut }, "Sign out"));
  const next = param("next");
  if (next && next.startsWith("/ui/")) location.href = next;
}
document.getElementById("signin").addEventListener("submit", async ev => {
  ev.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("token").value.trim());
  try { await showStreams(); }
  catch (e) {
    document.getElementById("msg").textContent = "That token was refused. A token works only " +
      "on the server whose database it was made in: make it with cbeal token create in the " +
      "folder where cbeal serve was started (its database is cbeal-service.db there), or " +
      "give both the same --db.";
  }
});
if (param("expired")) document.getElementById("msg").textContent = "Please sign in again.";
if (token()) showStreams().catch(() => {});
else document.getElementById("token").focus();
