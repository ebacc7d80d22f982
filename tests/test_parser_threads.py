"""The effect-language parser is shared by every thread of a process (the score pad loads
packs, and so parses card effects, on worker threads): parses made at once, in several
threads, each with quoted text whose ``{expr}`` parts are parsed while the enclosing text
is, give the trees and the problems a serial parse gives."""

from __future__ import annotations

import sys
import threading

from critter_kitchen.dsl.parser import SyntaxProblem, parse_program

TEXTS = [
    'for p in players:\n    if fish in served(p):\n        award 1 star to p for "fish {quality(p, fish)} of {p}"\n',
    'award 2 stars to highest(total_quality(p) for p in players) for "best {max(stars(p) for p in players)}"\n',
    "let best = max(total_quality(p) for p in players)\n"
    'for p in players:\n    if total_quality(p) == best:\n        award 1 star to p for "{best} and {p}"\n'
    "    else:\n        pass\n",
    'if true:\n    award 1 star to owner for "a {1 + 2 * 3} b {owner}"\nelif false:\n    pass\n',
    'award 1 star to owner for "x {1 +}"\n',  # a problem inside the quoted text
    "for p in players:\n    let x = 1\n  pass\n",  # indentation back to no block's level
    'award 1234567890123 stars to owner for "{owner}"\n',  # a number too large
]


def outcome(text: str, shift: int) -> object:
    """The tree of ``text`` read as if it began on line ``1 + shift`` (or its problem)."""
    try:
        return parse_program(text, lambda line, column: (line + shift, column + shift))
    except SyntaxProblem as e:
        return (e.line, e.column, e.width, e.message)


def test_parses_in_several_threads_at_once_give_the_serial_trees():
    jobs = [(text, shift) for shift in range(8) for text in TEXTS]
    expected = [outcome(text, shift) for text, shift in jobs]
    assert any(isinstance(e, tuple) for e in expected) and any(not isinstance(e, tuple) for e in expected)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        threads = 8
        results: list[list[object]] = [[] for _ in range(threads)]
        start = threading.Barrier(threads)

        def work(k: int) -> None:
            start.wait()
            for _ in range(15):
                results[k].append([outcome(text, shift) for text, shift in jobs])

        workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(old)
    for runs in results:
        assert len(runs) == 15
        for run in runs:
            assert run == expected


# A text with two problems reports the one the parser met first, whether it is a syntax
# error or a problem found building the tree (which the parser meets as it reads).
FIRST_PROBLEM = [
    ("award 1234567890123 stars to p\nlet = 3\n", (1, 7, 13, "number too large: at most 12 digits")),
    ('award 1 star to p for "x {y"\nlet = 3\n', (1, 26, 1, "'{' without a closing '}' in quoted text")),
    ('award 1 star to p for "x {1 +}"\nlet = 3\n', (1, 29, 1, "missing operand before end of text")),
    ("award 1234567890123 stars to p $\n", (1, 7, 13, "number too large: at most 12 digits")),
    ("let x = 1234567890123\n  let y = 2\n", (1, 9, 13, "number too large: at most 12 digits")),
    ("let x = " + "not " * 45 + "true\nlet = 2\n", (1, 25, 1, "nested more than 40 levels deep")),
    ("if true:\n    let x = 1234567890123\n  pass\n", (2, 13, 13, "number too large: at most 12 digits")),
    ("if true:\n    let x = 1\n  pass\n", (3, 1, 1, "this line's indentation matches no enclosing block")),
    ("let x = 1\nlet = 3\n", (2, 5, 1, "use '==' to compare; '=' only follows 'let NAME'")),
]


def test_of_two_problems_the_first_met_is_reported():
    assert [outcome(text, 0) for text, _ in FIRST_PROBLEM] == [problem for _, problem in FIRST_PROBLEM]
