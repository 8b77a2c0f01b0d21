"""Limits before work: a file's size and tokens, checked before `ast.parse` sees it.

The parser and every pass after it recurse once per level of an expression, and a link can hold
`1+1+…+1` with 16,000 terms, past what Pyodide's stack survives. The limits (`pysim.play.limits`; each
refusal names the line and the limit):

- a file holds at most MAX_SOURCE_BYTES bytes of UTF-8 (what a link holds, site/app/views/codeurl.py);
- one statement holds at most MAX_OPERATORS operators, where every bracket opened, `.`, `not`, `and`,
  `or`, `if` and `else` count as one;
- brackets nest at most MAX_BRACKETS deep, blocks at most MAX_BLOCKS deep;
- a whole number written in the file lies in [-2**63, 2**63) (`limits.INT_LIMIT`, Numba's int64).
"""

from __future__ import annotations

import io
import tokenize

from .limits import INT_LIMIT, MAX_BLOCKS, MAX_BRACKETS, MAX_OPERATORS, MAX_SOURCE_BYTES
from .program import ProgramError

OPENERS = frozenset("([{")
CLOSERS = frozenset(")]}")
NOT_OPERATORS = frozenset({",", ";", ":", "=", *CLOSERS})  # separators: they make no level of an expression
WORD_OPERATORS = frozenset({"not", "and", "or", "if", "else", "lambda", "await", "yield", "is", "in"})


def check_tokens(source: str) -> None:
    """Refuse a file past MAX_SOURCE_BYTES, or with a statement past MAX_OPERATORS, brackets past
    MAX_BRACKETS, blocks past MAX_BLOCKS or a whole number past ±2**63, naming the line. A file the
    tokenizer stops reading mid-way is a syntax error here, so `ast.parse` only sees files within the limits."""
    data = source.encode("utf-8", "surrogatepass")
    if len(data) > MAX_SOURCE_BYTES:
        line = data[:MAX_SOURCE_BYTES].count(b"\n") + 1
        raise ProgramError(
            line,
            f"the file is {len(data):,} bytes; a playground file holds at most {MAX_SOURCE_BYTES:,} (as a link does)",
        )
    operators = brackets = blocks = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            kind, text, line = token.type, token.string, token.start[0]
            if kind == tokenize.NEWLINE or text == ";":
                operators = 0  # a new statement
            elif kind == tokenize.INDENT:
                blocks += 1
                if blocks > MAX_BLOCKS:
                    raise ProgramError(line, f"blocks are nested more than {MAX_BLOCKS} deep")
            elif kind == tokenize.DEDENT:
                blocks -= 1
            elif kind == tokenize.NUMBER:
                _check_literal(text, line)
            if text in CLOSERS and kind == tokenize.OP:
                brackets -= 1
            elif (kind == tokenize.OP and text not in NOT_OPERATORS) or (
                kind == tokenize.NAME and text in WORD_OPERATORS
            ):
                operators += 1
                if operators > MAX_OPERATORS:
                    raise ProgramError(
                        line,
                        f"this statement holds more than {MAX_OPERATORS} operators (brackets, `.`, `not`, `and`, "
                        "`or`, `if` and `else` count too); split it into several statements",
                    )
                if text in OPENERS:
                    brackets += 1
                    if brackets > MAX_BRACKETS:
                        raise ProgramError(line, f"brackets are nested more than {MAX_BRACKETS} deep")
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
