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
import unicodedata
from dataclasses import dataclass

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
)
VERSION = len(MIGRATIONS)
KNOWN_PLAYERS = 50  # names the new-game page offers as chips, the most recent first
BUSY_MS = 30_000  # a writer waits this long for another's commit before giving up
MAX_ID = (1 << 63) - 1  # SQLite's largest row id


class StoreError(Exception):
    """The database cannot be used (written by a newer version, not a database, unwritable)."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """One kept game: its id, the record as sent, the engine's result and when it was saved."""

    id: int
    record: Any
    result: Any
    created: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "record": self.record, "result": self.result, "created": self.created}


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
        result = json.loads(result_text)
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                cursor = db.execute(
                    "INSERT INTO games (created, record, result) VALUES (?, ?, ?)",
                    (created, record_text(record), result_text),
                )
                game_id = int(cursor.lastrowid or 0)
                db.executemany(
                    "INSERT INTO game_players (game_id, name, rank, stars, folded) VALUES (?, ?, ?, ?, ?)",
                    [(game_id, s["name"], s["rank"], s["stars"], folded(s["name"])) for s in result["standings"]],
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return game_id

    def get(self, game_id: int) -> StoredGame | None:
        with self._connection() as db:
            row = db.execute("SELECT id, record, result, created FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else _stored(row)

    def delete(self, game_id: int) -> bool:
        """Forget one game; whether it was there."""
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM game_players WHERE game_id = ?", (game_id,))
                gone = db.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount > 0
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return gone

    def games(self, player: str | None = None, limit: int = 100, offset: int = 0) -> list[StoredGame]:
        """Kept games, newest first; with ``player``, those with a player whose name holds it
        (letters compared without case, by Unicode's case folding)."""
        where, args = _player_filter(player)
        with self._connection() as db:
            rows = db.execute(
                f"SELECT id, record, result, created FROM games{where} ORDER BY id DESC LIMIT ? OFFSET ?",
                (*args, limit, offset),
            ).fetchall()
        return [_stored(row) for row in rows]

    def games_of(self, name: str) -> list[StoredGame]:
        """Every kept game in which ``name`` (exactly) played, oldest first."""
        with self._connection() as db:
            rows = db.execute(
                "SELECT id, record, result, created FROM games WHERE id IN "
                "(SELECT game_id FROM game_players WHERE name = ?) ORDER BY id",
                (name,),
            ).fetchall()
        return [_stored(row) for row in rows]

    def every_game(self) -> Iterator[StoredGame]:
        """Every kept game, oldest first, read a few at a time."""
        with self._connection() as db:
            cursor = db.execute("SELECT id, record, result, created FROM games ORDER BY id")
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


def record_text(record: Any) -> str:
    """A record's data as compact JSON text, as kept."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _player_filter(player: str | None) -> tuple[str, tuple[Any, ...]]:
    """The WHERE clause (and its argument) keeping games with a player whose name holds ``player``."""
    if not player:
        return "", ()
    return " WHERE id IN (SELECT game_id FROM game_players WHERE instr(folded, ?) > 0)", (folded(player),)


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
    return StoredGame(int(row[0]), json.loads(row[1]), json.loads(row[2]), str(row[3]))


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
