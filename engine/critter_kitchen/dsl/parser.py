"""Text of the effect language to syntax tree (lark, LALR, strict)."""

from __future__ import annotations

import difflib
import hashlib
import io
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer_NonRecursive, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.lark import PostLex

from .. import cache
from . import nodes as n
from .registry import KEYWORDS, STATEMENTS

MAX_DEPTH = 40  # how deeply expressions and blocks may nest
MAX_DIGITS = 12  # longest number literal
CACHE_FORMAT = 3  # bump when what the parser cache stores changes

Locate = n.Locate


class SyntaxProblem(Exception):
    """A DSL text that does not parse; ``line`` and ``column`` are file positions."""

    def __init__(self, message: str, line: int, column: int, width: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.width = width


BAD_DEDENT = "_BAD_DEDENT"  # a token no rule takes: indentation back to no enclosing block's level


class _Indentation(PostLex):
    """Python-style blocks: ``_INDENT`` and ``_DEDENT`` tokens from the indentation after each
    line break (as lark's ``Indenter`` makes them), outside parentheses.

    Keeps no state of its own: each parse's indentation lives in its own call of
    :meth:`process`, so one parser serves parses in several threads, and the parses of
    quoted text's ``{expr}`` parts made while the enclosing text is being read.
    """

    always_accept = ("_NL",)  # the contextual lexer must always see line breaks
    TAB_LEN = 4

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        parens = 0
        levels = [0]
        token = None
        for token in stream:
            kind = token.type
            if kind == "_NL":
                if parens == 0:
                    yield token
                    spaces = token.rsplit("\n", 1)[1]  # the next line's tabs and spaces
                    indent = spaces.count(" ") + spaces.count("\t") * self.TAB_LEN
                    if indent > levels[-1]:
                        levels.append(indent)
                        yield Token.new_borrow_pos("_INDENT", spaces, token)
                    else:
                        while indent < levels[-1]:
                            levels.pop()
                            yield Token.new_borrow_pos("_DEDENT", spaces, token)
                        if indent != levels[-1]:  # the parser stops at this token, as at any it cannot take
                            yield Token.new_borrow_pos(BAD_DEDENT, spaces, token)
            else:
                yield token
                if kind in ("LPAR", "LSQB"):
                    parens += 1
                elif kind in ("RPAR", "RSQB"):
                    parens -= 1
        while len(levels) > 1:
            levels.pop()
            yield Token.new_borrow_pos("_DEDENT", "", token) if token else Token("_DEDENT", "", 0, 0, 0, 0, 0, 0)


@lru_cache(maxsize=1)
def _lark() -> Lark:
    """The parser: text to lark's parse tree. It keeps no state between parses (a fresh
    :class:`_ToAst` makes the syntax tree of each), so any number of threads share it.

    Building the LALR tables with strict checks takes a noticeable part of a second, so
    the built parser is cached on disk, keyed by the grammar and the lark version. The
    tables lark saves are plain data (dicts, lists, text, numbers), so the entry is read
    admitting no class at all, after its MAC holds (:func:`critter_kitchen.cache.load`);
    the postlexer, which is code, is not saved but given to the loaded parser.
    """
    import lark

    grammar = resources.files(__package__).joinpath("grammar.lark").read_text("utf-8")
    key = hashlib.sha256(f"{CACHE_FORMAT}\n{lark.__version__}\n{grammar}".encode()).hexdigest()[:20]
    name = f"grammar-{key}.lark"
    data = cache.load(name, admitted=())
    if isinstance(data, dict):
        try:
            data["data"]["options"]["postlex"] = _Indentation()
            return Lark.load(data)  # a dict, not a file: lark unpickles nothing itself
        except Exception:  # noqa: BLE001 - an entry of another lark only costs a rebuild
            pass
    parser = Lark(
        grammar,
        parser="lalr",
        strict=True,
        postlex=_Indentation(),
        start=["program", "expr"],
        maybe_placeholders=True,
    )
    buffer = io.BytesIO()
    # strict checks ran while building; a loaded copy need not repeat them
    parser.save(buffer, exclude_options=("postlex", "strict"))
    cache.store_pickled(name, buffer.getvalue())
    return parser


_WORDS = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": "quoted text",
    "_NL": "end of line",
    "$END": "end of text",
    "_INDENT": "an indented block",
    "_DEDENT": "end of block",
    "STAR": "'star' or 'stars'",
    "COMPARE": "a comparison",
    "MULOP": "'*', '//' or '%'",
}


