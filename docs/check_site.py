"""Check the built documentation in a real browser (headless Chromium).

Usage::

    python docs/check_site.py [docs/_build/html] [--no-api] [--chromium /usr/bin/chromium]

The built site is served from a local HTTP server and every checked page is
opened in headless Chromium (Debian's ``chromium`` driven by playwright). On
each page the script checks that

* the math rendered: every ``.math`` element holds MathJax output, there is no
  MathJax error, and no raw TeX (``\\(``, ``\\[``, ``$$``, ``$\\frac...$``) is
  left in the visible text;
* no paper is cited by its raw short name (``ppan-tripathy2017``): docstrings
  name papers that way and ``docs/_citations.py`` turns the names into links
  to the references page;
* every image loaded (``naturalWidth > 0``);
* the console shows no errors, no page script failed, every local resource
  answered (no 404) and nothing was fetched from the network (the site must
  work offline);
* every same-site link points to a file that exists and, when it has an
  ``#anchor``, to an element of that page with that ``id`` (or ``name``);
* nothing is wider than its box, at a desktop width (1280 px) and at a narrow
  one (400 px): a code block (``pre``, a highlight ``div``, a sphinx-gallery
  "Out" block) or a table whose content is wider than the element must scroll
  horizontally (``overflow-x: auto``) instead of spilling out or being clipped,
  a code block must not wrap its lines (a printed table that wraps is
  unreadable), no such element may stick out of the text column unless an
  ancestor inside the column scrolls it, and the page itself must not be wider
  than the window;
* at the desktop width (1280 px) the gallery's code blocks and printed output,
  the tables of the gallery and the user guide (the results tables) and the
  code (Python, doctests) of every page (user guide, API, top level) fit their box:
  their content is at most a few pixels wider than the element, so that no
  column of a result or end of a comment has to be scrolled into view
  (``must_fit``).

Pages checked: the index and every top-level page, every user-guide page,
every gallery page and, unless ``--no-api``, every API page (the subpackage
pages and the generated page of every name). The script prints
a summary and exits with status 1 and the list of problems if there is any.
"""

import argparse
import functools
import http.server
import sys
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Pages that are machinery rather than content.
SKIPPED_PAGES = {"genindex.html", "py-modindex.html"}

# Wait for MathJax (when the page loads it) and for every image, then report
# what the page shows.
INSPECT_PAGE = r"""
async (citationKeys) => {
  for (const img of document.images) { img.loading = "eager"; }
  await Promise.race([
    Promise.all(Array.from(document.images).map((img) => img.complete ? null :
      new Promise((done) => {
        img.addEventListener("load", done);
        img.addEventListener("error", done);
      }))),
    new Promise((done) => setTimeout(done, 10000)),
  ]);
  let mathjax = "absent";
  if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) {
    await Promise.race([window.MathJax.startup.promise, new Promise((d) => setTimeout(d, 15000))]);
    mathjax = "ready";
  } else if (document.querySelector("script[src*='mathjax'], script[src*='MathJax']")) {
    mathjax = "not started";
  }
  const images = Array.from(document.images).map((img) => ({
    src: img.currentSrc || img.src, ok: img.complete && img.naturalWidth > 0,
  }));
  const mathNodes = Array.from(document.querySelectorAll(".math"));
  const unrendered = mathNodes
    .filter((el) => !el.querySelector("mjx-container") && !el.closest("mjx-container"))
    .map((el) => el.textContent.trim().slice(0, 80));
  const mathErrors = Array.from(document.querySelectorAll("mjx-merror, .MathJax_Error"))
    .map((el) => (el.getAttribute("data-mjx-error") || el.textContent).slice(0, 80));
  // Visible text outside code, scripts and rendered math.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      const el = node.parentElement;
      if (!el || el.closest("script, style, noscript, pre, code, textarea, mjx-container, " +
                             ".highlight, .math, .sphx-glr-script-out, .headerlink")) {
        return NodeFilter.FILTER_REJECT;
      }
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  const texPatterns = [/\\\(/, /\\\)/, /\\\[/, /\\\]/, /\$\$/,
                       /\$[^$\n]*\\[A-Za-z]+[^$\n]*\$/, /\$[^$\s][^$\n]{0,80}[_^][^$\n]*\$/,
                       /\\(frac|mathbb|mathcal|sum|log)\b/];
  const rawTex = [];
  const rawKeys = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent;
    if (texPatterns.some((re) => re.test(text))) { rawTex.push(text.trim().slice(0, 100)); }
    for (const key of citationKeys) {
      if (text.includes(key)) { rawKeys.push(`${key} in "${text.trim().slice(0, 100)}"`); }
    }
  }
  const links = Array.from(document.querySelectorAll("a[href]")).map((a) => a.href);
  const blocks = document.querySelectorAll("pre, div.sphx-glr-script-out, table").length;
  return {images, mathCount: mathNodes.length, unrendered, mathErrors, rawTex, rawKeys, links,
          mathjax, blocks};
}
"""

