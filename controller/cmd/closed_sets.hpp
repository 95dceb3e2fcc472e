#pragma once
// `validate`'s closed sets: which inputs are judged together, and the judgement of one set, CodeFlareWorkloads
// (through their expansion) included.
#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "cmd/input_files.hpp"
#include "core/field_error.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"
#include "workload/observed.hpp"

namespace cfo::cmd {

/// The closed set of each entry of `docs` (read from `paths`, the -f arguments): with `one_set` (--set) all are
/// one set; otherwise a folder given with -f is one set (its files and, with -R, its sub-folders' files, as Argo
/// CD applies an Application's path) and every other file (or stdin) is a set of its own. Returns one set number
/// per entry, numbered from 0 in the order sets first appear.
std::vector<std::size_t> closed_sets(const std::vector<InputDocument>& docs, const std::vector<std::string>& paths,
                                     bool one_set);

/// One member of a closed set.
struct SetMember {
  InputDocument* input;   ///< the entry (its `doc` is judged; a CodeFlareWorkload has its namespace already)
  bool workload = false;  ///< a CodeFlareWorkload: judged through workload::reconcile
  bool context = false;   ///< only context for the others (a v1 Namespace): not judged, no findings
};

/// How the CodeFlareWorkloads of a set are expanded offline.
struct Expansion {
  /// The facts every workload starts from (the cluster profile, used for every object of the set; render's
  /// --default-local-queue and --kueue-version). Queue presence is decided per workload (see judge_closed_set).
  workload::ClusterFacts facts;
  /// render: a managed LocalQueue (spec.queue.clusterQueue) is always generated, even when the set holds one of that
  /// name, as render prints what the operator would apply; validate counts the set's own LocalQueue instead.
  bool always_generate_managed_queue = false;
};

/// One object a workload expanded to, in a block sized to it (json::compact_copy).
struct GeneratedObject {
  std::unique_ptr<json::Pool> pool;
  json::Document doc;
};
/// The objects each member's workload expanded to, in the order reconcile gives them (the top-level child last);
/// empty for a member that is not a workload or is invalid. A deque: its objects never move while the set is judged.
using GeneratedObjects = std::deque<GeneratedObject>;

/// Judges one closed set: every object as validation::validate_set judges it (validate_object, the references
/// between objects, the admissibility of queued jobs), and every CodeFlareWorkload by workload::reconcile (with
/// `expansion`), whose generated objects then join the set, so that their references and admissibility are judged
/// too; findings on a generated object are told at the workload's own fields (workload::add_child_findings). A
/// workload whose spec.queue.clusterQueue asks for a managed LocalQueue counts that LocalQueue as part of the set, as
/// `render` prints it. A CodeFlareWorkload given twice gets a RepeatedResource warning
/// (validation::repeated_objects), as the set's other objects do in validate_set. Returns one FieldErrors per member
/// (empty for context members). `now` is RFC 3339. With `keep`, (*keep)[i] receives member i's generated objects
/// (`keep` is resized to members.size()); without, they are let go.
std::vector<FieldErrors> judge_closed_set(const std::vector<SetMember>& members, const validation::SchemaSet& schemas,
                                          const Expansion& expansion, const std::string& now,
                                          std::vector<GeneratedObjects>* keep = nullptr);

}  // namespace cfo::cmd
