"""Turn the papers' short names in docstrings into citations of the references page.

Docstrings cite a paper by the name of its text in ``../shared/papers``
(``ppan-tripathy2017``, ``privacy-funnel-makhdoumi2014``, ...), often with a
locator: ``(ppan-tripathy2017, eq. 3-5)``. Read as plain text on an API page such
a key means nothing to a reader. ``docs/conf.py`` connects :func:`cite_papers` to
``autodoc-process-docstring``; it rewrites each key into a sphinxcontrib-bibtex
role that links to the entry of ``docs/references.bib`` on the references page,
keeping the locator:

* ``(KEY, eq. 3-5)`` and ``(KEY sec. V)`` become ``:cite:p:`bib{eq. 3-5}```,
  rendered "(Tripathy et al., 2017, eq. 3-5)";
* a key inside a longer parenthesis, ``(Chechik et al. 2005; KEY ch. 4)``,
  becomes ``:cite:alp:`bib``` (author and year, no second parenthesis);
* a key in running text, with or without a locator after it (``KEY, Thm. 1``,
  ``KEY (Fig. 9)``) becomes ``:cite:t:`bib{Thm. 1}```, rendered
  "Makhdoumi et al. (2014, Thm. 1)".

Keys inside inline literals and doctest lines are left alone. Inside a locator,
"Thm. 1" is joined by a word joiner and a no-break space, so that autosummary,
which ends a summary at a period followed by a space, does not cut the role.
"""

import re

# The papers' short names (file names in ../shared/papers) and the bibliography
# keys of docs/references.bib. A bibliography key written alone in a docstring
# is recognised too.
PAPERS = {
    "dp-compression-kohler2018": "kohler2018",
    "ppan-tripathy2017": "tripathy2017",
    "privacy-funnel-makhdoumi2014": "makhdoumi2014",
    "privacy-statistical-inference-calmon2012": "calmon2012",
    "submodular-funnel-ding": "ding2019",
}
CITABLE = {**PAPERS, **{key: key for key in PAPERS.values()}}

_KEY = "|".join(sorted(map(re.escape, CITABLE), key=len, reverse=True))
# What follows a key to say where in the paper: "Thm. 1", "sec. V", "eq. 3-5",
# "Alg. 1 and 2", "ch. 3 and 5", "Fig. 9", "Table 1", "Prop. 1".
_LOCATOR = (
    r"(?:Thm|Theorem|Prop|Alg|Algorithm|Def|Lemma|Cor|Sec|sec|ch|eq|Eq|Fig|Figs|Table|App)"
    r"\.?\s*[\w.\-]*\w(?:\s*(?:,|and)\s*[\w.\-]*\d[\w.\-]*)*"
)
_PARENTHESIS = re.compile(rf"\((?P<key>{_KEY})(?:,?\s+(?P<loc>[^(){{}}`\n]+?))?\)")
_NARRATIVE = re.compile(
    rf"(?<![\w\-`])(?P<key>{_KEY})(?![\w\-])"
    rf"(?:(?:,\s+|\s+)(?P<loc>{_LOCATOR})|\s+\((?P<ploc>{_LOCATOR})\))?"
)


# Between an abbreviation's period and what follows ("Thm. 1"): a word joiner and a no-break
# space. autosummary cuts a summary at the first period followed by whitespace, which would cut
# a citation role in two; the word joiner keeps the period from being followed by whitespace.
_NO_SENTENCE_END = "\u2060\u00a0"


def _role(kind, key, locator=None):
    locator = re.sub(r"\.\s+", "." + _NO_SENTENCE_END, (locator or "").strip())
    return (
        f":cite:{kind}:`{CITABLE[key]}{{{locator}}}`"
        if locator
        else f":cite:{kind}:`{CITABLE[key]}`"
    )


def _in_literal(text, position):
    """Whether ``position`` of ``text`` lies inside an inline literal."""
    return text.count("`", 0, position) % 2 == 1


def _depth(text, position):
    """Parentheses opened and not closed before ``position``."""
    return text.count("(", 0, position) - text.count(")", 0, position)


def cite_line(line, depth=0):
    """Rewrite the paper keys of one docstring line; return it and the open depth."""
    if line.lstrip().startswith((">>>", "...")):
        return line, depth

    def parenthesis(match):
        if _in_literal(match.string, match.start()):
            return match.group(0)
        return _role("p", match["key"], match["loc"])

    line = _PARENTHESIS.sub(parenthesis, line)

    def narrative(match):
        if _in_literal(match.string, match.start()):
            return match.group(0)
        if depth + _depth(match.string, match.start()) > 0:
            # Inside a parenthesis: author and year, the locator stays text.
            return _role("alp", match["key"]) + match.group(0)[len(match["key"]) :]
        return _role("t", match["key"], match["loc"] or match["ploc"])

    rewritten = _NARRATIVE.sub(narrative, line)
    return rewritten, max(depth + _depth(line, len(line)), 0)


def cite_lines(lines):
    """Rewrite the paper keys of a docstring (a list of lines) in place."""
    depth = 0
    for i, line in enumerate(lines):
        if not line.strip():
            depth = 0
        lines[i], depth = cite_line(line, depth)
    return lines


def cite_papers(app, what, name, obj, options, lines):
    """``autodoc-process-docstring`` handler: cite the papers named in a docstring."""
    cite_lines(lines)
