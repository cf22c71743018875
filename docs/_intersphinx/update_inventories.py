"""Cached intersphinx inventories, so that the documentation builds offline.

``docs/conf.py`` reads ``docs/_intersphinx/<name>.inv`` for every project in
:data:`INVENTORIES` and never goes to the network. Run this script to refresh
the caches::

    python docs/_intersphinx/update_inventories.py            # download, keep old on failure
    python docs/_intersphinx/update_inventories.py --curated  # write the small offline lists

Downloading replaces a cache with the project's full ``objects.inv``. Where a
download fails (no network) and no cache exists, or with ``--curated``, the
script writes a small inventory of the objects this documentation refers to,
with their addresses on the project's site (``CURATED`` below).
"""

import argparse
import sys
import urllib.request
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name: (base URL of the site, URL of its objects.inv)
INVENTORIES = {
    "python": ("https://docs.python.org/3/", "https://docs.python.org/3/objects.inv"),
    "numpy": ("https://numpy.org/doc/stable/", "https://numpy.org/doc/stable/objects.inv"),
    "scipy": (
        "https://docs.scipy.org/doc/scipy/",
        "https://docs.scipy.org/doc/scipy/objects.inv",
    ),
    "sklearn": (
        "https://scikit-learn.org/stable/",
        "https://scikit-learn.org/stable/objects.inv",
    ),
    "pandas": ("https://pandas.pydata.org/docs/", "https://pandas.pydata.org/docs/objects.inv"),
    "matplotlib": (
        "https://matplotlib.org/stable/",
        "https://matplotlib.org/stable/objects.inv",
    ),
    "cvxpy": ("https://www.cvxpy.org/", "https://www.cvxpy.org/objects.inv"),
    "torch": (
        "https://docs.pytorch.org/docs/stable/",
        "https://docs.pytorch.org/docs/stable/objects.inv",
    ),
    "skorch": (
        "https://skorch.readthedocs.io/en/stable/",
        "https://skorch.readthedocs.io/en/stable/objects.inv",
    ),
}

