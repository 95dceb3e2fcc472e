#pragma once
// The judging step of `validate`: every document read from the manifests, checked as a real cluster would.
#include <optional>
#include <string>
#include <vector>

#include "cmd/input_files.hpp"
#include "core/field_error.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"

namespace cfo::cmd {

/// The verdicts on a list of input documents, index for index.
struct Judged {
  std::vector<FieldErrors> findings;                 ///< per input: its findings (its reading problems, if any)
  std::vector<std::optional<std::string>> skipped;  ///< per input: why it is not checked (no schema for its group)
  std::size_t judged_count = 0;                      ///< inputs checked
  std::size_t skipped_count = 0;                     ///< inputs skipped
};

/// Judges `inputs` (as read by documents_of_text / read_inputs). The documents of one file are judged together, as a
/// closed set: references between them (a LocalQueue's ClusterQueue, a queue-name label) are checked
/// (validation::validate_set). CodeFlareWorkloads are judged by their expansion (workload::reconcile, at time `now`,
/// RFC 3339), which also validates every object they generate; one without a namespace gets `default_namespace`
/// (written into its entry). Entries with a problem found while reading have that as their findings; objects of an
/// API group no schema covers are skipped.
Judged judge_inputs(std::vector<InputDocument>& inputs, const validation::SchemaSet& schemas,
                    const validation::ClusterProfile& profile, const std::string& default_namespace,
                    const std::string& now);

}  // namespace cfo::cmd
