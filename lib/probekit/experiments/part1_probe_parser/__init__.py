"""Part I, "A Tale of a Probe and a Parser" (Hall Maudslay et al. 2020): chapters 11 and 12.

The experiments of chapters 11 and 12, wired from trees, representations and probes. The trees
and metrics themselves live in :mod:`probekit.trees`, the probes in
:mod:`probekit.probes.structural`.

One module per job, in the paper's order:

- :mod:`.config`: the typed configurations of the chapters, one shared with chapter 22;
- :mod:`.paper`: the paper's numbers the chapters set ours beside;
- :mod:`.syntactic_distance`: an example tree, Prop. 1 over a corpus, and syntactic against
  linear distance (§2);
- :mod:`.distance_figures`: the tree drawn as arcs beside its distance matrix (Fig. 1);
- :mod:`.samples`: the sentence samples, gold trees and embeddings chapters 12 and 22 share
  (§4.1);
- :mod:`.training`: the random search (App. A) and training the probe and the parser on every
  layer and seed (§3-4);
- :mod:`.dev_layers`: the layer-by-layer dev scores in numbers (§5, Figs. 2 and 3);
- :mod:`.figures`: the per-layer figures (Figs. 2 and 3);
- :mod:`.comparison`: the test scores and the per-sentence, per-seed arrays behind the
  intervals of differences (§5);
- :mod:`.claims`: the paper's claims I.2 to I.4 with their rules and intervals (§5).

Sentences are :class:`probekit.io.treebanks.Sentence`; embeddings are anything with ``offsets``
(S + 1,), ``n_layers``, ``dim`` and ``layer(k)`` (N_words, d), such as
:class:`probekit.io.embeddings.Embeddings`.
Nothing is re-exported here: chapters and tests import the module they use.
"""
