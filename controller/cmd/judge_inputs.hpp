#pragma once
// The judging step of `validate`: every document read from the manifests, checked as a real cluster would.
#include <optional>
#include <string>
#include <vector>

#include "cmd/closed_sets.hpp"
#include "cmd/input_files.hpp"
#include "cmd/offline_inputs.hpp"
#include "core/field_error.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"

namespace cfo::cmd {

/// The verdicts on a list of input documents, index for index.
struct Judged {
  std::vector<FieldErrors> findings;                ///< per input: its findings (its reading problems, if any)
  std::vector<std::optional<std::string>> skipped;  ///< per input: why it is not checked (no schema for its group)
  /// per input: of an API group a schema covers, but of a version or kind none serves (ray.io/v2, a misspelt kind, a
  /// codeflare.dev object other than a v1alpha1 CodeFlareWorkload); its findings say so (schema:unknownKind).
  std::vector<bool> unknown_kind;
  std::size_t judged_count = 0;   ///< inputs checked
  std::size_t skipped_count = 0;  ///< inputs skipped
  /// per input: what its workload expanded to (judge_closed_set's GeneratedObjects), kept only when asked for.
  std::vector<GeneratedObjects> generated;
};

/// Judges `inputs` (as read by documents_of_text / read_inputs). `set_of` gives each input's closed set
/// (closed_sets.hpp; same size as `inputs`): the documents of one set are judged together by judge_closed_set
/// (references between them, admissibility of queued jobs). CodeFlareWorkloads are judged by their expansion
/// (workload::reconcile with `expansion`, at time `now`, RFC 3339), whose objects join their set; one without a
/// namespace gets `default_namespace` (written into its entry). Entries with a problem found while reading have that
/// as their findings; objects of an API group none of `apis` (every CRD found) covers are skipped (a v1 Namespace
/// still lends its labels to its set). With `keep_generated`, Judged::generated holds each workload's objects (for
/// render).
Judged judge_inputs(std::vector<InputDocument>& inputs, const std::vector<std::size_t>& set_of,
                    const validation::SchemaSet& schemas, const CheckedApis& apis, const Expansion& expansion,
                    const std::string& default_namespace, const std::string& now, bool keep_generated = false);

}  // namespace cfo::cmd
