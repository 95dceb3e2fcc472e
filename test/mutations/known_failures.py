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

KNOWN_FAILURES = [
    # Input: a RayCluster with `spec.headGroupSpec.serviceType: null` (or `rayStartParams:` left empty in YAML).
    # Expected: valid. Since 1.20 the apiserver prunes a null on a field that is not nullable (and applies the
    # default, if any) before validating; the dry run on the 1.20 test apiserver accepts both objects.
    # Got: invalid, schema:type "must be of type string, found null" at that path (schema_set.cpp only admits null
    # where `nullable: true`).
    {"family": r"^schema:nullable$", "note": r"not nullable|empty rayStartParams",
     "reason": "validator rejects null on non-nullable fields; the apiserver prunes such nulls"},
    # Input: a RayCluster with `status: {lastUpdateTime: 5, state: [ready]}`.
    # Expected: valid. RayCluster has the status subresource, so the apiserver drops `status` on create (the dry run
    # accepts the object).
    # Got: invalid, schema:type at status.lastUpdateTime.
    {"family": r"^schema:type$", "note": r"^status with wrong types",
     "reason": "validator validates status, which the apiserver drops on create"},
    # Input: a RayCluster whose spec.headGroupSpec.headService.status.conditions[0].lastTransitionTime is "May 1st"
    # (format: date-time). Expected: invalid at that path; the 1.20 apiserver rejects it ("must be of type
    # date-time"). Got: valid: RapidJSON does not check `format`, and schema_set.cpp does not add the formats.
    {"family": r"^schema:format$", "note": r"date-time",
     "reason": "formats (date-time) are not checked"},
    # Input: a RayCluster with spec.workerGroupSpecs[0].replicas: 2147483648 (format: int32).
    # Expected: invalid. The 1.20 apiserver stores it (it does not check int32 ranges), but KubeRay cannot decode the
    # object into its int32 field, so the cluster is never reconciled (and the informer's list fails).
    # Got: valid, with only the ReplicasWithinBounds warning.
    {"family": r"^schema:format$", "note": r"int32",
     "reason": "int32/int64 ranges of `format` are not checked"},
]
