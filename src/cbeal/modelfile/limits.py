"""What loading a model file may cost: sizes, ratios, nesting and seeds, checked before use.

A model file is a zip archive holding further archives (``arrays.npz``, skops blobs), so a
small file can declare parts that inflate a thousandfold, arrays of any shape, a state
tree nested past the interpreter's stack, or a random seed whose set-up takes hours.
:class:`Limits` bounds each of these; the loader checks the sizes every part *declares*
before it inflates or allocates anything, and refuses whatever exceeds a limit with a
:class:`~cbeal.ModelFileError` that names the limit to raise.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from cbeal.core.exceptions import ModelFileError, ParameterError

__all__ = ["Limits", "Meter", "as_limits", "check_depth", "check_seedseq", "fmt_size", "refused"]

_MIB = 1 << 20
#: parts at most this big may have any compression ratio (they cannot cost much)
RATIO_FREE_BYTES = _MIB


@dataclass(frozen=True, kw_only=True)
class Limits:
    """Bounds on what loading one model file may inflate, allocate and compute.

    The defaults hold every model cbeal writes with room to spare (a model after a
    million labels is far below them); raise one when a file you trust is refused, e.g.
    ``CbeAL.load(path, limits=Limits(max_bytes=4 * 2**30))``.

    Parameters
    ----------
    max_bytes
        The file, and all its parts once decompressed, in total (default 1 GiB).
    max_ratio
        Decompressed / compressed size of any part larger than 1 MiB (default 300).
        cbeal compresses at level 1, which reaches about 230 on all-zero data.
    max_json_bytes
        The state tree ``cbeal.json`` (and a skops blob's schema), decompressed
        (default 64 MiB).
    max_depth
        Nesting of the state tree (default 100; cbeal's models use about 20).
    max_array_bytes
        One numeric array (default 512 MiB).
    max_parts
        Members of each archive: the file, ``arrays.npz``, a skops blob (default 1,000,000).
    max_seed_pool
        ``pool_size`` of a stored ``numpy.random.SeedSequence`` (default 64; numpy uses 4).
        Setting one up costs time in the square of its pool.
    max_seed_words
        Its ``entropy`` and ``spawn_key`` together, in 32-bit words (default 1024).

    Examples
    --------
    >>> from cbeal.modelfile import Limits
    >>> Limits().max_bytes == 2**30
    True
    >>> Limits(max_bytes=4 * 2**30).max_bytes // 2**30
    4
    >>> Limits(max_depth=0)
    Traceback (most recent call last):
    ...
    cbeal.core.exceptions.ParameterError: Limits: max_depth must be a whole number ≥ 1, got 0
    """

    max_bytes: int = 1 << 30
    max_ratio: float = 300.0
    max_json_bytes: int = 64 * _MIB
    max_depth: int = 100
    max_array_bytes: int = 512 * _MIB
    max_parts: int = 1_000_000
    max_seed_pool: int = 64
    max_seed_words: int = 1024

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "max_ratio":
                ok = isinstance(value, (int, float)) and not isinstance(value, bool)
                if not (ok and value >= 1.0):
                    raise ParameterError(f"Limits: max_ratio must be a number ≥ 1, got {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ParameterError(f"Limits: {f.name} must be a whole number ≥ 1, got {value!r}")


def as_limits(limits: Any) -> Limits:
    """`limits` as :class:`Limits`: None means the defaults."""
    if limits is None:
        return Limits()
    if isinstance(limits, Limits):
        return limits
    raise ParameterError(
        f"limits must be a cbeal.modelfile.Limits (or None for the defaults), got {limits!r}"
    )


def fmt_size(n: float) -> str:
    """`n` bytes for a message: ``'712 bytes'``, ``'2.1 kB'``, ``'1,024.0 MiB'``."""
    if n < 1000:
        return f"{n:,.0f} bytes"
    return f"{n / 1000:,.1f} kB" if n < _MIB else f"{n / _MIB:,.1f} MiB"


class Meter:
    """The decompressed bytes one load may still spend, and the checks on each part."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.left = limits.max_bytes

    def refuse(self, what: str, limit: str) -> ModelFileError:
        return refused(self.limits, what, limit)

    def take(self, n: int, what: str) -> None:
        """Spend `n` bytes on `what`, or refuse before they are allocated."""
        if n > self.left:
            spent = self.limits.max_bytes - self.left
            raise self.refuse(
                f"{what} would take {fmt_size(n)} after {fmt_size(spent)} already read, more than "
                "the model file may inflate to",
                "max_bytes",
            )
        self.left -= n

    def part(self, size: int, compressed: int, what: str, cap: str | None = None) -> None:
        """Check a part's declared size (against `cap` too) and ratio, then spend it."""
        if cap is not None and size > getattr(self.limits, cap):
            raise self.refuse(f"{what} declares {fmt_size(size)}", cap)
        ratio = size / max(compressed, 1)
        if size > RATIO_FREE_BYTES and ratio > self.limits.max_ratio:
            raise self.refuse(
                f"{what} inflates {ratio:,.0f}-fold ({fmt_size(compressed)} to {fmt_size(size)}), "
                "like a decompression bomb",
                "max_ratio",
            )
        self.take(size, what)


def refused(limits: Limits, what: str, limit: str) -> ModelFileError:
    """The error for `what` exceeding `limit`, saying how to raise it."""
    value = getattr(limits, limit)
    return ModelFileError(
        f"{what}; refused by the limit {limit}={value:,}. If you trust the file, load it "
        f"with a higher limit: limits=Limits({limit}=...)."
    )


def check_depth(tree: Any, limits: Limits, what: str) -> None:
    """Refuse a JSON tree nested deeper than ``max_depth`` (without recursing)."""
    max_depth = limits.max_depth
    stack: list[tuple[Any, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > max_depth:
            raise refused(
                limits, f"{what} is nested more than {max_depth} levels deep", "max_depth"
            )
        stack.extend((child, depth + 1) for child in children)


_SEED_KEYS = frozenset({"entropy", "spawn_key", "pool_size", "n_children_spawned"})


def _words(value: Any) -> int:
    """32-bit words numpy hashes for an entropy or spawn-key value (refusing non-integers)."""
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool):
        return max(1, -(-value.bit_length() // 32))
    if isinstance(value, (list, tuple)):
        return sum(_words(v) for v in value if v is not None) if value else 0
    raise ModelFileError(f"a random seed in the model file holds {type(value).__name__} values")


def check_seedseq(params: Any, limits: Limits) -> dict[str, Any]:
    """A stored ``SeedSequence``'s arguments, refused if setting it up would be costly.

    numpy mixes a seed's pool in time proportional to the square of ``pool_size``, so a
    200-byte entry can ask for hours; the pool and the words hashed into it are bounded.
    """
    if not isinstance(params, dict) or set(params) != _SEED_KEYS:
        raise ModelFileError("a random seed (SeedSequence) in the model file is malformed")
    pool, spawned = params["pool_size"], params["n_children_spawned"]
    for key, value in (("pool_size", pool), ("n_children_spawned", spawned)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ModelFileError(f"a random seed's {key} must be a whole number, got {value!r}")
    if pool > limits.max_seed_pool:
        raise refused(
            limits, f"a random seed (SeedSequence) has a pool of {pool:,}", "max_seed_pool"
        )
    words = _words(params["entropy"]) + _words(params["spawn_key"])
    if words > limits.max_seed_words:
        what = f"a random seed (SeedSequence) has {words:,} words of entropy and spawn key"
        raise refused(limits, what, "max_seed_words")
    return params
