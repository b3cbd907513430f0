"""Noise as a dial: the power of McNemar's test between clean and noisy representations.

The experiment of chapter 52 (Zhu et al. 2022, §4.3, Fig. 3). Its two claims are judged on the
simulated powers of :attr:`NoiseExperiment.tables`
(:func:`~probekit.experiments.part5_datasize.claims.power_growth_interval` and
:func:`~probekit.experiments.part5_datasize.claims.power_sigma_interval`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from probekit.experiments.part5_datasize.comparisons import (
    comparison_table,
    largest_subset_comparison,
)
from probekit.experiments.part5_datasize.config import PowerNoiseConfig
from probekit.experiments.part5_datasize.data import ProbedTreebank
from probekit.experiments.part5_datasize.encoders import ExampleEncoder
from probekit.experiments.part5_datasize.runs import Runs, run_on_layer
from probekit.experiments.part5_datasize.training import ProbingConfig
from probekit.stats.power import POWER_THRESHOLD

#: Examples from which the scale of the representations is measured.
SCALE_ROWS = 20_000


def feature_scale(encoder: ExampleEncoder, n_examples: int, seed: int = 0) -> tuple[float, float]:
    """(mean SD of a coordinate, mean vector length) of the representations of a pool.

    The pool has ``n_examples``; measured on all of them or on :data:`SCALE_ROWS` drawn with
    ``seed``.
    """
    rows = np.arange(n_examples)
    if n_examples > SCALE_ROWS:
        rows = np.sort(np.random.default_rng(seed).choice(n_examples, SCALE_ROWS, replace=False))
    X = encoder(rows)
    return float(X.std(axis=0).mean()), float(np.linalg.norm(X, axis=1).mean())


@dataclass(frozen=True, eq=False)
class NoiseExperiment:
    """The clean probe and one noisy probe per sigma on the same subsets.

    Made by :func:`run_noise_experiment`. ``names[sigma]``: the noisy config's name;
    ``tables[sigma]``: :func:`~probekit.experiments.part5_datasize.comparisons.comparison_table`
    of clean against it; ``feature_sd`` and ``feature_norm``: :func:`feature_scale`.
    """

    runs: Runs
    names: dict[float, str]
    tables: dict[float, pd.DataFrame]
    feature_sd: float
    feature_norm: float

    @property
    def sd_ratio(self) -> float:
        """How many times as widely noise of sigma = 1 spreads a coordinate as the data do."""
        return 1.0 / self.feature_sd

    @property
    def sizes(self) -> str:
        """The subset sizes (training examples per class)."""
        return self.runs.sizes_text

    @property
    def _first(self) -> pd.DataFrame:
        return next(iter(self.tables.values()))

    @property
    def top_test(self) -> int:
        """Test examples of the largest subsets."""
        return int(self._first["n_test"].iloc[-1])

    @property
    def top_train(self) -> int:
        """Training examples of the largest subsets."""
        return int(self._first["n_train"].iloc[-1])

    @property
    def small_test(self) -> int:
        """Test examples of the smallest subsets."""
        return int(self._first["n_test"].iloc[0])

    @property
    def clean_acc(self) -> float:
        """Test accuracy (%) of the clean probe on the largest subsets, mean over seeds."""
        return 100 * float(self._first["acc_a"].iloc[-1])


def run_noise_experiment(config: PowerNoiseConfig, data: ProbedTreebank) -> NoiseExperiment:
    """Logistic regression, clean and with Gaussian noise, and each noisy probe against clean.

    On layer ``config.layer`` for ``config.task``, clean and with Gaussian noise of each of
    ``config.sigmas``, on every subset size and seed, and the comparison of clean with each noisy
    probe (Zhu et al. 2022, §4.3).
    """
    names = {s: f"σ = {s:g}" for s in config.sigmas}
    configs = [ProbingConfig("clean", "enc")]
    configs += [ProbingConfig(names[s], "enc", sigma=s) for s in config.sigmas]
    experiment = run_on_layer(config, data, [config.task], configs)
    runs = experiment.runs[config.task]
    encoder = experiment.encoders[config.task]["enc"]
    sd, norm = feature_scale(encoder, len(experiment.pools[config.task]))
    tables = {
        s: comparison_table(runs, "clean", names[s], eta=config.eta, alpha=config.alpha,
                            n_sim=config.n_sim)
        for s in config.sigmas
    }  # fmt: skip
    return NoiseExperiment(runs, names, tables, sd, norm)


@dataclass(frozen=True, eq=False)
class NoiseSummary:
    """Power against noise (:func:`summarise_noise`).

    ``table``: one row per sigma with the noisy probe's accuracy and drop, the power at every
    subset's test size, and the test sizes at which it was observed to reach, and is projected to
    reach, 0.8 (0: not reached); ``summaries``: McNemar's test on seed 0's largest subset in one
    sentence, per sigma; ``power_top``: the power at the largest test size, per sigma; ``rho``:
    Spearman's correlation of sigma with it (NaN if it is the same at every sigma).
    """

    table: pd.DataFrame
    summaries: list[str]
    power_top: pd.Series
    rho: float
    max_test: int

    @property
    def n_sigmas(self) -> int:
        """Noise levels."""
        return len(self.table)

    @property
    def n_powered_top(self) -> int:
        """Noise levels whose power reaches 0.8 at the largest test size."""
        return int((self.power_top >= POWER_THRESHOLD).sum())

    @property
    def smallest_powered(self) -> str:
        """The smallest sigma with power >= 0.8 at the largest test size."""
        powered = self.table.loc[self.power_top >= POWER_THRESHOLD, "σ"]
        return f"σ = {powered.min():g}" if len(powered) else "none"

    @property
    def largest_unpowered(self) -> str:
        """The largest sigma with power < 0.8 at the largest test size."""
        unpowered = self.table.loc[self.power_top < POWER_THRESHOLD, "σ"]
        return f"σ = {unpowered.max():g}" if len(unpowered) else "none"

    @property
    def max_test_text(self) -> str:
        """The largest projected test size, printed."""
        return f"{self.max_test:,}"

    def projected_need(self, sigma: float) -> int:
        """Projected test size for a power of 0.8 at ``sigma``.

        0 if not within ``max_test``, -1 if ``sigma`` was not run.
        """
        hit = self.table.loc[np.isclose(self.table["σ"], sigma), "projected n_test for 0.8"]
        return int(hit.iloc[0]) if len(hit) else -1

    def styled(self):
        """The table by sigma, with dashes where 0.8 was never reached."""
        shown = self.table.set_index("σ")
        for col in ("observed n_test for 0.8", "projected n_test for 0.8"):
            shown[col] = shown[col].where(shown[col] > 0)
        formats = {c: "{:.2f}" for c in shown.columns if c.startswith("power")}
        formats |= {"accuracy (%)": "{:.1f}", "drop (points)": "{:+.1f}",
                    "observed n_test for 0.8": "{:,.0f}",
                    "projected n_test for 0.8": "{:,.0f}"}  # fmt: skip
        return shown.style.format(formats, na_rep="–").format_index("{:g}")


def summarise_noise(experiment: NoiseExperiment, config: PowerNoiseConfig) -> NoiseSummary:
    """Summary of every noise level (Zhu et al. 2022, §3.5, §4.3).

    For every noise level: accuracy, power at every test size, observed and projected test sizes
    for a power of 0.8, and McNemar's test on seed 0's largest subset (the paper's test, §3.5).
    """
    rows, summaries = [], []
    for s in config.sigmas:
        t = experiment.tables[s]
        cmp, needed = largest_subset_comparison(
            experiment.runs, "clean", experiment.names[s],
            alpha=config.alpha, n_sim=config.n_sim, max_test=config.max_test,
        )  # fmt: skip
        reached = t.loc[t["power"] >= POWER_THRESHOLD, "n_test"]
        rows.append({
            "σ": s,
            "accuracy (%)": 100 * t["acc_b"].iloc[-1],
            "drop (points)": 100 * t["gap"].iloc[-1],
            **{f"power, n_test = {n:,}": p for n, p in zip(t["n_test"], t["power"], strict=True)},
            "observed n_test for 0.8": int(reached.iloc[0]) if len(reached) else 0,
            "projected n_test for 0.8": needed,
        })  # fmt: skip
        summaries.append(cmp.summary())
    table = pd.DataFrame(rows)
    power_top = table[f"power, n_test = {experiment.top_test:,}"]
    rho = stats.spearmanr(table["σ"], power_top).statistic if power_top.nunique() > 1 else np.nan
    return NoiseSummary(table, summaries, power_top, float(rho), config.max_test)
