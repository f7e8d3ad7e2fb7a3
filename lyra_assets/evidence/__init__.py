"""The `evidence` group: claims taken from the task's fragments (``claims``), the edges that judge
them and their scores (``judging``), their topics (``topics``), the question's answer (``answer``)
and the cross-domain check of every edge (``verification``)."""
