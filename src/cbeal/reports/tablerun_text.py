"""The text of a ``cbeal run`` report, as document blocks (:mod:`cbeal.reports.document`):
what was run on which rows, the scores (mean ± SE and paired wins with ``--repeats``), the
CbeAL run, the figures, and every name and abbreviation explained once in plain words
(:mod:`cbeal.reports.glossary`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cbeal._version import __version__
from cbeal.evaluation import METRIC_LABELS
from cbeal.reports.document import Block
from cbeal.reports.glossary import glossary
from cbeal.tablerun.repeats import mean_se, paired
from cbeal.tablerun.run import UserRun

__all__ = ["document"]

RARE = 0.2  # below this share of the positive class, accuracy alone misleads


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def document(result: UserRun, figures: dict[str, Path], missing: str | None) -> list[Block]:
    """The report's blocks; `figures` maps "run"/"scores" to PNG files (`missing`: why not)."""
    ids = "".join(f", `{c}`" for c in result.table.ids)
    return [
        ("h", 1, f"cbeal run: {result.name} on {result.table.path.name}"),
        *_what(result),
        *_results(result),
        *_cbeal(result),
        *_figure_blocks(result, figures, missing),
        ("h", 2, "What the names mean"),
        ("ul", glossary(_terms(result))),
        ("h", 2, "Files"),
        (
            "ul",
            [
                f"`trace.csv`: one row per stream sample (`row` = its row in the file, 0 = "
                f"first data row{', `time`' if result.table.time is not None else ''}{ids}), "
                "with the decision, the agents' advice and weights",
                "`summary.json`: arguments, data checksum, split, the scores of every seed, "
                "provenance",
                "`model.cbeal`: the final model, ready to take new rows of the same columns: "
                '`cbeal.CbeAL.load("model.cbeal")`',
            ],
        ),
    ]


def _terms(result: UserRun) -> list[str]:
    """The glossary entries this report needs."""
    agents = result.trace.agent_names
    keys = ["stream", "D0", "CbeAL", "reward", "weights", "flips", *result.traces]
    keys += ["exploration"] if any(a.startswith(("LD", "SPF")) for a in agents) else []
    keys += ["exploitation"] if any(a.startswith("RAL") for a in agents) else []
    keys += ["VariableUncertainty"] if "Split" in result.traces else []
    keys += ["references", "scores"] if result.scores else []
    keys += ["repeats"] if len(result.seeds) > 1 else []
    return keys


def _what(result: UserRun) -> list[Block]:
    o = result.options
    others = [m for m in result.traces if m != result.name]
    return [
        (
            "p",
            f"cbeal {__version__} streamed the rows of `{result.table.path.name}` through "
            f"**{result.name}** (agents {', '.join(result.trace.agent_names)}) with the "
            f"learner `{o.learner}` and seed {o.seed}. The labels in column `{o.label}` played "
            f"the expert: a stream row's label was read only when a method asked for it, "
            f"within a budget of **{result.budget} labels**."
            + (
                f" For comparison, {', '.join(others)} ran on the same rows with the same budget."
                if others
                else ""
            ),
        ),
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
        (
            "p",
            f"`{tab.path.name}` (SHA-256 `{tab.sha256[:16]}…`): {tab.shape[0]} rows × "
            f"{tab.shape[1]} columns. Classes of `{tab.label}`: {counts} (training rows: "
            f"{train}; test rows: {test or 'none'}).",
        ),
    ]


