"""What typed strings must look like, and the safe XML reader."""

from __future__ import annotations

import pytest

from lore.semantics import literals
from lore.semantics.literals import (
    MAX_XML_CHARS,
    Problem,
    XMLProblem,
    check,
    check_date,
    check_html,
    check_jid,
    check_loc,
    check_url,
    check_xml,
    offset_of,
    parse_xml,
)

# ---------------------------------------------------------------- url


@pytest.mark.parametrize(
    "value",
    [
        "http://xgmtk.org/lore/1.0",
        "https://example.org/a%20b?x=1#top",
        "mailto:develop@xgmtk.org",
        "mail:develop@xgmtk.org",
        "basic.lore",
        "maps/dungeon.xml",
        "../rules.lore",
        "file:///srv/lore/rules.lore",
        "urn:isbn:0451450523",
    ],
)
def test_good_urls(value: str) -> None:
    assert check_url(value) == []


def test_a_url_without_white_space_or_control_characters() -> None:
    assert check_url("http://example.org/a b") == [
        Problem(
            20, 1, "a url cannot contain white space or control characters", "write a space as %20"
        )
    ]
    assert check_url("a\tb")[0].offset == 1
    assert check_url("a\x00b")[0].offset == 1


def test_an_empty_url() -> None:
    assert check_url("") == [Problem(0, 0, "empty url")]


def test_a_url_with_a_bad_scheme() -> None:
    assert check_url("1http://example.org") == [
        Problem(0, 19, "'1http://example.org' is not a url: bad scheme")
    ]


# ---------------------------------------------------------------- loc


@pytest.mark.parametrize(
    "value",
    [
        "/",
        "/[0]",
        "/region",
        "/region[start_point]",
        "/region/dungeon",
        "/region/dungeon[1,2]",
        "/region/dungeon[1, 2]",
        "/region/dungeon[-1,2]",
        "/地域/迷宮[1,2]",
        "/_a1/b_2",
    ],
)
def test_good_locations(value: str) -> None:
    assert check_loc(value) == []


@pytest.mark.parametrize(
    "value",
    [
        "",
        "region/dungeon",
        "/region[1,2",
        "/my region",
        "/region/",
        "//region",
        "/1region",
        "/region[1,2]/dungeon",
        "/region[]",
        "/region[a b]",
    ],
)
def test_bad_locations(value: str) -> None:
    [problem] = check_loc(value)
    assert problem == Problem(
        0,
        len(value),
        f"'{value}' is not a location path",
        'a location is like "/region/dungeon[1,2]", "/region[start_point]" or "/[0]"',
    )


# ---------------------------------------------------------------- jid


@pytest.mark.parametrize(
    "value",
    ["Chihiro_Shiiji@xmpp.xgmtk.org", "aki@example.org/tablet", "example.org", "a.b@c-d.org"],
)
def test_good_jids(value: str) -> None:
    assert check_jid(value) == []


@pytest.mark.parametrize(
    "value", ["", "a@b@c", "aki @example.org", "aki@", "@example.org", "a<b>@example.org"]
)
def test_bad_jids(value: str) -> None:
    [problem] = check_jid(value)
    assert problem.message == f"'{value}' is not a Jabber id"
    assert problem.hint == "a jid is like name@example.org or name@example.org/resource"


# ---------------------------------------------------------------- date


@pytest.mark.parametrize(
    "value",
    ["2013-07-15", "2013-07-15T00:00:00+09:00", "2013-07-15T12:30", "2013-07-15T00:00:00Z"],
)
def test_good_dates(value: str) -> None:
    assert check_date(value) == []


@pytest.mark.parametrize(
    "value", ["", "2013/07/15", "2013-13-01", "2013-07-32", "yesterday", "15-07-2013"]
)
def test_bad_dates(value: str) -> None:
    assert check_date(value) == [
        Problem(
            0,
            len(value),
            f"'{value}' is not an ISO 8601 date",
            "a date is like 2013-07-15 or 2013-07-15T00:00:00+09:00",
        )
    ]


# ---------------------------------------------------------------- xml


GEOMETRY = """<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Lore/Sectioned2D" type="4" scale="5[m]">
 <line><section terrain="床" /><section terrain="wall" prohibited="true" /></line>
</geometry>
"""


def test_good_xml() -> None:
    assert check_xml(GEOMETRY) == []
    assert check_xml("<a/>") == []
    root = parse_xml(GEOMETRY)
    assert root.tag == "{http://www.xgmtk.org/Lore/Sectioned2D}geometry"
    assert root[0][0].get("terrain") == "床"


def test_a_closing_tag_that_does_not_match_names_the_open_element() -> None:
    text = "<geometry>\n <line>\n  <点>\n </line>\n</geometry>"
    with pytest.raises(XMLProblem) as caught:
        parse_xml(text)
    problem = caught.value
    assert problem.message == "malformed XML: </line> does not close <点>"
    assert (problem.line, problem.column, problem.length) == (4, 2, len("</line>"))
    [found] = check_xml(text)
    assert text[found.offset : found.offset + found.length] == "</line>"


