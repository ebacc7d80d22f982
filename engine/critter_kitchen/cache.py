"""The on-disk cache: files that only save time, so every failure falls back to doing the work.

The folder is ``$CRITTER_KITCHEN_CACHE`` if set (empty or ``off`` turns caching off), else
``$XDG_CACHE_HOME/critter-kitchen``, else ``~/.cache/critter-kitchen``. A missing,
read-only or corrupt cache is never an error.

Trust. File names in the folder are easy to compute and the folder may be shared or
restored from elsewhere (a CI cache), so its bytes are not trusted: entries are pickles,
and unpickling attacker-chosen bytes runs attacker-chosen code. Every entry therefore
carries a MAC under a secret key that lives outside the cache folder, readable only by
this user (:func:`key_file`), and nothing is unpickled before the MAC holds; whoever can
write the cache folder but not read the key cannot forge an entry. As a second line, an
entry is unpickled by an unpickler that admits only the classes its caller names
(python docs, "Restricting Globals"): never a function, never a class of another
package. Without a usable key (missing and not creatable, a link, not a regular file,
not owned by this user, readable or writable by others, the wrong size) caching is off.

The MAC is keyed BLAKE2b (RFC 7693 keyed mode, 256-bit key and tag), which the hashlib
documentation offers as a faster and simpler replacement for HMAC: BLAKE2 has no length
extension, so the keyed hash is itself a MAC. It is taken from ``_blake2``, the module
``hashlib.blake2b`` comes from, because importing ``hashlib`` or ``hmac`` loads OpenSSL,
which added 3 to 9 ms of CPU to an 80 to 100 ms cold ``score`` on the development
machine (``_blake2`` adds 0.3 ms); an interpreter without that module falls back to
``hashlib``.

Plain data (JSON) instead of MACs was the other choice; it was set aside because a
ruleset is rebuilt from its data by code that trusts it: forged ops would still build
unchecked programs.
"""

from __future__ import annotations

import os
import stat

# The unpickler itself: ``pickle`` (the Python module around it) adds re, struct and
# codecs to a cold ``score`` that only reads the cache; writing an entry imports it.
from _pickle import Unpickler, UnpicklingError

from .regular import read_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from typing import Any

KEY_BYTES = 32  # the secret key and the MAC are both this long
_PERSON = b"ck-cache-v1"  # BLAKE2 personalisation: these MACs mean nothing elsewhere
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO in the key's place must not block the open

MAX_ENTRY_BYTES = 64 * 1024 * 1024  # 700 times the base pack's entry: anything larger is not ours


def cache_dir() -> str | None:
    configured = os.environ.get("CRITTER_KITCHEN_CACHE")
    if configured is not None:
        return configured if configured.strip() not in ("", "off", "0") else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "critter-kitchen")


def key_file() -> str | None:
    """Where the cache's secret key lives: ``$CRITTER_KITCHEN_CACHE_KEY`` (a file; empty or
    ``off`` turns caching off), else ``$XDG_STATE_HOME/critter-kitchen/cache.key``, else
    ``~/.local/state/critter-kitchen/cache.key``: never inside the cache folder."""
    configured = os.environ.get("CRITTER_KITCHEN_CACHE_KEY")
    if configured is not None:
        return configured if configured.strip() not in ("", "off", "0") else None
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "critter-kitchen", "cache.key")


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


def load(name: str, admitted: Collection[str]) -> Any:
    """The object stored under ``name`` by :func:`store`, or None.

    None when there is no such entry, no usable key, the MAC does not hold, or the entry
    names a global outside ``admitted`` (see :func:`unpickle`).
    """
    if cache_dir() is None:
        return None
    secret = _secret(create=False)
    data = read(name) if secret is not None else None
    if secret is None or data is None or len(data) < KEY_BYTES:
        return None
    tag, payload = data[:KEY_BYTES], data[KEY_BYTES:]
    if not _equal(tag, _mac(secret, name, payload)):
        return None  # forged, damaged or sealed under another key: never unpickled
    try:
        return unpickle(payload, admitted)
    except Exception:  # noqa: BLE001 - an entry this engine cannot read only costs a rebuild
        return None


def store(name: str, value: object) -> None:
    """Pickle ``value`` and store it under ``name`` with its MAC; give up silently if unable."""
    import pickle

    try:
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return
    store_pickled(name, payload)


