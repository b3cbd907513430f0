"""One package per part of the book: the chapters' experiments, wired from the methods and the core.

A chapter notebook calls one entry of its part per step and displays the result.
No part imports another: what two parts share lives beside them, in a package or module of
its own.

- :mod:`.foundations`: chapter 01, data and representations;
- :mod:`.part1_probe_parser`: Part I, Hall Maudslay et al. 2020 (chapters 11-12);
- :mod:`.part2_jabberwocky`: Part II, Hall Maudslay & Cotterell 2021 (chapters 21-22);
- :mod:`.tree_probing`: the structural probe and the parser, trained, scored and compared as
  Parts I and II share them;
- :mod:`.part3_pareto`: Part III, Pimentel et al. 2020 (chapters 31-34);
- :mod:`.part4_extrapolation`: Part IV, Kunz & Kuhlmann 2021 (chapters 41-44);
- :mod:`.part5_datasize`: Part V, Zhu et al. 2022 (chapters 51-53);
- :mod:`.plots`: the one figure style and the figure helpers the parts share.
"""