def _protocol(result: UserRun) -> list[str]:
    tab, sp, o = result.table, result.split, result.options
    order = (
        f"Rows were sorted by the time column `{tab.time_column}` (stable sort)."
        if tab.time_column
        else "Rows were kept in file order (no --time column)."
    )
    test = (
        f"The most recent {sp.n_test} rows ({_pct(sp.n_test / tab.n_rows)}) are the test "
        "set, used only to score the final models."
        if sp.n_test
        else "No test set (--test-fraction 0): no test scores."
    )
    return [
        order + _span(result, 0, tab.n_rows, "all rows"),
        test + (_span(result, sp.n_train, tab.n_rows, "test") if sp.n_test else ""),
        f"D0, the initial labelled set, is the first {sp.n_initial} training rows"
        + (
            f" (--initial {sp.requested_initial}, extended so that D0 holds every class)"
            if sp.n_initial > sp.requested_initial
            else ""
        )
        + f"; the stream is the next {sp.n_stream} rows, each seen once, in order."
        + _span(result, sp.n_initial, sp.n_train, "stream"),
        f"Features: {len(tab.feature_names)} numeric columns"
        + (f" ({', '.join(tab.feature_names)})" if len(tab.feature_names) <= 20 else "")
        + ". Median imputation and standard scaling were fitted on the training rows' inputs "
        "only (no labels, no test rows) and applied to every row." + _missing(result),
        f"Budget: {result.budget} labels = {_pct(result.budget / sp.n_stream)} of the stream "
        f"(--budget {o.budget}). The learner was retrained "
        + (
            "after every label."
            if o.refit_every == 1
            else f"after every {o.refit_every} labels (--refit-every), and once more at the end."
        )
        + (
            f" Every method ran with {o.repeats} seeds ({o.seed} to {o.seed + o.repeats - 1}) "
            "on the same rows."
            if o.repeats > 1
            else ""
        ),
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
        return [
            *blocks,
            (
                "p",
                "No test set, so no scores; labels spent: "
                + ", ".join(f"{m} {n}" for m, n in result.labels.items())
                + ".",
            ),
            *notes,
        ]
    metrics = list(next(iter(result.scores.values())))
    header = ["method", "labels from the stream", *(METRIC_LABELS[m] for m in metrics)]
    rows = [[m, _labels(result, m), *(_cell(result, m, k) for k in metrics)] for m in result.scores]
    pos = result.positive
    if pos is not None:
        blocks.append(
            (
                "p",
                f"Positive (failure) class for F1, precision and recall: `{pos}` "
                "(--positive to choose another).",
            )
        )
    if len(result.seeds) > 1:
        blocks.append(("p", f"Mean ± standard error over {len(result.seeds)} seeds."))
    verdict = _paired(result) if len(result.seeds) > 1 else _verdict(result)
    return [*blocks, ("table", header, rows), *_rare(result), *verdict, *notes]


def _cell(result: UserRun, method: str, metric: str) -> str:
    values = [run.scores[method][metric] for run in result.seeds] or [result.scores[method][metric]]
    if len(values) == 1:
        return f"{values[0]:.3f}"
    mean, se = mean_se(values)
    return f"{mean:.3f} ± {se:.3f}"


def _paired(result: UserRun) -> list[Block]:
    """Paired wins of CbeAL against each comparison method, seed by seed."""
    main = result.scores[result.name]
    keys = [k for k in ("balanced_accuracy", "f1", "recall", "macro_f1") if k in main]
    others = [m for m in result.traces if m != result.name]
    if not others:
        return []
    rows = []
    for other in others:
        cells = []
        for k in keys:
            pw = paired(result.seeds, result.name, other, k)
            cells.append(f"{pw.wins} / {pw.ties} / {pw.losses}")
        rows.append([f"{result.name} vs {other}", *cells])
    return [
        (
            "p",
            f"Paired comparison, seed by seed (wins / ties / losses of {result.name} "
            f"over {len(result.seeds)} seeds):",
        ),
        ("table", ["comparison", *(METRIC_LABELS[k] for k in keys)], rows),
    ]


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
    return [
        (
            "p",
            f"**Warning:** only {_pct(share)} of the training rows are `{pos}`. A model "
            f"that never predicts `{pos}` would still be about {_pct(1 - share)} accurate, "
            f"so accuracy alone rewards a model that never flags a failure; judge the "
            f"methods by balanced accuracy and by F1 and recall of `{pos}`.",
        )
    ]


def _verdict(result: UserRun) -> list[Block]:
    main = result.scores[result.name]
    keys = [k for k in ("balanced_accuracy", "f1", "macro_f1") if k in main]
    lines = []
    for other in (m for m in result.traces if m != result.name):
        parts = [f"{METRIC_LABELS[k]} {main[k]:.3f} vs {result.scores[other][k]:.3f}" for k in keys]
        wins = sum(main[k] > result.scores[other][k] for k in keys)
        losses = sum(main[k] < result.scores[other][k] for k in keys)
        word = (
            "ahead on all of them"
            if wins == len(keys)
            else "behind on all of them"
            if losses == len(keys)
            else "tied on all of them"
            if wins == losses == 0
            else "ahead or tied"
            if losses == 0
            else "behind or tied"
            if wins == 0
            else "mixed"
        )
        lines.append(f"{result.name} vs {other}: {', '.join(parts)} — {result.name} {word}.")
    if lines:
        lines.append(
            "This is one run on one split; differences of a few points can be chance. "
            "Use --repeats 10 to see the spread over seeds and count paired wins."
        )
    return [("ul", lines)] if lines else []


def _cbeal(result: UserRun) -> list[Block]:
    s = result.trace.summary()
    w = result.trace.weights_after[-1]
    weights = ", ".join(f"{n} {v:.2f}" for n, v in zip(result.trace.agent_names, w, strict=True))
    per_class = ", ".join(f"`{k}` {v}" for k, v in s["acquired_per_class"].items()) or "none"
    return [
        ("h", 2, f"The {result.name} run (seed {result.options.seed})"),
        (
            "p",
            f"{s['n_acquired']} of {result.budget} labels spent (per class: {per_class}). "
            f"For {s['n_useful']} of the parts asked for, the model's prediction had been "
            f"wrong (reward +1 each); for {s['n_useless']} it had been right (−0.5 each): "
            f"cumulative reward {s['cumulative_reward']:+.1f}. The EWMA chart flipped a "
            f"weight {s['n_flips']} times. Final standardized weights: {weights}. Run time of "
            f"all methods: {result.seconds:.1f} s.",
        ),
    ]


def _figure_blocks(result: UserRun, figures: dict[str, Path], missing: str | None) -> list[Block]:
    if missing:
        return [("h", 2, "Figures"), ("p", f"No figures: {missing}.")]
    axis = (
        "the time of each part"
        if result.table.time_column
        else "the position of each part in the stream"
    )
    pos = f" (`{result.positive}`)" if result.positive is not None else ""
    blocks: list[Block] = [
        ("h", 2, "Figures"),
        (
            "p",
            f"The {result.name} run against {axis}, from top to bottom: which parts were "
            f"asked for (one tick per label, failures{pos} in red); each agent's share of "
            "the vote (standardized weight); the labels spent against the budget; the "
            "cumulative reward (see “What the names mean” below).",
        ),
        ("img", f"{result.name} run", figures["run"]),
    ]
    if "scores" in figures:
        blocks += [
            (
                "p",
                "Test scores per method, with the references."
                + (
                    f" Seed {result.options.seed} only; the table above has all seeds."
                    if len(result.seeds) > 1
                    else ""
                ),
            ),
            ("img", "test scores", figures["scores"]),
        ]
    return blocks