def store_pickled(name: str, payload: bytes) -> None:
    """Store an already pickled value under ``name`` with its MAC, for :func:`load` to read."""
    if cache_dir() is None:
        return
    secret = _secret(create=True)
    if secret is not None:
        write(name, _mac(secret, name, payload) + payload)


def unpickle(data: bytes, admitted: Collection[str]) -> Any:
    """Unpickle ``data``, admitting only the classes named in ``admitted``.

    Each entry is ``module.Class``, or ``module.*`` for every class defined in that
    module. Functions, and classes of any other module, raise pickle.UnpicklingError
    before they are even imported.
    """
    import io

    return _Admitting(io.BytesIO(data), admitted).load()


class _Admitting(Unpickler):
    def __init__(self, file: Any, admitted: Collection[str]) -> None:
        super().__init__(file)
        self.admitted = admitted

    def find_class(self, module: str, name: str) -> Any:
        if "." not in name and (f"{module}.{name}" in self.admitted or f"{module}.*" in self.admitted):
            found = super().find_class(module, name)
            if isinstance(found, type) and found.__module__ == module:
                return found
        raise UnpicklingError(f"the cache may not name {module}.{name}")


def _mac(secret: bytes, name: str, payload: bytes) -> bytes:
    """The entry's MAC; it covers the name too, so an entry cannot be moved to another name."""
    h = _blake2b()(key=secret, digest_size=KEY_BYTES, person=_PERSON)
    h.update(name.encode("utf-8", "surrogateescape") + b"\0")
    h.update(payload)
    return bytes(h.digest())


def name_digest(data: bytes) -> str:
    """16 hex digits naming an entry by what it is for (the MAC's hash: one module fewer to
    import than zlib; the name is no secret and proves nothing, the key and MAC do)."""
    return str(_blake2b()(data, digest_size=8, person=_PERSON).hexdigest())


def _blake2b() -> Callable[..., Any]:
    try:
        from _blake2 import blake2b  # hashlib's own, without loading OpenSSL
    except ImportError:  # pragma: no cover - depends on the interpreter
        from hashlib import blake2b
    return blake2b


def _equal(a: bytes, b: bytes) -> bool:
    """Compare in time that does not depend on where the bytes differ."""
    try:
        from _operator import _compare_digest as same  # what hmac.compare_digest falls back to
    except ImportError:  # pragma: no cover - depends on the interpreter
        from hmac import compare_digest as same  # type: ignore[no-redef]
    return bool(same(a, b))


def _secret(*, create: bool) -> bytes | None:
    """This user's cache key, made on first use when ``create``; None if it cannot be had safely."""
    file = key_file()
    if file is None:
        return None
    try:
        return _read_key(file)
    except FileNotFoundError:
        if not create:
            return None
    except OSError:
        return None
    try:
        _make_key(file)
        return _read_key(file)  # another process may have made it first: use the one that is there
    except OSError:
        return None


def _read_key(file: str) -> bytes | None:
    fd = os.open(file, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK)
    try:
        info = os.fstat(fd)
        if not _is_private_key(info):
            return None
        secret = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    return secret if len(secret) == KEY_BYTES else None


def _is_private_key(info: os.stat_result) -> bool:
    """A regular file with one name, owned by this user, that only this user may read or write."""
    owner = os.geteuid() if hasattr(os, "geteuid") else None
    return (
        stat.S_ISREG(info.st_mode)
        and info.st_uid == owner
        and stat.S_IMODE(info.st_mode) == 0o600
        and info.st_nlink == 1
        and info.st_size == KEY_BYTES
    )


def _make_key(file: str) -> None:
    """Write a new random key to ``file``, unless one is already there.

    It is written in full under a private temporary name and then linked into place, so
    that no reader ever sees half a key and an existing key is never replaced.
    """
    folder = os.path.dirname(file) or "."
    os.makedirs(folder, mode=0o700, exist_ok=True)
    tmp = os.path.join(folder, f".cache.key-{os.getpid()}-{os.urandom(8).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
        os.write(fd, os.urandom(KEY_BYTES))
        os.close(fd)
        fd = -1
        try:
            os.link(tmp, file)
        except FileExistsError:
            pass
    finally:
        if fd != -1:
            os.close(fd)
        os.unlink(tmp)
