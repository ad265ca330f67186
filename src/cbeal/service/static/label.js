// The labelling page: one part per screen, one key per answer.
"use strict";

requireToken();
const STREAM = param("stream");
const REVIEW = param("review") === "1";  // a reviewer's page: the disputed parts
const state = { task: null, context: null, busy: false, inflight: null, recent: [], undoSeconds: 60,
                suggest: localStorage.getItem("cbeal-suggest") === "1", shownAt: 0 };

document.getElementById("streamname").textContent =
  REVIEW ? `line ${STREAM} · review` : `line ${STREAM}`;
document.getElementById("dashlink").href = `dashboard.html?stream=${encodeURIComponent(STREAM)}`;
const suggestBox = document.getElementById("suggest");
suggestBox.checked = state.suggest;
suggestBox.addEventListener("change", () => {
  state.suggest = suggestBox.checked;
  localStorage.setItem("cbeal-suggest", state.suggest ? "1" : "0");
  if (state.task) render();
});

function classIsFail(c) { return state.context && String(c) === String(state.context.failure_class); }

async function loadNext() {
  state.task = null;
  const box = document.getElementById("task");
  box.setAttribute("aria-busy", "true");
  try {
    const queue = REVIEW ? "reviews" : "tasks";
    const task = await api("GET", `/api/v1/streams/${encodeURIComponent(STREAM)}/${queue}/next`);
    if (task === null) return showEmpty();
    await show(task);
  } catch (e) { showError(e); }
}

async function show(task) {
  state.context = await api("GET", `/api/v1/tasks/${task.task_id}/context?top=8`);
  state.task = task;
  state.shownAt = performance.now();
  render();
  refreshQueue();
}

function showEmpty() {
  const box = document.getElementById("task");
  box.setAttribute("aria-busy", "false");
  box.replaceChildren(el("p", { class: "empty" }, REVIEW ?
    "No disputed parts are waiting. They appear here when two experts disagree (checked " +
    "every 5 seconds)." :
    "No parts are waiting. New ones appear here as the line runs (checked every 5 seconds)."));
  refreshQueue();
  setTimeout(() => { if (!state.task) loadNext(); }, 5000);
}

function showError(e) {
  const box = document.getElementById("task");
  box.setAttribute("aria-busy", "false");
  const missing = missingLine(e, STREAM);
  if (missing) { box.replaceChildren(missing); return; }
  box.replaceChildren(el("p", { class: "error", role: "alert" }, `Something went wrong: ${e.message}`),
                      el("button", { class: "primary", onclick: loadNext }, "Try again"));
}

function render() {
  const t = state.task, c = state.context;
  const box = document.getElementById("task");
  box.setAttribute("aria-busy", "false");
  document.getElementById("guess-on").hidden = !c.show_guess;  // the stream's setting
  document.getElementById("guess-off").hidden = c.show_guess;
  const q = t.question || { title: "Question", why: t.explanation, kind: "" };
  const asked = (t.asked_by || []).map(a => a.label);
  const unusual = c.features.filter(f => f.unusual).length;
  const table = featureTable(c.features, 15);
  const measured = c.task === "regression" ?
    measuredAnswer(t, c, suggesting(), value => answer(value, `${value}${unitOf(c)}`)) : null;
  const others = [
    el("button", { onclick: skip, "aria-keyshortcuts": "Space" }, el("kbd", {}, "Space"),
       REVIEW ? "Not now" : "Skip"),
    el("button", { onclick: cannotTell, "aria-keyshortcuts": "C" }, el("kbd", {}, "C"), "Cannot tell"),
    el("button", { onclick: undoLast, "aria-keyshortcuts": "Backspace",
                   disabled: undoable().length ? null : "disabled" },
       el("kbd", {}, "⌫"), "Undo")];
  box.replaceChildren(
    el("h1", {}, `Part ${t.sample_id}`),
    el("p", { class: "muted" }, `Arrived ${ago(Date.now() / 1000 - t.received_at)} · task ${t.task_id}` +
       (t.skips ? ` · skipped ${t.skips}×` : "")),
    el("p", { class: "why" }, el("span", { class: `kind ${q.kind}` }, q.title), " — ",
       q.why, asked.length ? ` Asked by: ${asked.join(", ")}.` : ""),
    ...experts(t, c),
    ...(measured ? measured.parts : classAnswer(t, c)),
    el("div", { class: "answers", role: "group", "aria-label": "your answer" },
       ...(measured ? [] : classButtons(t, c)), ...others),
    el("p", { class: "status", id: "status", role: "status" }),
    el("h2", {}, "This part among the labelled parts"),
    el("p", { class: "muted" }, `The ${c.strips.length} features where this part is most unusual, ` +
       `against the ${c.pool_size} parts labelled so far` +
       (c.failure_class === null ? "." : ` (${String(c.failure_class)} in red).`)),
    el("div", { id: "strips" }),
    el("h2", {}, `Feature values (${unusual} unusual of ${c.features.length})`),
    el("p", { class: "muted" }, "Percentile and z-score against the labelled parts; ▲ marks " +
       "values in the outer 2.5 % or more than 2 standard deviations from the mean."),
    table);
  stripPlot(document.getElementById("strips"), c.strips, c.classes, c.failure_class);
  if (measured) { measured.draw(); measured.focus.focus(); return; }  // ready to type
  const heading = box.querySelector("h1");
  heading.setAttribute("tabindex", "-1");
  heading.focus();  // not a button: Enter and Space stay shortcuts, never an accidental click
}

