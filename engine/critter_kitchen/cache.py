"""The on-disk cache: files that only save time, so every failure falls back to doing the work.

The folder is ``$CRITTER_KITCHEN_CACHE`` if set (empty or ``off`` turns caching off), else
``$XDG_CACHE_HOME/critter-kitchen``, else ``~/.cache/critter-kitchen``. A missing,
read-only or corrupt cache is never an error.
"""

from __future__ import annotations

import os

from .loading.discovery import read_regular

MAX_ENTRY_BYTES = 64 * 1024 * 1024  # 700 times the base pack's entry: anything larger is not ours


def cache_dir() -> str | None:
    configured = os.environ.get("CRITTER_KITCHEN_CACHE")
    if configured is not None:
        return configured if configured.strip() not in ("", "off", "0") else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "critter-kitchen")


def read(name: str) -> bytes | None:
    """The cached bytes under ``name``, or None when absent, unreadable, not a regular file or too large."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        data = read_regular(os.path.join(folder, name), MAX_ENTRY_BYTES)
    except OSError:
        return None
    return data if len(data) <= MAX_ENTRY_BYTES else None


def write(name: str, data: bytes) -> None:
    """Store ``data`` under ``name`` atomically; silently give up if the folder is unusable."""
    folder = cache_dir()
    if folder is None:
        return
    import tempfile  # only writing needs it

    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, os.path.join(folder, name))
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return
