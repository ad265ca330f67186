// The dashboard of one line: budget, questions, failures, agents, accuracy, queue, pace.
"use strict";

requireToken();
const STREAM = param("stream");
document.getElementById("streamname").textContent = `line ${STREAM}`;
document.getElementById("labellink").href = `label.html?stream=${encodeURIComponent(STREAM)}`;

function tile(title, value, note) {
  return el("div", { class: "tile" }, el("div", { class: "muted" }, title),
            el("div", { class: "value" }, value), note ? el("div", { class: "muted" }, note) : null);
}

function series(bins, key, scale = 1) {
  return bins.map(b => [b.t, b[key] === null || b[key] === undefined ? null : b[key] * scale]);
}

let config = null;  // the stream's configuration: agent labels, how the weights move
function fusion() { return config.weighting.method === "score fusion"; }
const NAME = encodeURIComponent(STREAM);

// a regression stream: the words that change, once
function measuredWords(cfg) {
  const band = `±${cfg.tolerance}${cfg.unit ? " " + cfg.unit : ""}`;
  document.getElementById("bandsection").hidden = false;
  document.getElementById("askedtitle").textContent = "Parts sent for measurement";
  document.getElementById("askedwords").textContent =
    "Per time slot: parts the model asked to have measured.";
  document.getElementById("acctitle").textContent = "Is the prediction within the tolerance?";
  document.getElementById("accwords").textContent = `Share of measured parts the model had ` +
    `predicted within ${band} before learning their value (on the hard parts it chose to ask ` +
    "about, so lower than on all parts).";
  document.getElementById("bandwords").textContent = `Tolerance ${band}. These are the parts ` +
    "the model chose to ask about, so the hard ones.";
}

// a regression stream's tiles: share inside the band, RMSE and MAE over every learned value
function bandTiles(band) {
  const u = config.unit ? ` ${config.unit}` : "";
  const none = !band.labels;
  return [
    tile(`Within ±${band.tolerance}${u} before learning`,
         none ? "–" : `${Math.round(100 * band.in_band)} %`, `of ${band.labels} measured parts`),
    tile("RMSE before learning", none ? "–" : `${fmt(band.rmse, 3)}${u}`,
         "root mean squared error"),
    tile("MAE before learning", none ? "–" : `${fmt(band.mae, 3)}${u}`, "mean absolute error")];
}

// several experts on one line: α over time, each labeller, and (for an admin) the settings
function expertsPart(st, rep) {
  const used = rep.multiply_answered > 0 || st.labels_per_part > 1 ||
    st.second_opinion_below !== null;
  document.getElementById("expertsection").hidden = !used;
  if (!used) return [];
  const p = rep.parts;
  document.getElementById("expertwords").textContent =
    `${rep.multiply_answered} parts answered by several experts: ${p.agreed} agreed, ` +
    `${p.settled} settled by a reviewer, ${p.disputed} waiting for review.`;
  lineChart(document.getElementById("c-alpha"), [
    { name: "Krippendorff's α", colour: "#1f3a5f", points: rep.history.map(h => [h.t, h.alpha]) }],
    { yLabel: "α", yMax: 1, label: "experts' agreement over time",
      empty: "fewer than two parts answered twice" });
  document.getElementById("labellers").replaceChildren(
    el("thead", {}, el("tr", {}, el("th", {}, "labeller"), el("th", { class: "num" }, "answers"),
       el("th", { class: "num" }, "agrees with the final label"))),
    el("tbody", {}, ...rep.labellers.map(l => el("tr", {}, el("td", {}, l.name),
       el("td", { class: "num" }, String(l.answers)),
       el("td", { class: "num" }, l.agreement === null ? "–" : `${Math.round(100 * l.agreement)} %`)))));
  return [tile("Experts' agreement (α)", rep.alpha === null ? "–" : fmt(rep.alpha, 2),
               `on ${rep.multiply_answered} parts`),
          tile("Waiting for review", String(st.queue.waiting_for_review),
               "parts whose experts disagree")];
}

function expertsForm(st) {
  const form = document.getElementById("expertsform");
  form.hidden = false;
  document.getElementById("lpp").value = st.labels_per_part;
  document.getElementById("sob").value = st.second_opinion_below ?? "";
  form.addEventListener("submit", async ev => {
    ev.preventDefault();
    const sob = document.getElementById("sob").value.trim();
    const msg = document.getElementById("expertsmsg");
    try {
      await api("PATCH", `/api/v1/streams/${NAME}/config`, {
        labels_per_part: Number(document.getElementById("lpp").value),
        second_opinion_below: sob === "" ? null : Number(sob) });
      msg.textContent = "Saved: parts answered from now on follow it.";
      msg.className = "status";
    } catch (e) { msg.textContent = e.message; msg.className = "status error"; }
  });
}

