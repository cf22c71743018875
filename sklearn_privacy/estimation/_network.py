"""A small network that predicts S: the panel's member for interactions and nonlinear shapes.

Why a network and not more boosting rounds: "The panel's nonlinear member" in ``docs/design.md``.
"""

from contextlib import contextmanager

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin

__all__ = ["BLOCK_CELLS", "NetworkClassifier", "PairProducts", "RowNorm", "one_torch_thread"]

# The pairs are screened in blocks of rows of the d x d score matrices of this many cells.
BLOCK_CELLS = 10**6


@contextmanager
def one_torch_thread():
    """Torch on one thread inside: a small network's extra threads only spin (the panel
    runs its members side by side on the cores the user allows)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


class RowNorm(TransformerMixin, BaseEstimator):
    """The root mean square of each row's standardised columns, standardised: a row's geometry.

    A release can hide S in the length of a row (radius 1 against 1.1 in 50
    dimensions), which no column shows alone and a rank transform of each
    column blurs; this one column shows it.
    """

    def fit(self, X, y=None):
        X = np.asarray(X, dtype=float)
        self.mean_, self.scale_ = X.mean(axis=0), X.std(axis=0) + 1e-12
        norm = self._norm(X)
        self.norm_mean_, self.norm_scale_ = norm.mean(), norm.std() + 1e-12
        return self

    def _norm(self, X):
        return np.sqrt(np.mean(((np.asarray(X, dtype=float) - self.mean_) / self.scale_) ** 2, 1))

    def transform(self, X):
        return ((self._norm(X) - self.norm_mean_) / self.norm_scale_).reshape(-1, 1)


class PairProducts(TransformerMixin, BaseEstimator):
    """The products of the pairs (and triples) of standardised columns most correlated with S.

    S can hide in a product of two columns that each look independent of it
    (sign(z1 z2) among 100 N(0,1)), or of three (sign(z1 z2 z3) among 33): no
    column, and no first split of a tree, shows it. The pairs (a column with
    itself included) and, where there are at most ``max_triple_columns``
    columns, the triples of distinct columns are screened on the rows
    :meth:`fit` sees, by the sum over the values of S of the squared
    correlation between the product and the indicator of that value, in
    matrix products over blocks of columns (no loop over pairs or rows); so a
    held-out bound on these products chose them without its test rows.

    The cost is bounded: the pairs are screened on at most
    ``max(200, screen_cells / d**2)`` rows (a seeded draw; all of them at
    ``d = 500`` and 2000 rows), about ``(2 + k) * rows * d**2`` multiply-adds
    for ``k`` indicators of S (one for a binary S), in blocks of ``BLOCK_CELLS / d``
    columns; the triples cost about ``(2 + k) * n * d**3 / 6``.
    """

    def __init__(self, n_pairs=10, n_triples=10, max_triple_columns=48, screen_cells=2 * 10**9):
        self.n_pairs = n_pairs
        self.n_triples = n_triples
        self.max_triple_columns = max_triple_columns
        self.screen_cells = screen_cells

    def fit(self, X, y):
        Z = self._standardised(X, fit=True)
        n, d = Z.shape
        _, codes = np.unique(y, return_inverse=True)
        rows = max(200, self.screen_cells // max(d * d, 1))
        if n > rows:
            kept = np.sort(np.random.default_rng(0).choice(n, rows, replace=False))
            Z, codes = Z[kept], codes[kept]
        indicators = np.eye(codes.max() + 1)[codes]
        indicators = (indicators - indicators.mean(0)) / (indicators.std(0) + 1e-12)
        # a binary S: its two indicators give the same correlations up to sign, one is enough
        columns = indicators[:, :1] if indicators.shape[1] == 2 else indicators
        self.pairs_ = self._top_pairs(Z, columns)
        self.triples_ = np.zeros((0, 3), dtype=int)
        if self.n_triples and 3 <= d <= self.max_triple_columns:
            self.triples_ = self._top_triples(Z, columns)
        return self

    def _top_pairs(self, Z, columns):
        """The ``n_pairs`` pairs ``i <= j`` of largest score, screened in blocks of rows ``i``."""
        n, d = Z.shape
        block = max(1, BLOCK_CELLS // d)
        best_score, best_pairs = np.zeros(0), np.zeros((0, 2), dtype=int)
        for start in range(0, d, block):
            part = Z[:, start : start + block]
            mean = part.T @ Z / n
            variance = np.maximum((part**2).T @ (Z**2) / n - mean**2, 1e-12)
            score = sum(((part * column[:, None]).T @ Z / n) ** 2 for column in columns.T)
            first, second = np.nonzero(
                np.arange(d)[None, :] >= np.arange(start, start + part.shape[1])[:, None]
            )
            ratio = (score / variance)[first, second]
            keep = np.argsort(-ratio, kind="stable")[: self.n_pairs]
            best_score = np.r_[best_score, ratio[keep]]
            best_pairs = np.r_[best_pairs, np.c_[first[keep] + start, second[keep]]]
        order = np.lexsort((best_pairs[:, 1], best_pairs[:, 0], -best_score))[: self.n_pairs]
        return best_pairs[order]

    def _top_triples(self, Z, columns):
        """The ``n_triples`` triples ``i < j < k`` of largest score, one column ``i`` at a time."""
        n, d = Z.shape
        scores, triples = [], []
        for i in range(d - 2):
            rest = Z[:, i + 1 :]
            part = Z[:, i : i + 1] * rest  # z_i z_j for j > i
            mean = part.T @ rest / n
            variance = np.maximum((part**2).T @ (rest**2) / n - mean**2, 1e-12)
            score = sum(((part * column[:, None]).T @ rest / n) ** 2 for column in columns.T)
            j, k = np.triu_indices(d - i - 1, 1)
            scores.append((score / variance)[j, k])
            triples.append(np.c_[np.full(j.size, i), j + i + 1, k + i + 1])
        scores, triples = np.concatenate(scores), np.concatenate(triples)
        return triples[np.argsort(-scores, kind="stable")[: self.n_triples]]

    def _standardised(self, X, fit=False):
        X = np.asarray(X, dtype=float)
        if fit:
            self.mean_, self.scale_ = X.mean(axis=0), X.std(axis=0) + 1e-12
        return (X - self.mean_) / self.scale_

    def transform(self, X):
        Z = self._standardised(X)
        pairs = Z[:, self.pairs_[:, 0]] * Z[:, self.pairs_[:, 1]]
        triples = np.prod(Z[:, self.triples_], axis=2)
        return np.hstack([pairs, triples])


class NetworkClassifier(ClassifierMixin, BaseEstimator):
    """Two hidden ReLU layers, trained with AdamW and stopped on a held-out fifth's log-loss.

    The inputs are standardised; the weights of the epoch with the least
    held-out log-loss are kept, so that the probabilities are calibrated
    enough for a held-out bound (a network trained to zero training loss is
    overconfident and its bound falls below 0). Seeded: the same rows give
    the same network.
    """

    def __init__(self, hidden=64, max_epochs=100, patience=10, lr=1e-2, batch_size=256):
        self.hidden = hidden
        self.max_epochs = max_epochs
        self.patience = patience
        self.lr = lr
        self.batch_size = batch_size

    def fit(self, X, y):
        import torch

        self.classes_, codes = np.unique(y, return_inverse=True)
        X = np.asarray(X, dtype=float)
        self.mean_, self.scale_ = X.mean(axis=0), X.std(axis=0) + 1e-12
        with torch.random.fork_rng():
            torch.manual_seed(0)
            self.module_ = self._train(torch, self._inputs(torch, X), torch.as_tensor(codes))
        return self

    def _inputs(self, torch, X):
        return torch.as_tensor((np.asarray(X, dtype=float) - self.mean_) / self.scale_).float()

    def _train(self, torch, X, y):
        nn = torch.nn
        net = nn.Sequential(
            nn.Linear(X.shape[1], self.hidden),
            nn.ReLU(),
            nn.Linear(self.hidden, self.hidden),
            nn.ReLU(),
            nn.Linear(self.hidden, self.classes_.size),
        )
        order = np.random.default_rng(0).permutation(len(y))
        n_held = max(len(y) // 5, 1)
        held, train = order[:n_held], order[n_held:]
        optimizer = torch.optim.AdamW(net.parameters(), lr=self.lr, weight_decay=1e-4)
        loss = nn.CrossEntropyLoss()
        best, best_state, waited = np.inf, None, 0
        for _ in range(self.max_epochs):
            net.train()
            shuffled = train[torch.randperm(train.size).numpy()]
            for start in range(0, shuffled.size, self.batch_size):
                batch = shuffled[start : start + self.batch_size]
                optimizer.zero_grad()
                loss(net(X[batch]), y[batch]).backward()
                optimizer.step()
            net.eval()
            with torch.no_grad():
                held_loss = float(loss(net(X[held]), y[held]))
            if held_loss < best - 1e-3:
                best, waited = held_loss, 0
                best_state = {k: v.clone() for k, v in net.state_dict().items()}
            else:
                waited += 1
                if waited >= self.patience:
                    break
        net.load_state_dict(best_state)
        return net.eval()

    def predict_proba(self, X):
        import torch

        with torch.no_grad():
            logits = self.module_(self._inputs(torch, X))
            return torch.softmax(logits.double(), dim=1).numpy()

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
