"""Reading and storing data.

Treebanks (:mod:`.treebanks`), contextual embeddings (:mod:`.embeddings`), the content-keyed
cache (:mod:`.cache`), probing examples built from treebanks (:mod:`.tasks`), the chapters' saved
results (:mod:`.results`) and where the project lives (:mod:`.project`).

Nothing is re-exported here: import the module you use.
"""