let me = null;
async function refresh() {
  if (config === null) {
    config = await api("GET", `/api/v1/streams/${NAME}/config`);
    if (config.task === "regression") measuredWords(config);
    document.getElementById("weighting").textContent = config.weighting.words;
    if (fusion()) {
      document.getElementById("weightstitle").textContent = "Which agents drove the asks";
      document.getElementById("weightswords").textContent = "For the parts asked so far: each " +
        "agent's share of their fused scores (the shares sum to 100 %). ";
    }
    document.getElementById("budgetwords").textContent = `The budget: ${config.budget_words}.`;
  }
  const measured = config.task === "regression";
  const [st, h, band, rep] = await Promise.all([
    api("GET", `/api/v1/streams/${NAME}`),
    api("GET", `/api/v1/streams/${NAME}/history?points=40`),
    measured ? api("GET", `/api/v1/streams/${NAME}/band`) : null,
    api("GET", `/api/v1/streams/${NAME}/agreement`)]);
  if (me === null) {
    me = await api("GET", "/api/v1/me");
    if (me.role === "review") {  // a reviewer's page is the review of the disputed parts
      const link = document.getElementById("labellink");
      link.href = `label.html?stream=${NAME}&review=1`;
      link.textContent = "Review parts";
    }
    if (me.role === "admin") {
      document.getElementById("expertsection").hidden = false;
      expertsForm(st);
    }
  }
  const b = st.budget || {};
  const bins = h.bins;
  const pace = bins.map(x => x.seconds_per_label).filter(v => v !== null);
  document.getElementById("tiles").replaceChildren(
    tile("Parts seen", (st.samples_seen ?? st.samples_received).toLocaleString()),
    tile("Labels learned", String(st.labels_learned ?? 0),
         st.queue.waiting_to_learn ? `${st.queue.waiting_to_learn} more within the undo window` : null),
    tile("Budget", `${b.spent ?? 0} spent`, b.spec ? `of ${b.spec}; ${b.left_now} available now` : null),
    tile("Waiting for an expert", String(st.queue.open),
         st.queue.oldest_age_seconds ? `oldest asked ${ago(st.queue.oldest_age_seconds)}` : null),
    ...(measured ? bandTiles(band) : [tile("Model right before learning",
         st.prequential_accuracy === null ? "–" : `${Math.round(100 * st.prequential_accuracy)} %`,
         `on ${st.prequential_labels} labelled parts`)]),
    tile("Model version", `v${st.model_version ?? 0}`,
         st.model_training ? `v${st.model_training} is training` : "up to date"),
    tile("Seconds per label", pace.length ? fmt(pace[pace.length - 1], 1) : "–", "median, recent"),
    ...expertsPart(st, rep));
  if (me.role === "admin") document.getElementById("expertsection").hidden = false;

  const labels = Object.fromEntries(config.agent_info.map(a => [a.name, a.label]));
  lineChart(document.getElementById("c-budget"), [
    { name: "labels spent", colour: "#1f3a5f", points: series(bins, "asked_total"), step: true },
    { name: "budget allows", colour: "#999999", points: series(bins, "budget_allowed"), dash: "6 4" }],
    { yLabel: "labels", label: "labels spent against the budget" });
  if (measured) {
    bandChart(document.getElementById("c-band"), band,
              { yLabel: `error${config.unit ? ` (${config.unit})` : ""}`,
                unit: config.unit ? ` ${config.unit}` : "" });
  }
  barChart(document.getElementById("c-asked"), bins, [
    { name: "parts asked", colour: "#8a8a8a", key: "asked" },
    ...(measured ? [] :
      [{ name: `labelled ${h.failure_class}`, colour: FAIL_COLOUR, key: "failures_labelled" }])],
    { yLabel: "parts", label: "parts asked and failures found" });
  // under score fusion the weights never move: draw which agents drove the asks instead
  const key = fusion() ? "drivers" : "weights";
  lineChart(document.getElementById("c-weights"), h.agents.map((name, i) => ({
    name: `${labels[name] || name} (${name})`, colour: SERIES_COLOURS[i % SERIES_COLOURS.length],
    points: bins.map(x => [x.t, x[key] ? x[key][i] : null]) })),
    fusion() ? { yLabel: "share of the asks", yMin: 0, yMax: 1, percent: true,
                 label: "which agents drove the asks", empty: "no part asked yet" }
             : { yLabel: "weight", yMin: 0, label: "agent weights over time" });
  lineChart(document.getElementById("c-acc"), [
    { name: measured ? "within the tolerance before learning" : "right before learning",
      colour: "#009E73", points: series(bins, "prequential_accuracy") }],
    { yLabel: "share", yMin: 0, yMax: 1, percent: true, label: "prequential accuracy" });
  lineChart(document.getElementById("c-queue"), [
    { name: "parts waiting", colour: "#1f3a5f", points: series(bins, "queue"), step: true }],
    { yLabel: "parts", label: "queue" });
  lineChart(document.getElementById("c-delay"), [
    { name: "label delay", colour: "#E69F00", points: series(bins, "label_delay_s", 1 / 60) }],
    { yLabel: "minutes", label: "label delay", empty: "no answers yet" });
  lineChart(document.getElementById("c-pace"), [
    { name: "seconds per label", colour: "#CC79A7", points: series(bins, "seconds_per_label") }],
    { yLabel: "seconds", label: "labelling pace", empty: "no answers yet" });
  lineChart(document.getElementById("c-version"), [
    { name: "model version", colour: "#0072B2", points: series(bins, "model_version"), step: true }],
    { yLabel: "version", label: "model version" });
  document.getElementById("updated").textContent =
    `updated ${new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })}`;
}

const timer = setInterval(() => refresh().catch(() => {}), 10000);
refresh().catch(e => {
  const missing = missingLine(e, STREAM);
  if (missing) {  // nothing to chart, nothing to refresh
    clearInterval(timer);
    document.querySelector(".charts").hidden = true;
  }
  document.getElementById("tiles").replaceChildren(
    missing || el("p", { class: "error", role: "alert" }, e.message));
});
