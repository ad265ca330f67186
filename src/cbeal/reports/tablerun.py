"""The report folder of ``cbeal run``: report, figures, trace, summary and the final model.

``OUT/report.md`` (or a self-contained ``report.html``) explains in plain words what was run
on which rows and how the methods scored; ``figures/run.png`` shows the CbeAL run over the
stream and ``figures/scores.png`` the test scores; ``trace.csv`` has one row per stream
sample (with its row in the file and its time); ``summary.json`` holds the arguments, the
data file's SHA-256, the split, the scores and the provenance; ``model.cbeal`` is the final
model (:meth:`cbeal.CbeAL.load`). Without matplotlib the report says so and has no figures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from cbeal._version import __version__
from cbeal.core.exceptions import ParameterError
from cbeal.evaluation import METRIC_LABELS
from cbeal.provenance import git_sha
from cbeal.reports.document import Block, to_html, to_markdown
from cbeal.tablerun.run import UserRun

__all__ = ["console_lines", "summary", "write_report"]

OUTPUTS = ("report.md", "report.html", "trace.csv", "summary.json", "model.cbeal")
FIGURES = ("run.png", "scores.png")
RARE = 0.2  # below this share of the positive class, accuracy alone misleads


def write_report(result: UserRun, out: str | Path, *, fmt: str = "md") -> Path:
    """Write the report folder `out` (created if needed); returns the report's path."""
    if fmt not in ("md", "html"):
        raise ParameterError(f"report format must be 'md' or 'html', got {fmt!r}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for stale in (*OUTPUTS, *(f"figures/{f}" for f in FIGURES)):  # from an earlier run
        (out / stale).unlink(missing_ok=True)
    _write_trace(result, out / "trace.csv")
    result.model.save(out / "model.cbeal")
    figures, missing = _figures(result, out / "figures")
    info = summary(result, out=out, fmt=fmt)
    (out / "summary.json").write_text(json.dumps(info, indent=2, default=str) + "\n")
    blocks = _document(result, figures, missing)
    path = out / f"report.{fmt}"
    title = f"cbeal run: {result.name} on {result.table.path.name}"
    path.write_text(to_markdown(blocks) if fmt == "md" else to_html(blocks, title=title))
    return path


def _write_trace(result: UserRun, path: Path) -> None:
    frame = result.trace.to_frame()
    a, b = result.split.n_initial, result.split.n_train
    frame.insert(1, "row", result.table.row[a:b])  # the sample's row in the file
    if result.table.time is not None:
        frame.insert(2, "time", result.table.time[a:b])
    frame.to_csv(path, index=False)


def _figures(result: UserRun, folder: Path) -> tuple[dict[str, Path], str | None]:
    """Draw the figures; without matplotlib return no figures and the reason."""
    try:
        from cbeal.plotting import plot_run, plot_scores

        fig = plot_run(result.trace, name=result.name,
                       title=f"{result.name} on {result.table.path.name}")
    except ImportError:
        return {}, "matplotlib is not installed; pip install 'cbeal[plot]' to get them"
    folder.mkdir(exist_ok=True)
    figures = {"run": folder / "run.png"}
    fig.savefig(figures["run"], dpi=110)
    if result.scores:
        ax = plot_scores(result.scores, labels=METRIC_LABELS)
        figures["scores"] = folder / "scores.png"
        ax.figure.savefig(figures["scores"], dpi=110)
    return figures, None




def summary(result: UserRun, *, out: Path, fmt: str) -> dict[str, Any]:
    """Everything needed to reproduce and compare the run, JSON-ready."""
    tab, sp = result.table, result.split
    return {
        "command": "cbeal run",
        "arguments": {**result.options.to_dict(), "out": str(out), "format": fmt},
        "data": {"file": tab.path.name, "sha256": tab.sha256, "rows": tab.shape[0],
                 "columns": tab.shape[1], "label": tab.label, "time_column": tab.time_column,
                 "features": list(tab.feature_names), "ignored_columns": list(tab.ignored)},
        "class_counts": {"all": tab.class_counts(), "train": tab.class_counts(sp.n_train),
                         "initial": tab.class_counts(sp.n_initial)},
        "positive_class": None if result.positive is None else str(result.positive),
        "split": {"initial": sp.n_initial, "stream": sp.n_stream, "test": sp.n_test},
        "budget": result.budget,
        "method": result.name,
        "agents": list(result.trace.agent_names),
        "labels_spent": result.labels,
        "metrics": result.scores,
        "cbeal_run": result.trace.summary(),
        "notes": result.notes,
        "seed": result.options.seed,
        "wall_time_seconds": round(result.seconds, 3),
        "cbeal_version": __version__,
        "git_sha": git_sha(),
    }


# ---------------------------------------------------------------------- the document
def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _document(result: UserRun, figures: dict[str, Path], missing: str | None) -> list[Block]:
    return [
        ("h", 1, f"cbeal run: {result.name} on {result.table.path.name}"),
        *_what(result),
        *_results(result),
        *_cbeal(result),
        *_figure_blocks(figures, missing),
        ("h", 2, "Files"),
        ("ul", ["`trace.csv`: one row per stream sample (`row` = its row in the file, 0 = first "
                "data row), with the decision, the agents' advice and weights",
                "`summary.json`: arguments, data checksum, split, scores, provenance",
                "`model.cbeal`: the final model, `cbeal.CbeAL.load(\"model.cbeal\")` (a "
                "pickle: load only files you trust)"]),
    ]


def _what(result: UserRun) -> list[Block]:
    o = result.options
    others = [m for m in result.traces if m != result.name]
    return [
        ("p", f"cbeal {__version__} streamed the rows of `{result.table.path.name}` through "
              f"**{result.name}** (agents {', '.join(result.trace.agent_names)}) with the "
              f"learner `{o.learner}` and seed {o.seed}. The labels in column `{o.label}` played "
              f"the expert: a stream row's label was read only when a method asked for it, "
              f"within a budget of **{result.budget} labels**."
              + (f" For comparison, {', '.join(others)} ran on the same rows with the same "
                 "budget." if others else "")),
        *_data(result),
        ("h", 2, "Protocol"),
        ("ol", _protocol(result)),
    ]


def _data(result: UserRun) -> list[Block]:
    tab, n_train = result.table, result.split.n_train
    counts = ", ".join(f"`{k}` {v}" for k, v in tab.class_counts().items())
    train = ", ".join(f"`{k}` {v}" for k, v in tab.class_counts(n_train).items())
    values, sizes = np.unique(result.split.part("test")[1], return_counts=True)
    test = ", ".join(f"`{k}` {v}" for k, v in zip(values.tolist(), sizes.tolist(), strict=True))
    return [
        ("h", 2, "Data"),
        ("p", f"`{tab.path.name}` (SHA-256 `{tab.sha256[:16]}…`): {tab.shape[0]} rows × "
              f"{tab.shape[1]} columns. Classes of `{tab.label}`: {counts} (training rows: "
              f"{train}; test rows: {test or 'none'})."),
    ]


def _protocol(result: UserRun) -> list[str]:
    tab, sp, o = result.table, result.split, result.options
    order = (f"Rows were sorted by the time column `{tab.time_column}` (stable sort)."
             if tab.time_column else "Rows were kept in file order (no --time column).")
    test = (f"The most recent {sp.n_test} rows ({_pct(sp.n_test / tab.n_rows)}) are the test "
            "set, used only to score the final models." if sp.n_test
            else "No test set (--test-fraction 0): no test scores.")
    return [
        order + _span(result, 0, tab.n_rows, "all rows"),
        test + (_span(result, sp.n_train, tab.n_rows, "test") if sp.n_test else ""),
        f"D0, the initial labelled set, is the first {sp.n_initial} training rows; the stream "
        f"is the next {sp.n_stream} rows, each seen once, in order."
        + _span(result, sp.n_initial, sp.n_train, "stream"),
        f"Features: {len(tab.feature_names)} numeric columns"
        + (f" ({', '.join(tab.feature_names)})" if len(tab.feature_names) <= 20 else "")
        + ". Median imputation and standard scaling were fitted on the training rows' inputs "
        "only (no labels, no test rows) and applied to every row." + _missing(result),
        f"Budget: {result.budget} labels = {_pct(result.budget / sp.n_stream)} of the stream "
        f"(--budget {o.budget}).",
        "References: “Initial” is the learner trained on D0 only; “All Training Data” the "
        "learner trained on D0 and every stream label (what unlimited labelling would give).",
    ]


def _span(result: UserRun, a: int, b: int, what: str) -> str:
    t = result.table.time
    return f" Time of {what}: {t[a]} … {t[b - 1]}." if t is not None and b > a else ""


def _missing(result: UserRun) -> str:
    X = result.table.X[: result.split.n_train]
    share = float(np.isnan(X).mean())
    empty = [n for j, n in enumerate(result.table.feature_names) if np.isnan(X[:, j]).all()]
    text = f" {_pct(share)} of the training feature values were missing." if share else ""
    if empty:
        text += f" Entirely empty columns (kept as 0): {', '.join(empty)}."
    return text


def _results(result: UserRun) -> list[Block]:
    blocks: list[Block] = [("h", 2, "Results")]
    notes: list[Block] = [("ul", [f"Note: {n}" for n in result.notes])] if result.notes else []
    if not result.scores:
        return [*blocks, ("p", "No test set, so no scores; labels spent: "
                          + ", ".join(f"{m} {n}" for m, n in result.labels.items()) + "."),
                *notes]
    metrics = list(next(iter(result.scores.values())))
    header = ["method", "labels from the stream", *(METRIC_LABELS[m] for m in metrics)]
    rows = [[m, _labels(result, m), *(f"{result.scores[m][k]:.3f}" for k in metrics)]
            for m in result.scores]
    pos = result.positive
    if pos is not None:
        blocks.append(("p", f"Positive class for F1, precision and recall: `{pos}` "
                            "(--positive to choose another)."))
    return [*blocks, ("table", header, rows), *_rare(result), *_verdict(result), *notes]


def _labels(result: UserRun, method: str) -> str:
    if method == "Initial":
        return "0 (D0 only)"
    if method == "All Training Data":
        return f"{result.labels[method]} (all)"
    return f"{result.labels[method]} of {result.budget}"


def _rare(result: UserRun) -> list[Block]:
    pos = result.positive
    if pos is None:
        return []
    y_train = result.split.part("train")[1]
    share = float(np.mean(y_train == pos))
    if share >= RARE:
        return []
    return [("p", f"**Warning:** only {_pct(share)} of the training rows are `{pos}`. A model "
                  f"that never predicts `{pos}` would still be about {_pct(1 - share)} accurate, "
                  f"so accuracy alone rewards a model that never flags a failure; judge the "
                  f"methods by balanced accuracy and by F1 and recall of `{pos}`.")]


def _verdict(result: UserRun) -> list[Block]:
    main = result.scores[result.name]
    keys = [k for k in ("balanced_accuracy", "f1", "macro_f1") if k in main]
    lines = []
    for other in (m for m in result.traces if m != result.name):
        parts = [f"{METRIC_LABELS[k]} {main[k]:.3f} vs {result.scores[other][k]:.3f}"
                 for k in keys]
        wins = sum(main[k] > result.scores[other][k] for k in keys)
        losses = sum(main[k] < result.scores[other][k] for k in keys)
        word = ("ahead on all of them" if wins == len(keys) else
                "behind on all of them" if losses == len(keys) else
                "tied on all of them" if wins == losses == 0 else
                "ahead or tied" if losses == 0 else
                "behind or tied" if wins == 0 else "mixed")
        lines.append(f"{result.name} vs {other}: {', '.join(parts)} — {result.name} {word}.")
    if lines:
        lines.append("This is one run on one split; differences of a few points can be chance. "
                     "Rerun with other --seed values to see the spread.")
    return [("ul", lines)] if lines else []


def _cbeal(result: UserRun) -> list[Block]:
    s = result.trace.summary()
    w = result.trace.weights_after[-1]
    weights = ", ".join(f"{n} {v:.2f}" for n, v in zip(result.trace.agent_names, w, strict=True))
    per_class = ", ".join(f"{k}: {v}" for k, v in s["acquired_per_class"].items()) or "none"
    return [
        ("h", 2, f"The {result.name} run"),
        ("p", f"{s['n_acquired']} of {result.budget} labels spent (per class: {per_class}); "
              f"{s['n_useful']} acquisitions were useful (the learner would have been wrong) "
              f"and {s['n_useless']} were not; cumulative reward {s['cumulative_reward']:+.1f}; "
              f"{s['n_flips']} EWMA weight flips. Final standardized weights: {weights}. "
              f"Run time of all methods: {result.seconds:.1f} s."),
    ]


def _figure_blocks(figures: dict[str, Path], missing: str | None) -> list[Block]:
    if missing:
        return [("h", 2, "Figures"), ("p", f"No figures: {missing}.")]
    blocks: list[Block] = [
        ("h", 2, "Figures"),
        ("p", "The run over the stream: when labels were asked (by true class), the "
              "standardized agent weights, the label spend against the budget and the "
              "cumulative reward."),
        ("img", "CbeAL run", figures["run"]),
    ]
    if "scores" in figures:
        blocks += [("p", "Test scores per method, with the references."),
                   ("img", "test scores", figures["scores"])]
    return blocks


def console_lines(result: UserRun, report: Path) -> list[str]:
    """A short summary for the terminal."""
    sp, tab = result.split, result.table
    lines = [
        f"cbeal {__version__} run: {result.name}, learner {result.options.learner!r}, "
        f"seed {result.options.seed}",
        f"data: {tab.path.name}, {tab.n_rows} rows, {len(tab.feature_names)} features, "
        f"classes {tab.class_counts()}",
        f"split: D0 {sp.n_initial}, stream {sp.n_stream}, test {sp.n_test}; "
        f"budget {result.budget} labels",
    ]
    for method, n in result.labels.items():
        row = result.scores.get(method, {})
        vals = ", ".join(f"{METRIC_LABELS[k]} {v:.3f}" for k, v in row.items())
        lines.append(f"  {method:<20} labels {n:>5}  {vals}".rstrip())
    lines += [f"note: {n}" for n in result.notes]
    lines.append(f"report: {report}")
    return lines
