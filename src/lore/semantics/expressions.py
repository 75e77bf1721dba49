"""Checking expressions: names, members, calls, operators, literals and lambdas.

A member that takes no arguments is called without parentheses (``goals.get1st``,
``self.choice``); a function-typed member (``handler``) is a value until it is called.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lore.records import record
from lore.semantics import builtins, literals
from lore.semantics.constants import fold
from lore.semantics.context import Context, ResultSlot
from lore.semantics.member_hints import members_hint
from lore.semantics.operators import arithmetic, operand_problem, ordered
from lore.semantics.program import UrlProblem, local_path
from lore.semantics.symbols import (
    BuiltinTypeSymbol,
    CallableSymbol,
    Container,
    EnumSymbol,
    EnumValueSymbol,
    FieldSymbol,
    FormSymbol,
    LocalSymbol,
    SectionSymbol,
    Symbol,
    VarSymbol,
)
from lore.semantics.types import (
    ANY,
    BOOLEAN,
    DICE,
    INTEGER,
    PRIMITIVES,
    REAL,
    STRING,
    TYPED_STRINGS,
    UNKNOWN,
    VOID,
    AnonFormT,
    EnumT,
    FormT,
    FuncT,
    InputT,
    ListT,
    RangeT,
    SectionT,
    Type,
    TypeOf,
    UnitT,
    assignable,
    common_type,
    has_unknown,
    is_lenient,
    is_numeric,
)
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic, Severity, with_article
from lore.syntax.files import describe
from lore.syntax.parser import value_start
from lore.syntax.source import SourceFile, Span

if TYPE_CHECKING:
    from lore.semantics.checker import Checker


@record(slots=False)
class Signature:
    """Something that can be called: a rule, function, accessor, alter or builtin."""

    name: str
    kind: str
    params: tuple[Type, ...]
    param_names: tuple[str, ...]
    result: Type | None
    min_args: int
    alter: bool = False
    refine: Callable[[list[Type]], Type] | None = None
    builtin: builtins.Builtin | None = None  # for a builtin member or function

    def describe(self) -> str:
        if self.kind in ("member", "function value", "builtin"):
            return f"'{self.name}'"
        return f"{self.kind} '{self.name}'"


@record(slots=False)
class Ref:
    """What a name or member stands for: a value, or something to call."""

    type: Type | None = None
    call: Signature | None = None
    symbol: Symbol | None = None


_ARITHMETIC = frozenset("+-*/%")
_CALLABLE_NODES = (ast.RuleDef, ast.FunctionDef, ast.AccessorDef, ast.AlterDef)
_ORDERING = frozenset(("<", ">", "<=", ">="))


class ExpressionChecker:
    def __init__(self, checker: Checker) -> None:
        self.checker = checker
        # ids of Name/Member nodes that were calls written without parentheses
        self.invocations: set[int] = set()
        # ids of those invocations that only read a value (`xs.length`, an accessor)
        self.pure_reads: set[int] = set()
        # The type found for each expression and what each name and member stands for
        # (by node id): what the compiler needs to know.
        self.types: dict[int, Type] = {}
        self.refs: dict[int, Ref] = {}

    # ------------------------------------------------------------ entry

    def check_expr(
        self, expr: ast.Expr, ctx: Context, expected: Type | None = None, quiet: bool = False
    ) -> Type:
        if quiet:
            diagnostics = self.checker.diagnostics
            mark = len(diagnostics)
            try:
                return self.check_expr(expr, ctx, expected)
            finally:
                del diagnostics[mark:]
        method = getattr(self, "expr_" + type(expr).__name__)
        found: Type = method(expr, ctx, expected)
        self.types[id(expr)] = found
        return found

    def expect(self, found: Type, expected: Type, expr: ast.Expr, ctx: Context, what: str) -> bool:
        """Report when a value of type ``found`` does not fit ``expected``."""
        if assignable(found, expected) or has_unknown(found) or has_unknown(expected):
            return True  # fits, or something in it was already reported
        checker = self.checker
        if isinstance(expr, ast.StringLit) and expr.kind is None and expected in TYPED_STRINGS:
            closer = _closing_delimiter(expr)
            checker.error(
                ctx,
                Span(expr.span.end - len(closer), expr.span.end),
                "check.type",
                f"{what} wants {expected}, got string",
                f"add ':{expected}' after the string",
            )
            return False
        shown = str(found)
        hint = None
        if isinstance(found, AnonFormT) and isinstance(expected, FormT):
            shown = "an untyped form literal" if isinstance(expr, ast.FormLit) else shown
            hint = f"type the form literal: {{...}}:{expected}"
        elif isinstance(expected, UnitT) and is_numeric(found):
            amount = expr.text if isinstance(expr, ast.IntLit | ast.RealLit) else "5"
            hint = f"give it a unit, like {amount}[{expected.unit}]"
        elif isinstance(expected, UnitT) and isinstance(found, UnitT):
            hint = f"[{found.unit}] and [{expected.unit}] measure different things"
        elif expected == INTEGER and found == REAL:
            hint = "round it with .round, .floor or .ceil"
        elif (
            found == VOID
            and isinstance(expected, FuncT)
            and isinstance(expr, ast.Name | ast.Member)
        ):
            hint = f"pass the rule as a lambda: @{{ {_source_text(expr, ctx)}; }}"
        checker.error(ctx, expr.span, "check.type", f"{what} wants {expected}, got {shown}", hint)
        return False

    # ------------------------------------------------------------ literals

    def expr_IntLit(self, expr: ast.IntLit, ctx: Context, expected: Type | None) -> Type:
        return INTEGER

    def expr_RealLit(self, expr: ast.RealLit, ctx: Context, expected: Type | None) -> Type:
        return REAL

    def expr_BoolLit(self, expr: ast.BoolLit, ctx: Context, expected: Type | None) -> Type:
        return BOOLEAN

    def expr_DiceLit(self, expr: ast.DiceLit, ctx: Context, expected: Type | None) -> Type:
        problem = literals.dice_problem(expr.count, expr.sides)
        if problem is not None:
            self.checker.error(ctx, expr.span, "check.dice", problem[0], problem[1])
        return DICE

    def expr_DiceOf(self, expr: ast.DiceOf, ctx: Context, expected: Type | None) -> Type:
        for part, what in ((expr.count, "the number of dice"), (expr.sides, "the sides")):
            found = self.check_expr(part, ctx, INTEGER)
            self.expect(found, INTEGER, part, ctx, what)
        return DICE

    def expr_StringLit(self, expr: ast.StringLit, ctx: Context, expected: Type | None) -> Type:
        if expr.kind is None:
            return STRING
        if expr.kind == "string":
            return STRING
        for problem in literals.check(expr.kind, expr.value):
            start = _source_offset(expr, ctx.source, problem.offset)
            end = _source_offset(expr, ctx.source, problem.offset + max(problem.length, 1))
            self.checker.error(
                ctx,
                Span(start, max(end, start + 1)),
                f"check.{expr.kind}",
                problem.message,
                problem.hint,
            )
        return PRIMITIVES[expr.kind]

    def expr_ListLit(self, expr: ast.ListLit, ctx: Context, expected: Type | None) -> Type:
        element_expected = expected.element if isinstance(expected, ListT) else None
        found: Type | None = None
        for item in expr.items:
            item_type = self.check_expr(item, ctx, element_expected)
            if found is None:
                found = item_type
                continue
            joined = common_type(found, item_type)
            if joined is None:
                self.checker.error(
                    ctx,
                    item.span,
                    "check.list-mixed",
                    f"a list holds one type: this is {item_type}, the list holds {found}",
                )
                joined = UNKNOWN
            found = joined
        return ListT(found if found is not None else UNKNOWN)

    def expr_RangeExpr(self, expr: ast.RangeExpr, ctx: Context, expected: Type | None) -> Type:
        low = self.check_expr(expr.low, ctx)
        high = self.check_expr(expr.high, ctx)
        joined = common_type(low, high)
        if joined is None or not (
            is_numeric(joined) or isinstance(joined, UnitT) or is_lenient(joined)
        ):
            self.checker.error(
                ctx,
                expr.span,
                "check.range",
                f"a range runs between two numbers or two quantities of one "
                f"kind, not {low} and {high}",
            )
            return RangeT(UNKNOWN)
        return RangeT(joined)

    def expr_WithUnit(self, expr: ast.WithUnit, ctx: Context, expected: Type | None) -> Type:
        if expr.unit[:1].isdigit() or expr.unit[:1] == "-":
            self.check_expr(expr.value, ctx)
            self.checker.error(
                ctx,
                Span(expr.value.span.end, expr.span.end),
                "check.index",
                f"[{expr.unit}] is not a unit: Lore has no indexing",
                (
                    f"write .get({expr.unit}) to take an element of a list"
                    if expr.unit.isdigit()
                    else "lists count from 0: write .get(i) with i >= 0"
                ),
            )
            return UNKNOWN
        found = self.check_expr(expr.value, ctx)
        unit = self.checker.unit_family(expr.unit, ctx, Span(expr.value.span.end, expr.span.end))
        if isinstance(found, UnitT):
            # `(x.toReal / v.toReal).toInt[sec]` is fine; `5[m][sec]` is not.
            self.checker.error(
                ctx,
                expr.span,
                "check.unit-twice",
                f"this is already a quantity in [{found.unit}]",
                "use .toReal or .toInt to get the bare number first",
            )
        elif not (is_numeric(found) or is_lenient(found)):
            self.checker.error(
                ctx,
                expr.value.span,
                "check.unit-number",
                f"only a number can be given a unit, not {found}",
            )
        elif unit is not None and isinstance(expr.value, ast.IntLit | ast.RealLit):
            family = unit.family
            problem = literals.quantity_problem(
                expr.value.value, family.factor(expr.unit), family.integer
            )
            if problem is not None:
                self.checker.error(ctx, expr.span, "check.quantity", problem)
        return unit or UNKNOWN

    def expr_TypeValue(self, expr: ast.TypeValue, ctx: Context, expected: Type | None) -> Type:
        return TypeOf(self.checker.resolve_type(expr.type, ctx))

    # ------------------------------------------------------------ forms and lambdas

    def expr_FormLit(self, expr: ast.FormLit, ctx: Context, expected: Type | None) -> Type:
        if _is_empty_braces(expr) and isinstance(expected, ListT):
            return expected
        if expr.type is None:
            return self.anonymous_form(expr, ctx)
        form_type = self.checker.resolve_type(expr.type, ctx)
        if isinstance(form_type, FormT):
            self.typed_form_members(expr, form_type.symbol, ctx)
            return form_type
        if not is_lenient(form_type):
            self.checker.error(
                ctx,
                expr.type.span,
                "check.form-literal-type",
                f"a form literal is typed with a form, not {form_type}",
            )
        self.anonymous_form(expr, ctx)
        return UNKNOWN

    def anonymous_form(self, expr: ast.FormLit, ctx: Context) -> Type:
        members: list[tuple[str, Type]] = []
        for member in expr.members:
            if isinstance(member, ast.VarDef):
                if any(name == member.name for name, _ in members):
                    self.checker.error(
                        ctx, member.name_span, "check.duplicate", f"'{member.name}' is given twice"
                    )
                declared = (
                    self.checker.resolve_type(member.type, ctx) if member.type is not None else None
                )
                found = self.check_expr(member.value, ctx, declared)
                if declared is not None:
                    self.expect(found, declared, member.value, ctx, f"'{member.name}'")
                    found = declared
                members.append((member.name, found))
            else:
                self.checker.error(
                    ctx,
                    member.span,
                    "check.form-literal-member",
                    "an untyped form literal only holds values: name = value;",
                    "type it ({...}:SomeForm) to define rules in it",
                )
        return AnonFormT(tuple(members))

    def typed_form_members(self, expr: ast.FormLit, form: FormSymbol, ctx: Context) -> None:
        # `self` inside the literal stays the enclosing object: in a rule of PC,
        # `{... handler = @{ self.moved(x); }; }:Event` runs `moved` of the PC.
        checker = self.checker
        given: set[str] = set()
        for member in expr.members:
            if isinstance(member, _CALLABLE_NODES):
                if member.name in given:
                    checker.error(
                        ctx, member.name_span, "check.duplicate", f"'{member.name}' is given twice"
                    )
                given.add(member.name)
                self.check_literal_callable(member, form, ctx)
                continue
            if not isinstance(member, ast.VarDef):
                checker.error(
                    ctx,
                    member.span,
                    "check.form-literal-member",
                    "a form literal holds values, rules, functions, accessors and alters",
                    "define forms, enums and units in a section",
                )
                continue
            if member.name in given:
                checker.error(
                    ctx, member.name_span, "check.duplicate", f"'{member.name}' is given twice"
                )
            given.add(member.name)
            target = form.lookup(member.name)
            if isinstance(target, FieldSymbol):
                expected = checker.field_type(target)
            elif isinstance(target, VarSymbol):
                expected = checker.var_type(target)
            else:
                if target is None:
                    checker.error(
                        ctx,
                        member.name_span,
                        "check.unknown-member",
                        f"form '{form.qualified_name}' has no member '{member.name}'",
                        checker.did_you_mean(member.name, form.all_member_names()),
                    )
                else:
                    checker.error(
                        ctx,
                        member.name_span,
                        "check.member-kind",
                        f"'{member.name}' is {with_article(target.kind)} of form '{form.name}'; "
                        "it cannot be given a value",
                    )
                self.check_expr(member.value, ctx)
                continue
            found = self.check_expr(member.value, ctx, expected)
            self.expect(found, expected, member.value, ctx, f"member '{member.name}'")
        self.missing_fields(expr, form, given, ctx)

    def missing_fields(
        self, expr: ast.FormLit, form: FormSymbol, given: set[str], ctx: Context
    ) -> None:
        """Warn of the fields a typed literal leaves without a value (reading one is a
        runtime error). Fields with a default, fields of a function type (an event's
        handler, rules the engine provides) and the builtin forms' fields (the paper
        leaves many of them out: an area's label, an actor's player) may be left out."""
        missing = []
        for name in form.all_member_names():
            symbol = form.lookup(name)
            if (
                name not in given
                and isinstance(symbol, FieldSymbol)
                and symbol.default is None
                and not symbol.source.name.startswith("<")
                and not isinstance(self.checker.field_type(symbol), FuncT)
            ):
                missing.append(name)
        if missing:
            listed = ", ".join(f"'{name}'" for name in missing)
            self.checker.warning(
                ctx,
                expr.type.span if expr.type is not None else expr.span,
                "check.missing-field",
                f"this {form.name} gives no value for {listed}",
                "reading a member without a value stops the rule; give it here",
            )

    def expr_Lambda(self, expr: ast.Lambda, ctx: Context, expected: Type | None) -> Type:
        checker = self.checker
        hinted = expected if isinstance(expected, FuncT) else None
        inner = ctx.nested()
        params: list[Type] = []
        for index, param in enumerate(expr.params):
            if param.type is not None:
                type_ = checker.resolve_type(param.type, ctx)
            elif hinted is not None and index < len(hinted.params):
                type_ = hinted.params[index]
            else:
                checker.error(
                    ctx,
                    param.span,
                    "check.param-type",
                    f"parameter '{param.name}' needs a type",
                    f"write '{param.name} : integer' (or the type it takes)",
                )
                type_ = UNKNOWN
            params.append(type_)
            inner.scope.names[param.name] = LocalSymbol(
                param.name, ctx.source, param.span, None, type=type_
            )
        result: Type | None = None
        if expr.result is not None:
            result = checker.resolve_type(expr.result, ctx)
        elif hinted is not None and hinted.result is not None and isinstance(expr.body, ast.Block):
            result = hinted.result
        if isinstance(expr.body, ast.Block):
            body = expr.body
            slot = ResultSlot("the lambda", result) if result is not None else None
            body_ctx = inner.replace(result=slot, in_alter=False)

            def check_body() -> None:
                try:
                    self.check_statements(body, body_ctx)
                    self.check_lost_writes(body, body_ctx)
                except RecursionError:
                    checker.error(
                        ctx,
                        expr.span,
                        "check.too-deep",
                        "this lambda is nested too deeply to be checked",
                        "split it into smaller rules",
                    )
                    return
                if slot is not None and not slot.assigned:
                    checker.error(
                        ctx,
                        expr.span,
                        "check.no-result",
                        "this lambda never sets its result",
                        "set it with 'result = ...;'",
                    )

            checker.deferred.append(check_body)
            return FuncT(tuple(params), result)
        found = self.check_expr(expr.body, inner, result)
        if result is not None:
            self.expect(found, result, expr.body, ctx, "the lambda's value")
            found = result
        return FuncT(tuple(params), found)

    def expr_Select(self, expr: ast.Select, ctx: Context, expected: Type | None) -> Type:
        return self.check_select(expr, ctx, as_value=True)

    # Statements are checked by the subclass (lambda bodies and select arms need them).

    def check_statements(self, block: ast.Block, ctx: Context) -> None:
        raise NotImplementedError

    def check_literal_callable(self, node: ast.Definition, form: FormSymbol, ctx: Context) -> None:
        raise NotImplementedError

    def check_select(self, select: ast.Select, ctx: Context, as_value: bool) -> Type:
        raise NotImplementedError

    # ------------------------------------------------------------ operators

    def expr_Unary(self, expr: ast.Unary, ctx: Context, expected: Type | None) -> Type:
        found = self.check_expr(expr.operand, ctx)
        if expr.op == "!":
            self.expect(found, BOOLEAN, expr.operand, ctx, "'!'")
            return BOOLEAN
        if is_numeric(found) or isinstance(found, UnitT) or found == DICE or is_lenient(found):
            return found
        self.checker.error(
            ctx,
            expr.span,
            "check.operand",
            f"cannot negate {found}",
            "use '!' for 'not'" if found == BOOLEAN else None,
        )
        return UNKNOWN

    def expr_Binary(self, expr: ast.Binary, ctx: Context, expected: Type | None) -> Type:
        # `a + b + c + ...` nests to the left as deep as it is long: walk that spine
        # in a loop, not by recursion.
        spine: list[ast.Binary] = [expr]
        while isinstance(spine[-1].left, ast.Binary):
            spine.append(spine[-1].left)
        left = self.check_expr(spine[-1].left, ctx)
        for binary in reversed(spine):
            # `xs == {}`: the empty braces are the empty list of xs's type.
            same = left if binary.op in ("==", "!=") and isinstance(left, ListT) else None
            right = self.check_expr(binary.right, ctx, same)
            left = self.combine(binary, left, right, ctx)
            if binary is not expr:
                self.types[id(binary)] = left
        return left

    def combine(self, expr: ast.Binary, left: Type, right: Type, ctx: Context) -> Type:
        """The type of ``left op right``; reports operands that do not combine."""
        if expr.op in ("/", "%") and fold(expr.right, self.symbol_of) == 0:
            self.checker.error(
                ctx,
                expr.right.span,
                "check.division-by-zero",
                "division by zero" if expr.op == "/" else "remainder by zero",
                "this is always 0 here",
            )
        if is_lenient(left) or is_lenient(right):
            return BOOLEAN if expr.op not in _ARITHMETIC else UNKNOWN
        op = expr.op
        result: Type | None
        if op in ("&", "|"):
            self.expect(left, BOOLEAN, expr.left, ctx, f"'{op}'")
            self.expect(right, BOOLEAN, expr.right, ctx, f"'{op}'")
            return BOOLEAN
        if op in ("==", "!="):
            result = (
                BOOLEAN
                if (
                    assignable(left, right)
                    or assignable(right, left)
                    or common_type(left, right) is not None
                )
                else None
            )
        elif op in _ORDERING:
            result = BOOLEAN if ordered(left, right) else None
        else:
            result = arithmetic(op, left, right)
        if result is None:
            texts = (_operand_text(expr.left, ctx), _operand_text(expr.right, ctx))
            problem = operand_problem(op, left, right, texts)
            reason = f": {problem.reason}" if problem.reason else ""
            self.checker.error(
                ctx,
                expr.span,
                "check.operands",
                f"'{op}' cannot combine {left} and {right}{reason}",
                problem.hint,
            )
            return UNKNOWN
        return result

    def expr_Conditional(self, expr: ast.Conditional, ctx: Context, expected: Type | None) -> Type:
        condition = self.check_expr(expr.condition, ctx, BOOLEAN)
        self.expect(condition, BOOLEAN, expr.condition, ctx, "the condition")
        then = self.check_expr(expr.then, ctx, expected)
        otherwise = self.check_expr(expr.otherwise, ctx, expected)
        # `ok ? xs : {}`: the empty braces are the empty list of the other branch's type.
        if isinstance(then, ListT) and _is_empty_braces(expr.otherwise):
            otherwise = self.check_expr(expr.otherwise, ctx, then)
        elif isinstance(otherwise, ListT) and _is_empty_braces(expr.then):
            then = self.check_expr(expr.then, ctx, otherwise)
        for branch, found in ((expr.then, then), (expr.otherwise, otherwise)):
            if found == VOID:
                self.checker.error(
                    ctx,
                    branch.span,
                    "check.no-value",
                    "this has no value for the conditional expression to give",
                    "to run one rule or another, use an if statement",
                )
                return UNKNOWN
        if is_lenient(then) or is_lenient(otherwise):
            return UNKNOWN if is_lenient(then) else then
        joined = common_type(then, otherwise)
        if joined is None:
            self.checker.error(
                ctx,
                expr.otherwise.span,
                "check.conditional",
                f"the two values of a conditional expression must be of one type: "
                f"this is {otherwise}, the other {then}",
            )
            return UNKNOWN
        return joined

    def check_lost_writes(self, body: ast.Block, ctx: Context) -> None:
        """Two alters writing one member in one body (the body checker says it)."""

    def symbol_of(self, expr: ast.Expr) -> Symbol | None:
        """What a checked name stands for (None: not a name, or not resolved)."""
        ref = self.refs.get(id(expr))
        return ref.symbol if ref is not None else None

    # ------------------------------------------------------------ names and members

    def expr_Name(self, expr: ast.Name, ctx: Context, expected: Type | None) -> Type:
        return self.value_of(self.resolve_name(expr, ctx), expr, ctx)

    def expr_Member(self, expr: ast.Member, ctx: Context, expected: Type | None) -> Type:
        return self.value_of(self.resolve_member(expr, ctx), expr, ctx)

    def value_of(self, ref: Ref, expr: ast.Name | ast.Member, ctx: Context) -> Type:
        """A reference used as a value: calls something that takes no arguments."""
        if ref.call is None:
            return ref.type if ref.type is not None else UNKNOWN
        call = ref.call
        if call.min_args > 0 or call.alter:
            count = 1 if call.alter else call.min_args
            names = f" ({', '.join(call.param_names)})" if call.param_names else ""
            self.checker.error(
                ctx,
                expr.span,
                "check.arguments",
                f"{call.describe()} needs {count} argument{'' if count == 1 else 's'}{names}",
                f"call it with {_source_text(expr, ctx)}(...)",
            )
            return UNKNOWN
        self.invocations.add(id(expr))
        checks = call.builtin.check if call.builtin is not None else None
        problem = checks([]) if checks is not None else None
        if problem is not None:
            self.checker.error(ctx, expr.span, "check.builtin-argument", problem)
            return UNKNOWN
        if call.result is not None and call.kind in ("member", "accessor"):
            self.pure_reads.add(id(expr))
        return call.result if call.result is not None else VOID

    def resolve_name(self, expr: ast.Name, ctx: Context) -> Ref:
        ref = self._resolve_name(expr, ctx)
        self.refs[id(expr)] = ref
        return ref

    def _resolve_name(self, expr: ast.Name, ctx: Context) -> Ref:
        checker = self.checker
        name = expr.name
        if name == "self":
            if ctx.self_type is None:
                checker.error(
                    ctx,
                    expr.span,
                    "check.self",
                    "'self' is only defined in a form",
                    "pass the object as a parameter",
                )
                return Ref(UNKNOWN)
            return Ref(ctx.self_type)
        if name == "result":
            slot = ctx.result
            if slot is None or slot.expected is None:
                checker.error(
                    ctx,
                    expr.span,
                    "check.result-read",
                    "'result' can be read only where its type is declared",
                )
                return Ref(UNKNOWN)
            return Ref(slot.expected)
        from lore.semantics.checker import AmbiguousName

        try:
            symbol = checker.lookup(name, ctx)
        except AmbiguousName as ambiguous:
            checker.error(ctx, expr.span, "check.ambiguous", str(ambiguous), ambiguous.hint)
            return Ref(UNKNOWN)
        if symbol is None and name in builtins.GLOBALS:
            return Ref(call=_builtin_signature(name, "builtin", builtins.GLOBALS[name]))
        if symbol is None:
            checker.error(
                ctx,
                expr.span,
                "check.undefined",
                f"undefined name '{name}'",
                checker.did_you_mean(name, checker.visible_names(ctx)),
            )
            return Ref(UNKNOWN)
        return self.ref_of_symbol(symbol, ctx, expr.span)

    def ref_of_symbol(self, symbol: Symbol, ctx: Context, span: Span) -> Ref:
        checker = self.checker
        if isinstance(symbol, LocalSymbol):
            return Ref(symbol.type or UNKNOWN, symbol=symbol)
        if isinstance(symbol, VarSymbol):
            return Ref(checker.var_type(symbol), symbol=symbol)
        if isinstance(symbol, FieldSymbol):
            return Ref(checker.field_type(symbol), symbol=symbol)
        if isinstance(symbol, CallableSymbol):
            params = checker.signature(symbol)
            node = symbol.node
            required = len(params)
            return Ref(
                call=Signature(
                    symbol.name,
                    symbol.kind,
                    params,
                    symbol.param_names,
                    symbol.result,
                    required,
                    alter=isinstance(node, ast.AlterDef),
                ),
                symbol=symbol,
            )
        if isinstance(symbol, SectionSymbol):
            return Ref(SectionT(symbol), symbol=symbol)
        if isinstance(symbol, EnumValueSymbol) and symbol.enum is not None:
            return Ref(EnumT(symbol.enum), symbol=symbol)
        type_ = checker.type_of_symbol(symbol)
        return Ref(TypeOf(type_) if type_ is not None else UNKNOWN, symbol=symbol)

    def resolve_member(self, expr: ast.Member, ctx: Context) -> Ref:
        target = self.check_expr(expr.target, ctx)
        ref = self.check_load_xml(expr, target, ctx)
        if ref is None:
            ref = self.member_of(target, expr.name, expr.name_span, ctx)
        self.refs[id(expr)] = ref
        return ref

    def member_of(self, target: Type, name: str, span: Span, ctx: Context) -> Ref:
        checker = self.checker
        if is_lenient(target):
            return Ref(target)
        if target == VOID:
            checker.error(ctx, span, "check.no-value", "this has no value to take a member of")
            return Ref(UNKNOWN)
        container: Container | None = None
        if isinstance(target, SectionT | FormT):
            container = target.symbol
        elif isinstance(target, TypeOf) and isinstance(target.type, FormT | EnumT):
            found = self.static_member(target.type, name, span, ctx)
            if found is not None:
                return found
        elif isinstance(target, EnumT):
            shared = target.symbol.members.get(name)
            if isinstance(shared, CallableSymbol):
                # A rule, function or accessor that every value of the enum shares.
                return self.ref_of_symbol(shared, ctx, span)
            member_type = checker.enum_member_type(target.symbol, name)
            if member_type is not None:
                return Ref(member_type)
        elif isinstance(target, AnonFormT):
            member_type = target.member(name)
            if member_type is not None:
                return Ref(member_type)
        if container is not None:
            symbol = (
                container.lookup(name)
                if isinstance(container, FormSymbol)
                else container.members.get(name)
            )
            if symbol is not None:
                self.check_private(symbol, container, span, ctx)
                return self.ref_of_symbol(symbol, ctx, span)
        builtin = builtins.member(target, name)
        if builtin is not None:
            return Ref(call=_builtin_signature(name, "member", builtin))
        candidates = self.member_names(target, container)
        missing = f"has no member '{name}'"
        if container is not None:
            what = f"{container.kind} '{container.qualified_name}'"
        elif isinstance(target, TypeOf) and isinstance(target.type, EnumT):
            what = f"enum '{target.type.symbol.qualified_name}'"
            missing = f"has no value or member '{name}'"
        elif isinstance(target, EnumT):
            what = f"a value of enum '{target.symbol.qualified_name}'"
        else:
            what = str(target) if isinstance(target, TypeOf) else f"type {target}"
        hint = members_hint(name, candidates)
        roll = checker.root.members.get("Roll")
        if target == DICE and isinstance(roll, FormSymbol) and roll.lookup(name) is not None:
            # `pool.text`: the faces are a Roll's, and dice are not rolled yet.
            hint = f"dice are not rolled yet: GM.roll(d).{name} (or an actor's roll) gives a Roll"
        checker.error(ctx, span, "check.unknown-member", f"{what} {missing}", hint)
        return Ref(UNKNOWN)

    def static_member(
        self, type_: FormT | EnumT, name: str, span: Span, ctx: Context
    ) -> Ref | None:
        """``Action.search``, ``Secret.Mode``, ``Environment.inherited``."""
        symbol = type_.symbol
        if isinstance(symbol, EnumSymbol):
            value = symbol.lookup_value(name)
            if value is not None:
                return Ref(EnumT(symbol), symbol=value)
        nested = symbol.lookup(name) if isinstance(symbol, FormSymbol) else symbol.members.get(name)
        if isinstance(nested, FormSymbol | EnumSymbol | BuiltinTypeSymbol):
            return self.ref_of_symbol(nested, ctx, span)
        if isinstance(symbol, FormSymbol) and name == "inherited":
            # An Environment (or any form) that takes its values from the parent area.
            return Ref(type_)
        return None

    def check_private(self, symbol: Symbol, container: Container, span: Span, ctx: Context) -> None:
        if not symbol.private:
            return
        # A private member of a form is for the form (and the forms that extend it, which
        # reach it by its plain name anyway); a private name of a section for the section.
        owner = symbol.parent if isinstance(container, FormSymbol) else container
        if owner is None or not isinstance(owner, SectionSymbol | FormSymbol):
            return
        if (
            isinstance(owner, FormSymbol)
            and ctx.self_form is not None
            and (ctx.self_form.is_subform_of(owner))
        ):
            return
        inside: Container | None = ctx.container
        while inside is not None:
            if inside is owner:
                return
            inside = inside.parent
        self.checker.error(
            ctx,
            span,
            "check.private",
            f"'{symbol.name}' is private to {owner.kind} '{owner.qualified_name}'",
        )

    def member_names(self, target: Type, container: Container | None) -> list[str]:
        names = list(builtins.members(target))
        if isinstance(container, FormSymbol):
            names.extend(container.all_member_names())
        elif container is not None:
            names.extend(container.members)
        if isinstance(target, TypeOf) and isinstance(target.type, EnumT):
            names.extend(target.type.symbol.values)
        if isinstance(target, EnumT) and target.symbol.node is not None:
            names.extend(target.symbol.members)
            for value in target.symbol.node.values:
                names.extend(m.name for m in value.members if isinstance(m, ast.VarDef))
        return names

    # ------------------------------------------------------------ calls

    def expr_NamedArg(self, expr: ast.NamedArg, ctx: Context, expected: Type | None) -> Type:
        """A named argument where none is taken (``T.input`` checks its own)."""
        self.check_expr(expr.value, ctx)
        self.checker.error(
            ctx,
            expr.span,
            "check.named-argument",
            f"'{expr.name} = ...' names an argument, which only T.input takes (min, max, default)",
            "give the arguments in order, without names",
        )
        return UNKNOWN

    def expr_Call(self, expr: ast.Call, ctx: Context, expected: Type | None) -> Type:
        func = expr.func
        if isinstance(func, ast.Name):
            ref = self.resolve_name(func, ctx)
        elif isinstance(func, ast.Member):
            ref = self.resolve_member(func, ctx)
        else:
            ref = Ref(self.check_expr(func, ctx))
        if ref.call is not None:
            return self.apply(ref.call, expr, ctx, ref.symbol)
        callee = ref.type if ref.type is not None else UNKNOWN
        if isinstance(callee, FuncT):
            name = _callee_name(func)
            signature = Signature(
                name, "function value", callee.params, (), callee.result, len(callee.params)
            )
            return self.apply(signature, expr, ctx, ref.symbol)
        for arg in expr.args:
            self.check_expr(arg, ctx)
        if not is_lenient(callee):
            self.checker.error(
                ctx,
                func.span,
                "check.not-callable",
                _not_callable(func, callee),
                "only rules, functions, accessors and lambdas take arguments",
            )
        return UNKNOWN

    def apply(
        self, signature: Signature, call: ast.Call, ctx: Context, symbol: Symbol | None
    ) -> Type:
        args = call.args
        if (
            signature.name == "input"
            and signature.builtin is not None
            and isinstance(signature.result, InputT)
            and any(isinstance(arg, ast.NamedArg) for arg in args)
        ):
            return self.input_bounds(signature.result, call, ctx)
        params = signature.params
        if signature.alter and len(params) == 1 and isinstance(params[0], ListT):
            # An alter is called with one value; it receives all the step's values.
            params = (params[0].element,)
        variadic = signature.builtin is not None and signature.builtin.variadic
        if variadic and len(args) > len(params):
            params = params + (params[-1],) * (len(args) - len(params))
        if not signature.min_args <= len(args) <= len(params):
            wanted = (
                str(len(params))
                if signature.min_args == len(params)
                else f"{signature.min_args} to {len(params)}"
            )
            if variadic:
                wanted = f"{signature.min_args} or more"
            names = f" ({', '.join(signature.param_names)})" if signature.param_names else ""
            self.checker.error(
                ctx,
                call.span,
                "check.arguments",
                f"{signature.describe()} takes {wanted} argument"
                f"{'' if wanted == '1' else 's'}{names}, got {len(args)}",
            )
        found: list[Type] = []
        for index, arg in enumerate(args):
            param = params[index] if index < len(params) else None
            arg_type = self.check_expr(arg, ctx, param)
            found.append(arg_type)
            if param is not None:
                if index < len(signature.param_names):
                    what = f"argument '{signature.param_names[index]}'"
                elif len(params) == 1:
                    what = "the argument"
                else:
                    what = f"argument {index + 1}"
                self.expect(arg_type, param, arg, ctx, f"{what} of {signature.describe()}")
        if signature.name == "input" and signature.builtin is not None and args:
            result = signature.result
            whole = isinstance(result, InputT) and result.type == INTEGER
            self.check_allowed_range(args[0], ctx, whole)
        checks = signature.builtin.check if signature.builtin is not None else None
        if checks is not None and not any(has_unknown(t) for t in found):
            problem = checks(found)
            if problem is not None:
                self.checker.error(ctx, call.span, "check.builtin-argument", problem)
                return UNKNOWN
        if signature.refine is not None:
            return signature.refine(found)
        if _is_query(signature, symbol) and len(found) == 2:
            return _query_result(found[1])
        return signature.result if signature.result is not None else VOID

    def input_bounds(self, result: InputT, call: ast.Call, ctx: Context) -> Type:
        """``unit[hour].input(min = 0, max = 24, default = 8)``: a number or quantity
        input with bounds (either may be left out) and a default, all given by name."""
        given: set[str] = set()
        wanted = result.type
        for arg in call.args:
            if not isinstance(arg, ast.NamedArg):
                self.check_expr(arg, ctx)
                self.checker.error(
                    ctx,
                    arg.span,
                    "check.named-argument",
                    "T.input with named bounds takes every argument by name",
                    "write min = ..., max = ... or default = ...",
                )
                continue
            found = self.check_expr(arg.value, ctx)
            self.types[id(arg)] = found
            if arg.name not in ("min", "max", "default") or arg.name in given:
                what = "twice" if arg.name in given else "here"
                self.checker.error(
                    ctx,
                    arg.span,
                    "check.named-argument",
                    f"'{arg.name}' cannot be given {what}: T.input takes min, max and default",
                )
                continue
            given.add(arg.name)
            plain = is_numeric(found) and not isinstance(found, UnitT)
            same_family = (
                isinstance(found, UnitT)
                and isinstance(wanted, UnitT)
                and found.family is wanted.family
            )
            fits = (is_numeric(wanted) or isinstance(wanted, UnitT)) and (plain or same_family)
            if wanted == INTEGER and found == REAL:
                fits = False
            if not fits and not has_unknown(found) and not has_unknown(wanted):
                self.checker.error(
                    ctx,
                    arg.value.span,
                    "check.named-argument",
                    f"'{arg.name}' of {wanted}.input is a number"
                    + (f" or a quantity of [{wanted.unit}]" if isinstance(wanted, UnitT) else "")
                    + f", not {with_article(str(found))}",
                    "min and max bound a number or quantity input",
                )
        return result

    def check_allowed_range(self, allowed: ast.Expr, ctx: Context, whole: bool) -> None:
        """``integer.input(1,...,0)``: an allowed range that holds no value at all (no whole
        number, for an ``integer.input``: ``1<...<2``)."""
        if not isinstance(allowed, ast.RangeExpr):
            return
        low, high = fold(allowed.low, self.symbol_of), fold(allowed.high, self.symbol_of)
        if low is None or high is None:
            return
        if whole and isinstance(low, int) and isinstance(high, int):
            empty = low + allowed.low_open > high - allowed.high_open
        else:
            empty = low > high or (low == high and (allowed.low_open or allowed.high_open))
        if empty:
            self.checker.error(
                ctx,
                allowed.span,
                "check.empty-range",
                f"the range {_source_text(allowed, ctx)} holds no value: nothing could be answered",
                "write the smaller end first, like 0,...,5",
            )

    # ------------------------------------------------------------ files named in the code

    def check_load_xml(self, expr: ast.Member, target_type: Type, ctx: Context) -> Ref | None:
        """``("dungeon.xml":url).loadXML``: the file must be in the program's folders,
        exist and be well-formed XML. What was read is kept for the world check and the
        compiler (``Checker.xml_files``), so the file is read once. The file is read when
        the rules are checked, so its url must be a literal."""
        target = expr.target
        if expr.name != "loadXML":
            return None
        if not isinstance(target, ast.StringLit) or target.kind != "url":
            if target_type == PRIMITIVES["url"]:
                self.checker.error(
                    ctx,
                    target.span,
                    "check.xml-url",
                    "loadXML reads its file when the rules are checked: its url must be "
                    "written out here",
                    'write the file\'s url itself, like ("dungeon.xml":url).loadXML',
                )
                return Ref(PRIMITIVES["xml"])
            return None
        xml_source = self.read_xml_file(target, ctx)
        self.checker.xml_files[id(target)] = xml_source
        if xml_source is None:
            return Ref(PRIMITIVES["xml"])
        try:
            literals.parse_xml(xml_source.text)
        except literals.XMLProblem as problem:
            offset = xml_source.offset_of(problem.line, problem.column)
            self.checker.diagnostics.append(
                Diagnostic(
                    Severity.ERROR,
                    "check.xml",
                    problem.message,
                    xml_source,
                    Span(offset, offset + problem.length),
                )
            )
        return Ref(PRIMITIVES["xml"])

    def read_xml_file(self, target: ast.StringLit, ctx: Context) -> SourceFile | None:
        """The file a ``loadXML`` url names, or None (with the error said)."""
        found = local_path(target.value)
        if isinstance(found, UrlProblem):
            self.checker.error(ctx, target.span, "check.url", found.message, found.hint)
            return None
        base = ctx.source.path.parent if ctx.source.path is not None else Path.cwd()
        path = base / found
        if not self.checker.program.allows(path):
            self.checker.error(
                ctx,
                target.span,
                "check.outside-file",
                f"'{target.value}' is outside the folders Lore reads",
                "Lore reads the folder of the file it runs (and below), its library and "
                "the folders of LORE_PATH",
            )
            return None
        try:
            return SourceFile.from_path(path, _shown_name(ctx.source, target.value, path))
        except OSError as error:
            if error.errno == errno.ENOENT or describe(error) == "no such file":
                self.checker.error(
                    ctx,
                    target.span,
                    "check.missing-file",
                    f"cannot find '{target.value}'",
                    "the file is looked up next to this Lore file",
                )
            else:
                self.checker.error(
                    ctx,
                    target.span,
                    "check.unreadable-file",
                    f"cannot read '{target.value}': {describe(error)}",
                )
            return None


def _builtin_signature(name: str, kind: str, builtin: builtins.Builtin) -> Signature:
    return Signature(
        name,
        kind,
        builtin.params,
        builtin.names,
        builtin.result,
        builtin.required,
        refine=builtin.refine,
        builtin=builtin,
    )


def _shown_name(source: SourceFile, relative: str, path: Path) -> str:
    if source.path is None:
        return str(path)
    parent = Path(source.name).parent
    return str(parent / relative) if str(parent) != "." else relative


def _not_callable(func: ast.Expr, callee: Type) -> str:
    if not isinstance(func, ast.Name | ast.Member):
        return f"a value of type {callee} cannot be called"
    if isinstance(callee, SectionT):
        return f"'{func.name}' is a section; it cannot be called"
    if isinstance(callee, TypeOf):
        return f"'{func.name}' is a type; it cannot be called"
    return f"'{func.name}' is a value of type {callee}; it cannot be called"


def _is_empty_braces(expr: ast.Expr) -> bool:
    """``{}``: the empty list where a list is expected, else an empty anonymous form."""
    return isinstance(expr, ast.FormLit) and expr.type is None and not expr.members


def _source_text(expr: ast.Expr, ctx: Context) -> str:
    """How an expression is written (for hints)."""
    return " ".join(ctx.source.text[expr.span.start : expr.span.end].split())


# Written like these, an operand takes a member or a unit after it without parentheses.
_POSTFIX_READY = (
    ast.Name,
    ast.IntLit,
    ast.RealLit,
    ast.StringLit,
    ast.Member,
    ast.Call,
    ast.ListLit,
    ast.WithUnit,
)


def _operand_text(expr: ast.Expr, ctx: Context) -> str:
    """How an operand is written, in parentheses unless it needs none (for hints)."""
    text = _source_text(expr, ctx)
    return text if isinstance(expr, _POSTFIX_READY) else f"({text})"


def _callee_name(func: ast.Expr) -> str:
    if isinstance(func, ast.Name | ast.Member):
        return func.name
    return "value"


def _is_query(signature: Signature, symbol: Symbol | None) -> bool:
    return (
        signature.name == "query"
        and isinstance(symbol, FieldSymbol)
        and isinstance(symbol.parent, FormSymbol)
        and symbol.source.name.startswith("<")
    )


def _query_result(spec: Type) -> Type:
    """The answer to a query: the spec with each ``T.input`` member replaced by a ``T``."""
    if not isinstance(spec, AnonFormT):
        return ANY
    return AnonFormT(
        tuple((name, t.type if isinstance(t, InputT) else t) for name, t in spec.members)
    )


def _closing_delimiter(expr: ast.StringLit) -> str:
    if expr.delimiter in ('"', "'"):
        return expr.delimiter
    return "]" + "=" * (len(expr.delimiter) - 2) + "]"


_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)


def _source_offset(expr: ast.StringLit, source: SourceFile, index: int) -> int:
    """Where character ``index`` of a string literal's value is in the file (escapes
    like ``\\"`` or ``\\u00e9`` take more characters in the file than in the value)."""
    start = value_start(expr, source)
    if expr.delimiter not in ('"', "'"):
        return start + index  # long strings have no escapes
    body = source.text[start : expr.span.end]
    position = 0
    for _ in range(index):
        if position >= len(body):
            break
        match = _ESCAPE.match(body, position)
        position = match.end() if match else position + 1
    return start + position
