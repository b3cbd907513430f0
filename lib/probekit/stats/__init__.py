"""Statistics shared by every comparison in the book.

- :mod:`.bootstrap`: the paired bootstrap over sentences;
- :mod:`.mcnemar`: McNemar's test on paired predictions (Zhu et al. 2022, §3.5, Table 1),
  exact and chi-squared;
- :mod:`.power`: power of McNemar's test by parametric simulation (Zhu et al. 2022, §3.5,
  after Card et al. 2020), with Type-M and Type-S errors;
- :mod:`.bounds`: generalisation bounds of a finite probe class and their inverse (Zhu et al.
  2022, §3.3-3.4);
- :mod:`.comparison`: :func:`~probekit.stats.comparison.compare`, the McNemar comparison of
  two configurations that chapters report;
- :mod:`.checks`: the argument checks the others share.

A 2x2 table follows Zhu et al.'s Table 1 (rows A, columns B, each incorrect then correct) and
an effect is ``acc_a - acc_b``. Nothing is re-exported here: import the module you use.
"""
