"""Data requirements and statistical power of probing comparisons (Zhu et al. 2022).

Zhu, Wang, Rudzicz (2022), "On the data requirements of probing" gives a recipe for
*comparison problems*: two probing configurations A and B evaluated on the same items. One
module per step of it:

- :mod:`~probekit.power.bounds`: generalisation bounds (§3.3, eq. 1-3, Theorems 1 and 3) and
  their inverse, the training-set size for a given excess risk (§3.4);
- :mod:`~probekit.power.recommendation`: the recommendation procedure (§3.2): ``epsilon =
  |R1 - R2| / 2`` and the sizes of an ``eta : 1 : 1`` split;
- :mod:`~probekit.power.mcnemar`: McNemar's test on paired predictions (§3.5, Table 1), exact
  and chi-squared;
- :mod:`~probekit.power.simulation`: power by parametric simulation (§3.5, after Card et al.
  2020), with Type-M and Type-S errors;
- :mod:`~probekit.power.collapse`: collapse checks (§3.6), repeated subsampling and the
  rotation of 6 folds;
- :mod:`~probekit.power.comparison`: :func:`~probekit.power.comparison.compare`, the one call
  every chapter of the book uses to compare two configurations;
- :mod:`~probekit.power.checks`: the argument checks the others share.

A 2x2 table follows the paper's Table 1 (rows A, columns B, each incorrect then correct) and an
effect is ``acc_a - acc_b`` (see :mod:`~probekit.power.mcnemar`).

Nothing is re-exported here: chapters and tests import the module they use.
"""