# name: [(object, domain:role, relative URI)]; "$" in a URI stands for the object.
CURATED = {
    "python": [
        ("ValueError", "py:exception", "library/exceptions.html#$"),
        ("TypeError", "py:exception", "library/exceptions.html#$"),
        ("KeyError", "py:exception", "library/exceptions.html#$"),
        ("RuntimeError", "py:exception", "library/exceptions.html#$"),
        ("OSError", "py:exception", "library/exceptions.html#$"),
        ("FileNotFoundError", "py:exception", "library/exceptions.html#$"),
        ("NotImplementedError", "py:exception", "library/exceptions.html#$"),
        ("UserWarning", "py:exception", "library/exceptions.html#$"),
        ("Warning", "py:exception", "library/exceptions.html#$"),
        ("int", "py:class", "library/functions.html#$"),
        ("float", "py:class", "library/functions.html#$"),
        ("bool", "py:class", "library/functions.html#$"),
        ("str", "py:class", "library/stdtypes.html#$"),
        ("list", "py:class", "library/stdtypes.html#$"),
        ("tuple", "py:class", "library/stdtypes.html#$"),
        ("dict", "py:class", "library/stdtypes.html#$"),
        ("callable", "py:function", "library/functions.html#$"),
        ("None", "py:data", "library/constants.html#$"),
        ("pathlib.Path", "py:class", "library/pathlib.html#$"),
        ("os.PathLike", "py:class", "library/os.html#$"),
        ("dataclasses.dataclass", "py:function", "library/dataclasses.html#$"),
        ("warnings.warn", "py:function", "library/warnings.html#$"),
        ("True", "py:data", "library/constants.html#$"),
        ("False", "py:data", "library/constants.html#$"),
        ("contextlib.contextmanager", "py:function", "library/contextlib.html#$"),
        ("collections.namedtuple", "py:function", "library/collections.html#$"),
        # numpydoc's default type aliases (bool, sequence, iterable, ...) refer to these.
        ("bltin-boolean-values", "std:label", "library/stdtypes.html#bltin-boolean-values"),
        ("sequence", "std:term", "glossary.html#term-sequence"),
        ("iterable", "std:term", "glossary.html#term-iterable"),
        ("generator", "std:term", "glossary.html#term-generator"),
        ("mapping", "std:term", "glossary.html#term-mapping"),
        ("path-like object", "std:term", "glossary.html#term-path-like-object"),
    ],
    "numpy": [
        ("numpy.ndarray", "py:class", "reference/generated/$.html#$"),
        ("numpy.inf", "py:data", "reference/constants.html#$"),
        ("numpy.nan", "py:data", "reference/constants.html#$"),
        ("numpy", "py:module", "reference/index.html#module-numpy"),
        ("array_like", "std:term", "glossary.html#term-array_like"),
        ("arrays.scalars", "std:label", "reference/arrays.scalars.html#arrays-scalars"),
        ("numpy.dtype", "py:class", "reference/generated/$.html#$"),
        ("numpy.float64", "py:class", "reference/arrays.scalars.html#$"),
        ("numpy.bincount", "py:function", "reference/generated/$.html#$"),
        ("numpy.unique", "py:function", "reference/generated/$.html#$"),
        ("numpy.cov", "py:function", "reference/generated/$.html#$"),
        ("numpy.histogram", "py:function", "reference/generated/$.html#$"),
        ("numpy.linalg.eigh", "py:function", "reference/generated/$.html#$"),
        ("numpy.random.Generator", "py:class", "reference/random/generator.html#$"),
        ("numpy.random.default_rng", "py:function", "reference/random/generator.html#$"),
        ("numpy.random.RandomState", "py:class", "reference/random/legacy.html#$"),
        (
            "numpy.random.SeedSequence",
            "py:class",
            "reference/random/bit_generators/generated/$.html#$",
        ),
    ],
    "scipy": [
        ("scipy.special.xlogy", "py:data", "reference/generated/$.html#$"),
        ("scipy.special.xlog1py", "py:data", "reference/generated/$.html#$"),
        ("scipy.special.rel_entr", "py:data", "reference/generated/$.html#$"),
        ("scipy.special.entr", "py:data", "reference/generated/$.html#$"),
        ("scipy.special.ndtr", "py:data", "reference/generated/$.html#$"),
        ("scipy.optimize.brentq", "py:function", "reference/generated/$.html#$"),
        ("scipy.stats.norm", "py:data", "reference/generated/$.html#$"),
        ("scipy.linalg.eigh", "py:function", "reference/generated/$.html#$"),
    ],
    "sklearn": [
        (
            name,
            role,
            f"modules/generated/{name.rsplit('.', 1)[0] if role == 'py:method' else name}.html#$",
        )
        for name, role in [
            ("sklearn.base.BaseEstimator", "py:class"),
            ("sklearn.base.TransformerMixin", "py:class"),
            ("sklearn.base.clone", "py:function"),
            ("sklearn.base.BaseEstimator.get_params", "py:method"),
            ("sklearn.base.BaseEstimator.set_params", "py:method"),
            ("sklearn.base.BaseEstimator.get_metadata_routing", "py:method"),
            ("sklearn.base.TransformerMixin.fit_transform", "py:method"),
            ("sklearn.base.TransformerMixin.set_output", "py:method"),
            ("sklearn.pipeline.Pipeline", "py:class"),
            ("sklearn.pipeline.make_pipeline", "py:function"),
            ("sklearn.compose.ColumnTransformer", "py:class"),
            ("sklearn.model_selection.GridSearchCV", "py:class"),
            ("sklearn.model_selection.StratifiedKFold", "py:class"),
            ("sklearn.model_selection.KFold", "py:class"),
            ("sklearn.model_selection.check_cv", "py:function"),
            ("sklearn.model_selection.cross_validate", "py:function"),
            ("sklearn.model_selection.validation_curve", "py:function"),
            ("sklearn.model_selection.ValidationCurveDisplay", "py:class"),
            ("sklearn.metrics.make_scorer", "py:function"),
            ("sklearn.metrics.check_scoring", "py:function"),
            ("sklearn.metrics.accuracy_score", "py:function"),
            ("sklearn.metrics.mutual_info_score", "py:function"),
            ("sklearn.metrics.RocCurveDisplay", "py:class"),
            ("sklearn.metrics.cluster.contingency_matrix", "py:function"),
            ("sklearn.feature_selection.mutual_info_classif", "py:function"),
            ("sklearn.preprocessing.KBinsDiscretizer", "py:class"),
            ("sklearn.preprocessing.OneHotEncoder", "py:class"),
            ("sklearn.preprocessing.StandardScaler", "py:class"),
            ("sklearn.impute.SimpleImputer", "py:class"),
            ("sklearn.linear_model.LogisticRegression", "py:class"),
            ("sklearn.dummy.DummyClassifier", "py:class"),
            ("sklearn.ensemble.HistGradientBoostingClassifier", "py:class"),
            ("sklearn.datasets.load_breast_cancer", "py:function"),
            ("sklearn.datasets.load_digits", "py:function"),
            ("sklearn.datasets.get_data_home", "py:function"),
            ("sklearn.utils.Bunch", "py:class"),
            ("sklearn.utils.check_random_state", "py:function"),
            ("sklearn.utils.multiclass.type_of_target", "py:function"),
            ("sklearn.exceptions.ConvergenceWarning", "py:class"),
            ("sklearn.set_config", "py:function"),
        ]
    ]
    + [
        ("sklearn.datasets", "py:module", "api/sklearn.datasets.html#module-$"),
        ("metadata_routing", "std:label", "metadata_routing.html#metadata-routing"),
        ("grid_search", "std:label", "modules/grid_search.html#grid-search"),
        ("cross_validation", "std:label", "modules/cross_validation.html#cross-validation"),
        ("scoring_parameter", "std:label", "modules/model_evaluation.html#scoring-parameter"),
        ("pipeline", "std:label", "modules/compose.html#pipeline"),
    ],
    "pandas": [
        ("pandas.DataFrame", "py:class", "reference/api/$.html#$"),
        ("pandas.Series", "py:class", "reference/api/$.html#$"),
        ("pandas.Categorical", "py:class", "reference/api/$.html#$"),
        ("pandas.isna", "py:function", "reference/api/$.html#$"),
        ("pandas.read_csv", "py:function", "reference/api/$.html#$"),
    ],
    "matplotlib": [
        ("matplotlib.axes.Axes", "py:class", "api/_as_gen/$.html#$"),
        ("matplotlib.figure.Figure", "py:class", "api/_as_gen/$.html#$"),
        ("matplotlib.lines.Line2D", "py:class", "api/_as_gen/$.html#$"),
        ("matplotlib.collections.PathCollection", "py:class", "api/collections_api.html#$"),
        ("matplotlib.pyplot.subplots", "py:function", "api/_as_gen/$.html#$"),
        ("matplotlib.axes.Axes.errorbar", "py:method", "api/_as_gen/$.html#$"),
        ("matplotlib.axes.Axes.plot", "py:method", "api/_as_gen/$.html#$"),
    ],
    "cvxpy": [
        ("cvxpy.Problem", "py:class", "api_reference/cvxpy.problems.html"),
        ("cvxpy.Variable", "py:class", "api_reference/cvxpy.expressions.html"),
        ("cvxpy.Parameter", "py:class", "api_reference/cvxpy.expressions.html"),
        ("cvxpy.Minimize", "py:class", "api_reference/cvxpy.problems.html"),
    ],
    "torch": [
        ("torch.Tensor", "py:class", "tensors.html#$"),
        ("torch.device", "py:class", "tensor_attributes.html#$"),
        ("torch.nn.Module", "py:class", "generated/$.html#$"),
        ("torch.nn.Linear", "py:class", "generated/$.html#$"),
        ("torch.nn.Sequential", "py:class", "generated/$.html#$"),
        ("torch.nn.CrossEntropyLoss", "py:class", "generated/$.html#$"),
        ("torch.optim.Adam", "py:class", "generated/$.html#$"),
        ("torch.optim.Optimizer", "py:class", "optim.html#$"),
        ("torch.manual_seed", "py:function", "generated/$.html#$"),
        ("torch.cuda.is_available", "py:function", "generated/$.html#$"),
    ],
    "skorch": [
        ("skorch.net.NeuralNet", "py:class", "net.html#$"),
        ("skorch.NeuralNet", "py:class", "net.html#skorch.net.NeuralNet"),
        ("skorch.classifier.NeuralNetClassifier", "py:class", "classifier.html#$"),
        ("skorch.callbacks.Callback", "py:class", "callbacks.html#$"),
        ("skorch.callbacks.EarlyStopping", "py:class", "callbacks.html#$"),
        ("skorch.history.History", "py:class", "history.html#$"),
        ("skorch.dataset.ValidSplit", "py:class", "dataset.html#$"),
    ],
}


