// The labelling page of a regression stream: the model's prediction with its interval and
// the tolerance band, and a box for the measured value, checked before it is sent.
"use strict";

const LIMIT = 1e12;  // as the service: a larger value is an overflow code or a unit slip
const BAND_COLOUR = "#cfe8d6", INTERVAL_COLOUR = "#6b6b6b", VALUE_COLOUR = "#1f5fa8";

function unitOf(c) { return c.unit ? ` ${c.unit}` : ""; }

// decimals worth showing: one more than the tolerance's first significant digit
function decimals(tol) { return Math.max(0, Math.ceil(-Math.log10(tol)) + 1); }

function num(v, c) { return `${v.toFixed(decimals(c.tolerance))}${unitOf(c)}`; }

// the box's content as a measured value, or {error} in words the expert reads
function readMeasurement(input, c) {
  const u = c.unit ? ` in ${c.unit}` : "";
  if (input.validity.badInput) {
    return { error: `That is not a number: type the measured value${u}, with a point for ` +
             "decimals (e.g. 41.25)." };
  }
  if (input.value.trim() === "") return { error: `Type the measured value${u} first.` };
  const v = Number(input.value);
  if (!Number.isFinite(v) || Math.abs(v) > LIMIT) {
    return { error: `${input.value} is not a plausible measurement: check the reading and ` +
             "its unit, or press Cannot tell." };
  }
  return { value: v };
}

// how the typed value compares with the prediction, in words (a hint, never a refusal)
function compared(v, d, c) {
  const off = v - d.y_pred, tol = c.tolerance;
  if (Math.abs(off) <= tol) return `Within ±${tol}${unitOf(c)} of the prediction.`;
  const times = Math.abs(off) / tol;
  const note = times > 10 ? " Please check the reading and its unit." : "";
  return `${num(Math.abs(off), c)} ${off > 0 ? "above" : "below"} the prediction: outside ` +
    `the band, so the model's prediction missed this part.${note}`;
}

// the prediction, its 95 % interval and the tolerance band on one axis; the typed value
// appears as a blue line while the expert types
function bandPlot(container, d, c, typed) {
  const W = 720, H = 118, L = 16, R = 16, axisY = 76, mid = 56;
  const lo = d.interval[0], hi = d.interval[1], tol = c.tolerance, y = d.y_pred;
  const show = typed !== null && Number.isFinite(typed);
  let a = Math.min(lo, y - tol, show ? typed : Infinity);
  let b = Math.max(hi, y + tol, show ? typed : -Infinity);
  const pad = 0.08 * (b - a || 1); a -= pad; b += pad;
  const X = v => L + (v - a) / (b - a) * (W - L - R);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "band",
    "aria-label": "the prediction, its interval and the tolerance band",
    "data-prediction": y, "data-low": lo, "data-high": hi, "data-tolerance": tol });
  root.append(svg("rect", { x: X(y - tol), y: 24, width: X(y + tol) - X(y - tol),
                            height: axisY - 24, fill: BAND_COLOUR, class: "tolerance" }));
  root.append(svg("line", { x1: X(lo), y1: mid, x2: X(hi), y2: mid, stroke: INTERVAL_COLOUR,
                            "stroke-width": 4, class: "interval" }));
  for (const v of [lo, hi]) {
    root.append(svg("line", { x1: X(v), y1: mid - 7, x2: X(v), y2: mid + 7,
                              stroke: INTERVAL_COLOUR, "stroke-width": 2 }));
  }
  root.append(svg("path", { d: `M${X(y)},${mid - 10}L${X(y) + 7},${mid}L${X(y)},${mid + 10}` +
                            `L${X(y) - 7},${mid}Z`, fill: "#000", stroke: "#fff", "stroke-width": 1.5 }));
  root.append(svg("text", { x: X(y), y: 38, "text-anchor": "middle", "font-weight": 700 },
                  `prediction ${num(y, c)}`));
  if (show) {  // labelled above the prediction's label, on the side with room
    const left = X(typed) > W / 2;
    root.append(svg("line", { x1: X(typed), y1: 4, x2: X(typed), y2: axisY, class: "typed",
                              stroke: VALUE_COLOUR, "stroke-width": 3 }));
    root.append(svg("text", { x: X(typed) + (left ? -6 : 6), y: 15, class: "typed",
                              "text-anchor": left ? "end" : "start", "font-weight": 700 },
                    `your value ${num(typed, c)}`));
  }
  const axis = svg("g", { class: "axis" });
  axis.append(svg("line", { x1: L, y1: axisY, x2: W - R, y2: axisY }));
  for (const v of niceTicks(a, b, 6)) {
    if (v < a || v > b) continue;
    axis.append(svg("line", { x1: X(v), y1: axisY, x2: X(v), y2: axisY + 5 }));
    axis.append(svg("text", { x: X(v), y: axisY + 19, "text-anchor": "middle" }, fmt(v, 4)));
  }
  axis.append(svg("text", { x: W - R, y: H - 4, "text-anchor": "end" },
                  c.unit ? `measured value (${c.unit})` : "measured value"));
  root.append(axis);
  root.style.maxWidth = `${W}px`;
  container.replaceChildren(root, legend([
    { name: `tolerance band: prediction ±${tol}${unitOf(c)}`, colour: BAND_COLOUR },
    { name: `95 % interval ${num(lo, c)} to ${num(hi, c)}`, colour: INTERVAL_COLOUR },
    { name: "your value", colour: VALUE_COLOUR }]));
}

