"""The score pad's limits, in one place: every web request is untrusted input, so each one
gets bounded time and memory, and the server stays responsive to everyone else.

The README's "Limits and trust" section (the score pad) gives each value and why.
"""

from __future__ import annotations

# --- engine work: scoring, checking, planning, loading packs --------------------------------

ENGINE_WORKERS = 2  # jobs of engine work that run at once (threads; the development machine has 2 cores)
ENGINE_QUEUE = 16  # jobs that may wait for a worker; past it the answer is 503 at once
ENGINE_SECONDS = 10.0  # a request's answer waits this long for its engine work, then is 503
RETRY_SECONDS = 2  # the Retry-After of a 503 for a busy server
# Python lets one thread run at a time and makes the running one hand over to a waiting one
# after this long: the event loop waits this long, again and again, for a worker that plans
# (Python's default is 5 ms; at 1 ms the others' answers came 3 to 5 times sooner)
SWITCH_SECONDS = 0.001

# --- the ruleset cache: one ruleset per distinct list of packs, the least recently used dropped ---

RULESETS_KEPT = 16  # rulesets kept at most
# their size together, as pickled (the base pack's pickles to 70 KiB and holds some 9 times that in memory)
RULESETS_BYTES = 16 * 1024 * 1024

# --- statistics -------------------------------------------------------------------------------

# kept games whose challenge cards' credit (each card's meals scored again without it) is
# remembered, the least recently used forgotten first: the card statistics score a game again
# once per challenge card, so each game is worked out once, on the engine pool
CREDITS_KEPT = 10_000

# --- connections (uvicorn, HTTP/1.1 on h11) --------------------------------------------------

MAX_CONNECTIONS = 200  # connections held open; past it the one idle longest is closed
MAX_FILES = 8192  # files the server asks to be allowed to open (its soft limit raised toward the hard one)
HEADER_SECONDS = 10.0  # a request's line and headers must arrive within this of the connection or the last answer
KEEP_ALIVE_SECONDS = 5  # an idle kept-alive connection is closed after this (uvicorn's timeout_keep_alive)
MAX_HEADER_BYTES = 16 * 1024  # a request line and headers larger than this get 400 (h11's incomplete-event cap)
BODY_SECONDS = 30.0  # a request body must arrive whole within this once its headers did

# --- the access token --------------------------------------------------------------------

MIN_TOKEN = 16  # characters of a token given with --token or CRITTER_KITCHEN_TOKEN
GUESSES_AT_ONCE = 10  # wrong tokens one client address may send before it is slowed down
GUESS_SECONDS = 1.0  # then one more guess is allowed for each this many seconds
CLIENTS_TRACKED = 4096  # client addresses whose wrong guesses are remembered (the oldest forgotten first)

# --- game rooms: one game entered from several phones (see rooms.py) ---------------------

MAX_ROOMS = 32  # rooms open at once; past it a new room gets 503 until one expires or ends
ROOM_HOURS = 12  # a room nobody has written to for this long expires (and is forgotten)
ROOM_STREAMS = 16  # live streams of one room at once (7 players, a phone and a laptop each, and spare)
STREAMS_TOTAL = 64  # live streams in all rooms: a third of MAX_CONNECTIONS, so the rest still get in
STREAM_PING_SECONDS = 15.0  # a stream with no news sends a comment this often (a dead phone is found)
ROOM_WRITE_BYTES = 64 * 1024  # bytes of one player's meals as sent (a whole 7-player game is ~10 KiB)

# --- kept games: their history, and undo ----------------------------------------------------

GAME_VERSIONS = 50  # versions of one kept game kept (the latest and 49 earlier); an edit past it forgets the oldest
NOTE_CHARS = 200  # characters of the short note an edit of a kept game carries
UNDO_MINUTES = 10  # a deleted game or an ended room can be brought back this long, then is forgotten for good
