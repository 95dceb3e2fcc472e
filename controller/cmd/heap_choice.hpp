#pragma once
// Which command lines run with the offline heap (core/offline_heap.hpp): the short ones that allocate much and exit.

namespace cfo::cmd {

/// True for `render ...` and `validate ...` (argv[1]); false for `run` (a long-lived process: whole huge pages would
/// inflate its resident memory), `help`, `version` and a bare command line.
bool wants_offline_heap(int argc, char** argv);

}  // namespace cfo::cmd
