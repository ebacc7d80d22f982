"""The games the score pad keeps: one SQLite file in WAL mode, its schema versioned and migrated.

Each save is one transaction: the game, its result and its players' rows are written
together or not at all, and the answer is sent only after the commit. ``synchronous=FULL``
makes a commit survive a power cut as well as a killed process.

Every operation opens its own connection: the server answers requests from several
threads, and SQLite connections are cheap to open while they are not to share.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
import unicodedata
from dataclasses import dataclass

from .limits import GAME_VERSIONS, UNDO_MINUTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any

# The schema's history, oldest first: step N brings a database from version N to N + 1
# (``PRAGMA user_version``). A step is never changed once released; a change is a new step.
MIGRATIONS: tuple[str, ...] = (
    # 1: the games, each with its record and the engine's JSON result, as sent
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created TEXT NOT NULL,
        record TEXT NOT NULL,
        result TEXT NOT NULL
    );
    """,
    # 2: who played each game, for history search and statistics, filled from the results kept
    """
    CREATE TABLE game_players (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        rank INTEGER NOT NULL,
        stars INTEGER NOT NULL,
        PRIMARY KEY (game_id, name)
    );
    CREATE INDEX game_players_name ON game_players(name);
    INSERT INTO game_players (game_id, name, rank, stars)
        SELECT games.id, json_extract(s.value, '$.name'), json_extract(s.value, '$.rank'),
               json_extract(s.value, '$.stars')
        FROM games, json_each(games.result, '$.standings') AS s;
    """,
    # 3: each player's name folded (Python's casefold: SQLite's lower() folds ASCII only), for
    # a search that is blind to case in every script; casefold() is the store's own function
    """
    ALTER TABLE game_players ADD COLUMN folded TEXT NOT NULL DEFAULT '';
    UPDATE game_players SET folded = casefold(name);
    """,
    # 4: game rooms (rooms.py): a game's setup entered from several phones, each player's
    # meals with their own version, the room's version numbering its live updates
    """
    CREATE TABLE rooms (
        code TEXT PRIMARY KEY,
        room_key TEXT NOT NULL,
        setup TEXT NOT NULL,
        version INTEGER NOT NULL,
        result TEXT,
        problems TEXT,
        created TEXT NOT NULL,
        expires REAL NOT NULL
    );
    CREATE TABLE room_players (
        code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        done INTEGER NOT NULL,
        part TEXT NOT NULL,
        PRIMARY KEY (code, seat)
    );
    """,
    # 5: the folded names again, folded now by folded() (look-alike letters and width too, so a
    # name typed with a Cyrillic "а" or a full-width "Ａ" is found, and flagged on the new-game page)
    """
    UPDATE game_players SET folded = casefold(name);
    """,
    # 6: a kept game's history: an edit keeps the record it replaces (with when that version was
    # kept and its note) and numbers the game's versions; a deleted game is hidden, and forgotten
    # once its undo has run out; a room remembers the game it was kept as, and an ended room is
    # hidden until its undo has run out
    """
    ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE games ADD COLUMN saved TEXT NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN note TEXT NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN deleted REAL;
    UPDATE games SET saved = created;
    CREATE TABLE game_versions (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        saved TEXT NOT NULL,
        note TEXT NOT NULL,
        record TEXT NOT NULL,
        result TEXT NOT NULL,
        PRIMARY KEY (game_id, version)
    );
    ALTER TABLE rooms ADD COLUMN kept INTEGER;
    ALTER TABLE rooms ADD COLUMN kept_at INTEGER;
    ALTER TABLE rooms ADD COLUMN ended REAL;
    """,
)
VERSION = len(MIGRATIONS)
KNOWN_PLAYERS = 50  # names the new-game page offers as chips, the most recent first
BUSY_MS = 30_000  # a writer waits this long for another's commit before giving up
MAX_ID = (1 << 63) - 1  # SQLite's largest row id


class StoreError(Exception):
    """The database cannot be used (written by a newer version, not a database, unwritable)."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """One kept game (or one version of it): its id, the record as sent, the engine's result and
    when the game was first kept; which version of the game this is, when it was kept and its note
    (what the edit that made it said)."""

    id: int
    record: Any
    result: Any
    created: str
    version: int = 1
    saved: str = ""
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "record": self.record,
            "result": self.result,
            "created": self.created,
            "version": self.version,
            "saved": self.saved or self.created,
            "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class Version:
    """One version of a kept game, as its history lists it: its number, when it was kept, its note."""

    version: int
    saved: str
    note: str

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "saved": self.saved, "note": self.note}


# the columns a StoredGame is read from, and the games that are kept (not deleted)
_GAME = "id, record, result, created, version, saved, note"
_LIVE = "deleted IS NULL"


def default_path() -> str:
    """Where games are kept unless ``--db`` says otherwise: the user's data folder (XDG)."""
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(data, "critter-kitchen", "games.sqlite3")


