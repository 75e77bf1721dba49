"""``lore roll COMMAND`` and ``lore odds COMMAND``: BCDice dice commands at the terminal.

``lore roll "2D6+3>=10" [--seed N] [--dice 6,4] [--json] [--system SYSTEM] [--lang en]``
rolls a command and prints BCDice's result text. ``--dice`` gives the faces to roll, in order (to
replay a roll); ``--json`` prints the text, every die with its sides, and the flags.
``--system`` adds the chat commands of a rule system written in Lore: a bundled one
(``orm``, ``ninja``) or a ``.lore`` file, whose ``Command`` values are tried first; or
it names one of BCDice's game systems by its id (``Cthulhu``, ``Cthulhu7th``,
``SwordWorld2.5``, ``DoubleCross``, ``Emoklore``), whose commands are tried first.
``--lang`` is the language of the table, in which a rule system's command writes its
result (Japanese by default; BCDice's own commands write Japanese).

``lore odds "7R10[10]>=8" [--successes N] [--critical COND] [--fumble COND]
[--against COMMAND] [--system SYSTEM] [--json]`` prints the exact odds of a command's
outcomes: a table of each total (or count of successes) with its chance, as a fraction
and a percentage.
``--successes N`` adds the chance of N or more successes; ``--critical`` and
``--fumble`` take face conditions such as ``[6]>=2`` (two or more 6s) or ``[1]=all``;
``--against`` compares the command with another (an opposed check). ``--system`` with
a BCDice id gives the odds of that system's checks (``CC<=60``, ``DX``, ``DM``...); with
a bundled rule system, those of its chat commands (``ORM3+4>=12``, ``NJ7@2``, ``NJ7VS5``,
``NJE7@5``: ``lore.dice.bundled_odds``), as their rules judge them.

Exit status: 0 done, 1 not a dice command (or dice that do not fit it), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lore.cli.io import print_diagnostics, usage_error
from lore.dice import DiceError, FixedSource, RandomSource, RollResult, evaluate, seeded, system
from lore.dice.distribution import OddsError
from lore.dice.odds import Odds, Opposed, odds, opposed
from lore.dice.source import Tray
from lore.dice.systems import SYSTEMS as SYSTEMS_BY_ID
from lore.dice.systems import GameSystem, evaluate_in
from lore.dice.systems import find as find_game
from lore.runtime.errors import RuleError

if TYPE_CHECKING:
    from lore.engine.session import Session

SYSTEMS = frozenset({"orm", "ninja"})  # the bundled libraries that are rule systems
EXAMPLES = "for example 2D6+3>=10, 4D6KH3, 5B6>=4, 3R6[6]>=5, 4U6[6], D66, choice[A,B]"
BAR_WIDTH = 30


def add_roll_arguments(roll: argparse.ArgumentParser) -> None:
    """The arguments of ``lore roll``."""
    roll.description = __doc__
    roll.formatter_class = argparse.RawDescriptionHelpFormatter
    roll.add_argument("command", metavar="COMMAND", help="a dice command, such as 2D6+3>=10")
    roll.add_argument("--seed", type=int, default=None, metavar="N", help="roll from seed N")
    roll.add_argument(
        "--dice", metavar="FACES", help="the faces to roll, in order, such as 6,4 (a replay)"
    )
    roll.add_argument("--json", action="store_true", help="print the result as JSON")
    roll.add_argument(
        "--system",
        metavar="SYSTEM",
        help="also the chat commands of a rule system: orm, ninja, a .lore file, or a BCDice"
        " game system's id (Cthulhu, Cthulhu7th, SwordWorld2.5, DoubleCross, Emoklore)",
    )
    roll.add_argument(
        "--lang",
        choices=("ja", "en"),
        default="ja",
        help="the language in which a rule system's command writes its result (default: ja)",
    )


def add_odds_arguments(chances: argparse.ArgumentParser) -> None:
    """The arguments of ``lore odds``."""
    chances.description = __doc__
    chances.formatter_class = argparse.RawDescriptionHelpFormatter
    chances.add_argument("command", metavar="COMMAND", help="a dice command, such as 7R10[10]>=8")
    chances.add_argument(
        "--successes", type=int, metavar="N", help="the chance of N or more successes"
    )
    chances.add_argument("--critical", metavar="COND", help="a critical: such as [6]>=2")
    chances.add_argument("--fumble", metavar="COND", help="a fumble: such as [1]=all")
    chances.add_argument(
        "--against", metavar="COMMAND", help="an opposed check: the passive side's command"
    )
    chances.add_argument(
        "--system",
        metavar="SYSTEM",
        help="the odds of a system's commands: a bundled rule system (orm, ninja), or a BCDice"
        " game system's id (Cthulhu, Cthulhu7th, SwordWorld2.5, DoubleCross, Emoklore)",
    )
    chances.add_argument("--json", action="store_true", help="print the odds as JSON")


# -- lore roll


def run_roll(args: argparse.Namespace) -> int:
    if args.dice is not None and args.seed is not None:
        usage_error("give --dice or --seed, not both")
        return 2
    source: RandomSource
    fixed = None
    if args.dice is not None:
        faces = read_faces(args.dice)
        if faces is None:
            usage_error(f"--dice takes faces separated by commas, such as 6,4 (not {args.dice!r})")
            return 2
        source = fixed = FixedSource(faces)
    else:
        source = system() if args.seed is None else seeded(args.seed)
    game = find_game(args.system) if args.system is not None else None
    if game is not None:
        return roll_game(game, args.command, source, fixed, args.json)
    session: Session | None = None
    if args.system is not None:
        made = system_session(args.system)
        if isinstance(made, int):
            return made
        session = made
    try:
        if session is None:
            result = evaluate(args.command, source)
        else:
            from lore.engine.system_commands import chat_roll

            result = chat_roll(session, args.command, "GM", source, language=args.lang)
    except DiceError as error:
        usage_error(str(error))
        return 1
    except RuleError as error:
        print(error.render(), file=sys.stderr)
        return 1
    if result is None:
        hint = system_hint(args.command, args.system)
        usage_error(hint or f"{args.command!r} is not a dice command ({known_commands(session)})")
        return 1
    return print_roll(result, fixed, args.json)


def print_roll(result: RollResult, fixed: FixedSource | None, as_json: bool) -> int:
    if fixed is not None and fixed.left:
        used = len(result.dice)
        usage_error(f"--dice gave {used + fixed.left} faces, but the command rolled {used}")
        return 1
    if as_json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        print(result.text)
    return 0


def roll_game(
    game: GameSystem, command: str, source: RandomSource, fixed: FixedSource | None, as_json: bool
) -> int:
    """``lore roll --system ID``: a line rolled as BCDice's game system ``game`` does."""
    try:
        result = evaluate_in(game.id, command, source)
    except DiceError as error:
        usage_error(str(error))
        return 1
    if result is None:
        usage_error(
            f"{command!r} is not a dice command of {game.id} ({game.name}): its own are"
            f" such as {', '.join(game.commands)}; {EXAMPLES}"
        )
        return 1
    return print_roll(result, fixed, as_json)