// several experts on one part: a reviewer sees every answer side by side; a labeller only
// that others answer too (never their answers: they would pull hers towards them)
function experts(t, c) {
  if (t.status === "disputed") {
    const shown = v => v === null ? "cannot tell" :
      c.task === "regression" ? `${fmt(v, 4)}${unitOf(c)}` : String(v);
    return [
      el("h2", {}, "The experts disagree: your label settles it"),
      el("div", { class: "verdicts", role: "list", "aria-label": "the experts' answers" },
         ...t.answers.filter(a => a.kind !== "settle").map(a => el("div", {
           class: "verdict", role: "listitem" },
           el("div", { class: "muted" }, a.by),
           el("div", { class: "chip" + (classIsFail(a.label) ? " fail" : "") }, shown(a.label)),
           el("div", { class: "muted small" }, ago(Date.now() / 1000 - a.at))))),
      el("p", { class: "muted" }, "The model learns the label you give, not theirs.")];
  }
  if (t.answers_needed > 1) {
    return [el("p", { class: "second" }, `Several experts: ${t.answers_needed} answer this ` +
      `part (${t.answers_given} so far). The model learns the label once they agree; you do ` +
      "not see the others' answers.")];
  }
  return [];
}

// the model's guess, only where the stream shows it (show_guess: off by default for classes)
function classAnswer(t, c) {
  const pred = t.decision.y_pred, certainty = t.decision.certainty;
  if (!c.show_guess) return [];
  return [pred === null ? el("p", { class: "prediction" }, "The model has no guess yet.") :
    el("p", { class: "prediction" }, "The model currently says ",
       el("span", { class: "chip" + (classIsFail(pred) ? " fail" : "") }, String(pred)),
       ` with certainty ${certainty >= 0.995 ? "over 99" : Math.round(100 * certainty)} %.`)];
}

function suggesting() { return state.suggest && Boolean(state.context && state.context.show_guess); }

function classButtons(t, c) {
  const pred = t.decision.y_pred;
  return c.classes.map((cls, i) => el("button", {
      class: "cls" + (classIsFail(cls) ? " fail" : "") +
        (suggesting() && String(cls) === String(pred) ? " suggested" : ""),
      "data-label": JSON.stringify(cls), "aria-keyshortcuts": String(i + 1),
      onclick: () => answer(cls) }, el("kbd", {}, String(i + 1)), String(cls)));
}

function featureTable(features, first) {
  const rows = (n) => features.slice(0, n).map(f => el("tr", { class: f.unusual ? "unusual" : "" },
    el("td", {}, f.name), el("td", { class: "num" }, fmt(f.value)),
    el("td", { class: "num" }, f.percentile === null ? "–" : `${f.percentile} %`),
    el("td", { class: "num" }, f.z === null ? "–" : fmt(f.z, 2))));
  const body = el("tbody", {}, rows(first));
  const wrap = el("div", {}, el("table", {},
    el("thead", {}, el("tr", {}, el("th", {}, "feature"), el("th", { class: "num" }, "value"),
       el("th", { class: "num" }, "percentile"), el("th", { class: "num" }, "z"))), body));
  if (features.length > first) {
    const more = el("button", { class: "link", onclick: () => {
      body.replaceChildren(...rows(features.length)); more.remove(); } },
      `Show all ${features.length} features`);
    wrap.append(el("p", {}, more));
  }
  return wrap;
}

function setStatus(text, error = false) {
  const s = document.getElementById("status");
  if (s) { s.textContent = text; s.className = "status" + (error ? " error" : ""); }
}

// one action at a time; state.inflight is the running one, so that an undo pressed while
// the next part loads waits for it instead of being lost
function exclusive(body) {
  state.busy = true;
  state.inflight = (async () => { try { await body(); } finally { state.busy = false; } })();
  return state.inflight;
}

async function act(fn) {
  if (state.busy || !state.task) return;
  document.querySelectorAll(".answers button").forEach(b => { b.disabled = true; });
  return exclusive(async () => {
    try { await fn(state.task); await loadNext(); }
    catch (e) { render(); setStatus(e.message, true); }  // the message on the new render
  });
}

function answer(label, words = String(label)) {
  return act(async task => {
    const r = await api("POST", `/api/v1/tasks/${task.task_id}/label`,
                        { label, request_id: crypto.randomUUID() });
    remember(task, words, r.status !== "learned");
  });
}

