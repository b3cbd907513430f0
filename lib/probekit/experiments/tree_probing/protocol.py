"""The protocol settings chapters 12 and 22 share: the random search's ranges and seeds.

Neither Hall Maudslay et al. 2020 (App. A) nor Hall Maudslay & Cotterell 2021 (App. B) states
these in our copies; each chapter lists them in its own protocol
(:class:`~probekit.experiments.deviations.Setting`), defined here once.
"""

from __future__ import annotations

from probekit.experiments.deviations import Setting


def _full_rank(ranks: list[int]) -> str:
    return ", ".join("full" if r == 0 else str(r) for r in ranks)


# The random-search ranges, which neither paper of Part I and II states in our copies.
RANKS = Setting(
    "ranks",
    None,
    "rank searched up to full rank; the choices are not stated (App. A)",
    "the paper gives no choices; ours are powers of two and full rank",
    show=_full_rank,
)
LR_MIN = Setting(
    "lr_min",
    None,
    "learning rate searched; the range is not stated (App. A)",
    "the paper gives no range; below 1e-3 a run on 1,000 sentences had not converged by the "
    "epoch cap (the structural probe at 3e-4 was still improving after 60 epochs)",
)
LR_MAX = Setting(
    "lr_max",
    None,
    "learning rate searched; the range is not stated (App. A)",
    "the paper gives no range; above 1e-2 both models overshoot on dev",
)
DROPOUT_MAX = Setting(
    "dropout_max",
    None,
    "dropout searched; the range is not stated (App. A)",
    "the paper gives no range; ours is uniform on [0, dropout_max]",
)
SEEDS = Setting(
    "seeds",
    None,
    "one run per configuration; no seeds stated",
    "the claims' intervals need the variation between training runs, so every model is "
    "trained with several seeds",
)
EXCLUDE_PUNCT = Setting(
    "exclude_punct",
    None,
    "UUAS over all edges; punctuation not mentioned (§4.2)",
    "Hewitt & Manning's evaluation code leaves punctuation out (by PTB tag, which UD lacks); "
    "we leave it out by UPOS",
)
