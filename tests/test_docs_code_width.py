"""The code of the documentation fits its box at 1280 px, read from the sources.

``docs/check_site.py`` measures the built site in a browser (a build takes minutes); this test
reads the sources the pages are built from and holds every code line to the number of
characters its box shows at a 1280 px window, so that an over-long line fails the suite before
any build. The widths were measured on the built site at 1280 px (issue 36: the box's width
less its 2 x 16 px padding over the width of one character of the 14 px code font, 8.43 px): a
code block of a user-guide page (702 px) shows 79 characters, 75 inside a list; a docstring's
Examples show 75 characters on a function's or class's API page (670 px), 71 in a method's
(638 px, one level deeper); a top-level page (no sidebars) shows 98.
"""

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"

GUIDE_WIDTH, GUIDE_NESTED_WIDTH = 79, 75
API_WIDTH, API_METHOD_WIDTH = 75, 71
TOP_WIDTH = 98

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")


def code_lines(markdown):
    """``(line number, width, nested, text)`` of each line of a code fence of ``markdown``.

    A fence is code when its info names a language other than ``text`` / ``none`` (printed
    output, which may scroll) or is a ``{code-block}``; a directive such as ``{image}`` is
    not. The width is the line's length less the fence's indent; ``nested``: the fence is
    indented (inside a list item).
    """
    fence = None
    for number, line in enumerate(markdown.splitlines(), 1):
        match = _FENCE.match(line)
        if fence is None and match:
            info = match["info"].strip()
            is_code = bool(info) and not re.match(r"^(text|none)\b|^\{(?!code-block)", info)
            fence = (match["fence"], len(match["indent"]), is_code)
            continue
        if fence is not None and match and match["fence"].startswith(fence[0][0] * len(fence[0])):
            if not match["info"].strip():
                fence = None
                continue
        if fence is not None and fence[2]:
            yield number, len(line) - fence[1], fence[1] > 0, line.strip()


# Sphinx drops doctest flags from the page (trim_doctest_flags): they take no room there.
_DOCTEST_FLAG = re.compile(r"\s*#\s*doctest:.*$")


def doctest_lines(source):
    """``(name, is_method, line)`` for every line of a doctest in a docstring's Examples.

    The line as the page shows it: without a ``# doctest:`` flag.
    """
    tree = ast.parse(source)
    methods = {
        id(node)
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        for node in cls.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        doc = ast.get_docstring(node, clean=True)
        if not doc or "Examples\n--------" not in doc:
            continue
        examples = re.split(r"\n[A-Z][a-z ]+\n-{3,}\n", doc.split("Examples\n--------", 1)[1])[0]
        in_doctest = False
        for line in examples.splitlines():
            in_doctest = line.startswith(">>>") or (in_doctest and line.strip() != "")
            if in_doctest:
                yield node.name, id(node) in methods, _DOCTEST_FLAG.sub("", line)


def _guide_pages():
    return sorted((DOCS / "user_guide").glob("*.md"))


@pytest.mark.parametrize("page", _guide_pages() + sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_code_blocks_of_the_pages_fit_their_box(page):
    top = page.parent == DOCS
    too_long = [
        f"{page.name}:{number}: {width} characters: {text[:60]}"
        for number, width, nested, text in code_lines(page.read_text(encoding="utf-8"))
        if width > (TOP_WIDTH if top else GUIDE_NESTED_WIDTH if nested else GUIDE_WIDTH)
    ]
    assert too_long == []


def test_docstring_examples_fit_their_box():
    too_long = []
    for module in sorted((REPO / "sklearn_privacy").rglob("*.py")):
        for name, is_method, line in doctest_lines(module.read_text(encoding="utf-8")):
            if len(line) > (API_METHOD_WIDTH if is_method else API_WIDTH):
                where = module.relative_to(REPO).as_posix()
                too_long.append(f"{where} {name}: {len(line)} characters: {line[:60]}")
    assert too_long == []


def test_the_readers_find_what_they_should():
    page = "text\n```python\nx = 1  # " + "a" * 80 + "\n```\n\n```text\n" + "b" * 90 + "\n```\n"
    page += "- item\n\n  ```python\n  " + "c" * 76 + "\n  ```\n"
    found = list(code_lines(page))
    assert [(n, w, nested) for n, w, nested, _ in found] == [(3, 89, False), (12, 76, True)]
    source = '''
def f():
    """Do.

    Examples
    --------
    A sentence of prose that is long enough to pass the limit of the box easily, and more.

    >>> f(1,  # doctest: +SKIP
    ...   2)
    3
    """


class C:
    def m(self):
        """Do.

        Examples
        --------
        >>> C().m()

        See Also
        --------
        f
        """
'''
    assert list(doctest_lines(source)) == [
        ("f", False, ">>> f(1,"),
        ("f", False, "...   2)"),
        ("f", False, "3"),
        ("m", True, ">>> C().m()"),
    ]
