"""Writing the report folder of ``cbeal run``: report, figures, trace, summary and the
final model, into a temporary folder first and moved into place at the end
(:class:`cbeal.reports.folder.Staging`): an interrupted or failed write leaves a previous
report as it was. Without matplotlib the report says so and has no figures."""

from __future__ import annotations

import json
from pathlib import Path

from cbeal.core.exceptions import ParameterError
from cbeal.evaluation import METRIC_LABELS
from cbeal.reports.document import to_html, to_markdown
from cbeal.reports.folder import Staging, check_out
from cbeal.runreport import measured
from cbeal.runreport.summary import summary
from cbeal.runreport.text import document
from cbeal.tablerun import UserRun

__all__ = ["FIGURES", "OUTPUTS", "write_report"]

OUTPUTS = ("report.md", "report.html", "trace.csv", "summary.json", "model.cbeal")
FIGURES = ("run.png", "scores.png", "curve.png")


def write_report(result: UserRun, out: str | Path, *, fmt: str = "md") -> Path:
    """Write the report folder `out` (created if needed); returns the report's path.

    Files of an earlier report that this one does not write (say ``report.html`` after a
    Markdown report) are removed; other files in `out` are never touched.
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
    tab, sp, use = result.table, result.split, result.stats.budget
    try:
        if result.measured:
            return measured.figures(result, folder), None
        from cbeal.plotting import plot_run, plot_scores

        times = None if tab.time_value is None else tab.time_value[sp.n_initial : sp.n_train]
        fig = plot_run(
            result.trace,
            name=result.name,
            positive=result.positive,
            time=times,
            time_label=None if tab.time_column is None else f"time (column {tab.time_column})",
            title=f"{result.name} on {tab.path.name}",
            allowance=use.allowance,
            budget_label="allowed by the budget: "
            + (
                f"{use.given} of the parts seen (a paced rate)"
                if use.paced
                else f"{use.labels} labels (a count)"
            ),
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
