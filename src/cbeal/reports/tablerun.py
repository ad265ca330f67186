"""The report folder of ``cbeal run``: report, figures, trace, summary and the final model.

``OUT/report.md`` (or a self-contained ``report.html``) explains in plain words what was run
on which rows and how the methods scored (:mod:`cbeal.reports.tablerun_text`);
``figures/run.png`` shows the CbeAL run over the stream (against time when the file has a
time column) and ``figures/scores.png`` the test scores; ``trace.csv`` has one row per
stream sample (with its row in the file, its time and the ``--id`` columns);
``summary.json`` holds the arguments, the data file's SHA-256, the split, the scores of
every seed and the provenance; ``model.cbeal`` is the final model (:meth:`cbeal.CbeAL.load`).
Without matplotlib the report says so and has no figures.

Everything is written to a temporary folder first and moved into place at the end
(:class:`cbeal.reports.folder.Staging`): an interrupted or failed write leaves a previous
report as it was.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cbeal._version import __version__
from cbeal.core.exceptions import ParameterError
from cbeal.evaluation import METRIC_LABELS
from cbeal.provenance import git_sha
from cbeal.reports.document import to_html, to_markdown
from cbeal.reports.folder import Staging, check_out
from cbeal.reports.tablerun_text import document
from cbeal.tablerun.repeats import paired
from cbeal.tablerun.run import UserRun

__all__ = ["console_lines", "summary", "write_report"]

OUTPUTS = ("report.md", "report.html", "trace.csv", "summary.json", "model.cbeal")
FIGURES = ("run.png", "scores.png")


def write_report(result: UserRun, out: str | Path, *, fmt: str = "md") -> Path:
    """Write the report folder `out` (created if needed); returns the report's path.

    Files of an earlier report that this one does not write (say ``report.html`` after
    ``--format md``) are removed; other files in `out` are never touched.
    """
    if fmt not in ("md", "html"):
        raise ParameterError(f"report format must be 'md' or 'html', got {fmt!r}")
    out = Path(out)
    check_out(out)
    with Staging(out) as stage:
        tmp = stage.path
        _write_trace(result, tmp / "trace.csv")
        result.model.save(tmp / "model.cbeal")
        figures, missing = _figures(result, tmp / "figures")
        info = summary(result, out=out, fmt=fmt)
        (tmp / "summary.json").write_text(json.dumps(info, indent=2, default=str) + "\n")
        blocks = document(result, figures, missing)
        title = f"cbeal run: {result.name} on {result.table.path.name}"
        (tmp / f"report.{fmt}").write_text(
            to_markdown(blocks) if fmt == "md" else to_html(blocks, title=title)
        )
        stage.publish(stale=(*OUTPUTS, *(f"figures/{f}" for f in FIGURES)))
    return out / f"report.{fmt}"


def _write_trace(result: UserRun, path: Path) -> None:
    frame = result.trace.to_frame()
    a, b = result.split.n_initial, result.split.n_train
    frame.insert(1, "row", result.table.row[a:b])  # the sample's row in the file
    at = 2
    if result.table.time is not None:
        frame.insert(at, "time", result.table.time[a:b])
        at += 1
    for name, values in result.table.ids.items():  # the user's part or batch ids
        frame.insert(at, name if name not in frame.columns else f"{name} (id)", values[a:b])
        at += 1
    frame.to_csv(path, index=False)


def _figures(result: UserRun, folder: Path) -> tuple[dict[str, Path], str | None]:
    """Draw the figures; without matplotlib return no figures and the reason."""
    tab, sp = result.table, result.split
    try:
        from cbeal.plotting import plot_run, plot_scores

        times = None if tab.time_value is None else tab.time_value[sp.n_initial : sp.n_train]
        fig = plot_run(
            result.trace,
            name=result.name,
            positive=result.positive,
            time=times,
            time_label=None if tab.time_column is None else f"time (column {tab.time_column})",
            title=f"{result.name} on {tab.path.name}",
        )
    except ImportError:
        return {}, "matplotlib is not installed; pip install -e '.[plot]' to get them"
    folder.mkdir(exist_ok=True)
    figures = {"run": folder / "run.png"}
    fig.savefig(figures["run"], dpi=110)
    if result.scores:
        ax = plot_scores(result.scores, labels=_metric_labels(result))
        figures["scores"] = folder / "scores.png"
        ax.figure.savefig(figures["scores"], dpi=110)
    return figures, None


def _metric_labels(result: UserRun) -> dict[str, str]:
    """Metric names, with the failure class named where a metric is about it."""
    pos = result.positive
    about = {"f1": "F1", "precision": "precision", "recall": "recall"}
    return {
        k: (f"{about[k]} of {pos}" if k in about and pos is not None else v)
        for k, v in METRIC_LABELS.items()
    }


def summary(result: UserRun, *, out: Path, fmt: str) -> dict[str, Any]:
    """Everything needed to reproduce and compare the run, JSON-ready."""
    tab, sp = result.table, result.split
    others = [m for m in result.traces if m != result.name]
    keys = [
        k
        for k in ("balanced_accuracy", "f1", "macro_f1")
        if k in result.scores.get(result.name, {})
    ]
    return {
        "command": "cbeal run",
        "arguments": {**result.options.to_dict(), "out": str(out), "format": fmt},
        "data": {
            "file": tab.path.name,
            "sha256": tab.sha256,
            "rows": tab.shape[0],
            "columns": tab.shape[1],
            "label": tab.label,
            "time_column": tab.time_column,
            "id_columns": list(tab.ids),
            "features": list(tab.feature_names),
            "ignored_columns": list(tab.ignored),
        },
        "class_counts": {
            "all": tab.class_counts(),
            "train": tab.class_counts(sp.n_train),
            "initial": tab.class_counts(sp.n_initial),
        },
        "positive_class": None if result.positive is None else str(result.positive),
        "split": {"initial": sp.n_initial, "stream": sp.n_stream, "test": sp.n_test},
        "initial_requested": sp.requested_initial,
        "budget": result.budget,
        "method": result.name,
        "agents": list(result.trace.agent_names),
        "labels_spent": result.labels,
        "metrics": result.scores,
        "seeds": [
            {"seed": r.seed, "metrics": r.scores, "labels_spent": r.labels} for r in result.seeds
        ],
        "paired_wins": [
            paired(result.seeds, result.name, o, k).to_dict() for o in others for k in keys
        ]
        if result.scores
        else [],
        "cbeal_run": result.trace.summary(),
        "notes": result.notes,
        "seed": result.options.seed,
        "estimated_seconds": None
        if result.estimate is None
        else round(result.estimate.seconds(), 1),
        "wall_time_seconds": round(result.seconds, 3),
        "cbeal_version": __version__,
        "git_sha": git_sha(),
    }


def console_lines(result: UserRun, report: Path) -> list[str]:
    """A short summary for the terminal (the first seed's scores)."""
    sp, tab = result.split, result.table
    lines = [
        f"cbeal {__version__} run: {result.name}, learner {result.options.learner!r}, "
        f"seed {result.options.seed}"
        + (
            f" (+{len(result.seeds) - 1} more seeds in the report)" if len(result.seeds) > 1 else ""
        ),
        f"data: {tab.path.name}, {tab.n_rows} rows, {len(tab.feature_names)} features, "
        f"classes {tab.class_counts()}",
        f"split: D0 {sp.n_initial}, stream {sp.n_stream}, test {sp.n_test}; "
        f"budget {result.budget} labels; {result.seconds:.1f} s",
    ]
    for method, n in result.labels.items():
        row = result.scores.get(method, {})
        vals = ", ".join(f"{METRIC_LABELS[k]} {v:.3f}" for k, v in row.items())
        lines.append(f"  {method:<20} labels {n:>5}  {vals}".rstrip())
    lines += [f"note: {n}" for n in result.notes]
    lines.append(f"report: {report}")
    return lines