// the part's prediction, the band and the value box; `submit(value)` sends the answer
function measuredAnswer(t, c, suggest, submit) {
  const d = t.decision;
  const box = el("input", { type: "number", step: "any", id: "measured", inputmode: "decimal",
    autocomplete: "off", "aria-describedby": "measurehint", class: "measured" });
  if (suggest && d.y_pred !== null) box.value = d.y_pred.toFixed(decimals(c.tolerance));
  const hint = el("p", { class: "hint", id: "measurehint", role: "status" });
  const plot = el("div", { id: "bandplot" });
  const form = el("form", { class: "measure", novalidate: "novalidate" },
    el("label", { for: "measured" }, `Measured value${c.unit ? ` (${c.unit})` : ""}`),
    el("div", { class: "valuebox" }, box, c.unit ? el("span", { class: "unit" }, c.unit) : null,
       el("button", { type: "submit", class: "primary" }, "Submit measurement")), hint);
  const typed = () => {
    const r = readMeasurement(box, c);
    if (d.y_pred !== null) bandPlot(plot, d, c, r.value ?? null);
    hint.className = "hint";
    hint.textContent = r.value !== undefined && d.y_pred !== null ? compared(r.value, d, c) : "";
  };
  box.addEventListener("input", typed);
  box.addEventListener("keydown", ev => { if (ev.key === "Escape") box.blur(); });
  form.addEventListener("submit", ev => {
    ev.preventDefault();
    const r = readMeasurement(box, c);
    if (r.error) { hint.className = "hint error"; hint.textContent = r.error; box.focus(); return; }
    submit(r.value);
  });
  const said = d.y_pred === null ?
    el("p", { class: "prediction" }, "The model has no prediction yet: the first measured " +
       "parts train it.") :
    el("p", { class: "prediction" }, "The model predicts ", el("strong", {}, num(d.y_pred, c)),
       ` (95 % interval ${num(d.interval[0], c)} to ${num(d.interval[1], c)}); it is ` +
       `${d.certainty >= 0.995 ? "over 99" : Math.round(100 * d.certainty)} % likely to be ` +
       `within the tolerance of ±${c.tolerance}${unitOf(c)}.`);
  return { parts: [said, d.y_pred === null ? null : plot, form], focus: box, draw: typed };
}
