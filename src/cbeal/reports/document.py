"""A tiny document model rendered to Markdown or to self-contained HTML (images inlined).

A document is a list of blocks: ``("h", level, text)``, ``("p", text)``, ``("ul", items)``,
``("ol", items)``, ``("table", header, rows)`` and ``("img", alt, path)``. Text may use
Markdown's ``code`` and ``**bold**`` spans; the HTML renderer translates those two.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["Block", "markdown_table", "to_html", "to_markdown"]

Block = tuple[Any, ...]


def markdown_table(
    header: Sequence[Any], rows: Sequence[Sequence[Any]], align: Sequence[str] | None = None
) -> str:
    """A GitHub Markdown table; `align` holds ``"l"`` or ``"r"`` per column (default left).

    >>> print(markdown_table(["method", "accuracy"], [["RS", "0.71"]], align="lr"))
    | method | accuracy |
    | --- | ---: |
    | RS | 0.71 |
    """
    rule = ["---:" if a == "r" else "---" for a in (align or "l" * len(header))]
    lines = [header, rule, *rows]
    return "\n".join("| " + " | ".join(str(c) for c in line) + " |" for line in lines)


def to_markdown(blocks: Sequence[Block]) -> str:
    """Markdown text; an image is linked as ``<its folder>/<its file>`` (report next to folder).

    >>> print(to_markdown([("h", 1, "Run"), ("table", ["a", "b"], [["1", "2"]])]))
    # Run
    <BLANKLINE>
    | a | b |
    | --- | --- |
    | 1 | 2 |
    <BLANKLINE>
    """
    out: list[str] = []
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out.append("#" * block[1] + " " + block[2])
        elif kind == "p":
            out.append(block[1])
        elif kind in ("ul", "ol"):
            out.append(
                "\n".join(
                    ("* " if kind == "ul" else f"{i}. ") + item
                    for i, item in enumerate(block[1], 1)
                )
            )
        elif kind == "table":
            out.append(markdown_table(block[1], block[2]))
        elif kind == "img":
            out.append(f"![{block[1]}]({Path(block[2]).parent.name}/{Path(block[2]).name})")
    return "\n\n".join(out) + "\n"


def _inline(text: str) -> str:
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)


def _img(alt: str, path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<p><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></p>'


def to_html(blocks: Sequence[Block], *, title: str) -> str:
    """One self-contained HTML page; PNG images are embedded as base64 data URLs.

    >>> "<h1>Run</h1>" in to_html([("h", 1, "Run")], title="Run")
    True
    """
    body: list[str] = []
    for block in blocks:
        kind = block[0]
        if kind == "h":
            body.append(f"<h{block[1]}>{_inline(block[2])}</h{block[1]}>")
        elif kind == "p":
            body.append(f"<p>{_inline(block[1])}</p>")
        elif kind in ("ul", "ol"):
            items = "".join(f"<li>{_inline(i)}</li>" for i in block[1])
            body.append(f"<{kind}>{items}</{kind}>")
        elif kind == "table":
            head = "".join(f"<th>{_inline(c)}</th>" for c in block[1])
            rows = "".join(
                "<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in block[2]
            )
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif kind == "img":
            body.append(_img(block[1], Path(block[2])))
    style = (
        "body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;"
        "text-align:right}img{max-width:100%}"
    )
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}'
        f"</title><style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
