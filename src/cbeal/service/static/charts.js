// Small SVG charts for the cbeal pages (no library, nothing from the internet).
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const FAIL_COLOUR = "#b3261e";
const CLASS_COLOURS = ["#1f5fa8", "#4a4a4a", "#6a3d9a", "#33a02c"];
const SERIES_COLOURS = ["#0072B2", "#009E73", "#E69F00", "#56B4E9", "#CC79A7", "#000000",
                        "#999999", "#8c6d31"];

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function niceTicks(lo, hi, n = 4) {
  if (!(hi > lo)) { hi = lo + 1; }
  const step0 = (hi - lo) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 2.5, 5, 10].map(m => m * mag).find(s => s >= step0) || step0;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) ticks.push(v);
  return ticks;
}

function timeLabel(t, span) {
  const d = new Date(t * 1000);
  if (span > 2 * 86400) return d.toLocaleDateString([], { month: "short", day: "numeric" });
  if (span < 600) {
    return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

function anchor(i, n) { return i === 0 ? "start" : i === n ? "end" : "middle"; }

// The axes of a W × H chart over time: value ticks (with grid lines) and time ticks.
function timeAxes(X, Y, x0, x1, ticks, opts, W = 460, H = 230, L = 52, R = 12, T = 12, B = 44) {
  const axis = svg("g", { class: "axis" });
  axis.append(svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B }));
  axis.append(svg("line", { x1: L, y1: T, x2: L, y2: H - B }));
  for (const v of ticks) {
    axis.append(svg("line", { x1: L - 4, y1: Y(v), x2: W - R, y2: Y(v), "stroke-opacity": .15 }));
    axis.append(svg("text", { x: L - 6, y: Y(v) + 4, "text-anchor": "end" },
                    opts.percent ? `${Math.round(v * 100)}%` : fmt(v, 2)));
  }
  const span = x1 - x0, nt = span < 60 ? 1 : 3;  // a short span: its two ends only
  for (let i = 0; i <= nt; i++) {
    const t = x0 + i * span / nt;
    axis.append(svg("text", { x: X(t), y: H - B + 16, "text-anchor": anchor(i, nt) },
                    timeLabel(t, span)));
  }
  axis.append(svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" },
                  opts.xLabel || "time"));
  if (opts.yLabel) {
    axis.append(svg("text", { x: 12, y: (T + H - B) / 2, "text-anchor": "middle",
                              transform: `rotate(-90 12 ${(T + H - B) / 2})` }, opts.yLabel));
  }
  return axis;
}

// series: [{name, colour, points: [[t, v], ...], dash, step}]; options: yLabel, yMin, yMax
function lineChart(container, series, opts = {}) {
  const W = 460, H = 230, L = 52, R = 12, T = 12, B = 44;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
                           "aria-label": opts.label || "chart" });
  const pts = series.flatMap(s => s.points.filter(p => p[1] !== null && p[1] !== undefined));
  if (!pts.length) {
    root.append(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle" },
                    opts.empty || "no data yet"));
    container.replaceChildren(root);
    return;
  }
  const xs = pts.map(p => p[0]);
  let x0 = Math.min(...xs), x1 = Math.max(...xs);
  if (x1 === x0) { x0 -= 30; x1 += 30; }
  let y0 = opts.yMin ?? Math.min(0, ...pts.map(p => p[1]));
  let y1 = opts.yMax ?? Math.max(...pts.map(p => p[1]));
  if (y1 === y0) y1 = y0 + 1;
  const X = t => L + (t - x0) / (x1 - x0) * (W - L - R);
  const Y = v => H - B - (v - y0) / (y1 - y0) * (H - T - B);
  root.append(timeAxes(X, Y, x0, x1, niceTicks(y0, y1), opts));
  for (const s of series) {
    // a time slot without a value (nobody labelled, nothing asked) breaks the line: no
    // straight ramp across idle time; a value alone between two gaps is a dot
    for (const run of runs(s.points)) {
      if (run.length === 1) {
        root.append(svg("circle", { cx: X(run[0][0]), cy: Y(run[0][1]), r: 2.6,
                                    fill: s.colour, class: "alone" }));
        continue;
      }
      let d = `M${X(run[0][0])},${Y(run[0][1])}`;
      for (let i = 1; i < run.length; i++) {
        d += s.step ? `H${X(run[i][0])}V${Y(run[i][1])}` : `L${X(run[i][0])},${Y(run[i][1])}`;
      }
      root.append(svg("path", { d, fill: "none", stroke: s.colour, "stroke-width": 2.2,
                                "stroke-dasharray": s.dash || "none" }));
    }
  }
  container.replaceChildren(root, legend(series));
}