# Window sizes at which the layout is checked: a desktop and a narrow (phone) width.
VIEWPORTS = [(1280, 900), (400, 800)]

# Code blocks and tables whose content is wider than their box. The element
# must then be a horizontal scroll container: content that spills out overlaps
# the sidebar, content that is clipped cannot be read, and a code block whose
# lines wrap turns a printed table into a jumble. Elements inside an ancestor
# that scrolls horizontally (within the text column) are fine: the reader can
# scroll them into view.
INSPECT_LAYOUT = r"""
() => {
  const column = document.querySelector("article.bd-article") ||
                 document.querySelector("article, [role=main], main") || document.body;
  const columnBox = column.getBoundingClientRect();
  const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const label = (el) => {
    let what = el.tagName.toLowerCase();
    if (el.classList.contains("sphx-glr-script-out")) {
      what = "gallery output";
    } else if (what === "div") {
      what = "highlight div";
    }
    if (el.parentElement && el.parentElement.closest(".sphx-glr-script-out")) {
      what = `gallery output ${what}`;
    }
    const section = el.closest("section[id], dd[id], dl[id], div[id]");
    const where = section && section !== el ? ` in #${section.id}` : "";
    const lines = (el.innerText || el.textContent || "").split("\n")
      .map((line) => line.trim()).filter((line) => line);
    const text = lines.length ? ` "${lines[0].slice(0, 60)}"` : "";
    return `${what}${where}${text}`;
  };
  const findings = [];
  const boxes = [];
  const add = (el, problem, detail) => findings.push({element: label(el), problem, detail});
  const elements = column.querySelectorAll("pre, div.highlight, div.sphx-glr-script-out, table");
  for (const el of elements) {
    if (!el.getClientRects().length) { continue; }  // not displayed (collapsed, hidden)
    const box = el.getBoundingClientRect();
    if (box.width === 0) { continue; }
    const style = getComputedStyle(el);
    // code the reader types (Python, a doctest) or what it printed (text, gallery output)
    const typed = el.closest(".highlight-python, .highlight-pycon, .highlight-default, " +
                             ".highlight-python3, .highlight-ipython3");
    const kind = el.tagName === "TABLE" ? "table" : (typed ? "code" : "output");
    boxes.push({element: label(el), kind,
                scrollWidth: el.scrollWidth, clientWidth: el.clientWidth});
    if (el.scrollWidth > el.clientWidth + 1 && !scrolls(el)) {
      add(el, "content wider than its box and no horizontal scrollbar " +
          `(overflow-x: ${style.overflowX})`,
          `${el.scrollWidth} px of content in a ${el.clientWidth} px box`);
    }
    if (el.tagName === "PRE" && !["pre", "nowrap"].includes(style.whiteSpace)) {
      const saved = el.style.whiteSpace;
      el.style.whiteSpace = "pre";
      const natural = el.scrollWidth;
      el.style.whiteSpace = saved;
      if (natural > el.clientWidth + 1) {
        add(el, `lines wrap (white-space: ${style.whiteSpace}) instead of scrolling`,
            `${natural} px lines in a ${el.clientWidth} px box`);
      }
    }
    let scroller = null;
    for (let up = el.parentElement; up && up !== column; up = up.parentElement) {
      if (scrolls(up)) { scroller = up; break; }
    }
    if (!scroller && (box.right > columnBox.right + 1 || box.left < columnBox.left - 1)) {
      add(el, "sticks out of the text column",
          `box ${Math.round(box.left)}-${Math.round(box.right)} px, column ` +
          `${Math.round(columnBox.left)}-${Math.round(columnBox.right)} px`);
    }
  }
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) {
    findings.push({element: "page", problem: "wider than the window (scrolls sideways)",
                   detail: `${root.scrollWidth} px in a ${root.clientWidth} px window`});
  }
  return {findings, boxes};
}
"""

