"""Sphinx configuration of the sklearn-privacy documentation.

Build (warnings are errors)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The build works without network access: MathJax is bundled
(``sphinx-mathjax-offline``) and intersphinx reads the inventories cached in
``docs/_intersphinx/`` (refresh them with
``python docs/_intersphinx/update_inventories.py`` when online).
"""

import os
import re
import sys
import warnings
from datetime import date
from pathlib import Path

import sklearn_privacy

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_intersphinx"))

from update_inventories import INVENTORIES  # noqa: E402

sys.path.insert(0, str(DOCS))
from _citations import cite_papers  # noqa: E402

# Gallery examples draw with matplotlib; never open a window during the build.
os.environ.setdefault("MPLBACKEND", "Agg")

# The gallery makes many small BLAS calls (logistic regressions, adversaries): BLAS threads
# oversubscribe a small machine (a 2-core CI box ran the grid-search example 2x slower).
from threadpoolctl import threadpool_limits  # noqa: E402

threadpool_limits(1)

# -- Project -------------------------------------------------------------------

project = "sklearn-privacy"
author = "The sklearn-privacy developers"
_first_year, _year = 2026, date.today().year
copyright = f"{_first_year}{f'-{_year}' if _year > _first_year else ''}, {author} (BSD-3-Clause)"
release = sklearn_privacy.__version__
version = ".".join(release.split(".")[:2])

# Subpackages whose __all__ make up the public API (one page each: docs/api/<name>.rst).
API_SUBPACKAGES = [
    "base",
    "discrete",
    "gaussian",
    "dp",
    "adversarial",
    "information",
    "metrics",
    "model_selection",
    "plotting",
    "theory",
    "datasets",
    "utils",
    "exceptions",
]

# -- General -------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    # Copies a MathJax 3 bundle into _static and points mathjax_path at it.
    "sphinx-mathjax-offline",
    "numpydoc",
    "myst_parser",
    "sphinx_copybutton",
    "sphinxcontrib.bibtex",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "_intersphinx",
    "_templates",
    "Thumbs.db",
    ".DS_Store",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "auto_examples/*.md5",
    "auto_examples/*.pickle",
    "examples/**",
]
# `single backticks` in docstrings are code, as in scikit-learn's documentation.
default_role = "literal"
pygments_style = "sphinx"
pygments_dark_style = "monokai"
add_module_names = False
toc_object_entries_show_parents = "hide"

# -- autodoc / autosummary / numpydoc ------------------------------------------

autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": False, "inherited-members": False}
autodoc_typehints = "none"
autoclass_content = "class"
autodoc_member_order = "groupwise"

# The class template (_templates/autosummary/class.rst) lists the methods
# itself, with one-line summaries; numpydoc must not add a second table.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_show_inherited_class_members = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = True
numpydoc_xref_aliases = {
    "ndarray": "numpy.ndarray",
    "Generator": "numpy.random.Generator",
    "RandomState": "numpy.random.RandomState",
    "SeedSequence": "numpy.random.SeedSequence",
    "DataFrame": "pandas.DataFrame",
    "Series": "pandas.Series",
    "estimator": "sklearn.base.BaseEstimator",
    "Pipeline": "sklearn.pipeline.Pipeline",
    "Axes": "matplotlib.axes.Axes",
    "Figure": "matplotlib.figure.Figure",
    "Tensor": "torch.Tensor",
    "Module": "torch.nn.Module",
}
numpydoc_xref_ignore = "all"


def _own_methods():
    """Public methods of every public class that sklearn_privacy defines.

    The class template lists and documents these; methods inherited from
    scikit-learn (get_params, set_output, set_*_request, ...) are documented
    by scikit-learn and left out here.
    """
    import importlib
    import inspect

    methods = {}
    for sub in API_SUBPACKAGES:
        module = importlib.import_module(f"sklearn_privacy.{sub}")
        for name in module.__all__:
            cls = getattr(module, name)
            if not inspect.isclass(cls):
                continue
            own = []
            for attr in sorted(dir(cls)):
                if attr.startswith("_") and attr != "__call__":
                    continue
                if attr.startswith("set_") and attr.endswith("_request"):
                    continue
                raw = inspect.getattr_static(cls, attr)
                if isinstance(raw, (staticmethod, classmethod)):
                    raw = raw.__func__
                if not inspect.isfunction(raw):
                    continue
                if raw.__module__.startswith("sklearn_privacy"):
                    own.append(attr)
            methods[f"sklearn_privacy.{sub}.{name}"] = own
    return methods