// the stretches of a series between missing values ([[t, v], ...] each)
function runs(points) {
  const out = [];
  let run = [];
  for (const p of points) {
    if (p[1] === null || p[1] === undefined) { if (run.length) out.push(run); run = []; }
    else run.push(p);
  }
  if (run.length) out.push(run);
  return out;
}

// A regression stream's learned labels: each one's error (measured − predicted) over time
// against the shaded tolerance band ±tol; a red dot is a part the prediction missed.
function bandChart(container, band, opts = {}) {
  const W = 460, H = 230, L = 52, R = 12, T = 12, B = 44, tol = band.tolerance;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "bandchart",
                           "aria-label": opts.label || "errors against the tolerance band",
                           "data-tolerance": tol });
  const pts = band.points;
  if (!pts.length) {
    root.append(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, "no measured parts yet"));
    container.replaceChildren(root);
    return;
  }
  let x0 = pts[0].t, x1 = pts[pts.length - 1].t;
  if (x1 === x0) { x0 -= 30; x1 += 30; }
  const top = 1.08 * Math.max(1.6 * tol, ...pts.map(p => Math.abs(p.error)));
  const X = t => L + (t - x0) / (x1 - x0) * (W - L - R);
  const Y = v => H - B - (v + top) / (2 * top) * (H - T - B);
  root.append(svg("rect", { x: L, y: Y(tol), width: W - L - R, height: Y(-tol) - Y(tol),
                            fill: "#cfe8d6", class: "tolerance" }));
  const ticks = niceTicks(-top, top).filter(v => Math.abs(v) <= top);
  root.append(timeAxes(X, Y, x0, x1, ticks, opts));
  root.append(svg("line", { x1: L, y1: Y(0), x2: W - R, y2: Y(0), stroke: "#4a4a4a" }));
  for (const p of pts) {
    const dot = svg("circle", { cx: X(p.t), cy: Y(p.error), r: 3.6,
      fill: p.inside ? "#0072B2" : FAIL_COLOUR, class: p.inside ? "inside" : "outside",
      "data-error": p.error, "data-sample": p.sample_id });
    dot.append(svg("title", {}, `part ${p.sample_id}: measured ${fmt(p.y, 4)}, predicted ` +
                   `${fmt(p.y_pred, 4)} (error ${fmt(p.error, 4)}${opts.unit || ""})`));
    root.append(dot);
  }
  container.replaceChildren(root, legend([
    { name: `tolerance band ±${tol}${opts.unit || ""}`, colour: "#cfe8d6" },
    { name: "within the band", colour: "#0072B2" },
    { name: "outside: the prediction missed", colour: FAIL_COLOUR }]));
}

