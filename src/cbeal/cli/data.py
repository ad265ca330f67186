"""``cbeal data``: a bundled data set as a CSV file."""

from __future__ import annotations

import argparse
from typing import Any

from cbeal.cli._common import HelpFormatter

__all__ = ["register"]


def register(sub: Any) -> None:
    data = sub.add_parser(
        "data",
        help="export a bundled dataset as a CSV file",
        description="Write a bundled dataset (SECOM or AI4I 2020) as a CSV file.",
        formatter_class=HelpFormatter,
    )
    data.add_argument("dataset", choices=("secom", "ai4i"), help="which dataset")
    data.add_argument("--out", required=True, help="CSV file to write")
    data.set_defaults(func=run_data)


def run_data(args: argparse.Namespace) -> int:
    from cbeal.datasets.export import export_csv

    print(export_csv(args.dataset, args.out))
    return 0
