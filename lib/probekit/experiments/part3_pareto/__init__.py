"""Part III, Pareto probing (Pimentel et al. 2020): the experiments of the paper.

They are wired from data, representations and probes for chapters 31 to 34. The science lives in
:mod:`probekit.methods.pareto` (frontier, hypervolume, controls, lookups) and in the probes
(:mod:`probekit.probes.linear`, :mod:`probekit.probes.biaffine`).

One module per job, in the paper's order:

- :mod:`.config`: the chapters' typed configurations, checked before anything runs.
- :mod:`.representations`: splits, POSL/DAL examples and the four representations (§6).
- :mod:`.experimental_setup`: the set-up chapters 32 to 34 share, built from a configuration (§6).
- :mod:`.runs`: :class:`~.runs.ParetoRun`, the (complexity, accuracy) points of one run and
  which test items each probe got right (§3).
- :mod:`.frontiers`: hypervolumes, frontier leaders and simple probes against the best (§3).
- :mod:`.parametric`: linear probes under the nuclear norm and the rank (§4.1, §6.1).
- :mod:`.parametric_experiment`: chapter 32, every setting of those probes and its readings.
- :mod:`.memorisation`: random MLPs with label- and fully-shuffled controls (§5, §6.2).
- :mod:`.memorisation_experiment`: chapter 33, the MLPs on POSL and DAL and their readings.
- :mod:`.toy_tasks`: lookup baselines and label entropies (§7.1, appendix B).
- :mod:`.parsing`: biaffine parsing probes (§7.2, appendices A and C).
- :mod:`.parsing_experiment`: chapter 34, the parsers and their readings.
- :mod:`.resampling`: sentence bootstraps of frontier statistics (hypervolume leads, best
  accuracies), resampling all probes' per-sentence scores together.
- :mod:`.claims`: the paper's claims (III.1 to III.6), each with its rule and the function that
  computes its interval from the runs; the chapters and the claims ledger judge them alike.
- :mod:`.figures`: Pareto curves (Figs. 1 to 9), the toy tasks' figures and the contextual leads
  that chapter 35 sets side by side (§7.2).
- :mod:`.paper`: the paper's reported numbers.
- :mod:`.layer_choice`: the contextual layer chosen on development UAS (chapter 34).
- :mod:`.ceiling`: chapter 34's converged ceiling, measured outside the book and kept as a record
  with the digest of its code, shown by the chapter when its set-up matches.

Nothing is re-exported here: chapters and tests import the module they use.
"""