function barChart(container, bins, bars, opts = {}) {
  // bars: [{name, colour, key}] drawn side by side per bin
  const W = 460, H = 230, L = 52, R = 12, T = 12, B = 44;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
                           "aria-label": opts.label || "chart" });
  if (!bins.length) { container.replaceChildren(root); return; }
  const ymax = Math.max(1, ...bins.flatMap(b => bars.map(s => b[s.key] || 0)));
  const x0 = bins[0].t - (bins.length > 1 ? bins[1].t - bins[0].t : 60), x1 = bins[bins.length - 1].t;
  const X = t => L + (t - x0) / (x1 - x0) * (W - L - R);
  const Y = v => H - B - v / ymax * (H - T - B);
  const axis = svg("g", { class: "axis" });
  axis.append(svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B }));
  for (const v of niceTicks(0, ymax)) {
    if (v !== Math.round(v)) continue;
    axis.append(svg("line", { x1: L - 4, y1: Y(v), x2: W - R, y2: Y(v), "stroke-opacity": .15 }));
    axis.append(svg("text", { x: L - 6, y: Y(v) + 4, "text-anchor": "end" }, String(v)));
  }
  const span = x1 - x0, nt = span < 60 ? 1 : 3;  // a short span: its two ends only
  for (let i = 0; i <= nt; i++) {
    const t = x0 + i * span / nt;
    axis.append(svg("text", { x: X(t), y: H - B + 16, "text-anchor": anchor(i, nt) },
                    timeLabel(t, span)));
  }
  axis.append(svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" }, "time"));
  if (opts.yLabel) {
    axis.append(svg("text", { x: 12, y: (T + H - B) / 2, "text-anchor": "middle",
                              transform: `rotate(-90 12 ${(T + H - B) / 2})` }, opts.yLabel));
  }
  root.append(axis);
  const bw = (W - L - R) / bins.length;
  bins.forEach((b, i) => {
    const x = L + i * bw;
    bars.forEach((s, j) => {
      const v = b[s.key] || 0;
      if (!v) return;
      const w = Math.max(1, bw / bars.length - 1);
      root.append(svg("rect", { x: x + j * (bw / bars.length), y: Y(v), width: w,
                                height: H - B - Y(v), fill: s.colour }));
    });
  });
  container.replaceChildren(root, legend(bars));
}

function legend(series) {
  const box = document.createElement("div");
  box.className = "legend";
  box.style.cssText = "display:flex;flex-wrap:wrap;gap:.3rem 1rem;font-size:.85rem;padding:0 .3rem";
  for (const s of series) {
    const item = document.createElement("span");
    const sw = document.createElement("span");
    sw.style.cssText = `display:inline-block;width:1.4rem;height:.35rem;margin-right:.35rem;` +
      `vertical-align:middle;background:${s.colour}`;
    if (s.dash) sw.style.background = `repeating-linear-gradient(90deg,${s.colour} 0 5px,transparent 5px 8px)`;
    item.append(sw, s.name);
    box.append(item);
  }
  return box;
}

// One row per feature: the labelled parts' values as dots (the failure class in red), this
// part's value as a black diamond.
function stripPlot(container, strips, classes, failureClass) {
  const W = 720, rowH = 30, L = 210, R = 16, T = 8;
  const H = T + rowH * strips.length + 4;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "strips",
                           "aria-label": "this part among the labelled parts" });
  const colour = c => String(c) === String(failureClass) ? FAIL_COLOUR :
    CLASS_COLOURS[classes.filter(k => String(k) !== String(failureClass)).map(String).indexOf(String(c)) % CLASS_COLOURS.length];
  strips.forEach((s, i) => {
    const all = Object.values(s.pool).flat().concat(s.value === null ? [] : [s.value]);
    const lo = Math.min(...all), hi = Math.max(...all);
    const X = v => L + (hi > lo ? (v - lo) / (hi - lo) : .5) * (W - L - R);
    const y = T + i * rowH + rowH / 2;
    const label = s.name.length > 30 ? s.name.slice(0, 29) + "…" : s.name;
    const text = svg("text", { x: L - 8, y: y + 5, "text-anchor": "end" }, label);
    text.append(svg("title", {}, s.name));
    root.append(text);
    root.append(svg("line", { x1: L, y1: y, x2: W - R, y2: y, stroke: "#c8c8c8" }));
    let k = 0;
    for (const [cls, vals] of Object.entries(s.pool)) {
      const off = (k++ % 2 ? 5 : -5);
      for (const v of vals) {
        root.append(svg("circle", { cx: X(v), cy: y + off, r: 3.2, fill: colour(cls),
                                    "fill-opacity": .55 }));
      }
    }
    if (s.value !== null) {
      const cx = X(s.value);
      root.append(svg("path", { d: `M${cx},${y - 8}L${cx + 6},${y}L${cx},${y + 8}L${cx - 6},${y}Z`,
                                fill: "#000", stroke: "#fff", "stroke-width": 1.5 }));
    }
  });
  root.style.maxWidth = `${W}px`;
  const keys = classes.map(c => ({ name: failureClass === null ? String(c) : `labelled ${c}`,
                                   colour: colour(c) }))
    .concat([{ name: "this part (◆)", colour: "#000" }]);
  container.replaceChildren(root, legend(keys));
}