@pytest.mark.parametrize(
    ("text", "message", "offset"),
    [
        ("", "malformed XML: no element found (the XML is empty or ends too early)", 0),
        ("<a/><b/>", "malformed XML: text after the root element (XML has one root element)", 4),
        ("<a>&nbsp;</a>", "malformed XML: undefined entity", 3),
        ('<a b="1" b="2"/>', "malformed XML: duplicate attribute", 9),
        (
            "<a>\n<b x=></b></a>",
            "malformed XML: not well-formed (a character that cannot be here)",
            9,
        ),
    ],
)
def test_malformed_xml(text: str, message: str, offset: int) -> None:
    assert check_xml(text) == [Problem(offset, 1, message)]


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<lolz>&lol4;</lolz>
"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE geometry [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<geometry>&secret;</geometry>
"""

EXTERNAL_DTD = """<?xml version="1.0"?>
<!DOCTYPE geometry SYSTEM "http://example.org/geometry.dtd">
<geometry/>
"""

PARAMETER_ENTITY = """<!DOCTYPE a [<!ENTITY % p SYSTEM "http://example.org/p.dtd"> %p;]><a/>"""


@pytest.mark.parametrize(
    "text",
    [BILLION_LAUGHS, EXTERNAL_ENTITY, EXTERNAL_DTD, PARAMETER_ENTITY],
    ids=["billion-laughs", "external-entity", "external-dtd", "parameter-entity"],
)
def test_dtds_and_entities_are_refused(text: str) -> None:
    with pytest.raises(XMLProblem) as caught:
        parse_xml(text)
    problem = caught.value
    assert problem.message == (
        "XML refused: a <!DOCTYPE> is not allowed (Lore's XML has no DTDs, entities or "
        "external references)"
    )
    # It points at the declaration.
    offset = offset_of(text, problem.line, problem.column)
    assert text[offset : offset + problem.length] == "<!DOCTYPE"


def test_oversized_xml_is_refused_before_it_is_parsed() -> None:
    text = "<a>" + "x" * MAX_XML_CHARS + "</a>"
    with pytest.raises(XMLProblem) as caught:
        parse_xml(text)
    assert caught.value.message == f"the XML is too large ({len(text)} characters)"
    assert check_xml("<a/>" + " " * (MAX_XML_CHARS - 4)) == []


def test_no_network_is_touched(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the XML reader opened a connection")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    for text in (EXTERNAL_DTD, PARAMETER_ENTITY, EXTERNAL_ENTITY):
        assert check_xml(text) != []


# ---------------------------------------------------------------- html


@pytest.mark.parametrize(
    "value",
    [
        "<p><big>宝物が見つかりました！</big></p>",
        "plain text",
        "<html><body><p>a paragraph left open</body></html>",
        "<ul><li>one<li>two</ul>",
        "<table><tr><td>1<td>2</table>",
        "<p>line<br>break<img src='x.png'></p>",
        "<b/>",
        "&amp; &lt;",
    ],
)
def test_good_html(value: str) -> None:
    assert check_html(value) == []


def test_an_element_closed_while_another_is_open() -> None:
    assert check_html("<p><b>bold</p>") == [
        Problem(10, 4, "malformed HTML: </p> comes before </b>: <b> is still open")
    ]


def test_a_closing_tag_that_closes_nothing() -> None:
    assert check_html("text</div>") == [
        Problem(4, 6, "malformed HTML: </div> closes nothing: no <div> is open")
    ]


def test_an_element_never_closed() -> None:
    assert check_html("<div>\n <i>leaning\n</div>") == [
        Problem(18, 6, "malformed HTML: </div> comes before </i>: <i> is still open")
    ]
    assert check_html("<b>open") == [Problem(0, 2, "malformed HTML: <b> is never closed")]


# ---------------------------------------------------------------- the dispatcher


def test_check_dispatches_on_the_kind() -> None:
    assert check("url", "") == check_url("")
    assert check("loc", "x") == check_loc("x")
    assert check("xml", "<a>") == check_xml("<a>")
    assert check("string", "anything") == []
    assert set(literals._CHECKS) == {"url", "loc", "jid", "date", "xml", "html"}


def test_offset_of() -> None:
    text = "ab\ncd\n\nef"
    assert offset_of(text, 1, 1) == 0
    assert offset_of(text, 2, 2) == 4
    assert offset_of(text, 4, 1) == 7
    assert offset_of(text, 9, 1) == len(text)
    assert offset_of(text, 1, 99) == len(text)


def test_a_url_with_brackets_that_hold_no_address_is_a_problem_not_a_crash() -> None:
    problems = literals.check("url", "http://xgmtk.[m]org/lore")
    assert len(problems) == 1
    assert "is not a url" in problems[0].message
