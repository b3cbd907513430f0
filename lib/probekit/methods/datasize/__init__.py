"""The data requirements of probing (Zhu et al. 2022).

Its modules:

- :mod:`.pools`: the tense and POS tasks rebuilt from UD, and their example pools (§4.1);
- :mod:`.subsets`: stratified subsets with ``train : val : test = eta : 1 : 1`` (§3.2 step 4,
  §4.1) and the folds and pilots of the collapse check (§3.6);
- :mod:`.recommendation`: the recommendation procedure (§3.2, §3.4);
- :mod:`.collapse`: collapse checks (§3.6), repeated subsampling and the rotation of 6 folds;
- :mod:`.intervals`: intervals over test sentences and seeds when every seed draws its own
  subset (§4.1), the design of the paper's experiments.
"""
