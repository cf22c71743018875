"""docs/check_site.py finds code blocks and tables wider than their box.

A tiny synthetic site is checked in headless Chromium: each page holds one
over-wide element in one of the ways a page goes wrong (lines that wrap, content
that spills out, content that is clipped, a table sticking out of the text
column); the same pages with the fix (the element scrolls horizontally) pass.
One more page cites a paper by its raw short name, which the check also reports,
and a gallery page holds a printed table that scrolls but must fit at 1280 px.
The rule of which boxes must fit is tested without a browser.
"""

import importlib.util
import shutil
from pathlib import Path

import pytest

CHECK_SITE = Path(__file__).resolve().parents[1] / "docs" / "check_site.py"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

# One line of a printed table, far wider than the 500 px text column.
WIDE_LINE = "  ".join(f"column_{i:02d}=0.123" for i in range(24))
WIDE_CELL = "_".join(["unbreakable"] * 20)

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><style>
body {{ margin: 0; font-family: monospace; }}
article.bd-article {{ max-width: min(500px, 90vw); padding: 0 10px; }}
{css}
</style></head>
<body><article class="bd-article"><section id="case">
<p>Some text.</p>
{body}
</section></article></body></html>
"""

PRE = f"<pre>{WIDE_LINE}\nshort line</pre>"
OUT = f'<div class="sphx-glr-script-out"><div class="highlight"><pre>{WIDE_LINE}</pre></div></div>'
TABLE = f"<table><tr><td>{WIDE_CELL}</td><td>1.0</td></tr></table>"
SCROLLS = "overflow-x: auto; white-space: pre;"

# page -> (css of the broken page, body, what the check must report, css of the fixed page)
CASES = {
    "wrap.html": (
        "pre { white-space: pre-wrap; overflow-x: auto; }",
        PRE,
        "lines wrap (white-space: pre-wrap) instead of scrolling",
        f"pre {{ {SCROLLS} }}",
    ),
    "spill.html": (
        "pre { white-space: pre; overflow: visible; }",
        PRE,
        "content wider than its box and no horizontal scrollbar (overflow-x: visible)",
        f"pre {{ {SCROLLS} }}",
    ),
    "clip.html": (
        "pre { white-space: pre; overflow: hidden; }",
        PRE,
        "content wider than its box and no horizontal scrollbar (overflow-x: hidden)",
        f"pre {{ {SCROLLS} }}",
    ),
    # sphinx-gallery's "Out" block: a flex box whose pre wraps (the site's old style).
    "gallery_out.html": (
        ".sphx-glr-script-out { display: flex; } .sphx-glr-script-out .highlight "
        "{ flex-grow: 1; overflow: auto; } pre { white-space: pre-wrap; word-break: break-word; }",
        OUT,
        "gallery output",
        ".sphx-glr-script-out { display: flex; } .sphx-glr-script-out .highlight "
        f"{{ flex-grow: 1; overflow: auto; }} pre {{ {SCROLLS} }}",
    ),
    "table.html": (
        "table { border-collapse: collapse; }",
        TABLE,
        "sticks out of the text column",
        "table { display: block; overflow-x: auto; max-width: 100%; }",
    ),
    # Not a block of the text: something makes the whole page scroll sideways.
    "wide_page.html": (
        ".banner { width: 900px; }",
        '<div class="banner">a banner</div>',
        "page: wider than the window (scrolls sideways) at 400 px window",
        ".banner { max-width: 100%; }",
    ),
}


# A gallery page whose printed table scrolls inside its box (the layout checks pass) but
# is wider than the 500 px text column: at 1280 px gallery output must fit.
GALLERY_PAGE = "auto_examples/plot_results.html"
GALLERY_CSS = f"pre {{ {SCROLLS} }}"
RESULTS_LINE = "mechanism  knob  " + "  ".join(f"adversary_{i}" for i in range(8))


def _load_check_site():
    spec = importlib.util.spec_from_file_location("check_site", CHECK_SITE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def check_site():
    pytest.importorskip("playwright.sync_api", reason="playwright drives Chromium")
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: the check needs a browser")
    return _load_check_site()


def test_fit_rule_holds_all_code_and_results_tables_at_the_desktop_width():
    module = _load_check_site()
    width = module.FIT_WIDTH

    def box(kind, over):
        return {"element": f"{kind} x", "kind": kind, "scrollWidth": 600 + over, "clientWidth": 600}

    gallery, guide, top = "auto_examples/plot_a.html", "user_guide/ppan.html", "design.html"
    # gallery code and output, gallery tables and user-guide tables must fit ...
    assert module.must_fit(gallery, "code") and module.must_fit(gallery, "table")
    assert module.must_fit(guide, "table")
    # ... and (issue 36) the code of every page: the user guide, every API page, the top level
    api = "generated/sklearn_privacy.metrics.make_leakage_scorer.html"
    assert module.must_fit(guide, "code") and module.must_fit(api, "code")
    assert module.must_fit("user_guide/leakage.html", "code") and module.must_fit(top, "code")
    assert module.must_fit("api/metrics.html", "code")
    # printed output outside the gallery and the tables outside the user guide may scroll
    assert not module.must_fit(guide, "output") and not module.must_fit(api, "output")
    assert not module.must_fit(top, "table") and not module.must_fit(api, "table")
    assert len(module.fit_problems(api, width, [box("code", 50), box("output", 50)])) == 1
    # a few pixels over the box pass (rounding, borders); more is reported, with the sizes
    tolerance = module.FIT_TOLERANCE
    assert module.fit_problems(gallery, width, [box("code", tolerance)]) == []
    over = [box("code", tolerance + 1)]
    ((element, problem, detail),) = module.fit_problems(gallery, width, over)
    assert element == "code x" and "wider than its box" in problem
    assert detail == f"{601 + tolerance} px of content in a 600 px box"
    assert len(module.fit_problems(guide, width, [box("table", 50), box("output", 50)])) == 1
    # only the desktop width is held to it: at 400 px wide content scrolls
    assert module.fit_problems(gallery, 400, [box("code", 50), box("table", 50)]) == []


def _write_site(root, fixed):
    root.mkdir()
    (root / "index.html").write_text(PAGE.format(css="", body="<p>Nothing wide here.</p>"))
    for name, (css, body, _, fixed_css) in CASES.items():
        (root / name).write_text(PAGE.format(css=fixed_css if fixed else css, body=body))
    # a paper cited by its short name (what a docstring says before docs/_citations.py links it)
    cite = "(Tripathy et al., 2017, eq. 3-5)" if fixed else "(ppan-tripathy2017, eq. 3-5)"
    (root / "citation.html").write_text(PAGE.format(css="", body=f"<p>The game {cite}.</p>"))
    (root / "auto_examples").mkdir()
    line = RESULTS_LINE[:40] if fixed else RESULTS_LINE
    (root / GALLERY_PAGE).write_text(PAGE.format(css=GALLERY_CSS, body=f"<pre>{line}</pre>"))
    return root


def _run(check_site, root, capsys):
    status = check_site.main([str(root), "--chromium", CHROMIUM, "--timeout", "30"])
    return status, capsys.readouterr().out


def test_check_site_reports_overwide_blocks(check_site, tmp_path, capsys):
    status, out = _run(check_site, _write_site(tmp_path / "broken", fixed=False), capsys)
    assert status == 1, out
    problems = [line for line in out.splitlines() if line.startswith("  - ")]
    for name, (_, _, expected, _) in CASES.items():
        found = [line for line in problems if line.startswith(f"  - {name}: ")]
        assert any(expected in line for line in found), (name, out)
    # the wrapped line is reported at both widths, with its measurements
    (wrap,) = [line for line in problems if line.startswith("  - wrap.html: pre")]
    assert "at 1280/400 px window" in wrap and "px lines in a" in wrap
    # the table sticks out at the desktop width, where the column is 500 px wide
    (table,) = [line for line in problems if line.startswith("  - table.html: table")]
    assert f'"{WIDE_CELL[:60]}"' in table and "1280" in table
    assert any(
        line.startswith("  - citation.html: raw citation key in text: ppan-tripathy2017")
        for line in problems
    ), out
    # the page without wide content has nothing to report
    assert not [line for line in problems if line.startswith("  - index.html")], out
    # the gallery's printed table scrolls, which the layout checks accept, but at 1280 px
    # it must fit: reported at that width only
    (gallery,) = [line for line in problems if line.startswith(f"  - {GALLERY_PAGE}: ")]
    assert "wider than its box, to be scrolled sideways" in gallery, out
    assert "at 1280 px window" in gallery and "/400" not in gallery, out


def test_check_site_passes_blocks_that_scroll(check_site, tmp_path, capsys):
    root = _write_site(tmp_path / "fixed", fixed=True)
    status, out = _run(check_site, root, capsys)
    assert status == 0, out
    assert "no problems found" in out and "9 pages" in out
