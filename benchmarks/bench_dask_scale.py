"""Scale claim: 20 million categorical rows fitted and released through dask on two workers.

The data are sampled i.i.d. from the empirical Adult joint of five
categorical columns (age in 7 bins, workclass, education in 4 levels,
marital-status, race: 1499 joint symbols) and S = sex
(:func:`sklearn_privacy.datasets.fetch_adult` with ``discretize=True``), and
stored as Parquet partitions under a temporary folder (``--workdir``, default
the system's; never the repository), one partition generated at a time.
:class:`~sklearn_privacy.PrivacyFunnelTransformer` (default threshold,
``sensitive=["sex"]``) is fitted on ``dask.dataframe.read_parquet`` of them
(dask counts the distinct rows) and the release is written back as Parquet
by ``transform``, partition by partition, on a ``distributed.LocalCluster``
of two worker processes with ``memory_limit="2GB"`` each. The resident
memory of each worker is sampled every 0.2 s through ``client.run``.

Claims: peak memory per worker <= 2 GB at ``--rows``; at ``--compare-rows``
the dask path's throughput (rows per second, fit and transform) is at least
half the in-memory pandas path's on the same rows; the fitted mapping equals
the in-memory fit on the same rows (the whole pandas frame at
``--compare-rows``; at ``--rows``, the fit from the distinct rows and their
counts, counted by pandas one file at a time).

Writes ``benchmarks/results/dask_scale.csv`` and ``.png``.

``--gaussian`` measures instead the peak resident memory of this process
while :class:`~sklearn_privacy.L2CompressionDP` (private and public fit) is
fitted on a dask array of ``--gaussian-rows`` x 20 normal floats built lazily
with ``dask.array.random`` (1.6 GB in memory at 10 million rows), checked
against the fit on a 200000-row prefix computed both ways; it writes
``benchmarks/results/dask_gaussian_memory.csv``.
"""

import argparse
import importlib
import logging
import shutil
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import default_data_home, pyplot, save_figure, write_csv

from sklearn_privacy import PrivacyFunnelTransformer
from sklearn_privacy.datasets import fetch_adult

COLUMNS = ["age", "workclass", "education", "marital-status", "race"]
SENSITIVE = "sex"


def adult_joint(data_home):
    """Distinct rows of the Adult columns (as category codes), their probabilities, categories."""
    frame = fetch_adult(data_home=data_home, discretize=True, as_frame=True).frame
    frame = frame[[*COLUMNS, SENSITIVE]]
    counts = frame.groupby([*COLUMNS, SENSITIVE], observed=True).size()
    counts = counts[counts > 0]
    rows = counts.index.to_frame(index=False)
    codes = {c: rows[c].cat.codes.to_numpy() for c in rows.columns}
    categories = {c: frame[c].cat.categories for c in rows.columns}
    return codes, (counts / counts.sum()).to_numpy(), categories


def generate(directory, n_rows, partition_rows, joint, seed):
    """Write ``n_rows`` rows drawn from the joint as Parquet files of ``partition_rows`` rows."""
    codes, probs, categories = joint
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for k, start in enumerate(range(0, n_rows, partition_rows)):
        pick = rng.choice(probs.size, size=min(partition_rows, n_rows - start), p=probs)
        part = pd.DataFrame(
            {c: pd.Categorical.from_codes(codes[c][pick], categories=categories[c]) for c in codes}
        )
        part.to_parquet(directory / f"part-{k:05d}.parquet", index=False)
    return directory


def counts_by_file(directory):
    """Distinct rows and counts, counted by pandas one Parquet file at a time."""
    total = None
    for path in sorted(directory.glob("*.parquet")):
        part = pd.read_parquet(path)
        counts = part.groupby(list(part.columns), observed=True).size()
        total = counts if total is None else total.add(counts, fill_value=0)
    total = total[total > 0]
    return total.index.to_frame(index=False), total.to_numpy(dtype=float)


def same_mapping(a, b):
    """Whether two fitted funnels have the same alphabet, joint and merge mapping."""
    sym_a, sym_b = a.alphabet_.symbols_, b.alphabet_.symbols_
    return bool(
        len(sym_a) == len(sym_b)
        and all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(sym_a, sym_b))
        and np.array_equal(a.labels_, b.labels_)
        and np.allclose(a.joint_, b.joint_, rtol=1e-12, atol=1e-15)
    )


