"""Jabberwocky corpora (Hall Maudslay & Cotterell 2021, §3).

Pseudowords, English inflection and feature-matched substitution.

The paper builds an evaluation corpus of "syntactically well-formed but semantically
nonsensical" sentences: it takes the test portion of UD English EWT and substitutes words
*randomly* with pseudowords "whenever we have one available with matching fine-grained
part-of-speech annotation" (footnote 4 lists the annotations). So every eligible word is
replaced (``rate=1.0``), and the randomness is in which pseudoword each word gets. The paper's
pseudowords come from the ARC Nonword Database (Rastle et al. 2002), as filtered by Kharkwal
(2014); its data and code were never released, so this package generates its own pseudowords.
A user who has the ARC list (or any other) can pass it as a file instead.

One module per step, in the order the corpus is built:

- :mod:`.feature_sets`: the fine-grained annotations of footnote 4 a word must carry to be
  replaced, and which set a word has;
- :mod:`.graphotactics`: vowel letters and the onset-nucleus-coda split of a spelling;
- :mod:`.inflection`: the hand-written rules that conjugate a stem into every regular form;
- :mod:`.pseudowords`: generating pronounceable pseudowords, reading a user's list, and
  rejecting real words;
- :mod:`.substitution`: choosing the replacement of every eligible word;
- :mod:`.conllu`: writing the substituted split as CoNLL-U, every other line kept byte for byte;
- :mod:`.treebank`: :func:`~.treebank.make_jabberwocky`, the whole corpus directory and its
  report.

Nothing is re-exported here: chapters and tests import the module they use.
"""