def _word(terminal: str) -> str:
    if terminal in _WORDS:
        return _WORDS[terminal]
    pattern = _lark().get_terminal(terminal).pattern.value if terminal in _terminal_names() else terminal
    return f"'{pattern}'"


@lru_cache(maxsize=1)
def _terminal_names() -> frozenset[str]:
    return frozenset(t.name for t in _lark().terminals)


def parse_program(text: str, locate: Locate) -> n.Program:
    """Parse a whole effect (statements); raise SyntaxProblem with a file position."""
    return _parse(text if text.endswith("\n") else text + "\n", "program", locate)  # type: ignore[return-value]


def parse_expr(text: str, locate: Locate) -> n.Expr:
    """Parse one expression, e.g. a tie-break key or a part of quoted text."""
    return _parse(text, "expr", locate)  # type: ignore[return-value]


def _parse(text: str, start: str, locate: Locate) -> n.Node:
    _check_parentheses(text, locate)
    try:
        try:
            tree = _lark().parse(text, start=start)
        except UnexpectedInput as e:
            _build_reduced(e, locate)
            if isinstance(e, UnexpectedToken) and e.token.type == BAD_DEDENT:
                fline, fcol = locate(_bad_dedent(text), 1)
                raise SyntaxProblem("this line's indentation matches no enclosing block", fline, fcol) from None
            raise _syntax_problem(e, text, locate) from None
        return _ToAst(locate).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, SyntaxProblem):
            raise e.orig_exc from None
        raise


def _build_reduced(e: UnexpectedInput, locate: Locate) -> None:
    """Build what the parser had read before it stopped at a syntax error, so that a problem
    found building it (a number too large, nesting too deep, a bad ``{expr}`` in quoted
    text) is the one reported when it comes first in the text, as the parser met it."""
    interactive = getattr(e, "interactive_parser", None)
    state = getattr(interactive, "parser_state", None)
    for value in getattr(state, "value_stack", ()):
        if isinstance(value, Tree):
            _ToAst(locate).transform(value)


def _bad_dedent(text: str) -> int:
    """The line whose indentation returns to no level an enclosing block used."""
    levels = [0]
    for number, line in enumerate(text.split("\n"), start=1):
        code = line.split("#", 1)[0]
        if not code.strip():
            continue
        indent = len(code) - len(code.lstrip(" \t"))
        if indent > levels[-1]:
            levels.append(indent)
        while indent < levels[-1]:
            levels.pop()
        if indent != levels[-1]:
            return number
    return 1


def _check_parentheses(text: str, locate: Locate) -> None:
    """Refuse deep parentheses before parsing, so that no parser or tree walk recurses deeply."""
    depth, line, col = 0, 1, 0
    quoted = commented = False
    for ch in text:
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
            quoted = commented = False
        elif commented:
            continue
        elif ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch == "#":
            commented = True
        elif ch in "([":
            depth += 1
            if depth > MAX_DEPTH:
                fline, fcol = locate(line, col)
                raise SyntaxProblem(f"parentheses nested more than {MAX_DEPTH} levels deep", fline, fcol)
        elif ch in ")]":
            depth = max(0, depth - 1)


def _syntax_problem(e: UnexpectedInput, text: str, locate: Locate) -> SyntaxProblem:
    line, col = getattr(e, "line", 1), getattr(e, "column", 1)
    if line in (None, -1) or col in (None, -1):  # at the very end of the text
        lines = text.rstrip("\n").split("\n")
        line, col = len(lines), len(lines[-1]) + 1
    fline, fcol = locate(line, col)
    if isinstance(e, UnexpectedCharacters):
        at = e.pos_in_stream or 0
        ch = text[at] if at < len(text) else ""
        fraction = _fraction_at(text, at)
        if fraction is not None:
            start, number = fraction
            fline, fcol = locate(line, col - (at - start))
            message = f"numbers are whole; '{number}' has a fraction{_scaled(number)} ('//' divides and rounds down)"
            return SyntaxProblem(message, fline, fcol, len(number))
        return SyntaxProblem(f"unexpected character {ch!r}", fline, fcol)
    token: Token | None = getattr(e, "token", None)
    expected: set[str] = set(getattr(e, "expected", None) or getattr(e, "accepts", None) or ())
    message = _friendly(token, expected, text)
    width = max(1, len(str(token))) if token is not None and token.type not in ("$END", "_NL") else 1
    if isinstance(e, UnexpectedEOF):
        message = "unexpected end of text"
    return SyntaxProblem(message, fline, fcol, width)


