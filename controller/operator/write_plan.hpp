#pragma once
// Decide, then do: what one reconcile writes, decided as a pure function of what workload::reconcile returned and
// what was observed (the plan), separate from carrying it out (plan_executor.hpp).
#include <array>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "client/rest_client.hpp"
#include "core/json.hpp"
#include "operator/resources.hpp"
#include "workload/reconcile.hpp"

namespace cfo::op {

/// What sits at the name of the desired top-level child when the cache does not show it as ours: nothing (or ours
/// after all), an object controlled by another owner, or one without a controller.
struct ChildHolder {
  /// kEarlierWorkload: controlled by a CodeFlareWorkload of the child's name with another uid, i.e. a workload deleted
  /// and made again under the same name before the garbage collector removed the old one's children.
  enum class Kind { kNone, kOtherController, kNoController, kEarlierWorkload };
  Kind kind = Kind::kNone;
  std::string controller_kind;  ///< for kOtherController
  std::string controller_name;
};

/// What the controller observed before deciding.
struct Observation {
  /// The cached child of each kind under the workload's key (nullptr when absent), indexed by ChildKind.
  std::array<const json::Value*, kChildKindCount> cached{};
  /// Whether each cached child is controlled by this workload (a controller owner reference with its uid).
  std::array<bool, kChildKindCount> controlled{};
  /// The index in each cached child's metadata.managedFields of the entry our field manager holds with operation
  /// "Update" (the child was created by our POST: see Write), or -1 when there is none.
  std::array<int, kChildKindCount> update_entry{-1, -1, -1};
  /// Whether each cached child is one whose DELETE we sent and whose deletion the cache does not show yet
  /// (deletions_sent.hpp): it is going, as if it had a metadata.deletionTimestamp.
  std::array<bool, kChildKindCount> deletion_sent{};
  /// Who holds the desired top-level child's name, when the cache does not show it as ours.
  ChildHolder holder;
  /// The workload carries workload::kLocalQueueFinalizer.
  bool has_finalizer = false;
  /// The Kueue API version served ("" when Kueue is not installed).
  std::string kueue_version;
};

/// A child to remove.
struct Removal {
  ChildKind kind;
  std::string name;
};

/// An object to apply (or to send to the dry-run gate first).
struct Write {
  const json::Document* object;  ///< points into the Outcome the plan was made from
  client::ResourceType type;
  std::string kind;
  std::string name;
  /// The object is cached already: it is updated by a server-side apply. Otherwise it is created by a POST (with our
  /// field manager), which costs the apiserver about 1.5 ms less than a server-side apply that creates (issue 11),
  /// and never takes over an object of that name that the cache does not show (409: judged again once it does).
  bool exists = false;
  /// Set for an update of a child whose managedFields entry at this index is ours with operation "Update" (the
  /// POST that created it): that entry is turned into an "Apply" entry first (JSON patch with `test`s), so that our
  /// applies own every field the POST wrote and a field later left out of the desired object is removed. -1: none.
  int upgrade_entry = -1;
  /// Created (POST), never applied: the object must not exist yet. A managed LocalQueue that the cache does not show
  /// may still exist (the cache re-listing, or created meanwhile): an apply would take it over, label it as managed
  /// and so delete it with the workload, or even move it to another ClusterQueue (the seventeenth user trial).
  bool create_only = false;
};

// ---- what keeps a reconcile from applying its objects -------------------------------------------------------
/// The desired child's name is taken by an object this workload does not control: it is never taken over.
struct ChildConflict {
  std::string kind, name;
  ChildHolder holder;
};
/// spec.job or spec.appWrapper changed the kind of the top-level child: the child of the old kind this workload
/// controls is removed first (for an AppWrapper, the RayCluster it holds goes with it), and the child of the new kind
/// created once it is gone, never beside it (the twenty-fourth and twenty-fifth user trials: created beside an old
/// child held by a finalizer, in the same queue).
struct HandOver {
  Removal old_child;
  /// The old child is on its way out already (metadata.deletionTimestamp, or our DELETE sent): waited for, not
  /// deleted nor told again.
  bool already_going = false;
};
/// The child cannot be updated in place (changed AppWrapper components, a finished RayJob run again, or one still
/// being deleted): it is removed first and created anew once it is gone.
struct Replacement {
  Removal child;
  /// The child is on its way out already (metadata.deletionTimestamp: a deletion of ours, someone's, or its CRD's; or
  /// our DELETE sent, the cache not showing it yet):
  /// it is waited for, not deleted again nor announced as a replacement.
  bool already_going = false;
};
using Blocker = std::variant<ChildConflict, HandOver, Replacement>;

/// Everything one reconcile writes, in the order it is carried out:
///  0. `confirm_local_queue` is read live (one GET); unless it is still the managed LocalQueue the cache shows,
///     nothing else happens;
///  1. with `dry_run`, each of `writes` is sent with dryRun=All: only where a refusal would otherwise come after a
///     write or a removal (several writes, the finalizer, a Replacement); a single apply is its own gate;
///  2. a HandOver or a Replacement removes its object; a blocker then stops steps 3, 4 and 6;
///  3. the finalizer is added (`add_finalizer`) before the LocalQueue it guards is created;
///  4. `writes` are created (POST) or applied (server-side apply; after an upgrade_entry's patch);
///  5. `stale` children of the other kinds are removed (only when nothing blocked the writes: a HandOver removed its
///     child in step 2 already);
///  6. `release_local_queue` is deleted when no other workload uses it;
///  7. with `drop_finalizer`, the managed LocalQueue is cleaned up and the finalizer removed.
struct Plan {
  std::optional<Blocker> blocker;
  /// The kind of the desired top-level child (std::nullopt when none is desired, e.g. an invalid spec).
  std::optional<ChildKind> top;
  std::vector<Write> writes;
  bool dry_run = false;
  /// The server-side gate is on (--server-dry-run): a refusal of the first write (nothing written before it) is the
  /// gate's verdict (ServerRejected), whether the dry run was sent or the apply stood in for it.
  bool gated = false;
  bool add_finalizer = false;
  std::vector<Removal> stale;
  std::string release_local_queue;
  /// The managed LocalQueue read live before anything is written (Outcome::confirm_local_queue), when the top-level
  /// child is written; empty name when none.
  workload::LocalQueueCheck confirm_local_queue;
  bool drop_finalizer = false;
  /// A desired object of a kind the operator has no resource type for (a bug): nothing is written.
  std::string unknown_kind;
};

/// Decides the plan for the workload `name` (its children share its name) from `outcome` and `seen`. Pure. Writes skip
/// a child that already has all the desired fields (workload::is_applied, unless it is replaced): an unchanged apply
/// would still wake the workload again through the child's watch. `server_dry_run` asks for the dry-run gate.
Plan decide(const workload::Outcome& outcome, const Observation& seen, const std::string& name, bool server_dry_run);

/// Who holds an object that is not controlled by the workload with `uid` (nullptr: absent).
ChildHolder holder_of(const json::Value* obj, const std::string& uid);

/// "is controlled by <Kind> <name>" / "has no controller", for messages.
std::string describe(const ChildHolder& holder);

}  // namespace cfo::op