def write_curated(name):
    """Write the small offline inventory of ``name`` and return its path."""
    lines = [f"{obj} {role} 1 {uri.replace('$', obj)} -" for obj, role, uri in CURATED[name]]
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {name}\n"
        "# Version: curated\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    path = HERE / f"{name}.inv"
    path.write_bytes(header.encode() + zlib.compress("\n".join(lines).encode() + b"\n"))
    return path


def download(name, timeout):
    """Replace the cache of ``name`` by the project's objects.inv."""
    _, inv_url = INVENTORIES[name]
    with urllib.request.urlopen(inv_url, timeout=timeout) as response:
        data = response.read()
    if not data.startswith(b"# Sphinx inventory version"):
        raise ValueError(f"{inv_url} is not a Sphinx inventory")
    path = HERE / f"{name}.inv"
    path.write_bytes(data)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--curated", action="store_true", help="write the curated lists only")
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args(argv)
    for name in INVENTORIES:
        if args.curated:
            print(f"{name}: curated -> {write_curated(name).name}")
            continue
        try:
            print(f"{name}: downloaded -> {download(name, args.timeout).name}")
        except (OSError, ValueError) as exc:
            if (HERE / f"{name}.inv").is_file():
                print(f"{name}: download failed ({exc}); kept the cached inventory")
            else:
                print(f"{name}: download failed ({exc}); curated -> {write_curated(name).name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