def game_ids() -> str:
    return ", ".join(SYSTEMS_BY_ID)


def system_session(name: str) -> Session | int:
    """A session of the rule system ``name`` (a bundled library, or a file) with its
    values made, so that its chat commands can roll; or the exit status of a failure,
    told on stderr. (The engine is imported here: a plain roll starts without it.)"""
    from lore.semantics.program import LIBRARY_DIR

    bundled = LIBRARY_DIR / f"{name}.lore"
    path = bundled if "/" not in name and bundled.is_file() else Path(name)
    if not path.is_file():
        systems = ", ".join(sorted(p.stem for p in LIBRARY_DIR.glob("*.lore") if p.stem in SYSTEMS))
        usage_error(
            f"--system: no rule system {name!r} (bundled: {systems}; or a .lore file;"
            f" or BCDice's {game_ids()})"
        )
        return 2
    return start_system(path) or 1


def start_system(path: Path, report: bool = True) -> Session | None:
    """The started session of the rule system in ``path``; None when it has errors
    (told on stderr, when ``report``)."""
    from lore.engine.session import Session
    from lore.runtime.compiler import compile_program
    from lore.semantics.check import check_paths
    from lore.syntax.diagnostics import has_errors

    result = check_paths([path])
    if has_errors(result.diagnostics):
        if report:
            print_diagnostics(result.diagnostics)
        return None
    session = Session(compile_program(result))
    try:
        session.start()
    except RuleError as error:
        if report:
            print(error.render(), file=sys.stderr)
        return None
    return session


