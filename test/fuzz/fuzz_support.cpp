#include "fuzz_support.hpp"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace cfo::fuzz {

const validation::SchemaSet& upstream_schemas() {
  static const std::unique_ptr<validation::SchemaSet> set = [] {
    const char* dir = std::getenv("UPSTREAM_CRDS");
    if (dir && *dir) {
      auto loaded = validation::SchemaSet::load_dir(std::string(dir) + "/upstream");
      if (loaded) return std::make_unique<validation::SchemaSet>(std::move(*loaded));
      std::fprintf(stderr, "fuzz: cannot load the upstream CRDs: %s\n", loaded.error().message.c_str());
    } else {
      std::fprintf(stderr, "fuzz: UPSTREAM_CRDS is not set; validating without the upstream CRDs\n");
    }
    return std::make_unique<validation::SchemaSet>();
  }();
  return *set;
}

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz: invariant broken: %s\n", what);
  std::abort();
}

}  // namespace cfo::fuzz