class Store:
    """The games database at ``path``, created or migrated to :data:`VERSION` when opened."""

    def __init__(self, path: str, migrations: Sequence[str] = MIGRATIONS) -> None:
        self.path = path
        self.migrations = tuple(migrations)
        _check_path(path)
        try:
            with self._connection() as db:
                db.execute("PRAGMA journal_mode=WAL")
                self._migrate(db)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{path}: cannot use the games database: {e}") from None
        except OSError as e:
            raise StoreError(f"{path}: cannot create the games database: {e.strerror or e}") from None

    def _connection(self) -> _Connection:
        return _Connection(self.path)

    def version(self) -> int:
        with self._connection() as db:
            return int(db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self, db: sqlite3.Connection) -> None:
        """Bring the schema up to date, each step in one transaction with its new version number."""
        current = int(db.execute("PRAGMA user_version").fetchone()[0])
        if current > len(self.migrations):
            raise StoreError(
                f"{self.path}: the games database has schema version {current}, newer than this "
                f"critter-kitchen knows ({len(self.migrations)}): use a newer critter-kitchen"
            )
        for version in range(current, len(self.migrations)):
            db.execute("BEGIN IMMEDIATE")
            try:
                # re-read under the write lock: another server may have migrated meanwhile
                if int(db.execute("PRAGMA user_version").fetchone()[0]) != version:
                    db.execute("ROLLBACK")
                    continue
                for statement in _statements(self.migrations[version]):
                    db.execute(statement)
                db.execute(f"PRAGMA user_version = {version + 1}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def add(self, record: Any, result_text: str, created: str) -> int:
        """Save one game (the record's data and the engine's JSON text of its result); its id."""
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                game_id = insert_game(db, record, result_text, created)
                self._forget(db, time.time())
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return game_id

    def get(self, game_id: int) -> StoredGame | None:
        with self._connection() as db:
            row = db.execute(f"SELECT {_GAME} FROM games WHERE id = ? AND {_LIVE}", (game_id,)).fetchone()
        return None if row is None else _stored(row)

    def edit(
        self,
        game_id: int,
        record: Any,
        result_text: str,
        saved: str,
        note: str,
        based_on: int | None = None,
        versions: int = GAME_VERSIONS,
    ) -> tuple[str, int] | None:
        """Keep a new version of a kept game (its record and result replaced, its players' rows
        with them), the version it replaces kept in its history, the oldest earlier versions
        forgotten past ``versions`` in all: ("ok", the new version); ("stale", the version now)
        when ``based_on`` is given and is not the game's version now; None if no such game is kept."""
        result = json.loads(result_text)
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute(f"SELECT {_GAME} FROM games WHERE id = ? AND {_LIVE}", (game_id,)).fetchone()
                if row is None or (based_on is not None and int(row[4]) != based_on):
                    db.execute("ROLLBACK")
                    return None if row is None else ("stale", int(row[4]))
                now = _stored(row)
                db.execute(
                    "INSERT INTO game_versions (game_id, version, saved, note, record, result) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (game_id, now.version, now.saved or now.created, now.note, row[1], row[2]),
                )
                version = now.version + 1
                db.execute(
                    "UPDATE games SET record = ?, result = ?, version = ?, saved = ?, note = ? WHERE id = ?",
                    (record_text(record), result_text, version, saved, note, game_id),
                )
                oldest = version - versions  # the versions past the bound, the oldest first
                db.execute("DELETE FROM game_versions WHERE game_id = ? AND version <= ?", (game_id, oldest))
                db.execute("DELETE FROM game_players WHERE game_id = ?", (game_id,))
                _insert_players(db, game_id, result)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return "ok", version

    def history(self, game_id: int) -> list[Version] | None:
        """A kept game's versions, the latest first (its history kept; the oldest may be gone),
        or None if no such game is kept."""
        with self._connection() as db:
            row = db.execute(f"SELECT version, saved, note FROM games WHERE id = ? AND {_LIVE}", (game_id,)).fetchone()
            if row is None:
                return None
            rows = db.execute(
                "SELECT version, saved, note FROM game_versions WHERE game_id = ? ORDER BY version DESC", (game_id,)
            ).fetchall()
        return [Version(int(v), str(s), str(n)) for v, s, n in [row, *rows]]

    def game_version(self, game_id: int, number: int) -> StoredGame | None:
        """One version of a kept game (the latest is the game itself), or None."""
        with self._connection() as db:
            game = db.execute(f"SELECT {_GAME} FROM games WHERE id = ? AND {_LIVE}", (game_id,)).fetchone()
            if game is None or int(game[4]) == number:
                return None if game is None else _stored(game)
            row = db.execute(
                "SELECT g.id, v.record, v.result, g.created, v.version, v.saved, v.note "
                "FROM game_versions v JOIN games g ON g.id = v.game_id WHERE v.game_id = ? AND v.version = ?",
                (game_id, number),
            ).fetchone()
        return None if row is None else _stored(row)

    def delete(self, game_id: int, now: float | None = None) -> bool:
        """Delete one game; whether it was kept. It is hidden at once (from the history, the
        statistics, the API) and forgotten for good :data:`~.limits.UNDO_MINUTES` later, until
        when :meth:`undelete` brings it back."""
        when = time.time() if now is None else now
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                gone = db.execute(f"UPDATE games SET deleted = ? WHERE id = ? AND {_LIVE}", (when, game_id)).rowcount
                if gone:
                    db.execute("DELETE FROM game_players WHERE game_id = ?", (game_id,))
                self._forget(db, when)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return gone > 0

    def undelete(self, game_id: int, now: float | None = None) -> bool:
        """Bring back a game deleted less than :data:`~.limits.UNDO_MINUTES` ago; whether it was."""
        when = time.time() if now is None else now
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                self._forget(db, when)
                row = db.execute("SELECT result FROM games WHERE id = ? AND deleted IS NOT NULL", (game_id,)).fetchone()
                if row is not None:
                    db.execute("UPDATE games SET deleted = NULL WHERE id = ?", (game_id,))
                    _insert_players(db, game_id, json.loads(row[0]))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return row is not None

    def _forget(self, db: sqlite3.Connection, now: float) -> None:
        """Forget for good the games deleted longer ago than their undo lasts (their history with them)."""
        db.execute("DELETE FROM games WHERE deleted IS NOT NULL AND deleted <= ?", (now - UNDO_MINUTES * 60,))

    def games(self, player: str | None = None, limit: int = 100, offset: int = 0) -> list[StoredGame]:
        """Kept games, newest first; with ``player``, those with a player whose name holds it
        (letters compared without case, by Unicode's case folding)."""
        where, args = _player_filter(player)
        with self._connection() as db:
            rows = db.execute(
                f"SELECT {_GAME} FROM games{where} ORDER BY id DESC LIMIT ? OFFSET ?",
                (*args, limit, offset),
            ).fetchall()
        return [_stored(row) for row in rows]

    def games_of(self, name: str) -> list[StoredGame]:
        """Every kept game in which ``name`` (exactly) played, oldest first."""
        with self._connection() as db:
            rows = db.execute(
                f"SELECT {_GAME} FROM games WHERE {_LIVE} AND id IN "
                "(SELECT game_id FROM game_players WHERE name = ?) ORDER BY id",
                (name,),
            ).fetchall()
        return [_stored(row) for row in rows]

    def every_game(self) -> Iterator[StoredGame]:
        """Every kept game, oldest first, read a few at a time."""
        with self._connection() as db:
            cursor = db.execute(f"SELECT {_GAME} FROM games WHERE {_LIVE} ORDER BY id")
            while rows := cursor.fetchmany(256):
                yield from map(_stored, rows)

    def known_players(self, limit: int = KNOWN_PLAYERS) -> list[tuple[str, str]]:
        """The names of the kept games' players, each with its folded form, the most recently
        kept first (a name of several games by its last)."""
        with self._connection() as db:
            rows = db.execute(
                "SELECT name, folded FROM game_players GROUP BY name ORDER BY max(game_id) DESC, name LIMIT ?",
                (limit,),
            ).fetchall()
        return [(str(name), str(fold)) for name, fold in rows]

    def spelling(self, name: str) -> str | None:
        """The known name (of the most recent game) that ``name`` folds to but is not, or None
        when ``name`` is known as it is or folds to no known name."""
        with self._connection() as db:
            if db.execute("SELECT 1 FROM game_players WHERE name = ? LIMIT 1", (name,)).fetchone():
                return None
            row = db.execute(
                "SELECT name FROM game_players WHERE folded = ? ORDER BY game_id DESC LIMIT 1", (folded(name),)
            ).fetchone()
        return None if row is None else str(row[0])

    def count(self, player: str | None = None) -> int:
        """How many games :meth:`games` lists with ``player``, over every page."""
        where, args = _player_filter(player)
        with self._connection() as db:
            return int(db.execute(f"SELECT count(*) FROM games{where}", args).fetchone()[0])

    def integrity(self) -> str:
        """``PRAGMA integrity_check``'s answer: ``ok``, or what is wrong."""
        with self._connection() as db:
            return "\n".join(str(row[0]) for row in db.execute("PRAGMA integrity_check"))


class _Connection:
    """A connection for one operation, closed afterwards; transactions are begun explicitly."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __enter__(self) -> sqlite3.Connection:
        # the absolute path: a name such as ":memory:" is a file here, never SQLite's special database
        self.db = sqlite3.connect(os.path.abspath(self.path), timeout=BUSY_MS / 1000, isolation_level=None)
        self.db.create_function("casefold", 1, _casefold, deterministic=True)
        self.db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        self.db.execute("PRAGMA synchronous = FULL")
        self.db.execute("PRAGMA foreign_keys = ON")
        return self.db

    def __exit__(self, *exc: object) -> None:
        self.db.close()


def insert_game(db: sqlite3.Connection, record: Any, result_text: str, created: str) -> int:
    """Keep one game and its players' rows, inside the caller's transaction; its id."""
    cursor = db.execute(
        "INSERT INTO games (created, record, result, saved) VALUES (?, ?, ?, ?)",
        (created, record_text(record), result_text, created),
    )
    game_id = int(cursor.lastrowid or 0)
    _insert_players(db, game_id, json.loads(result_text))
    return game_id


def _insert_players(db: sqlite3.Connection, game_id: int, result: Any) -> None:
    db.executemany(
        "INSERT INTO game_players (game_id, name, rank, stars, folded) VALUES (?, ?, ?, ?, ?)",
        [(game_id, s["name"], s["rank"], s["stars"], folded(s["name"])) for s in result["standings"]],
    )


def record_text(record: Any) -> str:
    """A record's data as compact JSON text, as kept."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _player_filter(player: str | None) -> tuple[str, tuple[Any, ...]]:
    """The WHERE clause (and its argument) keeping games with a player whose name holds ``player``."""
    if not player:
        return f" WHERE {_LIVE}", ()
    where = f" WHERE {_LIVE} AND id IN (SELECT game_id FROM game_players WHERE instr(folded, ?) > 0)"
    return where, (folded(player),)


# Letters of other scripts drawn like Latin ones, each as the Latin letter it passes for (after
# case folding): two players whose names differ only by these are the same name to the pad.
LOOK_ALIKES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
        "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q",
        "ԝ": "w", "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
        "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ı": "i",
    }
)  # fmt: skip


