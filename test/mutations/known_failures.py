"""Mutations whose verdict the validator currently gets wrong: validator bugs found by the corpus, each reported to
the lead with input, expected and actual verdict. A listed mutation that fails is counted as a known failure and
does not fail the test; an entry that no longer matches any failing mutation DOES fail the test, so that the entry
is removed together with the fix.

Each entry matches mutations by regular expressions on their fields (all given fields must match):
  base    the base id (e.g. "up.kuberay_ray-cluster.complete.0-RayCluster")
  family  the family (e.g. "schema:nullable")
  path    the expected path ("" when none)
  note    the description of the change
and says why it fails ("reason").
"""

# Empty: the four validator bugs the corpus found (nulls on non-nullable fields, status on kinds with the status
# subresource, format date-time, int32/int64 ranges) are fixed; see schema_nulls, schema_formats and schema_set.
KNOWN_FAILURES = []
