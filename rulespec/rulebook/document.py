"""The rulebook as plain data: sections of paragraphs, numbered steps, tables and pictures.

The sections are built by the other modules of this package; ``render`` writes them as Markdown
or as self-contained HTML. Text may carry ``**bold**`` for a term being defined.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

__all__ = ["Para", "Steps", "Step", "Bullets", "Table", "Picture", "Section", "Book", "Block"]


@dataclass
class Para:
    text: str


@dataclass
class Step:
    text: str
    children: list[Step] = field(default_factory=list)


@dataclass
class Steps:
    """Numbered steps (``numbered=False``: bullets), each with optional sub-steps."""
    items: list[Step]
    numbered: bool = True


@dataclass
class Bullets:
    items: list[str]


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass
class Picture:
    """An inline SVG drawing; ``alt`` says in words what it shows (the Markdown shows that)."""
    svg: str
    alt: str


Block = Union[Para, Steps, Bullets, Table, Picture]


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)
    main: bool = True  # part of the main text (False: component tables, the quick reference)
    anchor: str = ""


@dataclass
class Book:
    title: str
    subtitle: str
    sections: list[Section]