def system_hint(command: str, given: str | None) -> str:
    """For a line that is no dice command here: the bundled rule systems (other than the
    one ``given``) whose chat commands it is, as the option to give ("" for none)."""
    from lore.engine.system_commands import match
    from lore.semantics.program import LIBRARY_DIR

    found = []
    for name in sorted(SYSTEMS - {given}):
        session = start_system(LIBRARY_DIR / f"{name}.lore", report=False)
        if session is not None and match(session, command.strip()) is not None:
            found.append(f"--system {name}")
    games = [f"--system {game.id}" for game in SYSTEMS_BY_ID.values() if reads(game, command)]
    if not found and not games:
        return ""
    here = (
        f"the rule system {given}" if given else "BCDice's common commands" if games else "BCDice"
    )
    kinds = " or ".join(
        kind
        for kind, there in (("a bundled rule system", found), ("a BCDice game system", games))
        if there
    )
    return (
        f"{command!r} is not a dice command of {here} but of {kinds}:"
        f" did you mean {' or '.join(found + games)}?"
    )


def reads(game: GameSystem, command: str) -> bool:
    """Whether the line is one of the game system's own commands (rolled on trial dice)."""
    try:
        return game.roll(command, Tray(seeded(0))) is not None
    except DiceError:
        return True


def known_commands(session: Session | None) -> str:
    """What a line may be: the system's command patterns, then BCDice's."""
    from lore.engine.system_commands import help_lines

    patterns = [pattern for pattern, _ in help_lines(session)] if session is not None else []
    return f"the system's {', '.join(patterns)}; {EXAMPLES}" if patterns else EXAMPLES


def read_faces(text: str) -> list[int] | None:
    parts = [part.strip() for part in text.split(",")] if text.strip() else []
    if not all(part.isascii() and part.isdigit() and len(part) < 10 for part in parts):
        return None
    return [int(part) for part in parts]


# -- lore odds


def run_odds(args: argparse.Namespace) -> int:
    game = None
    if args.system is not None:
        game = find_game(args.system)
        if game is None:
            done = rule_system_odds(args)
            if done is not None:
                return done
    try:
        if game is not None:
            from lore.dice.systems.odds import system_odds

            own = system_odds(game.id, args.command)
            if own is not None:
                if args.against is not None or args.successes is not None:
                    usage_error(
                        f"--against and --successes are for the common commands, not {game.id}'s"
                    )
                    return 2
                print_json(odds_json(own, None)) if args.json else print_odds(own, None)
                return 0
        if args.against is not None:
            if args.successes is not None or args.critical or args.fumble:
                usage_error(
                    "--against compares outcomes only (no --successes, --critical, --fumble)"
                )
                return 2
            match = opposed(args.command, args.against)
            print_json(opposed_json(match)) if args.json else print_opposed(match)
            return 0
        cap = args.successes
        found = odds(args.command, critical=args.critical, fumble=args.fumble, cap=cap)
        if args.successes is not None and found.measure != "successes":
            usage_error(
                f"{found.command} gives a total, not successes: use a target instead "
                "(such as 2D6>=8)"
            )
            return 2
    except OddsError as error:
        usage_error(str(error))
        return 1
    if args.json:
        print_json(odds_json(found, args.successes))
    else:
        print_odds(found, args.successes)
    return 0


def rule_system_odds(args: argparse.Namespace) -> int | None:
    """``lore odds --system orm|ninja|FILE``: the odds of the rule system's command the
    line is (its exit status), or None when it is none of them (the common command's
    odds then)."""
    from lore.dice.bundled_odds import command_odds
    from lore.engine.system_commands import match

    made = system_session(args.system)
    if isinstance(made, int):
        return made
    found = match(made, args.command.strip())
    if found is None:
        return None
    command, matched = found
    if args.against is not None or args.critical or args.fumble:
        usage_error(
            f"--against, --critical and --fumble are for the common commands: {command.label}"
            " says its own critical and fumble"
        )
        return 2
    try:
        own = command_odds(command.label, matched.numbers, matched.command)
        if own is None:
            usage_error(
                f"no odds are counted for the command {command.label} ({command.pattern.text}):"
                " lore odds counts those of the bundled systems (orm, ninja)"
            )
            return 1
        if isinstance(own, Opposed):
            if args.successes is not None:
                usage_error(f"{matched.command} compares two pools: --successes is for one")
                return 2
            print_json(contest_json(matched.command, own)) if args.json else print_contest(
                matched.command, own
            )
            return 0
        if args.successes is not None and own.measure != "successes":
            usage_error(f"{own.command} gives a total, not successes")
            return 2
        if args.json:
            print_json(odds_json(own, args.successes))
        else:
            print_odds(own, args.successes)
    except OddsError as error:
        usage_error(str(error))
        return 1
    return 0


