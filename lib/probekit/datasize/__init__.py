"""Experiments on the data requirements of probing (Zhu et al. 2022, §3-4), on UD treebanks.

The statistics (bounds, recommendations, McNemar, power, collapse checks) live in
:mod:`probekit.power`; the modules of this package build the experiments they are applied to,
one step each:

- :mod:`~probekit.datasize.pools`: the tense and POS tasks and their pooled examples (§4.1);
- :mod:`~probekit.datasize.encoders`: contextual layers and type-level vectors (§4.1);
- :mod:`~probekit.datasize.splits`: stratified subsets with ``train : val : test = eta : 1 : 1``
  (§3.2 step 4, §4.1) and the folds and pilots of the collapse check (§3.6);
- :mod:`~probekit.datasize.logreg`: the batched logistic-regression probe (§4.1);
- :mod:`~probekit.datasize.runs`: every configuration over subset sizes x seeds (§4.2-4.6);
- :mod:`~probekit.datasize.bounds`: the generalisation bound and the paper's numbers (§3.4);
- :mod:`~probekit.datasize.comparisons`: recommendations, McNemar and power per comparison
  (§3.5, §4.4-4.6);
- :mod:`~probekit.datasize.collapse`: collapsed comparisons (§3.6);
- :mod:`~probekit.datasize.figures`: the figures (Figs. 2-6).
"""
