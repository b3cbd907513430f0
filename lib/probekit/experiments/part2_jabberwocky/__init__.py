"""Part II, "Do syntactic probes probe syntax?" (Hall Maudslay & Cotterell 2021).

The experiments of chapters 21 and 22. The corpus itself is built by
:mod:`probekit.methods.jabberwocky`; trees, metrics and probes live in :mod:`probekit.trees`
and :mod:`probekit.probes.structural`; the samples, training and intervals chapter 22 shares
with chapter 12 in :mod:`probekit.experiments.tree_probing`.

One module per job, in the paper's order:

- :mod:`.config`: the typed configurations of chapters 21 and 22;
- :mod:`.corpus`: the Jabberwocky test set on disk, built or reused, and its sentences paired
  with the originals (§3);
- :mod:`.corpus_tables`: examples, pseudoword stems, word lengths and coverage per feature set
  and per UPOS (§3, footnote 4);
- :mod:`.corpus_summary`: the numbers chapter 21 quotes and its check of the corpus (§3);
- :mod:`.corpus_figures`: coverage, word lengths and one tree over both word rows (cf. Fig. 2);
- :mod:`.baselines`: the word-blind linear chain and majority tree (§5.1);
- :mod:`.test_sets`: the samples, their Jabberwocky versions and the baselines' scores that
  chapter 22 probes on (§5.1);
- :mod:`.representations`: encoder names, the type-level fastText + position baseline (§5.1,
  App. B) and wordpieces of substituted words;
- :mod:`.probes`: each probe's metric, its hyperparameters, its dev-chosen layer and its test
  scores on one representation (§4, §5.1, App. B);
- :mod:`.probe_runs`: both probes on every representation of a run (§5.1);
- :mod:`.layer_choice`: the dev scores per layer under the paper's and our layer rule
  (App. B);
- :mod:`.comparisons`: the drop from normal to Jabberwocky and the lead over the baselines,
  with intervals over test sentences and seeds (§5.2);
- :mod:`.claims`: the paper's claims II.1 to II.3 with their rules and intervals (§5.2);
- :mod:`.results`: the score, drop and lead tables, the summary, the bar figure (cf. Fig. 3,
  §5.2) and the numbers the prose quotes.

Sentences are :class:`probekit.io.treebanks.Sentence`; "embeddings" are anything with
``offsets`` (S + 1,), ``n_layers``, ``dim`` and ``layer(k)`` (N_words, d), such as
:class:`probekit.io.embeddings.Embeddings` or :class:`~.representations.VectorSet`.
Nothing is re-exported here: chapters and tests import the module they use.
"""
