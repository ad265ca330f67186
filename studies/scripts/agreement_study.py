"""The second-opinion study of studies/AGREEMENT.md (issue 30): simulated labellers on the
development workloads, one labeller against always two against a second opinion below
certainty 0.7, by balanced accuracy per expert answer spent.

    python studies/scripts/agreement_study.py            # every cell (about 10 CPU-minutes)
    python studies/scripts/agreement_study.py --quick    # one cell, to try it
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score

from cbeal.catalog import learner
from cbeal.models import CbeAL
from cbeal_studies.label_efficiency.scenarios import workload

ROOT = Path(__file__).resolve().parents[1]  # studies/
OUT = ROOT / "agreement"
WORKLOADS = [
    "paper-v1-S02",
    "paper-v1-S23",
    "sk-breast-cancer",
    "sk-wine",
    "uci-steel",
    "keel-page-blocks0",
    "keel-vehicle0",
    "keel-yeast3",
    "keel-winequality-red-4",
    "drift-sea-abrupt",
    "drift-hyperplane",
]
REPLICATIONS = (0, 1, 2)
HARD_BELOW = 0.8  # the oracle's top probability below this: a part near the boundary
WRONG_HARD, WRONG_EASY = 0.3, 0.02
EVERY = 5  # balanced accuracy after every this many answers
STRATEGIES = {"one": (1, None), "two": (2, None), "second<0.7": (1, 0.7)}


def labeller(truth: Any, hard: bool, classes: list[Any], rng: np.random.Generator) -> Any:
    """One simulated expert's answer: wrong with the probability of the part's kind."""
    if rng.random() < (WRONG_HARD if hard else WRONG_EASY):
        return rng.choice([c for c in classes if c != truth])
    return truth


def answers_for(truth: Any, hard: bool, classes: list[Any], seed: int, i: int) -> list[Any]:
    """Three answers to part `i` (two labellers and a reviewer), the same in every
    strategy (common random numbers)."""
    rng = np.random.default_rng([seed, i])
    return [labeller(truth, hard, classes, rng) for _ in range(3)]


def run(
    split: Any, hard: np.ndarray, classes: list[Any], seed: int, per_part: int, below: float | None
) -> dict[str, Any]:
    model = CbeAL.from_preset(
        "CBEAL-5D",
        estimator=learner("logreg", random_state=seed),
        budget=0.10,
        classes=classes,
        random_state=seed,
    )
    model.fit(split.X0, split.y0)
    spent, curve, wrong, parts = 0, [], 0, 0

    def score() -> float:
        return float(balanced_accuracy_score(split.y_test, model.predict(split.X_test)))

    for i, (x, y) in enumerate(zip(split.X_stream, split.y_stream, strict=True)):
        d = model.query_one(x)
        if not d.acquire:
            continue
        parts += 1
        certainty = d.certainty if d.certainty is not None else 1.0
        need = max(2, per_part) if below is not None and certainty < below else per_part
        given = answers_for(y, bool(hard[i]), classes, seed, i)
        if need == 1 or given[0] == given[1]:
            label, used = given[0], need
        else:
            label, used = given[2], 3  # disputed: the reviewer's answer settles it
        model.learn_one(x, label, decision=d)
        wrong += label != y
        before, spent = spent, spent + used
        if spent // EVERY > before // EVERY:
            ba = score()
            curve += [ba] * (spent // EVERY - before // EVERY)
    return {
        "answers": spent,
        "parts": parts,
        "wrong_learned": wrong,
        "final_ba": score(),
        "curve": curve,
    }


def cell(workload_id: str, replication: int) -> list[dict[str, Any]]:
    w = workload(workload_id)
    split = w.split(replication)
    seed = w.seed(replication)
    X_all = np.vstack([split.X0, split.X_stream, split.X_test])
    y_all = np.concatenate([split.y0, split.y_stream, split.y_test])
    oracle = LogisticRegression(max_iter=5000).fit(X_all, y_all)
    hard = oracle.predict_proba(split.X_stream).max(axis=1) < HARD_BELOW
    classes = sorted(set(y_all.tolist()))
    runs = {name: run(split, hard, classes, seed, *how) for name, how in STRATEGIES.items()}
    common = min(len(r["curve"]) for r in runs.values())
    return [
        {
            "workload": workload_id,
            "replication": replication,
            "strategy": name,
            "answers": r["answers"],
            "parts": r["parts"],
            "wrong_learned": r["wrong_learned"],
            "final_ba": r["final_ba"],
            "ba_per_answer": float(np.mean(r["curve"][:common])) if common else float("nan"),
            "checkpoints": common,
            "hard_share": float(hard.mean()),
        }
        for name, r in runs.items()
    ]


def paired(frame: pd.DataFrame, col: str, a: str, b: str) -> tuple[float, float, int]:
    wide = frame.pivot_table(index=["workload", "replication"], columns="strategy", values=col)
    diff = (wide[a] - wide[b]).dropna() * (100 if "ba" in col else 1)
    return float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(len(diff))), len(diff)


def summary(frame: pd.DataFrame) -> str:
    means = frame.groupby("strategy")[
        ["answers", "parts", "wrong_learned", "final_ba", "ba_per_answer"]
    ].mean()
    lines = [
        "| strategy | answers | parts asked | wrong labels learned | final BA | BA per answer |",
        "|---|---|---|---|---|---|",
    ]
    for name in STRATEGIES:
        m = means.loc[name]
        lines.append(
            f"| `{name}` | {m.answers:.1f} | {m.parts:.1f} | {m.wrong_learned:.2f} | "
            f"{100 * m.final_ba:.2f} | {100 * m.ba_per_answer:.2f} |"
        )
    g1 = paired(frame, "ba_per_answer", "second<0.7", "one")
    g1b = paired(frame, "ba_per_answer", "two", "one")
    g2 = paired(frame, "final_ba", "second<0.7", "two")
    ans = frame.pivot_table(index=["workload", "replication"], columns="strategy", values="answers")
    fewer = int((ans["second<0.7"] < ans["two"]).sum())
    saved = float((1 - ans["second<0.7"] / ans["two"]).mean())
    lines += [
        "",
        f"Paired over {g1[2]} cells (BA points, mean ± standard error):",
        "",
        f"* BA per answer, `second<0.7` − `one`: {g1[0]:+.2f} ± {g1[1]:.2f} "
        f"(`two` − `one`: {g1b[0]:+.2f} ± {g1b[1]:.2f})",
        f"* final BA, `second<0.7` − `two`: {g2[0]:+.2f} ± {g2[1]:.2f}",
        f"* answers: `second<0.7` spent fewer than `two` in {fewer} of {len(ans)} cells, "
        f"{100 * saved:.0f} % fewer on average",
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one cell only")
    args = ap.parse_args()
    cells = (
        [("paper-v1-S02", 0)] if args.quick else [(w, r) for w in WORKLOADS for r in REPLICATIONS]
    )
    rows: list[dict[str, Any]] = []
    t0 = time.process_time()
    for w, r in cells:
        rows += cell(w, r)
        print(f"{w} r{r}: {time.process_time() - t0:.0f} CPU-s", flush=True)
    frame = pd.DataFrame(rows)
    print(frame.to_string())
    print(summary(frame))
    if not args.quick:
        OUT.mkdir(parents=True, exist_ok=True)
        frame.to_csv(OUT / "results.csv", index=False)
        (OUT / "summary.md").write_text(summary(frame) + "\n")
    print(f"{time.process_time() - t0:.0f} CPU-seconds")


if __name__ == "__main__":
    main()