# At the desktop width, code and results must be readable without scrolling sideways: the
# gallery's code blocks and printed output, the tables of the gallery and the user guide (a
# results table whose adversary column had to be scrolled into view was issue 27), and the code
# (Python, doctests) of every other page, whose cut comments had to be scrolled into view
# (issue 36). A few pixels of slack absorb sub-pixel rounding and borders.
FIT_WIDTH = 1280
FIT_TOLERANCE = 4


def must_fit(page, kind):
    """Whether an element of ``kind`` ("code", "output" or "table") on ``page`` must fit its box.

    ``page`` is the path of the page relative to the site's root (``auto_examples/x.html``).
    Everything of the gallery; the code (Python, doctests: what a reader copies) of every
    page: the user guide, the API pages (a docstring's Examples) and the top-level pages; the
    tables of the user guide. Printed output outside the gallery may scroll.
    """
    folder = page.split("/", 1)[0] if "/" in page else ""
    if folder == "auto_examples":
        return True
    return kind == "code" or (kind == "table" and folder == "user_guide")


def fit_problems(page, width, boxes, tolerance=FIT_TOLERANCE):
    """``(element, problem, detail)`` for each box of ``page`` that must fit and does not.

    ``boxes`` holds the measurements of the page's code blocks and tables at window
    ``width`` (``element``, ``kind``, ``scrollWidth``, ``clientWidth``); only the desktop
    width ``FIT_WIDTH`` is held to fitting, and content up to ``tolerance`` px wider than
    its box passes.
    """
    if width != FIT_WIDTH:
        return []
    return [
        (
            box["element"],
            "wider than its box, to be scrolled sideways (it must fit at this width)",
            f"{box['scrollWidth']} px of content in a {box['clientWidth']} px box",
        )
        for box in boxes
        if box["scrollWidth"] - box["clientWidth"] > tolerance and must_fit(page, box["kind"])
    ]


def check_layout(tab, viewports=VIEWPORTS, page=""):
    """Overflow problems of the page open in ``tab`` (``page``, its path), at each window size.

    Returns one line per problem; a problem seen at several widths is reported
    once, with the widths and the measurements at the first of them.
    """
    seen = {}
    for width, height in viewports:
        tab.set_viewport_size({"width": width, "height": height})
        # Let the theme react to the new size (media queries, resize handlers).
        tab.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
        report = tab.evaluate(INSPECT_LAYOUT)
        findings = [(f["element"], f["problem"], f["detail"]) for f in report["findings"]]
        for element, problem, detail in findings + fit_problems(page, width, report["boxes"]):
            key = (element, problem)
            if key in seen:
                seen[key][0].append(width)
            else:
                seen[key] = ([width], detail)
    return [
        f"{element}: {problem} at {'/'.join(map(str, widths))} px window ({detail})"
        for (element, problem), (widths, detail) in seen.items()
    ]


def citation_keys():
    """The papers' short names that docstrings cite (``docs/_citations.py``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "_citations", Path(__file__).resolve().parent / "_citations.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return sorted(module.PAPERS)


class _Anchors(HTMLParser):
    """Collect the ids and names of a page's elements."""

    def __init__(self):
        super().__init__()
        self.anchors = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id" or (key == "name" and tag == "a"):
                self.anchors.add(value)


@functools.cache
def anchors_of(path):
    parser = _Anchors()
    parser.feed(Path(path).read_text(encoding="utf-8", errors="replace"))
    return frozenset(parser.anchors)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


