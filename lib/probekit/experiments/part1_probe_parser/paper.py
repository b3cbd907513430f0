"""What Hall Maudslay et al. 2020 report, as one table.

For chapter 12's side-by-side comparisons and the claims ledger: one table, so that no number of
the paper is typed twice.
"""

from __future__ import annotations

PAPER: dict[str, float | int] = {
    # Abstract and §5: parser − probe UUAS on English, in points.
    "uuas_gap": 11.1,
    # §5, "DSpr_P+FW Results": mean parser − probe DSpr_P+FW over the nine languages.
    "pfw_diff": 0.0006,
    # §4: sentences used from each of the larger treebanks.
    "n_sentences": 12000,
}