def _fraction_at(text: str, at: int) -> tuple[int, str] | None:
    """For a '.' between digits, as in ``1.5``: where that number starts, and the number."""
    if not (0 < at < len(text) - 1 and text[at] == "." and text[at - 1].isdigit() and text[at + 1].isdigit()):
        return None
    start, end = at, at + 1
    while start > 0 and text[start - 1].isdigit():
        start -= 1
    while end < len(text) and text[end].isdigit():
        end += 1
    return start, text[start:end]


def _scaled(number: str) -> str:
    """How to multiply by a number with a fraction in whole numbers: '1.5' is ``x * 3 // 2``."""
    from fractions import Fraction

    ratio = Fraction(number)
    times = f" * {ratio.numerator}" if ratio.numerator != 1 else ""
    return f": to multiply by {number}, write 'x{times} // {ratio.denominator}'"


def _friendly(token: Token | None, expected: set[str], text: str) -> str:
    kind = token.type if token is not None else "$END"
    value = str(token) if token is not None else ""
    if expected == {"_NL"} and token is not None and _line_before(text, token.line or 1).endswith(":"):
        return "expected an indented block after ':'"
    if kind in ("ELIF", "ELSE") and expected & {"AWARD", "LET", "FOR", "IF"}:
        return f"'{value}' must follow an 'if' block at the same indentation"
    if kind == "IF" and "COLON" in expected and token is not None and _previous_word(text, token) == "else":
        return "write 'elif' for 'else if'"
    if kind == "ASSIGN":
        return "use '==' to compare; '=' only follows 'let NAME'"
    if expected & {"RPAR", "RSQB"} and kind in ("_NL", "$END", "_DEDENT"):
        return "unclosed '['" if _last_open(text) == "[" else "unclosed parenthesis"
    if kind == "LSQB" and "LSQB" not in expected:
        return "unexpected '[': a list is written out where a value goes, and is not indexed"
    if kind == "NAME" and value not in KEYWORDS and expected & _STATEMENT_STARTS:
        guess = difflib.get_close_matches(value, KEYWORDS, n=1)
        hint = f"; did you mean '{guess[0]}'?" if guess else ""
        return f"unknown statement '{value}'{hint}"
    operand_start = {"INT", "NAME", "LPAR", "STRING"}
    if operand_start <= expected and kind not in operand_start:
        return f"missing operand before {_describe(kind, value)}"
    words = sorted(_word(t) for t in expected if not t.startswith("__"))
    shown = ", ".join(words[:6]) + (", ..." if len(words) > 6 else "")
    return f"unexpected {_describe(kind, value)}; expected {shown}"


# The terminals a statement starts with: each statement's first keyword (the grammar names
# each keyword's terminal by the word in capitals).
_STATEMENT_STARTS = frozenset(s.keywords[0].upper() for s in STATEMENTS.values())


def _last_open(text: str) -> str:
    """The innermost '(' or '[' that ``text`` leaves open (outside quotes and comments), or ''."""
    opened: list[str] = []
    quoted = commented = False
    for ch in text:
        if ch == "\n":
            quoted = commented = False
        elif commented or (quoted and ch != '"'):
            continue
        elif ch == '"':
            quoted = not quoted
        elif ch == "#":
            commented = True
        elif ch in "([":
            opened.append(ch)
        elif ch in ")]" and opened:
            opened.pop()
    return opened[-1] if opened else ""


def _previous_word(text: str, token: Token) -> str:
    """The word just before ``token`` on its line."""
    before = text.split("\n")[(token.line or 1) - 1][: (token.column or 1) - 1].split()
    return before[-1] if before else ""