function skip() {
  return act(async task => {
    const how = REVIEW ? "release" : "skip";  // a review goes back to the reviewers' queue
    await api("POST", `/api/v1/tasks/${task.task_id}/${how}`, { request_id: crypto.randomUUID() });
    remember(task, REVIEW ? "not now" : "skipped", false);
  });
}

function cannotTell() {
  return act(async task => {
    await api("POST", `/api/v1/tasks/${task.task_id}/cannot-tell`,
              { request_id: crypto.randomUUID() });
    remember(task, "cannot tell", false);
  });
}

function remember(task, answer, changeable) {
  state.recent.unshift({ id: task.task_id, part: task.sample_id, answer, at: Date.now() / 1000,
                         changeable, seconds: (performance.now() - state.shownAt) / 1000 });
  state.recent = state.recent.slice(0, 10);
  renderRecent();
}

function undoable() {
  const now = Date.now() / 1000;
  return state.recent.filter(r => r.changeable && now - r.at < state.undoSeconds);
}

async function change(entry) {
  while (state.busy) await state.inflight;
  return exclusive(async () => { try {
    await api("POST", `/api/v1/tasks/${entry.id}/undo`, { request_id: crypto.randomUUID() });
    state.recent = state.recent.filter(r => r !== entry);
    renderRecent();
    await show(await api("GET", `/api/v1/tasks/${entry.id}`));
    setStatus(`Your answer for part ${entry.part} was withdrawn: answer it again.`);
  } catch (e) {
    entry.changeable = false;
    renderRecent();
    setStatus(e.status === 409 ? `Part ${entry.part}: the model has learned that answer ` +
              "already; it can no longer be changed." : e.message, true);
  } });
}

// the last answer is known only once its request is back: wait for it before choosing
async function undoLast() {
  while (state.busy) await state.inflight;
  const u = undoable();
  if (u.length) await change(u[0]);
}

function renderRecent() {
  const list = document.getElementById("recent");
  if (!state.recent.length) { list.replaceChildren(el("li", { class: "muted" }, "none yet")); return; }
  const now = Date.now() / 1000;
  list.replaceChildren(...state.recent.map(r => el("li", {},
    el("span", {}, el("strong", {}, r.part), " — ", r.answer,
       el("br"), el("span", { class: "muted" }, ago(now - r.at))),
    r.changeable && now - r.at < state.undoSeconds ?
      el("button", { onclick: () => change(r), "aria-label": `change the answer for part ${r.part}` },
         "Change") : null)));
}

async function refreshQueue() {
  try {
    const st = await api("GET", `/api/v1/streams/${encodeURIComponent(STREAM)}`);
    const q = st.queue;
    document.getElementById("queue").textContent = REVIEW ? `${q.waiting_for_review} to review` :
      `${q.open} waiting` + (q.oldest_age_seconds ? `, oldest ${ago(q.oldest_age_seconds).replace(" ago", "")}` : "");
  } catch (e) { /* the status line is a nicety */ }
}

const help = document.getElementById("help");
function toggleHelp(open) { help.hidden = !open; if (open) document.getElementById("helpclose").focus(); }
document.getElementById("helpbtn").addEventListener("click", () => toggleHelp(true));
document.getElementById("helpclose").addEventListener("click", () => toggleHelp(false));

document.addEventListener("keydown", ev => {
  if (ev.target instanceof HTMLInputElement && ev.target.type !== "checkbox") return;
  if (!help.hidden) { if (ev.key === "Escape" || ev.key === "?") { toggleHelp(false); ev.preventDefault(); } return; }
  if (ev.key === "?") { toggleHelp(true); ev.preventDefault(); return; }
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.key === "Backspace") { ev.preventDefault(); undoLast(); return; }
  if (!state.task || !state.context) return;
  const onButton = ev.target instanceof HTMLButtonElement;
  if ((ev.key === " " || ev.key === "Enter") && onButton) return;  // the button's own press
  const box = document.getElementById("measured");
  if (box && /^[0-9.-]$/.test(ev.key)) { box.focus(); return; }  // typing goes to the box
  if (box && ev.key === "Enter") { ev.preventDefault(); box.form.requestSubmit(); return; }
  if (/^[1-9]$/.test(ev.key)) {
    const cls = state.context.classes[Number(ev.key) - 1];
    if (cls !== undefined) { ev.preventDefault(); answer(cls); }
  } else if (ev.key === " ") { ev.preventDefault(); skip(); }
  else if (ev.key === "c" || ev.key === "C") { ev.preventDefault(); cannotTell(); }
  else if (ev.key === "Enter" && suggesting() && state.task.decision.y_pred !== null) {
    ev.preventDefault(); answer(state.task.decision.y_pred);
  }
});

setInterval(renderRecent, 5000);
api("GET", "/api/v1/me").then(me => {
  state.undoSeconds = me.undo_seconds;
  document.getElementById("undowin").textContent = `${Math.round(me.undo_seconds)} seconds`;
}).catch(() => {});
loadNext();
