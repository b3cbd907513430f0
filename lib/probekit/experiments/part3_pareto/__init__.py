"""Part III, Pareto probing (Pimentel et al. 2020): the experiments of the paper, wired from
data, representations and probes. The science lives in :mod:`probekit.methods.pareto` (frontier,
hypervolume, controls, lookups) and in the probes (:mod:`probekit.probes.linear`,
:mod:`probekit.probes.biaffine`).

One module per job, in the paper's order:

- :mod:`.representations`: splits, POSL/DAL examples and the four representations (§6).
- :mod:`.runs`: :class:`~.runs.ParetoRun`, the (complexity, accuracy) points of one run (§3).
- :mod:`.parametric`: linear probes under the nuclear norm and the rank (§4.1, §6.1).
- :mod:`.mlps`: the random MLP probes and their batched trainer (§6.2).
- :mod:`.memorisation`: label- and fully-shuffled controls as complexity (§5, §6.2).
- :mod:`.parsing`: biaffine parsing probes (§7.2).
- :mod:`.frontiers`: hypervolumes, frontier leaders, verdicts and figures (§3).
- :mod:`.paper`: the paper's reported numbers.
- :mod:`.toy_tasks`: lookup baselines and label entropies (§7.1, appendix B).
- :mod:`.experimental_setup`: the set-up chapters 32 to 34 share.

Nothing is re-exported here: chapters and tests import the module they use.
"""