def print_contest(command: str, match: Opposed) -> None:
    """An opposed check of a rule system: the two sides, then the outcome as its rule
    judges it (the active side wins with a margin of 1 or more; a tie is the passive
    side's), and the active side's critical and fumble."""
    active, passive = match.active.command, match.passive.command
    print(f"{command}: the active side ({active}) against the passive side ({passive})")
    print_opposed(match)
    print()
    print(f"success (the active side wins): {describe(match.higher)}")
    print(f"failure (the passive side wins): {describe(match.equal + match.lower)}")
    for label, chance in (("critical", match.active.critical), ("fumble", match.active.fumble)):
        if chance is not None:
            print(f"{label} (the active side's): {describe(chance)}")


def contest_json(command: str, match: Opposed) -> dict[str, Any]:
    return (
        {"command": command}
        | opposed_json(match)
        | {
            "success": chance_json(match.higher),
            "failure": chance_json(match.equal + match.lower),
            "critical": chance_json(match.active.critical),
            "fumble": chance_json(match.active.fumble),
        }
    )


def describe(chance: Fraction) -> str:
    return f"{chance.numerator}/{chance.denominator} = {float(chance):.9g} ({percent(chance)})"


def percent(chance: Fraction) -> str:
    return f"{float(chance) * 100:.2f}%"


def print_table(heading: str, rows: list[tuple[str, Fraction]]) -> None:
    """Outcomes with their chances: fraction, percentage and a bar."""
    top = max((chance for _, chance in rows), default=Fraction(1)) or Fraction(1)
    shown = [(label, f"{c.numerator}/{c.denominator}", percent(c), c) for label, c in rows]
    widths = [max(len(heading), *(len(row[0]) for row in shown)), max(len(row[1]) for row in shown)]
    print(f"{heading:>{widths[0]}}  {'chance':>{widths[1]}}  {'%':>7}")
    for label, fraction, share, chance in shown:
        bar = "█" * round(BAR_WIDTH * chance / top)
        print(f"{label:>{widths[0]}}  {fraction:>{widths[1]}}  {share:>7}  {bar}")


def print_odds(found: Odds, successes: int | None) -> None:
    name = "successes" if found.measure == "successes" else "total"
    rows = []
    for value, share in found.outcomes:
        last = found.tail is not None and value >= found.tail
        rows.append((f"{value}+" if last else str(value), share))
    what = "count of successes" if name == "successes" else "total"
    print(f"{found.command}: the chance of each {what}")
    print_table(name, rows)
    print()
    if successes is not None:
        print(f"{successes} or more successes: {describe(found.at_least(successes))}")
    facts: tuple[tuple[str, Fraction | None], ...] = (
        ("success", found.success),
        ("failure", found.failure),
        ("critical", found.critical),
        ("fumble", found.fumble),
    )
    for label, chance in facts:
        if chance is not None:
            print(f"{label}: {describe(chance)}")
    mean = found.mean()
    if mean is not None:
        print(f"average {name}: {float(mean):.4g}")


def print_opposed(match: Opposed) -> None:
    active, passive = match.active.command, match.passive.command
    if match.margins:
        print(f"{active} against {passive}: the chance of each margin (active minus passive)")
        print_table("margin", [(str(value), chance) for value, chance in match.margins])
        print()
    print(f"{active} higher: {describe(match.higher)}")
    print(f"equal: {describe(match.equal)}  (the rule says who wins a tie)")
    print(f"{passive} higher: {describe(match.lower)}")
    if match.undecided:
        print(f"both past the counted range (undecided): {describe(match.undecided)}")


def chance_json(chance: Fraction | None) -> dict[str, Any] | None:
    if chance is None:
        return None
    return {"fraction": f"{chance.numerator}/{chance.denominator}", "decimal": float(chance)}


def odds_json(found: Odds, successes: int | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "command": found.command,
        "measure": found.measure,
        "outcomes": [
            {"value": value, "or_more": found.tail is not None and value >= found.tail}
            | (chance_json(chance) or {})
            for value, chance in found.outcomes
        ],
    }
    for label in ("success", "failure", "critical", "fumble"):
        data[label] = chance_json(getattr(found, label))
    if successes is not None:
        data["at_least"] = {"successes": successes} | (chance_json(found.at_least(successes)) or {})
    return data


def opposed_json(match: Opposed) -> dict[str, Any]:
    return {
        "active": match.active.command,
        "passive": match.passive.command,
        "higher": chance_json(match.higher),
        "equal": chance_json(match.equal),
        "lower": chance_json(match.lower),
        "undecided": chance_json(match.undecided),
        "margins": [
            {"margin": value} | (chance_json(chance) or {}) for value, chance in match.margins
        ],
    }


def print_json(data: dict[str, Any]) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    print()
