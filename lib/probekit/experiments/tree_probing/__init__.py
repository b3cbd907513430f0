"""Tree probing, shared by Parts I and II: the structural probe against the perceptron parser.

Hall Maudslay et al. 2020 (chapter 12) and Hall Maudslay & Cotterell 2021 (chapter 22) train
the same two probes the same way and compare them with the same intervals; what both parts use
lives here, once, and each part imports it (no part imports another). The trees and metrics
themselves live in :mod:`probekit.trees`, the probes in :mod:`probekit.probes.structural`.

- :mod:`.config`: the sample set-up and the training checks both chapters share;
- :mod:`.protocol`: the search ranges and seeds both chapters' protocols list;
- :mod:`.samples`: the sentence samples, their gold trees and embeddings (§4.1 and §5.1);
- :mod:`.training`: the random search (App. A) and training both models on every layer and
  seed (§3-4), with their per-sentence test scores;
- :mod:`.intervals`: the per-sentence, per-seed arrays behind every interval of a difference
  (§5);
- :mod:`.rules`: the test and the DSpr margin that both parts' claims' rules name.

Nothing is re-exported here: chapters and tests import the module they use.
"""
