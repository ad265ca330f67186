"""A model file's seal: the SHA-256 of all its bytes before it, in the zip comment.

A zip archive checks its members' content (CRC-32) but not its headers: a flipped byte in
a timestamp or an attribute goes unnoticed, and one in a size field surfaces as whatever
error the reader meets first. The seal makes every change to a file detectable before
anything in it is read. Files without a seal (written before it existed) still load.
"""

from __future__ import annotations

import hashlib

from cbeal.core.exceptions import ModelFileError

__all__ = ["PLACEHOLDER", "seal", "unseal"]

_TAG = b"cbeal-sha256:"
#: the zip comment :func:`seal` fills in (same length as the seal)
PLACEHOLDER = _TAG + b"0" * 64


def seal(data: bytes) -> bytes:
    """`data` (a zip whose comment is :data:`PLACEHOLDER`) with its digest filled in."""
    if not data.endswith(PLACEHOLDER):
        raise ValueError("seal() needs a zip archive whose comment is the placeholder")
    body = data[: -len(PLACEHOLDER)]
    return body + _TAG + hashlib.sha256(body).hexdigest().encode()


def unseal(data: bytes, name: str) -> bool:
    """Whether `data` is sealed; a sealed file that does not match its seal is refused."""
    tail = data[-len(PLACEHOLDER) :]
    if not tail.startswith(_TAG):
        return False
    body = memoryview(data)[: -len(PLACEHOLDER)]  # not a copy
    if tail[len(_TAG) :] != hashlib.sha256(body).hexdigest().encode():
        raise ModelFileError(
            f"{name} is corrupt: its content does not match its SHA-256 checksum (a changed, "
            "truncated or damaged copy). Load an intact copy, or save the model again."
        )
    return True
