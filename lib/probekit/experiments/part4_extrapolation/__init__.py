"""Part IV, "Test Harder than You Train" (Kunz & Kuhlmann 2021): the experiments of chapters 41-44.

They are wired from the scoring functions and splits of :mod:`probekit.methods.extrapolation`
and the batched MLP trainer of :mod:`probekit.probes.mlp_batched`.

One module per job, in the paper's order:

- :mod:`.config`: the chapters' typed configurations, built from their parameters;
- :mod:`.sample`: the one sentence sample S_train, S_test, its tasks T1/T2 and probe inputs (§3.3);
- :mod:`.scoring`: hardness scores per split, static or from a cached probe ensemble (§3.4);
- :mod:`.splits`: the splits of each task and chapter, with their setups (§3.5-3.6);
- :mod:`.runs`: the probes of every split, layer, seed and setup in one batched pass (§3.6);
- :mod:`.tables`: accuracies, gaps, split points, set sizes and example items (§3.5-3.6, §4);
- :mod:`.figures`: score distributions and accuracy per layer and setup (Figs. 1-5);
- :mod:`.survey`: chapter 41, every scoring function and its split on one sample (§3.3-3.5);
- :mod:`.criteria`: chapters 42-44, from a configuration to the probes and tables (§3-4);
- :mod:`.comparisons`: setups compared on the same hard items, per sentence and seed;
- :mod:`.summaries`: the descriptive numbers of chapters 42-44 (§4);
- :mod:`.claims`: the paper's claims that chapters 42-44 judge, their rules and intervals (§4);
- :mod:`.part_gaps`: the gap of every scoring function across the chapters (§5.1).

Nothing is re-exported here: chapters and tests import the module they use.
"""