class WorkerMemory:
    """Samples the resident memory of every worker (``client.run``) in a thread."""

    def __init__(self, client, interval=0.2):
        self.client, self.interval = client, interval
        self.peak = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _rss():
        import psutil

        return psutil.Process().memory_info().rss

    def _sample(self):
        for worker, rss in self.client.run(self._rss).items():
            self.peak[worker] = max(self.peak.get(worker, 0), rss)

    def _run(self):
        while not self._stop.is_set():
            try:
                self._sample()
            except Exception:  # noqa: BLE001 - a worker restarting; keep sampling
                pass
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._sample()


def run_dask(client, source, target):
    """Fit and release ``source`` through dask: (mechanism, fit s, transform s, peak RSS)."""
    import dask.dataframe as dd

    with WorkerMemory(client) as memory:
        t0 = time.perf_counter()
        ddf = dd.read_parquet(source)
        mech = PrivacyFunnelTransformer(sensitive=[SENSITIVE]).fit(ddf)
        fit_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        mech.transform(dd.read_parquet(source)).to_parquet(target, write_index=False)
        transform_s = time.perf_counter() - t0
    return mech, fit_s, transform_s, memory.peak


def run_pandas(source):
    """Fit and release ``source`` read into one pandas frame: (mechanism, fit s, transform s)."""
    frame = pd.read_parquet(source)
    t0 = time.perf_counter()
    mech = PrivacyFunnelTransformer(sensitive=[SENSITIVE]).fit(frame)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    released = mech.transform(frame)
    transform_s = time.perf_counter() - t0
    assert len(released) == len(frame)
    return mech, fit_s, transform_s