def _data_docs():
    """Documentation of the public constants (``#:`` comments) and what they accept.

    Constants have no docstring of their own (autodoc would show the one of
    their class), so the ``#:`` comment above their definition is read here.
    """
    import importlib
    import pkgutil

    from sphinx.pycode import ModuleAnalyzer

    docs = {}
    for sub in API_SUBPACKAGES:
        package = importlib.import_module(f"sklearn_privacy.{sub}")
        data = [
            name
            for name in package.__all__
            if not callable(getattr(package, name)) and not isinstance(getattr(package, name), type)
        ]
        if not data or not hasattr(package, "__path__"):
            continue
        for info in pkgutil.iter_modules(package.__path__):
            modname = f"sklearn_privacy.{sub}.{info.name}"
            module = importlib.import_module(modname)
            attr_docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
            for name in data:
                if getattr(module, name, None) is getattr(package, name) and (
                    ("", name) in attr_docs
                ):
                    text = " ".join(line.strip() for line in attr_docs[("", name)]).strip()
                    docs[f"sklearn_privacy.{sub}.{name}"] = (text, str(getattr(package, name)))
    return docs


# scikit-learn methods that estimators inherit, named on the class page and
# linked to scikit-learn's documentation.
_SKLEARN_METHODS = {
    "fit_transform": "sklearn.base.TransformerMixin.fit_transform",
    "get_metadata_routing": "sklearn.base.BaseEstimator.get_metadata_routing",
    "get_params": "sklearn.base.BaseEstimator.get_params",
    "set_output": "sklearn.base.TransformerMixin.set_output",
    "set_params": "sklearn.base.BaseEstimator.set_params",
}


def _sklearn_methods():
    import importlib

    inherited = {}
    for sub in API_SUBPACKAGES:
        module = importlib.import_module(f"sklearn_privacy.{sub}")
        for name in module.__all__:
            cls = getattr(module, name)
            if isinstance(cls, type):
                inherited[f"sklearn_privacy.{sub}.{name}"] = [
                    (target, attr)
                    for attr, target in _SKLEARN_METHODS.items()
                    if hasattr(cls, attr)
                    and not getattr(getattr(cls, attr), "__module__", "").startswith(
                        "sklearn_privacy"
                    )
                ]
    return inherited


# -- Math ----------------------------------------------------------------------

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_dmath_double_inline = True
myst_heading_anchors = 3
mathjax3_config = {
    "tex": {
        "macros": {
            "E": r"\mathbb{E}",
            "R": r"\mathbb{R}",
        }
    }
}

autosummary_context = {
    "sp_methods": _own_methods(),
    "sp_sklearn_methods": _sklearn_methods(),
    "sp_data": _data_docs(),
}

# -- Bibliography --------------------------------------------------------------

bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

# -- Copy button ---------------------------------------------------------------

copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = False

# -- Intersphinx (offline first) -----------------------------------------------
# Each mapping reads the inventory cached in docs/_intersphinx/<name>.inv, so a
# build without network access neither waits nor warns; a project whose cache
# is missing is left out. With SKLEARN_PRIVACY_DOCS_ONLINE=1 the projects' own
# objects.inv are tried first and the caches are the fallback (Sphinx only
# warns when every location of a project fails).

_online = os.environ.get("SKLEARN_PRIVACY_DOCS_ONLINE", "") not in ("", "0")
intersphinx_mapping = {}
for _name, (_url, _inv_url) in INVENTORIES.items():
    _cache = DOCS / "_intersphinx" / f"{_name}.inv"
    if _cache.is_file():
        _locations = (_inv_url, str(_cache)) if _online else (str(_cache),)
        intersphinx_mapping[_name] = (_url, _locations)
intersphinx_timeout = 5

# -- Gallery -------------------------------------------------------------------


sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py|/_",
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "doc_module": ("sklearn_privacy",),
    "backreferences_dir": "generated/backreferences",
    "inspect_global_variables": True,
    "remove_config_comments": True,
    "min_reported_time": 0,
    "write_computation_times": True,
    "show_memory": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    # Last-expression reprs of plotting objects are noise ("Out: <...Display
    # object>"); DataFrames and numbers are still shown.
    "capture_repr": ("_repr_html_", "__repr__"),
    "ignore_repr_types": r"matplotlib|Display|Axes|Figure|Legend|Line2D|Text|NoneType",
    "download_all_examples": True,
    "show_signature": False,
}

