"""A rulebook as Markdown, or as one self-contained HTML page with print styles."""

from __future__ import annotations

import re
from html import escape

from ..describe.text import table_cell
from .document import Block, Book, Bullets, Para, Picture, Section, Step, Steps, Table

__all__ = ["to_markdown", "to_html", "main_text"]


# ---------------------------------------------------------------------- Markdown
def _md_steps(items: list[Step], numbered: bool, indent: str = "") -> list[str]:
    out = []
    for i, step in enumerate(items, 1):
        mark = f"{i}." if numbered else "-"
        out.append(f"{indent}{mark} {step.text}")
        out += _md_steps(step.children, False, indent + " " * (len(mark) + 1))
    return out


def _md_block(block: Block) -> list[str]:
    if isinstance(block, Para):
        return [block.text]
    if isinstance(block, Steps):
        return _md_steps(block.items, block.numbered)
    if isinstance(block, Bullets):
        return [f"- {t}" for t in block.items]
    if isinstance(block, Table):
        out = ["| " + " | ".join(block.header) + " |", "|" + "---|" * len(block.header)]
        out += ["| " + " | ".join(table_cell(c) for c in row) + " |" for row in block.rows]
        return out
    if isinstance(block, Picture):
        return [f"*Picture: {block.alt}.*"]
    return []


def _md_section(section: Section) -> list[str]:
    out = [f"## {section.title}", ""]
    for block in section.blocks:
        out += _md_block(block) + [""]
    return out


def to_markdown(book: Book) -> str:
    out = [f"# {book.title}", "", f"*{book.subtitle}*", ""]
    for section in book.sections:
        out += _md_section(section)
    return "\n".join(out).rstrip() + "\n"


def _plain_steps(items: list[Step], depth: int = 0) -> list[str]:
    out = []
    for step in items:
        out.append("  " * depth + step.text)
        out += _plain_steps(step.children, depth + 1)
    return out


def main_text(book: Book) -> str:
    """The main text as plain text (what a reader reads, without Markdown's marks): without the
    components, the quick reference and the pictures; a table row is its cells joined by "; "."""
    out: list[str] = []
    for section in book.sections:
        if not section.main:
            continue
        out.append(section.title)
        for block in section.blocks:
            if isinstance(block, Para):
                out.append(block.text)
            elif isinstance(block, Steps):
                out += _plain_steps(block.items)
            elif isinstance(block, Bullets):
                out += block.items
            elif isinstance(block, Table):
                out += ["; ".join(c for c in row if c) for row in [block.header] + block.rows]
    return re.sub(r"\*\*(.+?)\*\*", r"\1", "\n".join(out).strip()) + "\n"


# ---------------------------------------------------------------------- HTML
def _inline(text: str) -> str:
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", escape(text, quote=False))


def _html_steps(items: list[Step], numbered: bool) -> str:
    tag = "ol" if numbered else "ul"
    body = "".join(f"<li>{_inline(s.text)}{_html_steps(s.children, False) if s.children else ''}</li>"
                   for s in items)
    return f"<{tag}>{body}</{tag}>"


def _html_block(block: Block) -> str:
    if isinstance(block, Para):
        return f"<p>{_inline(block.text)}</p>"
    if isinstance(block, Steps):
        return _html_steps(block.items, block.numbered)
    if isinstance(block, Bullets):
        return "<ul>" + "".join(f"<li>{_inline(t)}</li>" for t in block.items) + "</ul>"
    if isinstance(block, Table):
        head = "".join(f"<th>{_inline(h)}</th>" for h in block.header)
        rows = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in block.rows)
        caption = f"<caption>{_inline(block.caption)}</caption>" if block.caption else ""
        return f'<div class="table"><table>{caption}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>'
    if isinstance(block, Picture):
        return f'<figure class="picture">{block.svg}<figcaption>{_inline(block.alt)}</figcaption></figure>'
    return ""


_CSS = """
:root { --ink: #222; --accent: #7a3b12; --rule: #c9b99a; }
* { box-sizing: border-box; }
body { font: 11pt/1.45 Georgia, "DejaVu Serif", serif; color: var(--ink); max-width: 48rem; margin: 2rem auto;
       padding: 0 1rem; overflow-wrap: break-word; }
header { border-bottom: 3px double var(--accent); margin-bottom: 1rem; }
h1 { font-size: 2.2rem; margin: 0; color: var(--accent); letter-spacing: .03em; }
header p { margin: .2rem 0 .6rem; font-style: italic; }
nav ol { columns: 2; font-size: .9rem; padding-left: 1.2rem; }
h2 { color: var(--accent); border-bottom: 1px solid var(--rule); font-size: 1.35rem; margin: 1.6rem 0 .5rem;
     break-after: avoid; }
ol, ul { padding-left: 1.5rem; } li { margin: .15rem 0; }
.table { max-width: 100%; }
table { border-collapse: collapse; width: 100%; font: 9.5pt/1.3 "DejaVu Sans", Arial, sans-serif;
        table-layout: auto; margin: .4rem 0; }
caption { text-align: left; font-weight: bold; padding: .2rem 0; }
th, td { border: 1px solid var(--rule); padding: .25rem .4rem; vertical-align: top; text-align: left;
         overflow-wrap: break-word; }
th { background: #f3ead8; }
figure.picture { margin: .6rem 0; } figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: .85rem; font-style: italic; color: #555; }
section#quick { border: 2px solid var(--accent); padding: .2rem 1rem 1rem; }
section#quick ul { font-size: 10pt; }
@media (max-width: 600px) { th, td { overflow-wrap: anywhere; padding: .2rem; } nav ol { columns: 1; } }
@media print {
  body { max-width: none; margin: 0; font-size: 10.5pt; }
  @page { size: A4; margin: 16mm 15mm; }
  nav { display: none; }
  section#quick { break-before: page; break-inside: avoid; font-size: 9.5pt; }
  table, figure, li { break-inside: avoid; }
}
"""


def to_html(book: Book) -> str:
    nav = "".join(f'<li><a href="#{s.anchor or i}">{escape(s.title)}</a></li>' for i, s in enumerate(book.sections))
    body = []
    for i, s in enumerate(book.sections):
        blocks = "".join(_html_block(b) for b in s.blocks)
        body.append(f'<section id="{escape(s.anchor or str(i))}"><h2>{escape(s.title)}</h2>{blocks}</section>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(book.title)}: {escape(book.subtitle)}</title><style>{_CSS}</style></head><body>"
            f"<header><h1>{escape(book.title)}</h1><p>{escape(book.subtitle)}</p></header>"
            f"<nav><ol>{nav}</ol></nav>{''.join(body)}</body></html>\n")