def gaussian_memory(n_rows, n_features, chunk_rows):
    """Peak RSS of L2CompressionDP fitted on a lazy dask array (private and public fit)."""
    import resource
    import warnings

    import dask
    import dask.array as da
    import psutil

    from sklearn_privacy import L2CompressionDP

    warnings.simplefilter("ignore")  # integer seeds warn (experiments only)
    mixing = np.random.default_rng(0).normal(size=(n_features, n_features)) / np.sqrt(n_features)
    lazy = da.random.default_rng(1).normal(size=(n_rows, n_features), chunks=(chunk_rows, -1))
    lazy = lazy @ mixing + 3.0
    prefix = lazy[:200_000]
    # the prefix, fitted from dask and in memory: the same fit (to rounding)
    check = {}
    for fit_data in ("private", "public"):
        a = L2CompressionDP(fit_data=fit_data, random_state=0).fit(prefix)
        b = L2CompressionDP(fit_data=fit_data, random_state=0).fit(prefix.compute())
        check[fit_data] = bool(
            np.allclose(a.covariance_, b.covariance_, rtol=1e-10, atol=0)
            and np.allclose(a.mean_, b.mean_, rtol=1e-10, atol=0)
        )
    before = psutil.Process().memory_info().rss
    rows = []
    with dask.config.set(scheduler="threads", num_workers=2):
        for fit_data in ("private", "public"):
            t0 = time.perf_counter()
            mech = L2CompressionDP(fit_data=fit_data, random_state=0).fit(lazy)
            seconds = time.perf_counter() - t0
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            rows.append(
                {
                    "fit_data": fit_data,
                    "rows": n_rows,
                    "features": n_features,
                    "chunk_rows": chunk_rows,
                    "in_memory_bytes": n_rows * n_features * 8,
                    "seconds": seconds,
                    "rows_per_s": n_rows / seconds,
                    "peak_rss_bytes": peak,
                    "rss_before_bytes": before,
                    "same_as_in_memory_on_prefix": check[fit_data],
                    "epsilon": mech.epsilon_,
                }
            )
    print(
        f"{'fit_data':9s} {'rows':>10s} {'X in memory':>12s} {'fit s':>7s} "
        f"{'process peak RSS':>17s} {'RSS before fit':>15s} {'prefix check':>13s}"
    )
    for r in rows:
        print(
            f"{r['fit_data']:9s} {r['rows']:10d} {r['in_memory_bytes'] / 2**30:9.2f} GiB "
            f"{r['seconds']:7.1f} {r['peak_rss_bytes'] / 2**30:13.2f} GiB "
            f"{r['rss_before_bytes'] / 2**30:11.2f} GiB "
            f"{str(r['same_as_in_memory_on_prefix']):>13s}"
        )
    write_csv(rows, "dask_gaussian_memory.csv")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--compare-rows", type=int, default=2_000_000)
    parser.add_argument("--partition-rows", type=int, default=1_000_000)
    parser.add_argument("--workdir", default=None, help="parent of the temporary data folder")
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--keep", action="store_true", help="keep the generated Parquet files")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--gaussian", action="store_true", help="the Gaussian memory check")
    parser.add_argument("--gaussian-rows", type=int, default=10_000_000)
    parser.add_argument("--gaussian-chunk-rows", type=int, default=250_000)
    args = parser.parse_args()
    if args.gaussian:
        return gaussian_memory(args.gaussian_rows, 20, args.gaussian_chunk_rows)
    from dask.distributed import Client, LocalCluster
    from dask.utils import parse_bytes

    joint = adult_joint(args.data_home)
    print(
        f"Adult joint: {joint[1].size} rows of (columns, sex), "
        f"{len(COLUMNS)} released columns {COLUMNS}"
    )
    work = Path(tempfile.mkdtemp(prefix="bench_dask_scale_", dir=args.workdir))
    table, checks = [], {}
    try:
        t0 = time.perf_counter()
        small = generate(work / "compare", args.compare_rows, args.partition_rows, joint, 1)
        large = generate(work / "large", args.rows, args.partition_rows, joint, 2)
        print(
            f"generated {args.compare_rows} + {args.rows} rows in {work} "
            f"({time.perf_counter() - t0:.1f} s)"
        )

        eager, fit_s, transform_s = run_pandas(small)
        table.append(("pandas (in memory)", args.compare_rows, fit_s, transform_s, np.nan))
        with (
            LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                memory_limit=args.memory_limit,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            ) as cluster,
            Client(cluster) as client,
        ):
            # workers up, with the library imported, before timing
            client.run(importlib.import_module, "sklearn_privacy.discrete")
            for name, source, rows in [
                ("compare", small, args.compare_rows),
                ("large", large, args.rows),
            ]:
                mech, fit_s, transform_s, peak = run_dask(client, source, work / f"out_{name}")
                table.append(("dask, 2 workers", rows, fit_s, transform_s, max(peak.values())))
                if name == "compare":
                    checks["mapping equals the pandas fit"] = same_mapping(mech, eager)
                else:
                    rows_, counts = counts_by_file(large)
                    counted = PrivacyFunnelTransformer(sensitive=[SENSITIVE]).fit(
                        rows_, sample_weight=counts
                    )
                    checks["mapping equals the fit of pandas' counts"] = same_mapping(mech, counted)
                    checks["peak RSS per worker <= limit"] = max(peak.values()) <= parse_bytes(
                        args.memory_limit
                    )
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    pandas_row = table[0]
    rows_out = []
    print(
        f"\n{'path':20s} {'rows':>10s} {'fit s':>8s} {'fit rows/s':>12s} "
        f"{'transform s':>12s} {'transform rows/s':>17s} {'peak RSS/worker':>16s}"
    )
    for path, rows, fit_s, transform_s, peak in table:
        peak_text = "" if np.isnan(peak) else f"{peak / 2**30:.2f} GiB"
        print(
            f"{path:20s} {rows:10d} {fit_s:8.2f} {rows / fit_s:12.0f} {transform_s:12.2f} "
            f"{rows / transform_s:17.0f} {peak_text:>16s}"
        )
        rows_out.append(
            {
                "path": path,
                "rows": rows,
                "fit_s": fit_s,
                "fit_rows_per_s": rows / fit_s,
                "transform_s": transform_s,
                "transform_rows_per_s": rows / transform_s,
                "peak_rss_per_worker_bytes": peak,
            }
        )
    compare = table[1]
    fit_ratio = (compare[1] / compare[2]) / (pandas_row[1] / pandas_row[2])
    transform_ratio = (compare[1] / compare[3]) / (pandas_row[1] / pandas_row[3])
    checks["dask fit throughput >= 0.5x pandas"] = fit_ratio >= 0.5
    checks["dask transform throughput >= 0.5x pandas"] = transform_ratio >= 0.5
    print(
        f"\nat {args.compare_rows} rows, dask / pandas throughput: fit {fit_ratio:.2f}x, "
        f"transform {transform_ratio:.2f}x"
    )
    for claim, ok in checks.items():
        print(f"claim ({claim}): {'MET' if ok else 'NOT MET'}")
    write_csv(rows_out, "dask_scale.csv")
    plt = None if args.no_plot else pyplot()
    if plt is not None:
        fig, ax = plt.subplots(figsize=(7, 3))
        labels = [f"{p}\n{r:,} rows" for p, r, *_ in table]
        y = np.arange(len(table))
        ax.barh(y - 0.2, [r / f for _, r, f, _, _ in table], height=0.4, label="fit")
        ax.barh(y + 0.2, [r / t for _, r, _, t, _ in table], height=0.4, label="transform")
        ax.set_yticks(y, labels)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.set_xlabel("rows per second")
        ax.legend()
        save_figure(fig, "dask_scale")
    return checks


if __name__ == "__main__":
    main()
