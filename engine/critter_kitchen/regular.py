"""Reading a file that a stranger named: regular files only, never more than a limit.

Below every layer that reads files (the loaders, the cache), so that each of them reads
through this one function. ``score`` imports it on a filled cache: os and stat only.
"""

from __future__ import annotations

import errno
import os
import stat

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


# Files open in an editor, by real path: their unsaved text, read in place of the disk's
# (see reading_buffers). Empty but in the language server.
_buffers: dict[str, bytes] = {}


class reading_buffers:  # noqa: N801 - used as a function: ``with reading_buffers(texts):``
    """Within ``with reading_buffers({path: bytes})``, :func:`read_regular` gives the bytes of
    each file named there (an editor's unsaved text) in place of what the disk holds.

    Only what would be read anyway is replaced: the file must still be a regular file on
    disk, found where it is looked for (so a pack's walk, its links and its limits stay
    the disk's), and the same limit holds. One at a time in a process (the language server
    checks in one thread): it is the process's state while it lasts.
    """

    def __init__(self, texts: dict[str, bytes]) -> None:
        self.texts = {os.path.realpath(path): data for path, data in texts.items()}

    def __enter__(self) -> None:
        _buffers.clear()
        _buffers.update(self.texts)
        _buffer_names.clear()
        _buffer_names.update(os.path.basename(path) for path in self.texts)

    def __exit__(self, *exc: object) -> None:
        _buffers.clear()
        _buffer_names.clear()


_buffer_names: set[str] = set()  # their file names: only a read of such a name needs its real path


class NotRegularFile(OSError):
    """A path that names something other than a regular file (a pipe, a device, a folder)."""


def read_regular(path: str, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the regular file at ``path`` (so a caller sees it is too long).

    Opening never blocks (a named pipe with no writer is refused, not waited on), and the
    opened file itself is checked, so a swap between a check and the read cannot slip
    anything else in. OSError (NotRegularFile for a pipe, device or folder) on failure.
    """
    fd = os.open(path, _OPEN_FLAGS)
    with open(fd, "rb", buffering=0) as f:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for is_kind, name in _KINDS if is_kind(mode)), "not a file")
            raise NotRegularFile(errno.EINVAL, f"not a regular file ({kind})", path)
        if _buffers and os.path.basename(path) in _buffer_names:
            held = _buffers.get(os.path.realpath(path))
            if held is not None:
                return held[: limit + 1]
        chunks, left = [], limit + 1
        while left > 0:
            chunk = f.read(min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