def _line_before(text: str, line: int) -> str:
    earlier = [ln.split("#", 1)[0].rstrip() for ln in text.split("\n")[: line - 1]]
    return next((ln for ln in reversed(earlier) if ln), "")


def _describe(kind: str, value: str) -> str:
    if kind in ("_NL", "$END", "_INDENT", "_DEDENT"):
        return _WORDS[kind]
    return f"'{value}'"


def _pos(locate: Locate, token: Token) -> n.Pos:
    line, col = locate(token.line or 1, token.column or 1)
    return n.Pos(line, col, max(1, len(str(token))))


class _ToAst(Transformer_NonRecursive[Token, n.Node]):
    """Builds :mod:`nodes` from lark's tree of one parse, translating positions to the file.

    One for each parse. Not recursive: a deep tree gets its nesting problem, not Python's
    recursion limit. Nodes are built in the order lark reduced their rules (left to right,
    children first).
    """

    def __init__(self, locate: Locate) -> None:
        super().__init__(visit_tokens=False)
        self.locate = locate
        self.depths: dict[int, tuple[Any, int]] = {}  # node id -> (node, nesting depth)

    def check_depth(self, children: tuple[Any, ...], pos: n.Pos) -> None:
        if max((self.depth(c) for c in children), default=0) > MAX_DEPTH:
            raise SyntaxProblem(f"nested more than {MAX_DEPTH} levels deep", pos.line, pos.column)

    def depth(self, node: Any) -> int:
        # Children are built before their parents, so each lookup below is one level deep.
        cached = self.depths.get(id(node))
        if cached is not None and cached[0] is node:
            return cached[1]
        if isinstance(node, tuple):
            d = max((self.depth(c) for c in node), default=0)
        elif isinstance(node, n.Node):
            d = 1 + max((self.depth(getattr(node, f)) for f in node.__dataclass_fields__ if f != "pos"), default=0)
        else:
            return 0
        self.depths[id(node)] = (node, d)
        return d

    def p(self, token: Token) -> n.Pos:
        return _pos(self.locate, token)

    # statements
    def program(self, c: list[Any]) -> n.Program:
        statements = c
        body: tuple[n.Stmt, ...] = tuple(s for s in statements if isinstance(s, n.Node))  # type: ignore[misc]
        return n.Program(body[0].pos if body else n.Pos(*self.locate(1, 1)), body)

    def award(self, c: list[Any]) -> n.Award:
        kw, amount, _star, _to, target, _for, reason = c
        text = self.string([reason]) if reason is not None else None
        return n.Award(self.p(kw), amount, target, text)

    def let(self, c: list[Any]) -> n.Let:
        kw, name, _eq, value = c
        return n.Let(self.p(kw), str(name), value)

    def set_stmt(self, c: list[Any]) -> n.Modify:
        kw, target, _to, value = c
        return n.Modify(self.p(kw), "set", target, value)

    def add_stmt(self, c: list[Any]) -> n.Modify:
        kw, value, _to, target = c
        return n.Modify(self.p(kw), "add", target, value)

    def multiply_stmt(self, c: list[Any]) -> n.Modify:
        kw, target, _by, value = c
        return n.Modify(self.p(kw), "multiply", target, value)

    def pass_stmt(self, c: list[Any]) -> n.Pass:
        (kw,) = c
        return n.Pass(self.p(kw))

    def for_stmt(self, c: list[Any]) -> n.For:
        kw, var, _in, source, _c, body = c
        self.check_depth(body, self.p(kw))
        return n.For(self.p(kw), str(var), source, body)

    def if_stmt(self, c: list[Any]) -> n.If:
        kw, cond, _c, then, *elifs, _else, _c2, orelse = c
        # `elif` is an `else` holding one `if`: build the chain from its last branch back
        rest: tuple[n.Stmt, ...] = orelse or ()
        for pos, elif_cond, body in reversed(elifs):
            self.check_depth((*body, *rest), pos)
            rest = (n.If(pos, elif_cond, body, rest),)
        self.check_depth((*then, *rest), self.p(kw))
        return n.If(self.p(kw), cond, then, rest)

    def elif_clause(self, c: list[Any]) -> tuple[n.Pos, n.Expr, tuple[n.Stmt, ...]]:
        kw, cond, _c, body = c
        return self.p(kw), cond, body

    def suite(self, c: list[Any]) -> tuple[n.Stmt, ...]:
        statements = c
        return tuple(s for s in statements if isinstance(s, n.Node))  # type: ignore[misc]

    # expressions
    def boolop(self, c: list[Any]) -> n.BoolOp:
        left, op, right = c
        return n.BoolOp(self.p(op), str(op), left, right)

    def not_(self, c: list[Any]) -> n.Not:
        op, operand = c
        self.check_depth((operand,), self.p(op))
        return n.Not(self.p(op), operand)

    def compare(self, c: list[Any]) -> n.Compare:
        left, op, right = c
        return n.Compare(self.p(op), str(op), left, right)

    def contains(self, c: list[Any]) -> n.Contains:
        item, op, collection = c
        return n.Contains(self.p(op), item, collection, False)

    def not_contains(self, c: list[Any]) -> n.Contains:
        item, op, _in, collection = c
        return n.Contains(self.p(op), item, collection, True)

    def binop(self, c: list[Any]) -> n.BinOp:
        left, op, right = c
        self.check_depth((left, right), self.p(op))
        return n.BinOp(self.p(op), str(op), left, right)

    def neg(self, c: list[Any]) -> n.Neg:
        op, operand = c
        self.check_depth((operand,), self.p(op))
        return n.Neg(self.p(op), operand)

    def number(self, c: list[Any]) -> n.Number:
        (token,) = c
        if len(token) > MAX_DIGITS:
            pos = self.p(token)
            raise SyntaxProblem(f"number too large: at most {MAX_DIGITS} digits", pos.line, pos.column, pos.width)
        return n.Number(self.p(token), int(token))

    def name(self, c: list[Any]) -> n.Name:
        (token,) = c
        return n.Name(self.p(token), str(token))

    def string(self, c: list[Any]) -> n.Text:
        (token,) = c
        return _template(str(token), self.p(token), self.locate, token)

    def atom(self, c: list[Any]) -> n.Expr:
        _l, inner, _r = c
        return inner  # type: ignore[no-any-return]

    def call(self, c: list[Any]) -> n.Call:
        name, _l, *rest = c
        args = tuple(a for a in rest if isinstance(a, n.Node))
        self.check_depth(args, self.p(name))
        return n.Call(self.p(name), str(name), args)  # type: ignore[arg-type]

    def list_literal(self, c: list[Any]) -> n.ListOf:
        bracket, *rest = c
        items = tuple(a for a in rest if isinstance(a, n.Node))
        self.check_depth(items, self.p(bracket))
        return n.ListOf(self.p(bracket), items)  # type: ignore[arg-type]

    def comprehension(self, c: list[Any]) -> n.Comprehension:
        func, _l, element, _for, var, _in, source, _if, cond, _r = c
        self.check_depth((element, source), self.p(func))
        return n.Comprehension(self.p(func), str(func), element, str(var), self.p(var), source, cond)


def _shifted(locate: Locate, line: int, offset: int) -> Locate:
    """A locator for text that starts at ``offset`` on ``line`` of the enclosing text."""
    return lambda ln, col: locate(line, offset + col - 1)


def _template(raw: str, pos: n.Pos, locate: Locate, token: Token) -> n.Text:
    """Split quoted text into literal parts and ``{expr}`` parts."""
    body = raw[1:-1]
    parts: list[str | n.Expr] = []
    i = 0
    while i < len(body):
        j = body.find("{", i)
        if j < 0:
            parts.append(body[i:])
            break
        if j > i:
            parts.append(body[i:j])
        k = body.find("}", j)
        if k < 0:
            raise SyntaxProblem("'{' without a closing '}' in quoted text", pos.line, pos.column + 1 + j)
        offset = (token.column or 1) + 1 + j + 1  # column of the first character inside the braces
        line = token.line or 1
        parts.append(parse_expr(body[j + 1 : k], _shifted(locate, line, offset)))
        i = k + 1
    return n.Text(pos, tuple(parts))
