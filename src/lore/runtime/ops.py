"""Operations that compiled rules call: everything not a plain Python operator.

Each raises ``RuleError`` with a message for the rule author when a value is wrong;
the engine adds the Lore location from the compiled code's line map.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NoReturn

from lore.runtime.dice import Dice
from lore.runtime.errors import LimitExceeded, RuleError, bounded_whole
from lore.runtime.lists import MAX_LIST as MAX_LIST
from lore.runtime.lists import MAX_TEXT, work
from lore.runtime.quantity import Quantity, round_half_up
from lore.runtime.values import (
    EnumValue,
    InputMarker,
    LoreDict,
    LoreObject,
    Range,
    RuntimeType,
    TypedString,
    show,
)

# ``Runtime.first_request`` once the requests of the step are grouped in
# ``Runtime.requests`` (a second request came): further ones go there too.
GROUPED: Any = ("grouped",)
# The priorities of events that the engine's queue keys in its narrow layout (from minus
# this up to it, not included; see ``engine/session.py``): an event written in place with a
# constant priority among them goes to the queue with no look at its priority.
NARROW_PRIORITY = 1 << 7
# What a handler's one-event variant (``CompiledProgram.ones``) holds in place of its
# requests while it runs: none yet, or more than one (given to ``Runtime.request`` as the
# handler itself gives them, see ``more_requests``).
NO_REQUEST: Any = ("no request",)
MANY_REQUESTS: Any = ("many requests",)


class Closure:
    """A lambda's value: its compiled code and the values it captured (for a lambda that
    only calls a rule of an object, ``@{ x.rule; }``: that rule and that object).

    Compiled code and the list members call ``code(rt, captured, ...)`` themselves rather
    than the closure: a call through ``__call__`` nests Python's C stack, a plain call of
    a Python function does not (deep recursion stays safe).
    """

    __slots__ = ("captured", "code", "node_id")

    def __init__(self, code: Callable[..., Any], captured: Any, node_id: int) -> None:
        self.code = code
        self.captured = captured
        self.node_id = node_id

    def __call__(self, rt: Any, *args: Any) -> Any:
        return self.code(rt, self.captured, *args)


Handler = Callable[[Any, Any], Any]


def callee(value: Any) -> tuple[Callable[..., Any], Any]:
    """A lambda value to call: ``code(rt, first, *args)`` (its code and the values it
    captured). Compiled code calls lambdas so, not through ``Closure.__call__``: a plain
    call of a Python function takes no room on the machine's stack, so deep recursion
    through lambdas stays safe."""
    if value.__class__ is Closure:
        return value.code, value.captured
    if value is None:
        raise RuleError("this function has no value", "give it a lambda where it is written")
    if not callable(value):
        raise RuleError(f"{show(value)} cannot be called: it is no rule")
    return _call_plain, value


def field_callee(obj: Any, name: str) -> tuple[Callable[..., Any], Any]:
    """The function member ``name`` of ``obj`` to call as ``code(rt, first, *args)``: the
    lambda the object holds, or else the rule its form has (the engine's own)."""
    if not isinstance(obj, LoreObject):
        raise RuleError(f"{show(obj)} has no member '{name}'")
    fn = obj.values.get(name)
    if fn is not None:
        return callee(fn)
    form = obj.form
    native = (form.vtable.get(name) or form.resolve().get(name)) if form is not None else None
    if native is None:
        raise RuleError(
            f"{obj!r} has no value for '{name}'", "give it a function where the object is written"
        )
    return native, obj


def _call_plain(rt: Any, fn: Callable[..., Any], *args: Any) -> Any:
    return fn(rt, *args)


def handler_call(handler: Any) -> tuple[Handler, Any]:
    """How the engine runs an event's ``handler`` value: as ``fn(rt, arg)``.

    For a lambda that is its compiled code and the values it captured. (An event written
    in place in ``schedule.add`` whose handler only calls a rule of an object, as in
    ``@{ self.act; }``, is compiled to that rule and that object: no closure is made.)
    """
    if handler.__class__ is Closure:
        return handler.code, handler.captured
    if handler is None:
        return no_handler, None
    if not callable(handler):
        raise RuleError(f"an event's handler is a rule, not {show(handler)}")
    return plain_handler, handler


def run_entry(rt: Any, entry: tuple[Handler, Any]) -> Any:
    """The code of the handler of an event read back from the engine's queue: it runs
    the event as the queue keeps it, ``fn(rt, arg)``."""
    fn, arg = entry
    return fn(rt, arg)


def no_handler(rt: Any, arg: Any) -> None:
    """The handler of an event that has none."""


def plain_handler(rt: Any, handler: Callable[[Any], Any]) -> None:
    """The handler of an event whose handler is a rule value (not a lambda)."""
    handler(rt)


def ticks_of(value: Any) -> int:
    """A game time as whole ticks (an event's ``ticks``)."""
    ticks = value.to_int() if value.__class__ is Quantity else value
    if not isinstance(ticks, int) or isinstance(ticks, bool):
        raise RuleError(f"the event's ticks must be a game time, not {show(value)}")
    return ticks


# ------------------------------------------------------------ numbers


def dice_roll(dice: Dice, rt: Any) -> int:
    """``dice.roll``: each die past the first counts as an operation of the handler, so a
    rule that rolls 10,000 dice in a runaway recursion meets the limit soon."""
    count = dice.count()
    if count > 1:
        work(rt, count - 1)
    return dice.roll(rt.random)


def roll_dice(rt: Any, count: int, sides: int) -> int:
    """``dice_roll`` of a dice literal of ``count`` (2 or more) dice of ``sides`` sides,
    with no ``Dice`` looked at: the same operations counted and the same dice."""
    ops = rt.ops = rt.ops + count - 1
    if ops > rt.max_ops:
        rt.limit(at_entry=False)
    if count == 2:  # (2D6 and the like: two rolls, the dice ``rolls`` gives, fewer steps)
        return rt.roll(sides) + rt.roll(sides)  # type: ignore[no-any-return]
    return rt.rolls(count, sides)  # type: ignore[no-any-return]  # (rt.random is rt)


def int_mul(a: int, b: int) -> int:
    """``a * b`` of whole numbers (the one operation that grows them fast), bounded."""
    return bounded_whole(a * b)


def int_div(a: int, b: int) -> int:
    if b == 0:
        raise RuleError("division by zero")
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def num_div(a: Any, b: Any) -> Any:
    if isinstance(a, Quantity):
        return a / b
    if b == 0:
        raise RuleError("division by zero")
    return a / b


def int_mod(a: int, b: int) -> int:
    if b == 0:
        raise RuleError("remainder by zero")
    return a - b * int_div(a, b)


def num_mod(a: Any, b: Any) -> Any:
    if isinstance(a, Quantity):
        return a % b
    if b == 0:
        raise RuleError("remainder by zero")
    return math.fmod(a, b)


def fold(values: tuple[Any, ...], functions: tuple[Callable[[Any, Any], Any], ...]) -> Any:
    """A long chain of binary operations, ``a + b - c ...``: ``values`` are its operands
    in order, ``functions`` its operations, applied from the left."""
    result = values[0]
    for function, value in zip(functions, values[1:], strict=True):
        result = function(result, value)
    return result


def concat(a: Any, b: Any) -> str:
    # (A text is shown as it is, and a whole number as ``show`` shows it, without a call
    # of ``show``: most parts joined are texts and numbers.)
    if a.__class__ is not str:
        a = str(a) if a.__class__ is int else show(a, MAX_TEXT)
    if b.__class__ is not str:
        b = str(b) if b.__class__ is int else show(b, MAX_TEXT)
    joined: str = a + b
    if len(joined) > MAX_TEXT:
        raise LimitExceeded(f"a text of more than {MAX_TEXT} characters")
    return joined


def text_of(value: Any) -> str:
    """A part joined to a text that is not a text itself (see ``concat``)."""
    return str(value) if value.__class__ is int else show(value, MAX_TEXT)


def text_too_long() -> NoReturn:
    """The end of a rule that joined a text past ``MAX_TEXT`` (see ``concat``)."""
    raise LimitExceeded(f"a text of more than {MAX_TEXT} characters")


def sum_compared(a: Any, b: Any, c: Any, compare: Callable[[Any, Any], bool]) -> bool:
    """``compare(a + b, c)`` (``c`` worked out first: it only reads a value) of game
    times and other quantities of one family, with no quantity made for the sum: as
    ``schedule.current + 3[sec] <= last`` is asked before most events are added."""
    if a.__class__ is Quantity and b.__class__ is Quantity and c.__class__ is Quantity:
        family = a.family
        if b.family is family and c.family is family:
            return compare(a.value + b.value, c.value)
    return compare(a + b, c)


def least(*values: Any) -> Any:
    """``min(a, b, ...)``: the first of the smallest."""
    try:
        return min(values)
    except TypeError:
        raise RuleError("these values cannot be compared") from None


def greatest(*values: Any) -> Any:
    """``max(a, b, ...)``: the first of the largest."""
    try:
        return max(values)
    except TypeError:
        raise RuleError("these values cannot be compared") from None


def to_int(value: Any) -> int:
    if isinstance(value, Quantity):
        return value.to_int()
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RuleError(f"{value} has no integer value")
        return round_half_up(value)  # the language reference: toInt rounds half up
    return int(value)


def to_real(value: Any) -> float:
    if isinstance(value, Quantity):
        return value.to_real()
    return float(value)


def rounding(value: float, how: str) -> int:
    if not math.isfinite(value):
        raise RuleError(f"{value} cannot be rounded")
    if how == "ceil":
        return math.ceil(value)
    if how == "floor":
        return math.floor(value)
    return round_half_up(value)


def in_range(value: Any, bounds: Range) -> bool:
    return bounds.match(value)


def case_match(pattern: Any, subject: Any) -> bool:
    """``case(v)``: a range matches the values in it, anything else equal values."""
    if isinstance(pattern, Range):
        try:
            return pattern.match(subject)
        except TypeError:
            return False
    return bool(pattern == subject)


def is_a(value: Any, rtype: RuntimeType) -> bool:
    """``as(x : T)``: is ``value`` a ``T``?"""
    kind = rtype.kind
    if kind == "form":
        return (
            isinstance(value, LoreObject)
            and value.form is not None
            and rtype.form is not None
            and value.form.is_subform_of(rtype.form)
        )
    if kind == "enum":
        return (
            isinstance(value, EnumValue)
            and rtype.enum is not None
            and value.enum.is_subenum_of(rtype.enum)
        )
    if kind == "unit":
        return isinstance(value, Quantity) and value.family is rtype.family
    if kind == "prim":
        return _is_prim(value, rtype.name)
    if kind == "list":
        return isinstance(value, tuple)
    if kind == "range":
        return isinstance(value, Range)
    if kind == "dict":
        return isinstance(value, LoreDict)
    return kind == "any"


def _is_prim(value: Any, name: str) -> bool:
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name in ("real", "number"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str | TypedString)
    if name == "dice":
        return isinstance(value, Dice)
    return isinstance(value, TypedString) and value.kind == name


# ------------------------------------------------------------ members


def rule_of(obj: Any, name: str) -> Callable[..., Any]:
    """The rule ``name`` of ``obj``'s form (inherited ones included), to call as
    ``fn(rt, obj, *args)``."""
    form = obj.form if isinstance(obj, LoreObject) else None
    if form is None:
        raise RuleError(f"{show(obj)} has no rule '{name}'")
    fn = form.vtable.get(name) or form.resolve().get(name)
    if fn is None:
        raise RuleError(f"{obj!r} has no rule '{name}'")
    return fn


def member(obj: Any, name: str) -> Any:
    if isinstance(obj, LoreObject):
        try:
            return obj.values[name]
        except KeyError:
            raise RuleError(
                f"{obj!r} has no value for '{name}'", "give it a value where the object is written"
            ) from None
    if isinstance(obj, EnumValue):
        try:
            return obj.members[name]
        except KeyError:
            raise RuleError(f"{obj!r} has no member '{name}'") from None
    raise RuleError(f"{show(obj)} has no member '{name}'")


def dice_of(count: int, sides: int) -> Dice:
    return Dice.of(count, sides)


def with_unit(amount: Any, unit: str, family: Any) -> Quantity:
    if isinstance(amount, float) and not math.isfinite(amount):
        raise RuleError(f"{amount} is not a quantity")
    return Quantity.of(amount, unit, family)


def convert(value: Any, unit: str) -> Any:
    """A quantity passed where ``unit`` is expected, converted (and rounded)."""
    if isinstance(value, Quantity):
        return value.to(unit)
    return value


def input_marker(rtype: RuntimeType, *args: Any) -> InputMarker:
    allowed = args[0] if args else None
    whole = rtype.kind == "prim" and rtype.name == "integer"
    if isinstance(allowed, Range) and _is_empty(allowed, whole):
        raise RuleError(
            f"the allowed range {allowed} holds no value: nothing could be answered",
            "write the smaller end first",
        )
    return InputMarker(rtype, args)


def _is_empty(bounds: Range, whole: bool) -> bool:
    """Whether a range holds no value (no whole number, for ``whole``)."""
    low, high = bounds.low, bounds.high
    if whole and isinstance(low, int) and isinstance(high, int):
        return low + bounds.low_open > high - bounds.high_open
    try:
        if low > high:
            return True
        return bool(low == high and (bounds.low_open or bounds.high_open))
    except TypeError:
        return False


def bounded_input_marker(rtype: RuntimeType, low: Any, high: Any, default: Any) -> InputMarker:
    """``T.input(min = low, max = high, default = d)``: a number or quantity input whose
    answer must lie between the bounds given (None: no bound that side); a plain number
    bounds a quantity input in its unit."""
    low, high, default = (_in_unit(rtype, value) for value in (low, high, default))
    if low is not None and high is not None and low > high:
        raise RuleError(
            f"the bounds min = {show(low)} and max = {show(high)} hold no value: nothing"
            " could be answered",
            "make min the smaller",
        )
    allowed = Range(low, high) if low is not None or high is not None else None
    if default is not None and allowed is not None and not allowed.match(default):
        raise RuleError(f"the default {show(default)} is not between the bounds {allowed}")
    return InputMarker(rtype, (allowed, default) if default is not None else (allowed,))


def _in_unit(rtype: RuntimeType, value: Any) -> Any:
    if rtype.kind == "unit" and isinstance(value, int | float) and rtype.unit is not None:
        return with_unit(value, rtype.unit, rtype.family)
    return value


def choice_marker(rtype: RuntimeType, options: Any, *default: Any) -> InputMarker:
    """``T.choice(options)`` (with a default): pick one of the options."""
    picks = _options(options)
    if default and default[0] not in picks:
        raise RuleError(f"the default {show(default[0])} is not one of the options")
    return InputMarker(rtype, (None, *default), picks)


def choices_marker(rtype: RuntimeType, options: Any, least: int = 0, most: int = -1) -> InputMarker:
    """``T.choices(options, least, most)``: pick from ``least`` to ``most`` of the options
    (each at most once; ``most`` left out: as many as there are)."""
    picks = _options(options)
    top = len(picks) if most < 0 else most
    if not 0 <= least <= top:
        raise RuleError(f"cannot pick from {least} to {top} of {len(picks)} options")
    if least > len(picks):
        raise RuleError(f"cannot pick {least} of only {len(picks)} options")
    return InputMarker(rtype, (), picks, least, top)


def _options(options: Any) -> tuple[Any, ...]:
    if not isinstance(options, tuple):
        raise RuleError(f"the options of a choice are a list, not {show(options)}")
    if not options:
        raise RuleError("a choice needs at least one option", "check that the list is not empty")
    return options


# ------------------------------------------------------------ ranges


def range_of(low: Any, high: Any, low_open: bool, high_open: bool) -> Range:
    return Range(low, high, low_open, high_open)


def more_requests(rt: Any, obj: LoreObject, alter: str, first: Any, value: Any) -> Any:
    """A second request of ``obj``'s ``alter`` in a handler's one-event variant: it and the
    one held (``first``, unless it was given already) go where the handler puts them,
    grouped, and the variant ends as the handler does (its step takes the general path)."""
    if first is not MANY_REQUESTS:
        rt.request(obj, alter, first)
    rt.request(obj, alter, value)
    return MANY_REQUESTS
