"""Course assignments: the checks students run, and the student-copy writer.

The assignment notebooks ``notebooks/A<k>_<slug>.py`` ask students to implement one piece of a
paper's method each. After every task the student calls a ``check_*`` function of this package
with their function. A check draws seeded random cases, computes the answer with the library's
reference implementation (``probekit.trees``, ``probekit.methods.jabberwocky``,
``probekit.methods.pareto``, ``probekit.methods.extrapolation``, ``probekit.stats``,
``probekit.methods.mdl``) and compares (:mod:`.runner`).

One module per assignment holds its checks and the reference helpers its notebook uses:

- :mod:`.a1_tree_metrics`: A1, Hall Maudslay et al. 2020.
- :mod:`.a2_jabberwocky_inflection`: A2, Hall Maudslay & Cotterell 2021.
- :mod:`.a3_pareto_hypervolume`: A3, Pimentel et al. 2020.
- :mod:`.a4_extrapolation_split`: A4, Kunz & Kuhlmann 2021.
- :mod:`.a5_mcnemar_power`: A5, Zhu et al. 2022.
- :mod:`.a6_online_code`: A6, Voita & Titov 2020.

:mod:`.student_copy` writes the student copies (``probekit assignments --student OUT``). The
notebooks import everything from the package, ``from probekit import teaching``.

Grading: each module declares the points of its tasks (``POINTS``, ``TASKS``; all of them in
:mod:`.catalogue`). :mod:`.grading` grades a class's submissions (``probekit assignments
--grade SUBMISSIONS --out RESULTS``), one module per step:

- :mod:`.submissions`: finding the submissions (and the files that are not graded, and why),
  and every student's recorded seed;
- :mod:`.checking`: grading one submission: its cells and functions in a sandbox, each task's
  check in the grader, calling the function across the sandbox's wall;
- :mod:`.sandbox`: the bubblewrap sandbox and the grader's handle on its process;
  :mod:`.worker`: the process inside it; :mod:`.codec`: the plain data they exchange;
- :mod:`.references`: the sandbox's copy of probekit without the reference implementations,
  and the static check for a submission that uses one; :mod:`.cells` reads a notebook and
  picks the cells to run;
- :mod:`.grades`: the grade of each task and its status;
- :mod:`.reports`: the result files, the summary and the students' feedback.

:mod:`.otter_export` exports the assignments for otter-grader (``probekit assignments --otter
OUT``).
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
from probekit.teaching.a6_online_code import (
    block_probabilities,
    check_block_bits,
    check_block_ends,
    check_online_codelength,
)
from probekit.teaching.catalogue import ASSIGNMENT_TASKS, tasks_of
from probekit.teaching.grading import grade_submissions
from probekit.teaching.otter_export import export_otter, otter_master
from probekit.teaching.reports import summarise, summary_table
from probekit.teaching.runner import GradedTask
from probekit.teaching.student_copy import (
    ANSWER_PLACEHOLDER,
    SOLUTION_BEGIN,
    SOLUTION_END,
    assignment_notebooks,
    student_source,
    write_student_copies,
)
from probekit.teaching.submissions import find_submissions, read_seeds, student_seed

__all__ = [
    "ANSWER_PLACEHOLDER",
    "ASSIGNMENT_TASKS",
    "GradedTask",
    "SOLUTION_BEGIN",
    "SOLUTION_END",
    "assignment_notebooks",
    "block_probabilities",
    "check_add_degree",
    "check_add_ing",
    "check_add_s",
    "check_block_bits",
    "check_block_ends",
    "check_extrapolation_split",
    "check_frequency_score",
    "check_hypervolume",
    "check_mcnemar",
    "check_online_codelength",
    "check_pareto_frontier",
    "check_percentile",
    "check_perceptron_loss",
    "check_power",
    "check_prim",
    "check_uuas",
    "exact_power",
    "export_otter",
    "find_submissions",
    "frequency_score",
    "grade_submissions",
    "lookup_family",
    "otter_master",
    "read_seeds",
    "rule_coverage",
    "student_seed",
    "student_source",
    "summarise",
    "summary_table",
    "tasks_of",
    "write_student_copies",
]
