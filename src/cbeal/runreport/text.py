"""The text of a ``cbeal run`` report, as document blocks (:mod:`cbeal.reports.document`):
what was run on which rows, under which budget, the scores (mean ± SE and paired wins with
several seeds), the CbeAL run, the figures, and every name and abbreviation explained once
in plain words (:mod:`.glossary`).

Every number comes from the run's result (:class:`cbeal.tablerun.UserRun` and its
``stats``); nothing here computes one. Options are named as parameters, in backticks
(`test_fraction`), as in cbeal's messages.
"""

from __future__ import annotations

import math
from pathlib import Path

from cbeal._version import __version__
from cbeal.evaluation import METRIC_LABELS
from cbeal.reports.document import Block
from cbeal.runreport import measured
from cbeal.runreport.glossary import glossary, kind_of, strategy_words
from cbeal.tablerun import UserRun
from cbeal.tablerun.results import Score

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
        *(measured.equal_label_blocks(result) if result.measured else []),
        *(measured.cbeal_blocks(result) if result.measured else _cbeal(result)),
        *_figure_blocks(result, figures, missing),
        ("h", 2, "What the names mean"),
        ("ul", [*glossary(_terms(result)), *_strategies(result)]),
        ("h", 2, "Files"),
        (
            "ul",
            [
                f"`trace.csv`: one row per stream sample (`row` = its row in the file, 0 = "
                f"first data row{', `time`' if result.table.time is not None else ''}{ids}), "
                "with the decision, the agents' advice and weights",
                "`summary.json`: arguments, data checksum, split, budget, the scores of every "
                "seed, provenance",
                "`model.cbeal`: the final model, ready to take new rows of the same columns "
                'and to continue with a new budget: `model = cbeal.CbeAL.load("model.cbeal")`, '
                '`model.renew_budget("10%")`',
            ],
        ),
    ]


def _terms(result: UserRun) -> list[str]:
    """The glossary entries this report needs."""
    kinds = {str(kind_of(a)) for a in result.trace.agent_names}
    m = "-measured" if result.measured else ""
    keys = [f"stream{m}", "budget-rate" if result.stats.budget.paced else "budget-count", "D0"]
    chart = "flips" if result.stats.control_chart else "no-flips"
    fusion = "fusion" if result.stats.fusion == "equal" else "fusion-evidence"
    vote = [fusion] if result.stats.fusion else ["weights", chart]
    keys += ["CbeAL", f"reward{m}", *vote]
    keys += sorted(kinds & {"exploration", "exploitation"})
    keys += ["references", f"scores{m}"] if result.scores else []
    keys += ["repeats"] if len(result.seeds) > 1 else []
    return keys


def _strategies(result: UserRun) -> list[str]:
    """One line per agent of CbeAL and per comparison method, from the catalog."""
    names = [*result.trace.agent_names, *result.others]
    return [w for w in dict.fromkeys(strategy_words(n) for n in names) if w is not None]


