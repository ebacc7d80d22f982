"""The on-disk cache: files that only save time, so every failure falls back to doing the work.

The folder is ``$CRITTER_KITCHEN_CACHE`` if set (empty or ``off`` turns caching off), else
``$XDG_CACHE_HOME/critter-kitchen``, else ``~/.cache/critter-kitchen``. A missing,
read-only or corrupt cache is never an error.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_dir() -> Path | None:
    configured = os.environ.get("CRITTER_KITCHEN_CACHE")
    if configured is not None:
        return Path(configured) if configured.strip() not in ("", "off", "0") else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "critter-kitchen"


def read(name: str) -> bytes | None:
    """The cached bytes under ``name``, or None when absent or unreadable."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        return (folder / name).read_bytes()
    except OSError:
        return None


def write(name: str, data: bytes) -> None:
    """Store ``data`` under ``name`` atomically; silently give up if the folder is unusable."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, folder / name)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return
