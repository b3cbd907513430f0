"""Part I, "A Tale of a Probe and a Parser" (Hall Maudslay et al. 2020): chapters 11 and 12.

The experiments of chapters 11 and 12, wired from trees, representations and probes. The trees
and metrics themselves live in :mod:`probekit.trees`, the probes in
:mod:`probekit.probes.structural`; the sentence samples, the training of both models and the
intervals of their differences, which chapter 22 shares, in
:mod:`probekit.experiments.tree_probing`.

One module per job, in the paper's order:

- :mod:`.config`: the typed configurations of the chapters;
- :mod:`.paper`: the paper's numbers the chapters set ours beside;
- :mod:`.syntactic_distance`: an example tree, Prop. 1 over a corpus, and syntactic against
  linear distance (§2);
- :mod:`.distance_figures`: the tree drawn as arcs beside its distance matrix (Fig. 1);
- :mod:`.tuning`: the random searches of chapter 12 and their tables (App. A);
- :mod:`.dev_layers`: the layer-by-layer dev scores in numbers (§5, Figs. 2 and 3);
- :mod:`.figures`: the per-layer figures (Figs. 2 and 3);
- :mod:`.comparison`: the compared layer, the test scores and the seeds' share of an interval
  (§5);
- :mod:`.claims`: the paper's claims I.2 to I.4 with their rules and intervals (§5).

Sentences are :class:`probekit.io.treebanks.Sentence`; embeddings are anything with ``offsets``
(S + 1,), ``n_layers``, ``dim`` and ``layer(k)`` (N_words, d), such as
:class:`probekit.io.embeddings.Embeddings`.
Nothing is re-exported here: chapters and tests import the module they use.
"""