def _what(result: UserRun) -> list[Block]:
    o = result.options
    others = result.others
    return [
        (
            "p",
            f"cbeal {__version__} streamed the rows of `{result.table.path.name}` through "
            f"**{result.name}** (agents {', '.join(result.trace.agent_names)}) with the "
            f"learner `{result.learner or o.learner}` and seed {o.seed}. The "
            + ("measured values" if result.measured else "labels")
            + f" in column `{o.label}` played "
            f"the expert: a stream row's label was read only when a method asked for it, "
            f"within a budget of **{result.stats.budget.words}**."
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
    tab, classes = result.table, result.stats.data.classes

    def counts(part: str) -> str:
        return ", ".join(f"`{k}` {v}" for k, v in classes[part].items())

    read = tab.dialect.describe()
    values = (
        measured.data_sentence(result)
        if result.measured
        else f"Classes of `{tab.label}`: {counts('all')} (training rows: {counts('train')};"
        f" test rows: {counts('test') or 'none'})."
    )
    return [
        ("h", 2, "Data"),
        (
            "p",
            f"`{tab.path.name}` (SHA-256 `{tab.sha256[:16]}…`): {tab.shape[0]} rows × "
            f"{tab.shape[1]} columns" + (f", read as {read}" if read else "") + f". {values}",
        ),
    ]


def _protocol(result: UserRun) -> list[str]:
    tab, sp = result.table, result.split
    order = (
        f"Rows were sorted by the time column `{tab.time_column}` (stable sort)."
        if tab.time_column
        else "Rows were kept in file order (no `time` column given)."
    )
    test = (
        f"The most recent {sp.n_test} rows ({_pct(sp.n_test / tab.n_rows)}) are the test "
        "set, used only to score the final models."
        if sp.n_test
        else "No test set (`test_fraction` 0): no test scores."
    )
    return [
        order + _span(result, 0, tab.n_rows, "all rows"),
        test + (_span(result, sp.n_train, tab.n_rows, "test") if sp.n_test else ""),
        f"D0, the initial labelled set, is the first {sp.n_initial} training rows"
        + (
            f" (`initial` {sp.requested_initial}, extended so that D0 holds every class)"
            if sp.n_initial > sp.requested_initial
            else ""
        )
        + f"; the stream is the next {sp.n_stream} rows, each seen once, in order."
        + _span(result, sp.n_initial, sp.n_train, "stream"),
        f"Features: {len(tab.feature_names)} numeric columns"
        + (f" ({', '.join(tab.feature_names)})" if len(tab.feature_names) <= 20 else "")
        + ". Median imputation and standard scaling were fitted on the training rows' inputs "
        "only (no labels, no test rows) and applied to every row." + _missing(result),
        _budget_step(result),
        "References: “Initial” is the learner trained on D0 only; “All Training Data” the "
        "learner trained on D0 and every stream label (what unlimited labelling would give).",
    ]


def _budget_step(result: UserRun) -> str:
    use, o = result.stats.budget, result.options
    if use.paced:
        meaning = (
            f"Budget `{use.given}`, a share, read as a **paced rate**: {use.words}. After t "
            f"stream rows a method may have spent at most {use.given.strip()} of t labels, "
            "rounded down, so the labels spread over the whole stream."
        )
    else:
        meaning = (
            f"Budget `{use.given}`, a whole number, read as a **count**: {use.words}. A "
            f"method may spend all {use.labels} labels ({_pct(use.share)} of the stream) at "
            "any time, all of them early if it asks early."
        )
    refit = (
        "after every label."
        if o.refit_every == 1
        else f"after every {o.refit_every} labels (`refit_every`), and once more at the end."
    )
    seeds = (
        f" Every method ran with {o.repeats} seeds ({o.seed} to {o.seed + o.repeats - 1}) "
        "on the same rows."
        if o.repeats > 1
        else ""
    )
    return f"{meaning} Every method had the same budget. The learner was retrained {refit}{seeds}"


def _span(result: UserRun, a: int, b: int, what: str) -> str:
    t = result.table.time
    return f" Time of {what}: {t[a]} … {t[b - 1]}." if t is not None and b > a else ""


def _missing(result: UserRun) -> str:
    data = result.stats.data
    text = (
        f" {_pct(data.missing_share)} of the training feature values were missing."
        if data.missing_share
        else ""
    )
    if data.empty_columns:
        text += f" Entirely empty columns (kept as 0): {', '.join(data.empty_columns)}."
    return text


def _results(result: UserRun) -> list[Block]:
    blocks: list[Block] = [("h", 2, "Results")]
    notes: list[Block] = [("ul", [f"Note: {n}" for n in result.notes])] if result.notes else []
    table = result.stats.scores
    if not table:
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
    metrics = list(next(iter(table.values())))
    header = ["method", "labels from the stream", *(METRIC_LABELS[m] for m in metrics)]
    rows = [[m, _labels(result, m), *(_cell(table[m][k]) for k in metrics)] for m in table]
    if result.positive is not None:
        blocks.append(
            (
                "p",
                f"Positive (failure) class for F1, precision and recall: `{result.positive}` "
                "(the `positive` option chooses another).",
            )
        )
    if len(result.seeds) > 1:
        blocks.append(("p", f"Mean ± standard error over {len(result.seeds)} seeds."))
    verdict = _paired(result) if len(result.seeds) > 1 else _verdict(result)
    return [*blocks, ("table", header, rows), *_rare(result), *verdict, *notes]


def _cell(score: Score) -> str:
    mean, se = score.mean, score.se
    return f"{mean:.3f}" if math.isnan(se) else f"{mean:.3f} ± {se:.3f}"


def _paired(result: UserRun) -> list[Block]:
    """Paired wins of CbeAL against each comparison method, seed by seed."""
    found = result.stats.comparisons
    if not found:
        return []
    keys = [p.metric for p in found[0].paired]
    rows = [
        [f"{c.method} vs {c.other}", *(f"{p.wins} / {p.ties} / {p.losses}" for p in c.paired)]
        for c in found
    ]
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
    pos, share = result.positive, result.stats.data.positive_share
    if pos is None or share is None or share >= RARE:
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
    lines = []
    main = result.scores.get(result.name, {})
    for c in result.stats.comparisons:
        parts = [
            f"{METRIC_LABELS[p.metric]} {main[p.metric]:.3f} vs "
            f"{result.scores[c.other][p.metric]:.3f}"
            for p in c.paired
        ]
        lines.append(f"{c.method} vs {c.other}: {', '.join(parts)} — {c.method} {c.verdict}.")
    if lines:
        lines.append(
            "This is one run on one split; differences of a few points can be chance. "
            "Run with 10 seeds (`repeats` 10) to see the spread over seeds and count paired "
            "wins."
        )
    return [("ul", lines)] if lines else []


def _cbeal(result: UserRun) -> list[Block]:
    s, stats = result.stats.cbeal, result.stats
    weights = ", ".join(f"{n} {v:.2f}" for n, v in stats.weights.items())
    per_class = ", ".join(f"`{k}` {v}" for k, v in s["acquired_per_class"].items()) or "none"
    chart = (
        f"The EWMA chart flipped a weight {s['n_flips']} times. "
        if stats.control_chart
        else f"{result.name} fuses its agents' scores ({stats.fusion} weights). "
        if stats.fusion
        else f"{result.name} has no control chart: the weights followed the rewards alone. "
    )
    return [
        ("h", 2, f"The {result.name} run (seed {result.options.seed})"),
        (
            "p",
            f"{s['n_acquired']} of {result.budget} labels spent (per class: {per_class}). "
            f"For {s['n_useful']} of the parts asked for, the "
            f"model's prediction had been wrong (reward +1 each); for {s['n_useless']} it had "
            f"been right (−0.5 each): cumulative reward {s['cumulative_reward']:+.1f}. {chart}"
            f"Final standardized weights: {weights}. Run time of all methods: "
            f"{result.seconds:.1f} s.",
        ),
    ]


def _figure_blocks(result: UserRun, figures: dict[str, Path], missing: str | None) -> list[Block]:
    if missing:
        return [("h", 2, "Figures"), ("p", f"No figures: {missing}.")]
    if result.measured:
        return measured.figure_blocks(result, figures)
    axis = (
        "the time of each part"
        if result.table.time_column
        else "the position of each part in the stream"
    )
    pos = f" (`{result.positive}`)" if result.positive is not None else ""
    allowance = (
        "the labels the paced rate allows so far, a staircase that climbs along the stream"
        if result.stats.budget.paced
        else "the count the budget allows, a flat line"
    )
    blocks: list[Block] = [
        ("h", 2, "Figures"),
        (
            "p",
            f"The {result.name} run against {axis}, from top to bottom: which parts were "
            f"asked for (one tick per label, failures{pos} in red); each agent's share of "
            f"the vote (standardized weight); the labels spent against {allowance}; the "
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
