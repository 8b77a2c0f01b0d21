"""Limits before work: a file's size and tokens, checked before `ast.parse` sees it.

The parser and every pass after it recurse once per level of an expression, and a link can hold
`1+1+…+1` with 16,000 terms, past what Pyodide's stack survives. The limits (`pysim.play.limits`; each
refusal names the line and the limit):

- a file holds at most MAX_SOURCE_BYTES bytes of UTF-8 (what a link holds, site/app/views/codeurl.py);
- one statement holds at most MAX_OPERATORS operators, where every bracket opened, `.`, `,`, `not`, `and`,
  `or`, `if` and `else` count as one (a comma adds an argument, element or target one step evaluates);
- brackets nest at most MAX_BRACKETS deep, blocks at most MAX_BLOCKS deep, where each `elif` and `else` of a
  chain nests one block more (as the parser nests them);
- no f-string (on Python 3.11 one is a single token, its contents unchecked: `f"{1+1+…}"`);
- a whole number written in the file lies in [-2**63, 2**63) (`limits.INT_LIMIT`, Numba's int64).
"""

from __future__ import annotations

import io
import tokenize

from .limits import INT_LIMIT, MAX_BLOCKS, MAX_BRACKETS, MAX_OPERATORS, MAX_SOURCE_BYTES
from .program import ProgramError

OPENERS = frozenset("([{")
CLOSERS = frozenset(")]}")
# Separators make no level of an expression. A comma does not either, but each one adds an argument, an
# element or a target that one step evaluates: `max(x, x, …)` with 10,000 arguments is one step costing
# milliseconds, so commas count toward the statement's operators too.
NOT_OPERATORS = frozenset({";", ":", "=", *CLOSERS})
WORD_OPERATORS = frozenset({"not", "and", "or", "if", "else", "lambda", "await", "yield", "is", "in"})
# `elif` nests an `if` inside the one before (and `else` a block): a chain is as deep as its branches.
BRANCHES = frozenset({"elif", "else"})
FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12 (Pyodide) tokenizes an f-string's parts
OPERATOR_RULE = "brackets, `.`, `,`, `not`, `and`, `or`, `if` and `else` count too"


class _Statement:
    """What the tokens of a file have opened so far: the current statement's operators, brackets open, and
    blocks, each indented block counted with the `elif`/`else` branches chained at its level."""

    def __init__(self) -> None:
        self.operators = self.brackets = 0
        self.chains = [0]  # branches chained at each indentation level, outermost first
        self.starting = True  # the next token begins a logical line

    def depth(self) -> int:
        return len(self.chains) - 1 + sum(self.chains)

    def read(self, kind: int, text: str, line: int) -> None:
        if kind == tokenize.NEWLINE or text == ";":
            self.operators, self.starting = 0, True  # a new statement
            return
        if kind == tokenize.INDENT:
            self.chains.append(0)
        elif kind == tokenize.DEDENT:
            self.chains.pop()
        elif self.starting and kind not in (tokenize.NL, tokenize.COMMENT):
            self.chains[-1] = self.chains[-1] + 1 if text in BRANCHES else 0
            self.starting = False
        if self.depth() > MAX_BLOCKS:
            raise ProgramError(
                line, f"blocks are nested more than {MAX_BLOCKS} deep (each `elif` and `else` nests one)"
            )
        if kind == tokenize.NUMBER:
            _check_literal(text, line)
        elif kind == FSTRING_START or (kind == tokenize.STRING and "f" in text[: text.index(text[-1])].lower()):
            raise ProgramError(line, "f-strings are not part of the playground's subset (a kernel has no strings)")
        if text in CLOSERS and kind == tokenize.OP:
            self.brackets -= 1
        elif (kind == tokenize.OP and text not in NOT_OPERATORS) or (kind == tokenize.NAME and text in WORD_OPERATORS):
            self.count_operator(text, line)

    def count_operator(self, text: str, line: int) -> None:
        self.operators += 1
        if self.operators > MAX_OPERATORS:
            raise ProgramError(
                line,
                f"this statement holds more than {MAX_OPERATORS} operators ({OPERATOR_RULE}); "
                "split it into several statements",
            )
        if text in OPENERS:
            self.brackets += 1
            if self.brackets > MAX_BRACKETS:
                raise ProgramError(line, f"brackets are nested more than {MAX_BRACKETS} deep")


def check_tokens(source: str) -> None:
    """Refuse a file past MAX_SOURCE_BYTES, or with a statement past MAX_OPERATORS, brackets past
    MAX_BRACKETS, blocks past MAX_BLOCKS, an f-string or a whole number past ±2**63, naming the line. A file
    the tokenizer stops reading mid-way is a syntax error here, so `ast.parse` only sees files within the limits."""
    data = source.encode("utf-8", "surrogatepass")
    if len(data) > MAX_SOURCE_BYTES:
        line = data[:MAX_SOURCE_BYTES].count(b"\n") + 1
        raise ProgramError(
            line,
            f"the file is {len(data):,} bytes; a playground file holds at most {MAX_SOURCE_BYTES:,} (as a link does)",
        )
    statement = _Statement()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            statement.read(token.type, token.string, token.start[0])
    except tokenize.TokenError:
        pass  # at the end of the file (an unclosed bracket): every token was seen; ast.parse names the line
    except SyntaxError as error:  # mid-file (IndentationError is one): what follows was not checked
        raise ProgramError(error.lineno or 0, f"syntax error: {error.msg}") from None


def _check_literal(text: str, line: int) -> None:
    """A whole number written in the file must fit in 64 bits (decided from its digits before converting)."""
    if any(mark in text.lower() for mark in (".", "j")) or ("e" in text.lower() and not text.lower().startswith("0x")):
        return  # a float (or an imaginary number, which the subset refuses later)
    digits = text.replace("_", "")
    try:  # 80 characters hold 2**63 in any base (binary takes 66), and convert at once
        fits = len(digits) <= 80 and -INT_LIMIT <= int(digits, 0) < INT_LIMIT
    except ValueError:
        return  # not a Python number (`0777`): ast.parse names the syntax error
    if not fits:
        raise ProgramError(
            line, f"the number {text[:24]}{'…' if len(text) > 24 else ''} does not fit in 64 bits (±2**63)"
        )
