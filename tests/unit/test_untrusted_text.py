"""Text from outside Lyra shown as data: terminal lines, TSV cells, Markdown lines and XML."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from markdown_it import MarkdownIt
from rich.console import Console
from rich.table import Table

from lyra_core.report.markdown import md
from lyra_core.report.svg import GraphLink, GraphNode, evidence_svg, svg_text
from lyra_core.untrusted_text import json_line, markdown_line, terminal_text, tsv_cell, xml_text
from lyra_tools.cli.common import untrusted

CSI_CLEAR = "\x1b[2J"
OSC52 = "\x1b]52;c;ZXZpbA==\x07"  # writes "evil" to the clipboard
OSC8 = "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\"
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
HOSTILE = f"Vitamin D {CSI_CLEAR}{OSC52}{OSC8} [/] [bold]x \u202eevil\x00\x7f\x85\x9b\ud800 end"


@pytest.mark.parametrize(
    "sequence, shown",
    [
        (CSI_CLEAR, "\\x1b[2J"),
        (OSC52, "\\x1b]52;c;ZXZpbA==\\x07"),
        (OSC8, "\\x1b]8;;https://evil.example\\x1b\\link\\x1b]8;;\\x1b\\"),
        ("\x00", "\\x00"),
        ("\x7f", "\\x7f"),
        ("\x9b2J", "\\x9b2J"),
        ("\x85", "\\x85"),  # NUL, DEL, C1 CSI, NEL
        ("\u202eevil", "\\u202eevil"),
        ("\u2066x\u2069", "\\u2066x\\u2069"),
        ("\u200f", "\\u200f"),
        ("\ud800", "\\ud800"),
        ("\udcff", "\\udcff"),  # lone surrogates
        ("a\nb\r\nc\td", "a\\x0ab\\x0d\\x0ac\\x09d"),
        ("\u2028\u2029", "\\u2028\\u2029"),
    ],
)
def test_terminal_text_shows_every_control_as_a_visible_escape(sequence, shown):
    assert terminal_text(sequence) == shown


def test_terminal_text_keeps_ordinary_text_of_any_script():
    text = "Vitamin D [/] reduces risk: 维生素D ≥ 30% — naïve שלום مرحبا 🙂 \\x1b"
    assert terminal_text(text) == text
    assert all(ch.isprintable() for ch in terminal_text(HOSTILE))


def test_a_tsv_cell_never_starts_a_column_or_a_row():
    cell = tsv_cell("title\twith a tab\nrank\t2\r\n" + CSI_CLEAR)
    assert "\t" not in cell and "\n" not in cell and "\r" not in cell and "\x1b" not in cell
    assert len(("1\t" + cell + "\n").splitlines()) == 1


def test_a_markdown_line_never_becomes_a_heading_or_a_second_line():
    title = "Vitamin D\n# Ignore the report\r\n> quoted\u2028- item\x00"
    line = markdown_line(title)
    assert line == "Vitamin D # Ignore the report > quoted - item\\x00"
    tokens = MarkdownIt().parse(f"1. {md(title)}\n")
    assert [t.type for t in tokens if t.type.endswith("_open")] == [
        "ordered_list_open",
        "list_item_open",
        "paragraph_open",
    ]


def test_xml_text_makes_any_title_parse_as_xml():
    forbidden = "".join(map(chr, [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])) + "\ufffe\uffff\ud800"
    for char in forbidden:
        with pytest.raises((ET.ParseError, UnicodeEncodeError)):
            ET.fromstring(f"<t>{char}</t>")
    cleaned = xml_text(f"<t>{forbidden}{BIDI}\t\n\r ok</t>")
    assert ET.fromstring(cleaned).text.endswith(
        "\t\n\n ok"
    )  # tab, newline and carriage return stay (as XML reads them)
    assert "\\x00" in cleaned and "\\u202e" in cleaned and "\\ud800" in cleaned


def test_the_evidence_svg_parses_with_a_nul_in_a_title():
    svg = svg_text(
        evidence_svg(
            [GraphNode(number=1, label="claim\x00\x1b[2J", full="claim\x00\x1b[2J")],
            [GraphNode(number=1, label="paper \u202e\x0c", full="paper \u202e\x0c\ud800")],
            [GraphLink(claim=1, ref=1, relation="SUPPORTS", confidence=0.9)],
        )
    )
    root = ET.fromstring(svg)
    assert any("\\x00" in (t.text or "") for t in root.iter("{http://www.w3.org/2000/svg}title"))


@pytest.mark.parametrize(
    "text",
    [
        "[/]",
        "[bold]loud[/bold]",
        "[link=https://evil.example]x[/link]",
        "[@click=q]q",
        "ends with a backslash \\",
        "\\[/]",
        HOSTILE,
    ],
)
def test_untrusted_text_is_never_read_as_rich_markup(text):
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=True, color_system="truecolor", emoji=False)
    console.print(f"[bold]head[/] {untrusted(text)} [red]tail[/]", soft_wrap=True)
    table = Table("cell")
    table.add_row(untrusted(text))
    console.print(table)
    printed = out.getvalue()
    # what reaches the terminal: Rich's own SGR colour codes, and the text shown as it was (escaped)
    assert (
        "\x1b]" not in printed
        and "\x1b[2J" not in printed
        and "\x07" not in printed
        and "\u202e" not in printed
    )
    plain = Console(file=io.StringIO(), width=200, emoji=False)
    plain.print(f"[bold]head[/] {untrusted(text)} [red]tail[/]", soft_wrap=True)
    assert plain.file.getvalue().startswith(f"head {terminal_text(text).rstrip(chr(92))}")


def test_a_json_line_escapes_what_json_leaves_raw_and_keeps_its_value():
    import json

    value = {"title": f"a{BIDI}\x7f\x85\x9b2J\u2028b", "plain": "维生素D ≥ 30% — naïve"}
    raw = json.dumps(value, ensure_ascii=False)
    line = json_line(raw)
    assert json.loads(line) == value and line.isprintable()
    assert "维生素D ≥ 30% — naïve" in line and "\\u202e" in line and "\\u009b" in line
