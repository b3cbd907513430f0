"""Experiments on the data requirements of probing (Zhu et al. 2022, §3-4), on UD treebanks.

The statistics (bounds, recommendations, McNemar, power, collapse checks) live in
:mod:`probekit.stats`; the modules of this package build the experiments they are applied to,
one step each:

- :mod:`~probekit.methods.datasize.pools`: the tense and POS tasks and their pooled examples (§4.1);
- :mod:`~probekit.experiments.part5_datasize.encoders`: contextual layers and type-level vectors (§4.1);
- :mod:`~probekit.methods.datasize.subsets`: stratified subsets with ``train : val : test = eta : 1 : 1``
  (§3.2 step 4, §4.1) and the folds and pilots of the collapse check (§3.6);
- :mod:`~probekit.probes.softmax`: the batched logistic-regression probe (§4.1);
- :mod:`~probekit.experiments.part5_datasize.runs`: every configuration over subset sizes x seeds (§4.2-4.6);
- :mod:`~probekit.experiments.part5_datasize.bound_tables`: the generalisation bound and the paper's numbers (§3.4);
- :mod:`~probekit.experiments.part5_datasize.comparisons`: recommendations, McNemar and power per comparison
  (§3.5, §4.4-4.6);
- :mod:`~probekit.experiments.part5_datasize.collapse_checks`: collapsed comparisons (§3.6);
- :mod:`~probekit.experiments.part5_datasize.figures`: the figures (Figs. 2-6).
"""
