"""Check-time checks of a rule system's chat commands: every ``Command`` value written as a
form literal with a literal ``pattern`` must have a pattern that reads (``lore.dice.patterns``).

``lore check`` then reports a mistake in a pattern at its character, as for any other
literal, instead of the session telling the GM when it starts.
"""

from __future__ import annotations

import re

from lore.semantics.check import CheckResult
from lore.semantics.symbols import Container, FormSymbol, VarSymbol
from lore.semantics.types import FormT
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic, Severity
from lore.syntax.source import Span


def check_command_patterns(result: CheckResult) -> list[Diagnostic]:
    command = result.checker.root.members.get("Command")
    if not isinstance(command, FormSymbol):
        return []
    found: list[Diagnostic] = []
    for symbol in commands(result.checker.root, command):
        node = symbol.node
        if node is None or not isinstance(node.value, ast.FormLit):
            continue
        for member in node.value.members:
            if (
                isinstance(member, ast.VarDef)
                and member.name == "pattern"
                and isinstance(member.value, ast.StringLit)
            ):
                problem = pattern_problem(member.value, symbol)
                if problem is not None:
                    found.append(problem)
    return found


def commands(container: Container, command: FormSymbol) -> list[VarSymbol]:
    """The values of the program (not the prelude's) whose type is a Command."""
    found: list[VarSymbol] = []
    for symbol in container.members.values():
        if symbol.source.name == "<lore>/prelude.lore":
            continue
        if isinstance(symbol, Container) and not isinstance(symbol, FormSymbol):
            found.extend(commands(symbol, command))
        elif (
            isinstance(symbol, VarSymbol)
            and isinstance(symbol.type, FormT)
            and symbol.type.symbol.is_subform_of(command)
        ):
            found.append(symbol)
    return found


# A pattern's sign escaped once in the string (`"\\("`): an unknown escape of the string.
_PATTERN_SIGN_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\[(){}?]")


def pattern_problem(literal: ast.StringLit, symbol: VarSymbol) -> Diagnostic | None:
    # Imported here: the dice commands take longer to load than a small file to check,
    # and most files write no chat command.
    from lore.dice.patterns import PatternError, parse_pattern

    written = symbol.source.text[literal.span.start + 1 : literal.span.end - 1]
    if _PATTERN_SIGN_ESCAPE.search(written):
        return None  # `"\("`: the lexer says where, of the escape; the pattern would follow
    try:
        parse_pattern(literal.value)
    except PatternError as error:
        span = literal.span
        if written == literal.value and literal.delimiter in ('"', "'"):
            # No escape before it: the character the pattern names is where it is written.
            at = span.start + error.column
            span = Span(at, min(at + 1, span.end - 1))
        return Diagnostic(
            Severity.ERROR,
            "check.pattern",
            f"the pattern of the command '{symbol.qualified_name}': {error.message}",
            symbol.source,
            span,
            "a pattern is written as typed, with {name} for a number and (...)? for a part"
            " that may be left out",
        )
    return None
