"""The simulation report: one self-contained HTML page (``lore sim --report OUT.html``).

The page is drawn from the figures ``lore sim --json`` prints (they are also embedded in
it, as JSON), so the two never disagree: how sessions ended and their outcomes with Wilson
95% intervals, win rates per seat and the first-player advantage (when the rules declare
SimBot scores), histograms of the sessions' lengths and of recorded statistics, the rule
errors with their places, the runs saved for ``lore run``, and a comparison with a second
simulation. Charts are inline SVG; the page loads nothing and runs no script.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from lore.analysis.report_texts import texts

BAR_WIDTH = 320  # pixels of a 100% bar
ROW = 22  # pixels per row of a rate chart
HIST_WIDTH, HIST_HEIGHT = 480, 140


@dataclass(frozen=True)
class SavedRun:
    """A run kept for ``lore run``: which (``slowest`` or ``oddest``), its seed, the
    answers file, why it was picked (``time``, ``error``, ``outcome`` or ``length``) with
    the figure that says it (seconds, the error's place, the outcome, the steps), and the
    command that replays it."""

    kind: str
    seed: int
    path: str
    why: str
    detail: str
    command: str

    def text(self, t: Mapping[str, str]) -> str:
        if self.kind == "slowest":
            return t["slowest"].format(seconds=self.detail)
        reason = {
            "error": t["oddError"].format(place=self.detail),
            "outcome": t["oddOutcome"].format(outcome=self.detail),
        }.get(self.why) or t["oddLength"].format(steps=self.detail)
        return t["oddest"].format(why=reason)


def render(
    figures: dict[str, Any],
    language: str = "en",
    saved: Sequence[SavedRun] = (),
    compare: dict[str, Any] | None = None,
) -> str:
    t = texts(language)
    parts = [_head(figures, t, language), _intro(figures, t)]
    parts.append(_rates_section(t["ends"], _end_rows(figures, t), t))
    outcomes = figures.get("outcomes") or {}
    rows = [
        (f"outcomes/{name}", name, entry["sessions"], entry) for name, entry in outcomes.items()
    ]
    parts.append(_rates_section(t["outcomes"], rows, t, empty=t["noOutcomes"]))
    parts.append(_seats(figures, t))
    parts.append(_lengths(figures, t))
    parts.append(_statistics(figures, t))
    parts.append(_checks(figures, t))
    parts.append(_dice(figures, t))
    parts.append(_errors(figures, t))
    if saved:
        parts.append(_saved(saved, t))
    if compare is not None:
        parts.append(_compare(compare, t))
    data = json.dumps(figures, ensure_ascii=False, indent=1).replace("</", "<\\/")
    parts.append(
        f"<section><h2>{escape(t['figures'])}</h2><details><summary>JSON</summary>"
        f'<script type="application/json" id="figures">{data}</script>'
        f"<pre>{escape(json.dumps(figures, ensure_ascii=False, indent=1))}</pre>"
        "</details></section></main></body></html>\n"
    )
    return "\n".join(parts)


STYLE = """
body{font-family:system-ui,"Noto Sans CJK JP",sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
main{max-width:60rem;margin:0 auto;padding:1rem 1.5rem 3rem}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.15rem;margin:.8rem 0 .4rem;
border-bottom:1px solid #c9ced8;padding-bottom:.2rem}
section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:.4rem 1rem 1rem;
margin:1rem 0}
table{border-collapse:collapse;margin:.4rem 0}td,th{padding:.2rem .6rem;text-align:left;
border-bottom:1px solid #eceef2;vertical-align:top}th{font-weight:600;color:#434b5c}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.note{color:#4a5263;font-size:.9rem}code{background:#eef0f4;padding:0 .25rem;border-radius:3px}
svg text{font-size:11px;fill:#1d2330}.bar{fill:#4c78a8}.whisker{stroke:#1d2330;stroke-width:1.5}
.hist{fill:#59a14f}.exact{fill:#e15759}.axis{stroke:#8a93a5}pre{max-height:20rem;overflow:auto;font-size:.8rem}
"""


def _head(figures: dict[str, Any], t: Mapping[str, str], language: str) -> str:
    title = t["title"].format(file=figures.get("file", ""))
    return (
        f'<!DOCTYPE html><html lang="{language}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body><main>"
        f"<h1>{escape(title)}</h1>"
    )


def _intro(figures: dict[str, Any], t: Mapping[str, str]) -> str:
    seeds = figures.get("seeds") or [0, -1]
    policies = figures.get("policies") or {}
    named = [f"{seat}={name}" for seat, name in (policies.get("seats") or {}).items()]
    if policies.get("default"):
        named.insert(0, str(policies["default"]))
    policy = t["policyOf"].format(policies=", ".join(named)) if named else t["policyRandom"]
    limits = figures.get("limits") or {}
    lines = [
        t["summary"].format(
            sessions=f"{figures['sessions']:,}", first=seeds[0], last=seeds[-1], policy=policy
        ),
        t["limits"].format(
            steps=_limit(limits.get("max_steps"), t["stepLimit"], t["noStepLimit"]),
            ticks=_limit(limits.get("max_ticks"), t["tickLimit"], t["noTickLimit"]),
        ),
        t["intervalNote"],
    ]
    until = figures.get("until_ci")
    if until:
        key = "untilCi" if until.get("reached") else "untilCiShort"
        lines.append(t[key].format(width=until["width"], sessions=f"{figures['sessions']:,}"))
    return "".join(f'<p class="note">{escape(line)}</p>' for line in lines)


def _limit(value: Any, text: str, none: str) -> str:
    return none if value is None else text.format(count=f"{value:,}")


Row = tuple[str, str, int, dict[str, Any]]  # key, label, sessions, {rate, low, high}


def _end_rows(figures: dict[str, Any], t: Mapping[str, str]) -> list[Row]:
    rates = figures.get("end_rates") or {}
    return [
        (f"ends/{end}", t.get(f"end_{end}", end), count, rates[end])
        for end, count in (figures.get("ends") or {}).items()
    ]


def _rates_section(title: str, rows: list[Row], t: Mapping[str, str], empty: str = "") -> str:
    if not rows:
        return f"<section><h2>{escape(title)}</h2><p>{escape(empty)}</p></section>"
    return f"<section><h2>{escape(title)}</h2>{rate_chart(rows)}{_rate_table(rows, t)}</section>"


def rate_chart(rows: Sequence[Row]) -> str:
    """Horizontal bars of rates with their intervals as whiskers."""
    label_width = 190
    height = ROW * len(rows) + 20
    width = label_width + BAR_WIDTH + 70
    out = [
        f'<svg role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, (_, label, _, rate) in enumerate(rows):
        y = i * ROW + 4
        x0 = label_width
        bar = BAR_WIDTH * rate["rate"]
        low, high = x0 + BAR_WIDTH * rate["low"], x0 + BAR_WIDTH * rate["high"]
        mid = y + ROW / 2 - 2
        out.append(
            f'<text x="{label_width - 6}" y="{mid + 4:.1f}" text-anchor="end">'
            f"<title>{escape(label)}</title>{escape(_short(label, 26))}</text>"
            f'<rect class="bar" x="{x0}" y="{y + 3}" width="{bar:.1f}" height="{ROW - 10}"/>'
            f'<line class="whisker" x1="{low:.1f}" x2="{high:.1f}" y1="{mid:.1f}" y2="{mid:.1f}"/>'
            f'<line class="whisker" x1="{low:.1f}" x2="{low:.1f}" y1="{mid - 4:.1f}" '
            f'y2="{mid + 4:.1f}"/><line class="whisker" x1="{high:.1f}" x2="{high:.1f}" '
            f'y1="{mid - 4:.1f}" y2="{mid + 4:.1f}"/>'
            f'<text x="{x0 + BAR_WIDTH + 8}" y="{mid + 4:.1f}">{_percent(rate["rate"])}</text>'
        )
    axis_y = ROW * len(rows) + 6
    out.append(
        f'<line class="axis" x1="{label_width}" x2="{label_width + BAR_WIDTH}" y1="{axis_y}" '
        f'y2="{axis_y}"/>'
    )
    for tick in (0, 50, 100):
        x = label_width + BAR_WIDTH * tick / 100
        out.append(f'<text x="{x:.1f}" y="{axis_y + 12}" text-anchor="middle">{tick}%</text>')
    out.append("</svg>")
    return "".join(out)


def _rate_table(rows: Sequence[Row], t: Mapping[str, str]) -> str:
    head = (
        f"<tr><th>{escape(t['what'])}</th><th>{escape(t['sessions'])}</th>"
        f"<th>{escape(t['rate'])}</th><th>{escape(t['interval'])}</th></tr>"
    )
    body = "".join(
        f'<tr data-key="{escape(key)}" data-sessions="{count}" data-rate="{rate["rate"]!r}" '
        f'data-low="{rate["low"]!r}" data-high="{rate["high"]!r}"><td>{escape(label)}</td>'
        f'<td class="n">{count:,}</td><td class="n">{_percent(rate["rate"])}</td>'
        f'<td class="n">{_percent(rate["low"])} – {_percent(rate["high"])}</td></tr>'
        for key, label, count, rate in rows
    )
    return f"<table>{head}{body}</table>"


def _seats(figures: dict[str, Any], t: Mapping[str, str]) -> str:
    seats = figures.get("seats") or {}
    if not seats:
        return f"<section><h2>{escape(t['seats'])}</h2><p>{escape(t['noSeats'])}</p></section>"
    rows = [(f"seats/{seat}", seat, entry["wins"], entry) for seat, entry in seats.items()]
    scores = "".join(
        f"<tr><td>{escape(seat)}</td><td class='n'>{entry['mean_score']:.3f}</td></tr>"
        for seat, entry in seats.items()
    )
    first_rows = "".join(
        f'<tr data-key="first/{escape(seat)}"><td>{escape(seat)}</td>'
        f'<td class="n">{_percent(e["first"]["rate"])} ({e["first"]["sessions"]:,})</td>'
        f'<td class="n">{_percent(e["not_first"]["rate"])} ({e["not_first"]["sessions"]:,})</td>'
        f'<td class="n">{100 * e["first_advantage"]["difference"]:+.1f}</td>'
        f'<td class="n">{e["first_advantage"]["p"]:.3f}</td></tr>'
        for seat, e in seats.items()
    )
    first_head = (
        f"<tr><th>{escape(t['seat'])}</th><th>{escape(t['first'])}</th>"
        f"<th>{escape(t['notFirst'])}</th><th>{escape(t['difference'])}</th>"
        f"<th>{escape(t['pValue'])}</th></tr>"
    )
    sides = figures.get("sides") or {}
    side_rows = [(f"sides/{name}", name, e["wins"], e) for name, e in sides.items()]
    return (
        f"<section><h2>{escape(t['seats'])}</h2><p class='note'>{escape(t['seatsNote'])}</p>"
        f"{rate_chart(rows)}{_rate_table(rows, t)}"
        f"<h2>{escape(t['sides'])}</h2><p class='note'>{escape(t['sidesNote'])}</p>"
        f"{rate_chart(side_rows)}{_rate_table(side_rows, t)}"
        f"<table><tr><th>{escape(t['seat'])}</th><th>{escape(t['meanScore'])}</th></tr>"
        f"{scores}</table>"
        f"<h2>{escape(t['firstPlayer'])}</h2><p class='note'>{escape(t['firstNote'])}</p>"
        f"<table>{first_head}{first_rows}</table></section>"
    )


def histogram_chart(bins: Sequence[tuple[str, int]]) -> str:
    """Vertical bars: (label, sessions) for each bin, in order."""
    if not bins:
        return ""
    most = max(count for _, count in bins) or 1
    gap = 2
    width = max(4.0, (HIST_WIDTH - 40) / len(bins))
    out = [
        f'<svg role="img" width="{HIST_WIDTH}" height="{HIST_HEIGHT + 30}" '
        f'viewBox="0 0 {HIST_WIDTH} {HIST_HEIGHT + 30}" xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, (label, count) in enumerate(bins):
        height = (HIST_HEIGHT - 14) * count / most
        x = 30 + i * width
        y = HIST_HEIGHT - height
        out.append(
            f'<rect class="hist" x="{x:.1f}" y="{y:.1f}" width="{width - gap:.1f}" '
            f'height="{height:.1f}"><title>{escape(label)}: {count:,}</title></rect>'
        )
    out.append(
        f'<line class="axis" x1="30" x2="{HIST_WIDTH - 10}" y1="{HIST_HEIGHT}" '
        f'y2="{HIST_HEIGHT}"/>'
        f'<text x="26" y="12" text-anchor="end">{most:,}</text>'
        f'<text x="30" y="{HIST_HEIGHT + 14}">{escape(bins[0][0])}</text>'
        f'<text x="{HIST_WIDTH - 10}" y="{HIST_HEIGHT + 14}" text-anchor="end">'
        f"{escape(bins[-1][0])}</text></svg>"
    )
    return "".join(out)


def _lengths(figures: dict[str, Any], t: Mapping[str, str]) -> str:
    histograms = figures.get("histograms") or {}
    parts = [f"<section><h2>{escape(t['lengths'])}</h2>"]
    for name in ("steps", "ticks"):
        spread = figures.get(name) or {}
        bins = [(_bin_label(b), b["sessions"]) for b in histograms.get(name) or ()]
        parts.append(
            f"<h3>{escape(t[name])}</h3><p class='note'>"
            + escape(
                t["minMeanMax"].format(
                    low=_number(spread.get("min", 0)),
                    mean=_number(spread.get("mean", 0), 1),
                    high=_number(spread.get("max", 0)),
                )
            )
            + f"</p>{histogram_chart(bins)}"
        )
    parts.append("</section>")
    return "".join(parts)


def _bin_label(one: dict[str, int]) -> str:
    return f"{one['low']:,}" if one["low"] == one["high"] else f"{one['low']:,}–{one['high']:,}"


def _statistics(figures: dict[str, Any], t: Mapping[str, str]) -> str:
    stats = figures.get("statistics") or {}
    if not stats:
        return (
            f"<section><h2>{escape(t['statistics'])}</h2><p>{escape(t['noStatistics'])}</p>"
            "</section>"
        )
    parts = [f"<section><h2>{escape(t['statistics'])}</h2>"]
    for name, stat in stats.items():
        summary = t["minMeanMax"].format(
            low=_number(stat["min"]), mean=_number(stat["mean"], 3), high=_number(stat["max"])
        )
        parts.append(
            f"<h3>{escape(name)} <small>({escape(stat['kind'])}, {stat['sessions']:,} "
            f"{escape(t['sessions'])})</small></h3><p class='note'>{escape(summary)}</p>"
        )
        distribution = stat.get("distribution")
        if distribution:
            parts.append(histogram_chart(_filled(distribution)))
    parts.append("</section>")
    return "".join(parts)


def _filled(distribution: dict[str, int]) -> list[tuple[str, int]]:
    """A distribution's bars, with the whole numbers between its values that no session
    had as empty bars (so that the bars stand where their values are)."""
    try:
        values = {int(key): count for key, count in distribution.items()}
    except ValueError:  # (not whole numbers)
        return list(distribution.items())
    low, high = min(values), max(values)
    if high - low > 120:
        return list(distribution.items())
    return [(str(value), values.get(value, 0)) for value in range(low, high + 1)]


def _checks(figures: dict[str, Any], t: Mapping[str, str]) -> str:
    checks = figures.get("checks") or []
    title = f"<section><h2>{escape(t['checks'])}</h2>"
    if not checks:
        return f"{title}<p>{escape(t['noChecks'])}</p></section>"
    rows = [(f"checks/{c['rule']} @ {c['where']}", c["rule"], c["checks"], c) for c in checks]
    head = (
        f"<tr><th>{escape(t['rule'])}</th><th>{escape(t['place'])}</th>"
        f"<th>{escape(t['made'])}</th><th>{escape(t['succeeded'])}</th>"
        f"<th>{escape(t['rate'])}</th><th>{escape(t['interval'])}</th></tr>"
    )
    body = "".join(
        f'<tr data-key="{escape(key)}" data-checks="{c["checks"]}" '
        f'data-successes="{c["successes"]}" data-rate="{c["rate"]!r}" data-low="{c["low"]!r}" '
        f'data-high="{c["high"]!r}"><td>{escape(c["rule"])}'
        + (
            f"<br><small>{escape(t['via'].format(function=c['via']))}</small>"
            if c.get("via")
            else ""
        )
        + f"</td><td><code>{escape(c['where'])}</code></td>"
        f'<td class="n">{c["checks"]:,}</td><td class="n">{c["successes"]:,}</td>'
        f'<td class="n">{_percent(c["rate"])}</td>'
        f'<td class="n">{_percent(c["low"])} – {_percent(c["high"])}</td></tr>'
        for key, _, _, c in rows
    )
    labels = [(key, f"{c['where'].rsplit('/', 1)[-1]} {c['rule']}", n, c) for key, _, n, c in rows]
    return (
        f"{title}<p class='note'>{escape(t['checksNote'])}</p>{rate_chart(labels)}"
        f"<table>{head}{body}</table></section>"
    )


def _dice(figures: dict[str, Any], t: Mapping[str, str]) -> str:
    dice = figures.get("dice") or {}
    title = f"<section><h2>{escape(t['dice'])}</h2>"
    if not dice:
        return f"{title}<p>{escape(t['noDice'])}</p></section>"
    parts = [title, f"<p class='note'>{escape(t['diceNote'])}</p>"]
    for command, entry in dice.items():
        exact = entry.get("exact")
        mean = t["noExact"] if exact is None or exact["mean"] is None else _number(exact["mean"], 3)
        summary = t["rolls"].format(
            rolls=f"{entry['rolls']:,}", mean=_number(entry["mean"], 3), exact=mean
        )
        parts.append(
            f"<h3><code>{escape(command)}</code></h3><p class='note'>{escape(summary)}</p>"
            + dice_chart(command, entry, t)
        )
    parts.append("</section>")
    return "".join(parts)


def dice_chart(command: str, entry: dict[str, Any], t: Mapping[str, str]) -> str:
    """Bars of the share of rolls that gave each total, a dot at each total's exact chance."""
    rolls = entry["rolls"] or 1
    seen = {int(k): n for k, n in entry["totals"].items()}
    exact_entry = entry.get("exact") or {}
    exact = {int(k): p for k, p in (exact_entry.get("outcomes") or {}).items()}
    tail = exact_entry.get("tail")
    values = sorted(set(seen) | set(exact))
    if values and values[-1] - values[0] <= 120:
        values = list(range(values[0], values[-1] + 1))
    top = max([n / rolls for n in seen.values()] + list(exact.values()) + [1e-9])
    width = max(1.5, (HIST_WIDTH - 40) / len(values))
    out = [
        f'<svg role="img" width="{HIST_WIDTH}" height="{HIST_HEIGHT + 30}" '
        f'viewBox="0 0 {HIST_WIDTH} {HIST_HEIGHT + 30}" xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, value in enumerate(values):
        count = seen.get(value, 0)
        x = 30 + i * width
        height = (HIST_HEIGHT - 14) * (count / rolls) / top
        label = t["orMore"].format(value=value) if value == tail else str(value)
        chance = exact.get(value)
        note = f"{escape(t['exact'])} {_percent(chance)}" if chance is not None else ""
        out.append(
            f'<rect class="hist" data-key="dice/{escape(command)}/{value}" data-rolls="{count}" '
            f'data-exact="{"" if chance is None else repr(chance)}" x="{x:.1f}" '
            f'y="{HIST_HEIGHT - height:.1f}" width="{max(width - 1, 1):.1f}" '
            f'height="{height:.1f}"><title>{escape(t["total"])} {escape(label)}: '
            f"{escape(t['seen'])} {count:,} ({_percent(count / rolls)}) {note}</title></rect>"
        )
        if chance is not None:
            y = HIST_HEIGHT - (HIST_HEIGHT - 14) * chance / top
            out.append(
                f'<circle class="exact" cx="{x + width / 2:.1f}" cy="{y:.1f}" '
                f'r="{min(3.0, max(width / 2, 1.5)):.1f}"/>'
            )
    out.append(
        f'<line class="axis" x1="30" x2="{HIST_WIDTH - 10}" y1="{HIST_HEIGHT}" '
        f'y2="{HIST_HEIGHT}"/>'
        f'<text x="32" y="10">{_percent(top)}</text>'
        f'<text x="30" y="{HIST_HEIGHT + 14}">{values[0]}</text>'
        f'<text x="{HIST_WIDTH - 10}" y="{HIST_HEIGHT + 14}" text-anchor="end">'
        f"{values[-1]}</text></svg>"
    )
    return "".join(out)


def _errors(figures: dict[str, Any], t: Mapping[str, str]) -> str:
    errors = figures.get("errors") or []
    if not errors:
        return f"<section><h2>{escape(t['errors'])}</h2><p>{escape(t['noErrors'])}</p></section>"
    head = (
        f"<tr><th>{escape(t['place'])}</th><th>{escape(t['message'])}</th>"
        f"<th>{escape(t['times'])}</th><th>{escape(t['sessions'])}</th>"
        f"<th>{escape(t['interval'])}</th></tr>"
    )
    body = "".join(
        f'<tr data-key="errors/{escape(e["where"])}" data-sessions="{e["sessions"]}">'
        f"<td><code>{escape(e['where'])}</code></td><td>{escape(e['message'])}</td>"
        f'<td class="n">{e["count"]:,}</td><td class="n">{e["sessions"]:,} '
        f"({_percent(e['rate'])})</td>"
        f'<td class="n">{_percent(e["low"])} – {_percent(e["high"])}</td></tr>'
        for e in errors
    )
    return f"<section><h2>{escape(t['errors'])}</h2><table>{head}{body}</table></section>"


def _saved(saved: Sequence[SavedRun], t: Mapping[str, str]) -> str:
    items = "".join(
        f"<li>{escape(run.text(t))}: <code>{escape(run.command)}</code></li>" for run in saved
    )
    return (
        f"<section><h2>{escape(t['runs'])}</h2><p class='note'>{escape(t['runsNote'])}</p>"
        f"<ul>{items}</ul></section>"
    )


def _compare(compare: dict[str, Any], t: Mapping[str, str]) -> str:
    head = (
        f"<tr><th>{escape(t['what'])}</th><th>A</th><th>B</th>"
        f"<th>{escape(t['difference'])}</th><th>z</th><th>{escape(t['pValue'])}</th></tr>"
    )
    body = "".join(
        f'<tr data-key="compare/{escape(key)}"><td>{escape(key)}</td>'
        f'<td class="n">{_percent(c["a"]["rate"])} ({_percent(c["a"]["low"])} – '
        f"{_percent(c['a']['high'])})</td>"
        f'<td class="n">{_percent(c["b"]["rate"])} ({_percent(c["b"]["low"])} – '
        f"{_percent(c['b']['high'])})</td>"
        f'<td class="n">{100 * c["difference"]:+.1f}</td><td class="n">{c["z"]:.2f}</td>'
        f'<td class="n">{c["p"]:.3f}</td></tr>'
        for key, c in (compare.get("rates") or {}).items()
    )
    title = t["compare"].format(file=compare.get("file", ""))
    return (
        f"<section><h2>{escape(title)}</h2><p class='note'>{escape(t['compareNote'])}</p>"
        f"<table>{head}{body}</table></section>"
    )


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _number(value: float, decimals: int = 0) -> str:
    return f"{value:,.{decimals}f}"


def _short(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"