# Examples use Agg; its "cannot show the figure" message is expected.
warnings.filterwarnings(
    "ignore", category=UserWarning, message="FigureCanvasAgg is non-interactive"
)

# -- HTML ----------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"sklearn-privacy {release}"
html_short_title = "sklearn-privacy"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
html_theme_options = {
    "navigation_depth": 3,
    "show_toc_level": 2,
    "show_nav_level": 1,
    "collapse_navigation": False,
    "header_links_before_dropdown": 6,
    "navbar_align": "left",
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
    "navigation_with_keys": False,
    "use_edit_page_button": False,
    "icon_links": [],
    "logo": {"text": "sklearn-privacy"},
    "pygments_light_style": "tango",
    "pygments_dark_style": "monokai",
}
html_context = {"default_mode": "auto"}
html_sidebars = {
    "index": [],
    "install": [],
    "quickstart": [],
    "references": [],
    # The gallery's pages give the text column the left sidebar's width: at 1280 px their code
    # (lines of up to 100 characters) and printed tables fit without scrolling (928 px instead
    # of 656; docs/check_site.py checks it). The examples link each other and the gallery.
    "auto_examples/*": [],
}

# -- Cross-references to the public API ----------------------------------------
# Mechanisms are documented once, under their subpackage
# (sklearn_privacy.discrete.PrivacyFunnelTransformer); references to the
# top-level alias (sklearn_privacy.PrivacyFunnelTransformer) or to a private
# module path (sklearn_privacy.discrete._funnel.PrivacyFunnelTransformer) are
# redirected to that page.


def _public_names():
    import importlib

    public = {}
    for sub in API_SUBPACKAGES:
        module = importlib.import_module(f"sklearn_privacy.{sub}")
        for name in module.__all__:
            obj = getattr(module, name)
            canonical = f"sklearn_privacy.{sub}.{name}"
            public.setdefault(f"sklearn_privacy.{name}", canonical)
            origin = getattr(obj, "__module__", None)
            if isinstance(origin, str) and origin.startswith("sklearn_privacy"):
                public.setdefault(f"{origin}.{name}", canonical)
    return public


def _resolve_public_alias(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    canonical = _ALIASES.get(target)
    if canonical is None or canonical == target:
        return None
    domain = env.get_domain("py")
    return domain.resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], canonical, node, contnode
    )


_ALIASES = {}


def _offline_time_report(app, docname, source):
    """Drop the CDN jQuery/DataTables scripts of sphinx-gallery's time report.

    The report stays a plain table; the site loads nothing from the network.
    """
    if docname.endswith("sg_execution_times"):
        source[0] = re.sub(
            r"\n *\.\. raw:: html\n.*?(?=\n *\.\. list-table::)", "\n", source[0], flags=re.S
        )


def _check_api_page(app):
    """Warn when docs/api/<sub>.rst misses a name of a subpackage's ``__all__``."""
    import importlib

    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    for sub in API_SUBPACKAGES:
        module = f"sklearn_privacy.{sub}"
        page = DOCS / "api" / f"{sub}.rst"
        text = page.read_text(encoding="utf-8") if page.is_file() else ""
        listed = set()
        for section in re.split(r"^\.\. currentmodule:: ", text, flags=re.M)[1:]:
            current, _, body = section.partition("\n")
            if current.strip() == module:
                listed.update(re.findall(r"^ {3}~?([A-Za-z_][\w.]*)\s*$", body, flags=re.M))
        missing = sorted(set(importlib.import_module(module).__all__) - listed)
        if missing:
            logger.warning(
                "docs/api/%s.rst does not list %s from %s.__all__", sub, ", ".join(missing), module
            )


def setup(app):
    app.connect("builder-inited", _check_api_page)
    # "(ppan-tripathy2017, eq. 3-5)" in a docstring becomes a citation linking to the
    # references page, with its locator (docs/_citations.py).
    app.connect("autodoc-process-docstring", cite_papers)
    _ALIASES.update(_public_names())
    app.connect("missing-reference", _resolve_public_alias)
    app.connect("source-read", _offline_time_report)
