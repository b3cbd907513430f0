"""Part I, "A Tale of a Probe and a Parser" (Hall Maudslay et al. 2020): the experiments of
chapters 11 and 12, wired from trees, representations and probes. The trees and metrics
themselves live in :mod:`probekit.trees`, the probes in :mod:`probekit.probes.structural`.

One module per job, in the paper's order:

- :mod:`.syntactic_distance`: an example tree, Prop. 1 over a corpus, and syntactic against
  linear distance (§2);
- :mod:`.distance_figures`: the tree drawn as arcs beside its distance matrix (Fig. 1);
- :mod:`.representations`: one layer's word vectors per sentence, and layer indices;
- :mod:`.metrics`: gold trees of a split and per-sentence UUAS, DSpr and DSpr P+FW (§4.2),
  the linear-chain baseline, and the gold-edge outcomes behind UUAS;
- :mod:`.training`: the random search (App. A) and training the probe and the parser on every
  layer and seed (§3-4);
- :mod:`.comparison`: the paired comparison of the two models and the paper's claims (§5);
- :mod:`.figures`: the per-layer figures (Figs. 2 and 3);
- :mod:`.experimental_setup`: the sentence samples and gold trees chapters 12 and 22 share.

Sentences are :class:`probekit.io.treebanks.Sentence`; embeddings are anything with ``offsets``
(S + 1,) and ``layer(k)`` (N_words, d), such as :class:`probekit.io.embeddings.Embeddings`.
Nothing is re-exported here: chapters and tests import the module they use.
"""