def serve(root):
    """Serve ``root`` on a free local port; return the server and its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def pages_to_check(root, api=True):
    """Relative paths of the pages to open, in a stable order."""
    pages = [p for p in sorted(root.glob("*.html")) if p.name not in SKIPPED_PAGES]
    for folder in ["user_guide", "auto_examples"] + (["api", "generated"] if api else []):
        pages += sorted((root / folder).rglob("*.html"))
    rel = [p.relative_to(root).as_posix() for p in pages]
    return ["index.html"] + [p for p in rel if p != "index.html"]


def check_link(root, base, page, href, problems, counts):
    """Check one link of ``page``: the file exists and so does its anchor."""
    if not href.startswith(base):
        if href.startswith(("http://", "https://")):
            counts["external links (not followed)"] += 1
        return
    url, fragment = urldefrag(href)
    path = unquote(urlsplit(url).path)[1:]
    target = root / path
    if path == "" or path.endswith("/"):
        target = target / "index.html"
    counts["internal links"] += 1
    if not target.is_file():
        problems.append(f"{page}: broken link {href} (no file {target.relative_to(root)})")
        return
    if fragment and target.suffix == ".html":
        counts["anchors"] += 1
        if unquote(fragment) not in anchors_of(str(target)):
            problems.append(f"{page}: broken anchor {href} (no id {fragment!r} in {path})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_root = Path(__file__).resolve().parent / "_build" / "html"
    parser.add_argument("root", nargs="?", type=Path, default=default_root)
    parser.add_argument("--no-api", action="store_true", help="skip the API pages")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument(
        "--no-layout", dest="layout", action="store_false", help="skip the overflow checks"
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per page")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    root = args.root.resolve()
    if not (root / "index.html").is_file():
        print(f"no built site in {root}: build it first", file=sys.stderr)
        return 2
    pages = pages_to_check(root, api=not args.no_api)
    keys = citation_keys()
    server, base = serve(root)
    problems = []
    counts = dict.fromkeys(
        [
            "pages",
            "images",
            "code blocks and tables",
            "math elements",
            "internal links",
            "anchors",
            "external links (not followed)",
        ],
        0,
    )
    seen_links = set()
    start = time.perf_counter()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=args.chromium, headless=True, args=CHROMIUM_ARGS
            )
            # Reduced motion: the theme animates the sidebar's width when the window
            # changes size, and the layout must be measured once it has settled.
            context = browser.new_context(
                viewport={"width": VIEWPORTS[0][0], "height": VIEWPORTS[0][1]},
                reduced_motion="reduce",
            )
            page_problems = []

            def route(route_obj):
                url = route_obj.request.url
                if url.startswith(base) or url.startswith(("data:", "blob:", "about:")):
                    route_obj.continue_()
                else:
                    page_problems.append(f"fetches a resource from the network: {url}")
                    route_obj.abort()

            context.route("**/*", route)
            tab = context.new_page()
            tab.set_default_timeout(args.timeout * 1000)
            tab.on(
                "console",
                lambda msg: (
                    msg.type == "error" and page_problems.append(f"console error: {msg.text[:200]}")
                ),
            )
            tab.on("pageerror", lambda exc: page_problems.append(f"script error: {exc}"))
            tab.on(
                "response",
                lambda resp: (
                    resp.url.startswith(base)
                    and resp.status >= 400
                    and page_problems.append(f"HTTP {resp.status} for {resp.url}")
                ),
            )
            for rel in pages:
                page_problems.clear()
                tab.goto(base + rel, wait_until="load")
                report = tab.evaluate(INSPECT_PAGE, keys)
                counts["pages"] += 1
                counts["images"] += len(report["images"])
                counts["math elements"] += report["mathCount"]
                for image in report["images"]:
                    if not image["ok"]:
                        page_problems.append(f"image not loaded: {image['src']}")
                if report["mathCount"] and report["mathjax"] != "ready":
                    page_problems.append(f"math on the page but MathJax {report['mathjax']}")
                for tex in report["unrendered"]:
                    page_problems.append(f"math not rendered: {tex!r}")
                for err in report["mathErrors"]:
                    page_problems.append(f"MathJax error: {err!r}")
                for text in report["rawTex"]:
                    page_problems.append(f"raw TeX in text: {text!r}")
                for text in report["rawKeys"]:
                    page_problems.append(f"raw citation key in text: {text}")
                counts["code blocks and tables"] += report["blocks"]
                if args.layout:
                    page_problems.extend(check_layout(tab, page=rel))
                problems.extend(f"{rel}: {p}" for p in page_problems)
                for href in report["links"]:
                    if (rel, href) in seen_links:
                        continue
                    seen_links.add((rel, href))
                    check_link(root, base, rel, href, problems, counts)
            browser.close()
    finally:
        server.shutdown()

    elapsed = time.perf_counter() - start
    summary = ", ".join(f"{n} {name}" for name, n in counts.items())
    print(f"check_site: {summary} in {elapsed:.0f} s")
    if problems:
        print(f"{len(problems)} problem(s):")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print("no problems found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
