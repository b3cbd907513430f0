"""Course assignments: the checks students run, and the student-copy writer.

The assignment notebooks ``notebooks/A<k>_<slug>.py`` ask students to implement one piece of a
paper's method each. After every task the student calls a ``check_*`` function of this package
with their function. A check draws seeded random cases, computes the answer with the library's
reference implementation (``probekit.trees``, ``probekit.methods.jabberwocky``,
``probekit.methods.pareto``, ``probekit.methods.extrapolation``, ``probekit.stats``) and compares
(:mod:`.runner`).

One module per assignment holds its checks and the reference helpers its notebook uses:

- :mod:`.a1_tree_metrics`: A1, Hall Maudslay et al. 2020.
- :mod:`.a2_jabberwocky_inflection`: A2, Hall Maudslay & Cotterell 2021.
- :mod:`.a3_pareto_hypervolume`: A3, Pimentel et al. 2020.
- :mod:`.a4_extrapolation_split`: A4, Kunz & Kuhlmann 2021.
- :mod:`.a5_mcnemar_power`: A5, Zhu et al. 2022.

:mod:`.student_copy` writes the student copies (``probekit assignments --student OUT``). The
notebooks import everything from the package, ``from probekit import teaching``.
"""

from __future__ import annotations

from probekit.teaching.a1_tree_metrics import check_perceptron_loss, check_prim, check_uuas
from probekit.teaching.a2_jabberwocky_inflection import (
    check_add_degree,
    check_add_ing,
    check_add_s,
    rule_coverage,
)
from probekit.teaching.a3_pareto_hypervolume import (
    check_hypervolume,
    check_pareto_frontier,
    lookup_family,
)
from probekit.teaching.a4_extrapolation_split import (
    check_extrapolation_split,
    check_frequency_score,
    check_percentile,
    frequency_score,
)
from probekit.teaching.a5_mcnemar_power import check_mcnemar, check_power, exact_power
from probekit.teaching.student_copy import (
    ANSWER_PLACEHOLDER,
    SOLUTION_BEGIN,
    SOLUTION_END,
    assignment_notebooks,
    student_source,
    write_student_copies,
)

__all__ = [
    "ANSWER_PLACEHOLDER",
    "SOLUTION_BEGIN",
    "SOLUTION_END",
    "assignment_notebooks",
    "check_add_degree",
    "check_add_ing",
    "check_add_s",
    "check_extrapolation_split",
    "check_frequency_score",
    "check_hypervolume",
    "check_mcnemar",
    "check_pareto_frontier",
    "check_percentile",
    "check_perceptron_loss",
    "check_power",
    "check_prim",
    "check_uuas",
    "exact_power",
    "frequency_score",
    "lookup_family",
    "rule_coverage",
    "student_source",
    "write_student_copies",
]
