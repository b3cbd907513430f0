"""Pareto probing (Pimentel et al. 2020): frontiers, controls, lookups, entropies, architectures.

The modules, by section of the paper:

- §3: :mod:`.frontier`, the Pareto frontier and its hypervolume;
- §5 and §7.2: :mod:`.controls`, the shuffled controls;
- appendix B: :mod:`.lookups`, the dictionary-lookup baselines;
- §7.1: :mod:`.entropy`, label entropies;
- §6.2: :mod:`.architectures`, the random MLP architectures.

The probes themselves (nuclear-norm and rank-constrained linear probes, MLP stacks, the
biaffine parser) are in :mod:`probekit.probes`; the non-contextual representations in
:mod:`probekit.representations`. The released code (rycolab/pareto-probing) has no frontier,
hypervolume or lookup code; those follow the paper's text.
"""
