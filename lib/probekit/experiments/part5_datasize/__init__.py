"""Part V: the data requirements of probing (Zhu et al. 2022), chapters 51-53, on UD treebanks.

The statistics (bounds, McNemar, power) live in :mod:`probekit.stats`, the paper's method (task
pools, subsets, the recommendation, collapse checks) in :mod:`probekit.methods.datasize`; the
modules of this package wire them into the chapters, one job each:

- :mod:`.config`: the chapters' typed configurations, built from their parameters;
- :mod:`.data`: the treebank, its word vectors and the tense task on it (§4.1);
- :mod:`.encoders`: contextual layers and type-level vectors as probe inputs (§4.1);
- :mod:`.training`: probing configurations and their batched training (§4.1);
- :mod:`.runs`: every configuration over subset sizes x seeds (§4.2-4.6);
- :mod:`.requirements`: parameter counts and the training sizes the bound asks for (§3.3-3.4);
- :mod:`.paper_numbers`: the paper's worked example and Tables 2-4 recomputed (§3.4);
- :mod:`.comparisons`: recommendation, McNemar and power of one comparison per size (§3.2, §3.5);
- :mod:`.bound_tables`: the bound against the spread over seeds, chapter 51 (§4.2, Fig. 2);
- :mod:`.noise`: power against noisy representations, chapter 52 (§4.3, Fig. 3);
- :mod:`.comparison_problems`: the three comparisons of chapter 53 (§4.4-4.6);
- :mod:`.assessment`: the recipe checked on those comparisons (§4.4-4.6);
- :mod:`.collapse_checks`: collapsed comparisons (§3.6, §4.6);
- :mod:`.claims`: the paper's claims, their rules and the intervals that judge them;
- :mod:`.figures`: the figures (Figs. 2-6).
"""
