"""The toy tasks of Pimentel et al. 2020, §7.1 and appendix B.

How much of POSL and DAL a dictionary lookup, or the word alone, already settles.

- Lookup baselines (appendix B, Table 1): :func:`lookup_baselines`, shown by
  :func:`lookup_table` and :func:`backoff_table`, and fitted on samples of the training split
  by :func:`lookup_by_size`; :func:`share_phrase` puts a share of the errors into words.
- Label entropies (§7.1): :func:`label_entropies`, beside the paper's by
  :func:`entropy_numbers`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from probekit.experiments.part3_pareto.paper import PAPER
from probekit.experiments.part3_pareto.representations import TASK_TITLES, TASKS
from probekit.io import treebanks as pkdata
from probekit.methods.pareto import entropy, lookups


def _word_sentences(sentences: Sequence[pkdata.Sentence]) -> np.ndarray:
    """Each word's sentence index, int64 (N_words,)."""
    return np.repeat(np.arange(len(sentences)), [len(s) for s in sentences])


def _non_root(sentences: Sequence[pkdata.Sentence]) -> np.ndarray:
    """Which words attach to another word rather than to the root, bool (N_words,)."""
    return pkdata.flat(sentences, "heads") > 0


def _arcs(sentences: Sequence[pkdata.Sentence]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """DAL's non-root arcs (§7.1): dependent forms, head forms and relations, each (N_arcs,)."""
    forms = pkdata.flat(sentences, "forms")
    heads = pkdata.flat(sentences, "heads")
    rel = pkdata.flat(sentences, "deprel")
    first = np.repeat(pkdata.offsets(sentences)[:-1], [len(s) for s in sentences])
    arc = _non_root(sentences)
    return forms[arc], forms[(first + heads - 1)[arc]], rel[arc]


def _per_sentence(hit: np.ndarray, sentence: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Correct items and items per sentence, float (n,) each."""
    counts = np.bincount(sentence, weights=hit.astype(np.float64), minlength=n)
    return counts, np.bincount(sentence, minlength=n).astype(np.float64)


def lookup_baselines(
    train: Sequence[pkdata.Sentence], test: Sequence[pkdata.Sentence]
) -> dict[str, Any]:
    """Dictionary-lookup accuracies of Pimentel et al. 2020, Table 1 and appendix B.

    POSL: a training word's most frequent tag, else the most frequent tag. DAL (non-root arcs,
    relations with subtypes): the (dependent, head) arc's most frequent label, backing off to the
    dependent word, the head word and the global label.

    Returns:
        ``posl`` and ``dal`` (test accuracy), ``posl_oov_share`` (test words unseen in
        training), ``posl_iv_accuracy`` / ``posl_oov_accuracy``, ``posl_oov_error_share`` (the
        share of the POSL errors made on unseen words), ``dal_levels``: a DataFrame with one
        row per back-off level 1..4 (``share`` of test arcs, ``accuracy`` there), and per test
        sentence, float (n,) each, the correct items and the items of each task
        (``posl_counts``, ``posl_units``, ``dal_counts``, ``dal_units``; words for POSL,
        non-root arcs for DAL), the data of the claims' intervals.
    """
    words, tags = pkdata.flat(train, "forms"), pkdata.flat(train, "upos")
    t_words, t_tags = pkdata.flat(test, "forms"), pkdata.flat(test, "upos")
    posl = lookups.fit_posl_lookup(words, tags)
    hit = lookups.predict_posl_lookup(posl, t_words) == t_tags
    oov = ~np.isin(t_words, np.unique(words))
    dal = lookups.fit_dal_lookup(*_arcs(train))
    dep, head, rel = _arcs(test)
    dal_hit = lookups.predict_dal_lookup(dal, dep, head) == rel
    level = lookups.dal_backoff_level(dal, dep, head)
    sentence = _word_sentences(test)
    posl_counts, posl_units = _per_sentence(hit, sentence, len(test))
    dal_counts, dal_units = _per_sentence(dal_hit, sentence[_non_root(test)], len(test))
    errors = ~hit
    levels = pd.DataFrame(
        {
            "level": [1, 2, 3, 4],
            "backs off to": ["arc", "dependent word", "head word", "global label"],
            "share": [float((level == k).mean()) for k in range(1, 5)],
            "accuracy": [
                float(dal_hit[level == k].mean()) if (level == k).any() else np.nan
                for k in range(1, 5)
            ],
        }
    )
    return {
        "posl": float(hit.mean()),
        "dal": float(dal_hit.mean()),
        "posl_oov_share": float(oov.mean()),
        "posl_iv_accuracy": float(hit[~oov].mean()) if (~oov).any() else np.nan,
        "posl_oov_accuracy": float(hit[oov].mean()) if oov.any() else np.nan,
        "posl_oov_error_share": float(oov[errors].mean()) if errors.any() else np.nan,
        "dal_levels": levels,
        "posl_counts": posl_counts,
        "posl_units": posl_units,
        "dal_counts": dal_counts,
        "dal_units": dal_units,
    }


# Shares in words, from the largest: the lower bound of each phrase.
SHARE_PHRASES = ((0.9, "almost all"), (0.6, "most"), (0.4, "about half"), (0.1, "a minority"))


def share_phrase(share: float) -> str:
    """A share in [0, 1] in words, for prose that reads a computed number.

    "almost all" (>= 0.9), "most" (>= 0.6), "about half" (>= 0.4), "a minority" (>= 0.1),
    else "very few"; "none" for NaN (no errors to share). Used as
    "<phrase> of the errors".
    """
    if not np.isfinite(share):
        return "none"
    for low, phrase in SHARE_PHRASES:
        if share >= low:
            return phrase
    return "very few"


def lookup_table(lookup: dict[str, Any]) -> pd.DataFrame:
    """The lookup accuracies of :func:`lookup_baselines` beside the paper's Table 1 (English).

    In %, one row per task.
    """
    return pd.DataFrame(
        {
            "task": [TASK_TITLES[t] for t in TASKS],
            "lookup accuracy, this run (%)": [100 * lookup[t] for t in TASKS],
            "Table 1 of the paper, English (%)": [100 * PAPER["table1"][t] for t in TASKS],
        }
    ).set_index("task")


def backoff_table(lookup: dict[str, Any]) -> pd.DataFrame:
    """How far the DAL lookup of :func:`lookup_baselines` backs off (appendix B).

    One row per level 1..4: what it backs off to, the share of test arcs there and its accuracy
    there, in %.
    """
    levels = lookup["dal_levels"]
    return (
        levels.assign(share=100 * levels["share"], accuracy=100 * levels["accuracy"])
        .rename(columns={"share": "share of test arcs (%)", "accuracy": "accuracy (%)"})
        .set_index("level")
    )


def lookup_by_size(
    train: Sequence[pkdata.Sentence],
    test: Sequence[pkdata.Sentence],
    sizes: Sequence[int],
    seed: int,
) -> pd.DataFrame:
    """The lookup baselines (appendix B) fitted on seeded samples of the training split.

    Samples of ``sizes`` training sentences each (0 = all of them), scored on ``test``.

    Returns:
        One row per distinct sample, by number of training words: ``sentences``, ``words``,
        and the test accuracies ``POSL`` and ``DAL`` in [0, 1].
    """
    rows = []
    for n in sizes:
        sample = pkdata.sample_sentences(train, n, seed=seed)
        res = lookup_baselines(sample, test)
        words = int(sum(len(s) for s in sample))
        rows.append(
            {"sentences": len(sample), "words": words, "POSL": res["posl"], "DAL": res["dal"]}
        )
    return pd.DataFrame(rows).sort_values("words").drop_duplicates("sentences")


def label_entropies(sentences: Sequence[pkdata.Sentence]) -> pd.DataFrame:
    """H(label) and H(label | word) in bits for POSL and DAL (Pimentel et al. 2020, §7.1).

    The released compile_results.py computes them over train+dev+test.

    For DAL the word is the dependent's form. Returns one row per task with columns task,
    ``H(label)``, ``H(label | word)``, ``share explained`` (1 - ratio), classes, examples.
    """
    forms, upos = pkdata.flat(sentences, "forms"), pkdata.flat(sentences, "upos")
    dep, _, rel = _arcs(sentences)
    rows = []
    for task, labels, words in (("posl", upos, forms), ("dal", rel, dep)):
        h = entropy.entropy(labels)
        hc = entropy.conditional_entropy(labels, words)
        rows.append(
            {
                "task": task,
                "H(label)": h,
                "H(label | word)": hc,
                "share explained": 1.0 - hc / h if h > 0 else np.nan,
                "classes": len(np.unique(labels)),
                "examples": len(labels),
            }
        )
    return pd.DataFrame(rows)


def entropy_numbers(entropies: pd.DataFrame) -> dict[str, float]:
    """:func:`label_entropies` beside the paper's released statistics (§7.1), by glue name.

    Per task: ``h_<task>`` and ``hc_<task>`` (bits), ``explained_<task>`` (%), ``classes_<task>``,
    and the paper's ``h_<task>_paper``, ``hc_<task>_paper`` and ``classes_<task>_paper``.
    """
    ent = entropies.set_index("task")
    numbers: dict[str, float] = {}
    for task in TASKS:
        numbers[f"h_{task}"] = float(ent.loc[task, "H(label)"])
        numbers[f"hc_{task}"] = float(ent.loc[task, "H(label | word)"])
        numbers[f"explained_{task}"] = 100 * float(ent.loc[task, "share explained"])
        numbers[f"classes_{task}"] = int(ent.loc[task, "classes"])
        numbers[f"h_{task}_paper"] = PAPER["entropy"][task][0]
        numbers[f"hc_{task}_paper"] = PAPER["entropy"][task][1]
        numbers[f"classes_{task}_paper"] = PAPER["classes"][task]
    return numbers