def folded(name: str) -> str:
    """A player's name as the store compares names: compatibility forms (full-width letters,
    ligatures) made plain, case folded, and look-alike letters of other scripts made Latin."""
    return unicodedata.normalize("NFKC", name).casefold().translate(LOOK_ALIKES)


def _casefold(text: Any) -> Any:
    return folded(text) if isinstance(text, str) else text


def _check_path(path: str) -> None:
    """StoreError unless ``path`` is a regular file, or names a new one in an existing folder:
    a device (``/dev/full``), a pipe or a folder is no database, and SQLite would write its
    journal beside it."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise StoreError(f"{path}: cannot create the games database: no folder {folder}") from None
        return
    except OSError as e:
        raise StoreError(f"{path}: cannot use the games database: {e.strerror or e}") from None
    if not stat.S_ISREG(mode):
        raise StoreError(f"{path}: cannot use the games database: not a regular file")


def _stored(row: tuple[Any, ...]) -> StoredGame:
    return StoredGame(
        int(row[0]), json.loads(row[1]), json.loads(row[2]), str(row[3]), int(row[4]), str(row[5]), str(row[6])
    )


def _statements(script: str) -> list[str]:
    """The statements of a migration step, so each runs inside the step's transaction
    (``executescript`` would commit first)."""
    out, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            out.append(pending.strip())
            pending = ""
    if pending.strip():
        out.append(pending.strip())
    return out
